/** English and Russian (the rules' original language), switchable at any time; the choice is remembered. */
import { en, type MessageKey } from "./en";
import { ru } from "./ru";

export type Lang = "en" | "ru";
const tables: Record<Lang, Record<MessageKey, string>> = { en, ru };
const listeners = new Set<() => void>();

function initialLang(): Lang {
  try {
    const saved = globalThis.localStorage?.getItem("lang");
    if (saved === "en" || saved === "ru") return saved;
  } catch {}
  return globalThis.navigator?.language?.startsWith("ru") ? "ru" : "en";
}

let current: Lang = initialLang();

export function lang(): Lang {
  return current;
}

export function setLang(next: Lang): void {
  current = next;
  try {
    globalThis.localStorage?.setItem("lang", next);
  } catch {}
  if (globalThis.document) document.documentElement.lang = next;
  for (const fn of listeners) fn();
}

export function onLangChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = tables[current][key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}

export type { MessageKey };
