import type { Plugin } from "vite";
export const RULE_ID: RegExp;
export interface Chapter { lang: string; chapter: string; title: string; ids: string[]; titles: Record<string, string>; html: string }
export function renderRulebook(dir: string): Chapter[];
export function ruleIndex(chapters: Chapter[]): Record<string, Record<string, string>>;
export function ruleTitles(chapters: Chapter[]): Record<string, Record<string, string>>;
export function rulebook(dir?: string): Plugin;
