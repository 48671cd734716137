import { describe, expect, it } from "vitest";
import { setLang } from "../i18n";
import { describeEvent, worthTelling } from "./log";
import type { Names } from "./names";

const ev = (kind: string, data: Record<string, unknown>) => ({ t: "ev" as const, room: "b-1-1", seq: 7, at_ms: 0, kind, data });
const names: Names = {
  unit: (id) => ({ "bulow-1": "1st infantry (III Prussian Corps)", "ney-3": "3rd infantry (III Corps)" } as Record<string, string>)[String(id)] ?? String(id),
  army: (id) => String(id) === "bulow" ? "III Prussian Corps" : String(id),
  place: (c) => (Array.isArray(c) && c[0] === 22 ? "Leipzig" : String(c)),
  battle: () => "Battle of Leipzig",
  room: (id) => id,
};

describe("event lines", () => {
  it("tell a die roll with what it needed, by the unit's name, and keep the rule (D-GEN-1)", () => {
    setLang("en");
    expect(describeEvent(ev("roll", { purpose: "dispersal", unit: "bulow-1", need: 2, face: 2, success: true, rule: "N-MORALE-5" }), names))
      .toEqual({ text: "⚄ dispersal (1st infantry (III Prussian Corps)): rolled 2, needed 2 or less — success", rules: ["N-MORALE-5"] });
  });

  it("say what the umpire did to a clock, as a clock time", () => {
    setLang("en");
    expect(describeEvent(ev("clock_adjusted", { team: "blue", delta_ms: 120_000 }), names).text).toBe("The umpire added 2:00 to Blue's clock");
    setLang("ru");
    expect(describeEvent(ev("clock_adjusted", { team: "blue", delta_ms: -60_000 }), names).text).toBe("Посредник снял 1:00 с часов: Синие");
  });

  it("speak Russian with Russian plurals and split several rules", () => {
    setLang("ru");
    const line = describeEvent(ev("army_moved", { army: "bulow", cell: [22, 18], points: 4, rule: "D-NAP-1" }), names);
    expect(line.text).toBe("III Prussian Corps: марш к Leipzig (4 очка)");
    expect(describeEvent(ev("contact", { attacker: "red", defender: "blue", cell: [22, 18], rule: "N-START-1, N-START-3" }), names).rules)
      .toEqual(["N-START-1", "N-START-3"]);
    setLang("en");
  });

  it("read an unknown kind as an event of the game", () => {
    setLang("en");
    expect(describeEvent(ev("weather_turned", { road: "closed" }), names).text).toBe("weather turned");
  });
});

describe("event lines in the game's words (issue 16 §4)", () => {
  it("leave out a turn that only repeats who is to move, and the quiet kinds", () => {
    const events = [ev("turn", { active: ["blue"], ended: "red" }), ev("clock_adjusted", { team: "blue", delta_ms: 60_000 }),
      ev("turn", { active: ["blue"], ended: null }), ev("chat", { text: "hi" }), ev("turn", { active: ["red"], ended: "blue" }),
      ev("turn", { active: ["red"], ended: "red" })];
    expect(worthTelling(events).map((e) => e.kind)).toEqual(["turn", "clock_adjusted", "turn", "turn"]);
  });

  it("say what the general's fate roll decided, not success or failure (N-VICTORY-3)", () => {
    setLang("en");
    expect(describeEvent(ev("roll", { purpose: "general_death", side: "blue", need: 3, face: 6, success: false }), names).text)
      .toBe("⚄ the general's fate (Blue): rolled 6, needed 3 or less — the general lives");
    setLang("ru");
    expect(describeEvent(ev("roll", { purpose: "general_death", side: "blue", need: 3, face: 2, success: true }), names).text)
      .toBe("⚄ судьба генерала (Синие): выпало 2, нужно не больше 3 — генерал погибает");
    setLang("en");
  });

  it("tell the beaten army's retreat, chosen or by default (N-VICTORY-4, D-NAP-3)", () => {
    setLang("en");
    expect(describeEvent(ev("retreat_made", { army: "bulow", team: "red", cell: [22, 18], chosen: true }), names).text)
      .toBe("III Prussian Corps leaves Leipzig in retreat, where its team chose");
    expect(describeEvent(ev("retreat_made", { army: "bulow", team: "red", cell: [22, 18], chosen: false }), names).text)
      .toContain("as the umpire chose");
    setLang("ru");
    expect(describeEvent(ev("army_retreated", { army: "bulow", cell: [22, 18], path: [[22, 18]] }), names).text).toBe("III Prussian Corps: отступление к Leipzig");
    setLang("en");
  });

  it("say a fallen general's lockout in the viewer's language (N-VICTORY-3, D-N-14)", () => {
    setLang("ru");
    expect(describeEvent(ev("secret_module", { action: "sent", player: "blue-2", since_ms: 0, until_ms: 1_200_000, reason: "general Ney killed (22-18)" }), names).text)
      .toBe("Синие, место 2: в секретный модуль на 20:00 — Ней пал в бою (Leipzig)"); // the place by name, not "22,18"
    setLang("en");
    expect(describeEvent(ev("secret_module", { action: "sent", player: "blue-2", since_ms: 0, until_ms: 60_000, reason: "you spoke out of turn" }), names).text)
      .toContain("you spoke out of turn");
  });

  it("list only what the umpire set, without guns for a unit that has none", () => {
    setLang("en");
    expect(describeEvent(ev("adjusted", { unit: "ney-3", morale: 3, loss_tolerance: 6, guns: 0 }), names).text)
      .toBe("The umpire set 3rd infantry (III Corps): morale 3 and loss tolerance 6");
    setLang("ru");
    expect(describeEvent(ev("adjusted", { unit: "ney-3", morale: 3, loss_tolerance: 6, guns: 0 }), names).text)
      .toBe("Посредник изменил: 3rd infantry (III Corps) — боевой дух 3 и запас потерь 6");
    setLang("en");
  });

  it("join teams in a sentence with the language's 'and', and say a short outage without '0:00'", () => {
    setLang("en");
    expect(describeEvent(ev("turn", { active: ["blue", "red"] }), names).text).toBe("Blue and Red to move");
    expect(describeEvent(ev("clock_downtime_skipped", { from: 1000, to: 1400 }), names).text).toBe("The server was down for a moment; no clock was charged for it");
    setLang("ru");
    expect(describeEvent(ev("turn", { active: ["blue", "red"] }), names).text).toBe("Ходят: Синие и Красные");
    setLang("en");
  });
});
