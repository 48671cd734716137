import { describe, expect, it } from "vitest";
import { en } from "./en";
import { setLang, t } from "./index";
import { ru } from "./ru";

describe("i18n", () => {
  it("has a Russian text for every English key, with the same placeholders", () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(names(ru[key]), key).toEqual(names(en[key]));
    }
  });

  it("switches language and fills placeholders", () => {
    setLang("ru");
    expect(t("game.turn", { n: 3 })).toBe("Ход 3");
    setLang("en");
    expect(t("game.turn", { n: 3 })).toBe("Turn 3");
  });
});
