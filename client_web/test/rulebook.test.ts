import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { renderRulebook, ruleIndex, ruleTitles } from "../scripts/rulebook.mjs";

const FIXTURE = resolve(import.meta.dirname, "fixtures/rules");

describe("the rulebook build", () => {
  const chapters = renderRulebook(FIXTURE);

  it("anchors every rule heading by its ID and indexes the chapter that holds it", () => {
    const general = chapters.find((c) => c.lang === "en" && c.chapter === "general")!;
    expect(general.html).toContain('<h3 id="D-GEN-1">');
    expect(general.html).toContain('<h3 id="C-9.8c">');
    expect(general.html).toContain('href="battle.html#N-MORALE-5"');
    expect(ruleIndex(chapters)).toEqual({ en: { "D-GEN-1": "general", "C-9.8c": "general", "N-MORALE-5": "battle" }, ru: { "D-GEN-1": "general" } });
  });

  it("names each rule by its heading's words, in each language", () => {
    const titles = ruleTitles(chapters);
    expect(titles.ru?.["D-GEN-1"]).toBe("Кости");
    expect(Object.keys(titles.en ?? {}).sort()).toEqual(["C-9.8c", "D-GEN-1", "N-MORALE-5"]);
    for (const words of Object.values(titles.en ?? {})) expect(words).not.toMatch(/—|^\s|\s$/);
  });

  it("builds nothing, and fails nothing, without a rulebook", () => {
    expect(renderRulebook(resolve(FIXTURE, "missing"))).toEqual([]);
  });
});
