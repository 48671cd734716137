import { describe, expect, it } from "vitest";
import type { BattleUnitView, BattleView, MeleeView, UnitTypeView } from "../net/protocol";
import { readBattle } from "./model";

// Views in the protocol's shape (BattleView, shared/protocol/views.py), with what a test does not care about filled in.
type Given = Pick<BattleUnitView, "id" | "side" | "type" | "formation" | "facing" | "x" | "y"> & Partial<BattleUnitView>;
const unit = (u: Given): BattleUnitView => ({ status: "field", cells: [], ...u });
const view = (v: Partial<BattleView>): BattleView => ({
  kind: "battle", map: { width: 70, height: 70, rows: [], elevation: [] }, turn: 1, turn_limit: 12, order: ["red", "blue"],
  phase: 1, active: "red", result: null, hidden: false, units: [], melees: [], reinforcements: [],
  sides: ["red", "blue"].map((name) => ({ name, edge: "N", attacker: name === "red", retreat_turn: null, retreat_free_turns: 0, general: "" })),
  characteristics: { unit_types: {}, formations: [], formation_change_cost: {}, about_face_cost: 0, canister_range: 0, close_range: 0,
    charge_run: 0, hill_range_bonus: {}, hit_tables: {} },
  ...v,
});
const melee = (a: string, b: string): MeleeView => ({ a, b, since: 1, rounds: 1, charge: {}, struck: "", sector: "front" });

describe("battle model", () => {
  it("computes footprints from formation and facing when the view gives none (D-N-4)", () => {
    const m = readBattle(view({
      units: [
        unit({ id: "i1", side: "red", type: "infantry", formation: "line", facing: 0, x: 10, y: 50 }),
        unit({ id: "c1", side: "blue", type: "heavy_cavalry", formation: "attack_column", facing: 4, x: 30, y: 10 }),
        unit({ id: "a1", side: "blue", type: "foot_artillery", formation: "limbered", facing: 2, x: 5, y: 5, cells: [[5, 5]] }),
      ],
    }));
    expect(m.cols).toBe(70);
    expect(m.units.map((u) => u.cells.length)).toEqual([8, 6, 1]);
    expect(m.sides).toEqual(["red", "blue"]);
  });

  it("reads terrain through the battle's symbols and elevation digits", () => {
    const m = readBattle(view({ map: { width: 3, height: 2, rows: [".Sf", "..."], elevation: ["012", "000"] } }));
    expect(m.terrain[0]).toEqual(["open", "settlement", "light_forest"]);
    expect(m.elevation[0]).toEqual([0, 1, 2]);
  });

  it("takes a unit's range from the view's characteristics, the rules' own values (issue 14, N-INF-1, N-ART-2)", () => {
    const base = view({});
    const m = readBattle(view({
      characteristics: { ...base.characteristics, unit_types: { infantry: { range: 6 } as UnitTypeView, foot_artillery: { range: 30 } as UnitTypeView } },
      units: [
        unit({ id: "i1", side: "red", type: "infantry", formation: "line", facing: 0, x: 10, y: 50 }),
        unit({ id: "a1", side: "red", type: "foot_artillery", formation: "deployed", facing: 0, x: 20, y: 50 }),
        unit({ id: "c1", side: "blue", type: "light_cavalry", formation: "attack_column", facing: 4, x: 30, y: 10 }),
      ],
    }));
    expect(m.units.map((u) => u.range)).toEqual([6, 30, null]);
  });

  it("reads the melees of the view (N-MELEE)", () => {
    const m = readBattle(view({ melees: [melee("r1", "b2"), melee("", "x")] }));
    expect(m.melees).toEqual([{ a: "r1", b: "b2" }]);
  });

  it("marks a unit whose move ended at the ditch or the ladders this turn (N-SIEGE-12/13, server/napoleonic/battle/view.py move_ended)", () => {
    const m = readBattle(view({ units: [
      unit({ id: "i1", side: "red", type: "infantry", formation: "attack_column", facing: 0, x: 10, y: 50, move_ended: "N-SIEGE-12" }),
      unit({ id: "i2", side: "red", type: "infantry", formation: "attack_column", facing: 0, x: 20, y: 50, move_ended: null }),
    ] }));
    expect(m.units.map((u) => u.moveEnded)).toEqual(["N-SIEGE-12", null]);
  });

  it("is an empty field until the room's first view", () => {
    expect(readBattle({}).units).toEqual([]);
  });
});
