// Replays event by event (the server's patches applied, the timeline's marks) and the after-action report's figures.
import { describe, expect, it } from "vitest";
import { applyPatch, readSteps, Timeline } from "../src/net/replay";
import { afterAction, reportCsv } from "../src/battle/report";

describe("an event replay", () => {
  const body = { steps: [
    { seq: 1, turn: 1, events: [{ seq: 1, kind: "battle_started", data: {} }], state: { turn: 1, units: [{ id: "a", x: 1 }, { id: "b", x: 5 }], phase: 0 } },
    { seq: 3, turn: 1, events: [{ seq: 2, kind: "moved", data: { unit: "a" } }, { seq: 3, kind: "moved", data: { unit: "a" } }],
      patch: { units: { $ids: ["a", "b"], $set: [{ id: "a", x: 3 }] } } },
    { seq: 4, turn: 2, events: [], patch: { turn: 2, $drop: ["phase"] } },
    { seq: 6, turn: 2, events: [{ seq: 5, kind: "fire", data: {} }, { seq: 6, kind: "losses", data: {} }], patch: { units: { $ids: ["b"], $set: [] } } },
  ] };

  it("rebuilds each view from the one before, keeping what did not change", () => {
    const steps = readSteps(body);
    expect(steps.map((s) => s.state.units)).toEqual([
      [{ id: "a", x: 1 }, { id: "b", x: 5 }], [{ id: "a", x: 3 }, { id: "b", x: 5 }], [{ id: "a", x: 3 }, { id: "b", x: 5 }], [{ id: "b", x: 5 }]]);
    expect(steps[2]!.state).not.toHaveProperty("phase");
    expect((steps[1]!.state.units as unknown[])[1]).toBe((steps[0]!.state.units as unknown[])[1]);
    expect(applyPatch({ a: 1, b: 2 }, { b: 3, $drop: ["a"] })).toEqual({ b: 3 });
  });

  it("steps event by event: the view before a command while its events play, after it at its last", () => {
    const tl = new Timeline(readSteps(body));
    expect(tl.length).toBe(6);
    expect(tl.marks.map((m) => [m.step, m.event])).toEqual([[0, 0], [1, 0], [1, 1], [2, -1], [3, 0], [3, 1]]);
    expect(tl.view(1)).toBe(tl.steps[0]!.state);
    expect(tl.view(2)).toBe(tl.steps[1]!.state);
    expect(tl.event(3)).toBeNull();
    expect(tl.events().map((e) => e.seq)).toEqual([1, 2, 3, 5, 6]);
  });

  it("steps turn by turn", () => {
    const tl = new Timeline(readSteps(body));
    expect(tl.nextTurn(0)).toBe(3);
    expect(tl.nextTurn(4)).toBe(5);
    expect(tl.previousTurn(5)).toBe(0);
  });
});

describe("the after-action report", () => {
  const first = { turn: 1, sides: [{ name: "red", general: "Ney" }, { name: "blue", general: "Blücher" }],
    units: [{ id: "r1", side: "red", type: "infantry", loss_tolerance: 10 }, { id: "r2", side: "red", type: "foot_artillery", guns: 4 },
      { id: "b1", side: "blue", type: "infantry", loss_tolerance: 10 }, { id: "b2", side: "blue", type: "light_cavalry", loss_tolerance: 4 }] };
  const ev = (seq: number, kind: string, data: Record<string, unknown>) => ({ seq, kind, data });
  const events = [
    ev(1, "turn", { turn: 1 }),
    ev(2, "roll", { purpose: "initiative", side: "red", face: 5 }), ev(3, "roll", { purpose: "initiative", side: "blue", face: 2 }),
    ev(4, "roll", { purpose: "round_shot", unit: "r2", need: 3, faces: 6, success: true }),
    ev(5, "fire", { unit: "r2", target: "b1", weapon: "round_shot", losses: 2 }),
    ev(6, "fire", { unit: "r1", target: "b1", weapon: "musket", losses: 1 }),
    ev(7, "losses", { unit: "b1", amount: 2, by: "r2", cause: "round_shot" }),
    ev(8, "losses", { unit: "b1", amount: 1, by: "r1", cause: "musket" }),
    ev(9, "turn", { turn: 2 }),
    ev(10, "melee", { a: "b2", b: "r1", losses: [3, 1] }),
    ev(11, "losses", { unit: "b2", amount: 3, by: "r1", cause: "melee" }),
    ev(12, "losses", { unit: "r1", amount: 1, by: "b2", cause: "melee" }),
    ev(13, "roll", { purpose: "dispersal", unit: "b2", need: 2, faces: 6, success: true }),
    ev(14, "fallen", { unit: "b2", status: "surrendered", taken_by: "red" }),
    ev(15, "roll", { purpose: "general_death", side: "blue", need: 3, faces: 6, face: 2, success: true }),
    ev(16, "battle_over", { winner: "red", loser: "blue", turn: 2, reason: "rout", general_killed: true,
      units: [{ id: "r1", side: "red", type: "infantry", status: "in_line" }, { id: "r2", side: "red", type: "foot_artillery", status: "in_line" },
        { id: "b1", side: "blue", type: "infantry", status: "destroyed" }, { id: "b2", side: "blue", type: "light_cavalry", status: "prisoner" }] }),
  ];
  const r = afterAction(events, first, { ...first, turn: 2 });

  it("adds up losses per unit and side, what each dealt, and the fallen", () => {
    expect(Object.fromEntries(r.units.map((u) => [u.id, [u.start, u.losses, u.inflicted]]))).toEqual({
      r1: [10, 1, 4], r2: [4, 0, 2], b1: [10, 3, 0], b2: [4, 3, 1] });
    const side = (s: string) => r.sides.find((x) => x.side === s)!;
    expect([side("red").losses, side("red").inflicted, side("blue").losses, side("blue").inflicted]).toEqual([1, 6, 6, 1]);
    expect([side("blue").taken, side("blue").destroyed, side("blue").dispersed]).toEqual([1, 1, 0]);
    expect(r.winner).toBe("red");
    expect(r.byTurn).toEqual([{ turn: 1, losses: { blue: 3 } }, { turn: 2, losses: { blue: 3, red: 1 } }]);
  });

  it("names the heaviest blows, the general's fate and each side's dice against the odds", () => {
    expect(r.turningPoints[0]).toMatchObject({ turn: 2, cause: "melee", by: "r1", amount: 3, units: ["b2"] });
    expect(r.general).toMatchObject({ side: "blue", general: "Blücher", fate: "killed", face: 2, need: 3 });
    const red = r.sides.find((x) => x.side === "red")!.dice;
    const blue = r.sides.find((x) => x.side === "blue")!.dice;
    expect([red.rolls, red.good, red.expected]).toEqual([1, 1, 0.5]);
    // a dispersal and a general's death that succeed go against the side rolling them
    expect([blue.rolls, blue.good]).toEqual([2, 0]);
    expect(blue.expected).toBeCloseTo(4 / 6 + 3 / 6);
    expect([red.initiative, blue.initiative]).toEqual([{ won: 1, of: 1 }, { won: 0, of: 1 }]);
  });

  it("writes a CSV row per unit and per side", () => {
    const csv = reportCsv(r, (id) => `name of ${id}`).trim().split("\n");
    expect(csv).toHaveLength(2 + 4 + 2);
    expect(csv[1]).toBe("unit,red,r1,name of r1,infantry,10,1,4,,in_line,");
  });
});
