/** The rules by name (scripts/rulebook.mjs writes /rules/<lang>/titles.json from the rulebook's headings): a refused
 * order says which rule stopped it in the viewer's language, where the server's own reason is in English. Fetched
 * once per language when the interface is in it; until then (or without a rulebook) a rule has no name here. */
import type { Lang } from "../i18n";

const loaded = new Map<Lang, Record<string, string>>();
const asked = new Map<Lang, Promise<boolean>>();

/** Fetch `lang`'s rule titles; true when this call brought them (the page may redraw with them). */
export function loadRuleTitles(lang: Lang): Promise<boolean> {
  let p = asked.get(lang);
  if (!p) {
    p = (typeof fetch === "function" ? fetch(`/rules/${lang}/titles.json`) : Promise.reject(new Error("no fetch")))
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((titles: unknown) => {
        if (!titles || typeof titles !== "object") return false;
        loaded.set(lang, titles as Record<string, string>);
        return true;
      })
      .catch(() => {
        asked.delete(lang);  // asked again on the next change of language
        return false;
      });
    asked.set(lang, p);
  }
  return p;
}

/** The heading's words of `rule` in `lang`, once fetched; the first of a list ("N-ART-4, D-N-4") that has one. */
export function ruleTitle(rules: string | null | undefined, lang: Lang): string | null {
  const titles = loaded.get(lang);
  if (!titles || !rules) return null;
  for (const rule of rules.split(/[,\s]+/)) if (rule && titles[rule]) return titles[rule];
  return null;
}
