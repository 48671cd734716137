/** Rule IDs linked to the rulebook (docs/rules, rendered at build time by scripts/rulebook.mjs): the page of the
 * chapter that holds the rule, anchored at it, in the viewer's language (else in English). */
import index from "virtual:rule-index";
import type { Lang } from "../i18n";

const chapters = index as Record<string, Record<string, string>>;

export function ruleHref(rule: string, lang: Lang): string | null {
  for (const l of [lang, "en"]) {
    const chapter = chapters[l]?.[rule];
    if (chapter) return `/rules/${l}/${chapter}.html#${encodeURIComponent(rule)}`;
  }
  return null;
}
