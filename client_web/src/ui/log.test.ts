import { describe, expect, it } from "vitest";
import { setLang } from "../i18n";
import { describeEvent } from "./log";
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
