import { describe, expect, it } from "vitest";
import { coverAt, readSkirmish, unitMoves } from "./model";

const STATE = {
  kind: "skirmish", scenario: "squad", stage: "orders", turn: 2, turns: 8, active: ["red"], next: "red",
  table: { width: 40, height: 30, elements: [{ id: "wood-1", kind: "wood", x: 10, y: 10, w: 3, h: 2 }] },
  terrain: { wood: { cover: 1, blocks: true, infantry_cost: 2 }, house: { cover: 2 } },
  sides: [{ team: "red", role: "attacker", orders_rolled: 4, orders_left: 3 }, { team: "blue", role: "defender", orders_rolled: 2, orders_left: 2 }],
  figures: [
    { id: "a.1", side: "red", unit: "a", role: "commander", weapon: "submachine_gun", x: 5, y: 20, status: "in_action", ordered: false },
    { id: "a.2", side: "red", unit: "a", role: "rifleman", weapon: "rifle", x: 6, y: 20, status: "in_action", ordered: false },
    { id: "a.3", side: "red", unit: "a", role: "rifleman", weapon: "rifle", x: 7, y: 20, status: "down", ordered: false },
    { id: "d.1", side: "blue", unit: "d", role: "rifleman", weapon: "rifle", x: 11, y: 10, status: "in_action" },
  ],
  units: [{ id: "a", name: "1. Gruppe", kind: "squad", commander: "a.1", members: ["a.1", "a.2", "a.3"], in_cohesion: ["a.1", "a.2"] }],
  reach: { "a.1": { full: [[5, 18], [5, 17]], half: [[5, 18]] }, "a.2": { full: [[6, 18]], half: [[6, 18]] } },
  decision: null,
};

describe("the skirmish's view read by the client", () => {
  it("reads the figures, the sides' orders, the reach and whose figures are the viewer's own", () => {
    const m = readSkirmish(STATE);
    expect(m.figures.map((f) => [f.id, f.own])).toEqual([["a.1", true], ["a.2", true], ["a.3", true], ["d.1", false]]);
    expect(m.sides.map((s) => [s.team, s.ordersLeft, s.ordersRolled])).toEqual([["red", 3, 4], ["blue", 2, 2]]);
    expect(m.reach?.get("a.1")?.half).toEqual([[5, 18]]);
    expect(m.units[0]!.inCohesion).toEqual(["a.1", "a.2"]);
  });

  it("names the cover of a figure's ground from the terrain table (D-S-7)", () => {
    const m = readSkirmish(STATE);
    expect(coverAt(m, 11, 10)).toEqual({ kind: "wood", cover: 1 });
    expect(coverAt(m, 0, 0)).toBeNull();
  });

  it("moves a unit by its commander's offset, each figure only within its own reach (D-S-6)", () => {
    const m = readSkirmish(STATE);
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 18])).toEqual([{ figure: "a.1", to: [5, 18] }, { figure: "a.2", to: [6, 18] }]);
    // two cells up: a.2 cannot reach (6, 17), so it stays
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 17])).toEqual([{ figure: "a.1", to: [5, 17] }]);
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 17], true)).toEqual([]);
  });

  it("survives a view it does not know", () => {
    const m = readSkirmish({});
    expect([m.width, m.height, m.figures.length, m.reach]).toEqual([40, 30, 0, null]);
  });
});
