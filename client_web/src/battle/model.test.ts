import { describe, expect, it } from "vitest";
import { readBattle } from "./model";

describe("battle model", () => {
  it("computes footprints from formation and facing when the view gives none (D-N-4)", () => {
    const m = readBattle({
      units: [
        { id: "i1", side: "red", type: "infantry", formation: "line", facing: "N", anchor: [10, 50] },
        { id: "c1", side: "blue", type: "heavy_cavalry", formation: "attack_column", facing: "S", anchor: [30, 10] },
        { id: "a1", side: "blue", type: "foot_artillery", formation: "limbered", facing: "E", anchor: [5, 5], cells: [[5, 5]] },
      ],
    });
    expect(m.cols).toBe(70);
    expect(m.units.map((u) => u.cells.length)).toEqual([8, 6, 1]);
    expect(m.sides).toEqual(["red", "blue"]);
  });

  it("reads terrain through a legend and elevation digits", () => {
    const m = readBattle({ map: { width: 3, height: 2, legend: { ".": "open", h: "hill", f: "light_forest" }, terrain: [".hf", "..."], elevation: ["012", "000"] } });
    expect(m.terrain[0]).toEqual(["open", "hill", "light_forest"]);
    expect(m.elevation[0]).toEqual([0, 1, 2]);
  });

  it("takes a unit's range from the view's characteristics, the rules' own values (issue 14, N-INF-1, N-ART-2)", () => {
    const m = readBattle({
      characteristics: { unit_types: { infantry: { range: 6 }, foot_artillery: { range: 30 } } },
      units: [
        { id: "i1", side: "red", type: "infantry", formation: "line", facing: 0, x: 10, y: 50 },
        { id: "a1", side: "red", type: "foot_artillery", formation: "deployed", facing: 0, x: 20, y: 50 },
        { id: "c1", side: "blue", type: "light_cavalry", formation: "attack_column", facing: 4, x: 30, y: 10 },
      ],
    });
    expect(m.units.map((u) => u.range)).toEqual([6, 30, null]);
  });

  it("reads the melees of the view (N-MELEE)", () => {
    const m = readBattle({ melees: [{ a: "r1", b: "b2", rounds: 1 }, { a: "", b: "x" }] });
    expect(m.melees).toEqual([{ a: "r1", b: "b2" }]);
  });

  it("marks a unit whose move ended at the ditch or the ladders this turn (N-SIEGE-12/13, server/napoleonic/battle/view.py move_ended)", () => {
    const m = readBattle({ units: [
      { id: "i1", side: "red", type: "infantry", formation: "attack_column", facing: "N", anchor: [10, 50], move_ended: "N-SIEGE-12" },
      { id: "i2", side: "red", type: "infantry", formation: "attack_column", facing: "N", anchor: [20, 50], move_ended: null },
    ] });
    expect(m.units.map((u) => u.moveEnded)).toEqual(["N-SIEGE-12", null]);
  });
});
