import { describe, expect, it } from "vitest";
import { en } from "./en";
import { formatNumber, proper, setLang, t, tn } from "./index";
import { reconAnswer, unitWord } from "./words";
import { ru } from "./ru";

describe("i18n", () => {
  it("has a Russian text for every English key, with the same placeholders", () => {
    // an ordinal is written by the template in Russian ({n}-й), by Intl in English ({ord})
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => (m[1] === "ord" ? "n" : m[1])).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) expect(names(ru[key]), key).toEqual(names(en[key]));
  });

  it("makes a team (a plural in Russian: «Красные») agree with its verb", () => {
    setLang("ru");
    expect(t("nap.siege", { fortress: "Дрезден", besieger: "Красные", garrison: "Синие", phase: "обложена" }))
      .toBe("Дрезден: осаждают Красные, в крепости Синие · обложена");
    expect(t("nap.quick.offered", { by: "Синие" })).toBe("Синие предлагают быстрое разрешение");
    setLang("en");
  });

  it("switches language and fills placeholders", () => {
    setLang("ru");
    expect(t("game.turn", { n: 3 })).toBe("Ход 3");
    setLang("en");
    expect(t("game.turn", { n: 3 })).toBe("Turn 3");
  });

  it("counts with each language's plural rules", () => {
    setLang("ru");
    expect([1, 2, 5, 11, 21, 22].map((n) => tn("n.spectators", n))).toEqual(
      ["1 зритель", "2 зрителя", "5 зрителей", "11 зрителей", "21 зритель", "22 зрителя"]);
    expect(tn("n.players", 4)).toBe("4 игрока");
    setLang("en");
    expect([1, 2].map((n) => tn("n.players", n))).toEqual(["1 player", "2 players"]);
  });

  it("writes the Continental War's counters as the Russian rules abbreviate them (C-T1, C-4.10, C-T5)", () => {
    const names = ["17 RD", "31 CavD", "11 TD", "21 MD", "61 SPD", "41 ATD", "51 AD", "3 RD (reserve)", "17 RD/2 artillery_motor",
      "17 RD (combined)", "1RC HQ", "2A HQ", "Fort Rot", "1. Zug", "III Corps"];
    setLang("ru");
    expect(names.map(proper)).toEqual(["17 с.д.", "31 кав.д.", "11 т.д.", "21 м.д.", "61 сау.д.", "41 пт.д.", "51 а.д.",
      "3 с.д. (резерв)", "17 с.д./2 ап (мот.)", "17 с.д. (сводная)", "штаб 1 с.к.", "штаб 2 А", "Форт Рот", "1. Zug", "III корпус"]);
    expect([unitWord("rifle"), formatNumber(0.65, 3)]).toEqual(["с.п.", "0,65"]);
    setLang("en");
    expect(names.map(proper)).toEqual(names);
    expect([unitWord("artillery_motor"), formatNumber(0.65, 3)]).toEqual(["artillery motor", "0.65"]);
  });

  it("says a reconnaissance answer in words (C-8.3)", () => {
    const answers = ["yes", "no", 3, ["RD", "TD"], ["none"], "unknown", "45-22", { blue: ["Blauburg", "Blaufeld"] }];
    setLang("ru");
    expect(answers.map(reconAnswer)).toEqual(["да", "нет", "3", "с.д., т.д.", "никого", "неизвестно", "45-22", "Синие: Блаубург, Блауфельд"]);
    setLang("en");
    expect(answers.map(reconAnswer)).toEqual(["yes", "no", "3", "RD, TD", "nobody", "unknown", "45-22", "Blue: Blauburg, Blaufeld"]);
  });
});
