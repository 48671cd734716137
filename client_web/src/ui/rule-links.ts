/** Rule IDs as links into the rulebook in the viewer's language (plain text where the rulebook has no such rule). */
import { lang } from "../i18n";
import { ruleHref } from "../rules/links";
import { h } from "./dom";

export function ruleLinks(rules: readonly string[]): (HTMLElement | string)[] {
  return rules.flatMap((rule, i) => {
    const href = ruleHref(rule, lang());
    const node = href ? h("a", { href, target: "_blank", rel: "noopener", class: "rule", "data-rule": rule }, rule) : h("span", { class: "rule" }, rule);
    return i ? [", ", node] : [node];
  });
}
