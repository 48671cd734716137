import type { Plugin } from "vite";
export function compressDir(dir: string): string[];
export function compress(): Plugin;
