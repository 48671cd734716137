/** English and Russian (the rules' original language), switchable at any time; the choice is remembered. */
import { en, type MessageKey } from "./en";
import { ru } from "./ru";
import { RU_NEAR, RU_OF, RU_PROPER, ruUnitName } from "./proper";

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

/** Whether the tables have `key` (for words looked up by what the server sends: a terrain, an arm, a kind). */
export function has(key: string): key is MessageKey {
  return key in en;
}

const plurals = new Map<string, Intl.PluralRules>();
function pluralRules(kind: "cardinal" | "ordinal"): Intl.PluralRules {
  const k = `${current}:${kind}`;
  let rules = plurals.get(k);
  if (!rules) plurals.set(k, (rules = new Intl.PluralRules(current, { type: kind })));
  return rules;
}

/** A count in words with the language's plural rule (`key|one`, `key|few`, `key|many`, `key|other`). */
export function tn(key: string, n: number, params: Record<string, string | number> = {}): string {
  const form = `${key}|${pluralRules("cardinal").select(n)}`;
  const k = has(form) ? form : `${key}|other`;
  return has(k) ? t(k, { n: formatNumber(n), ...params }) : `${n}`;
}

/** `n` as this language writes a number ("0.65", «0,65»), to `digits` decimals at most. */
export function formatNumber(n: number, digits = 1): string {
  return new Intl.NumberFormat(current, { maximumFractionDigits: digits }).format(n);
}

/** 1st, 2nd, 3rd, 4th … in English (other languages write the ordinal in their own templates). */
export function ordinal(n: number): string {
  const suffix: Record<string, string> = { one: "st", two: "nd", few: "rd", other: "th" };
  return `${n}${suffix[new Intl.PluralRules("en", { type: "ordinal" }).select(n)] ?? "th"}`;
}

/** A proper name (a place, an army, a general, a Continental War counter) as this language writes it. */
export function proper(name: string): string {
  return current === "ru" ? RU_PROPER[name] ?? ruUnitName(name) ?? name : name;
}

/** A battle (or a storm) named by its place as the language says it: "Battle of Leipzig", «Сражение под
 * Лейпцигом», «Штурм Дрездена»; a place without its Russian case forms reads «Сражение: X». */
/** N-SIEGE-5: a campaign battle of kind `storm` (server/napoleonic/campaign/battles.py; `siege` in older records) is a
 * storm, named so ("Storm of Dresden"), not a battle. */
export const isStormKind = (kind: string): boolean => kind === "storm" || kind === "siege";

export function battleOf(place: string, storm = false): string {
  const declined = current === "ru" ? (storm ? RU_OF : RU_NEAR)[place] : undefined;
  if (declined) return t(storm ? "room.storm.at" : "room.battle.at", { place: declined });
  return t(storm ? "room.storm.of" : "room.battle.of", { place: proper(place) });
}

/** An offer's words with its proper names (armies, places, generals) in this language. */
export function properArgs(args: Record<string, string | number> | undefined): Record<string, string | number> | undefined {
  return args && Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? proper(v) : v]));
}

/** Several things in a sentence: "Red and Blue", «Красные и Синие». */
export function listWords(items: readonly string[]): string {
  return new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(items);
}

export type { MessageKey };
