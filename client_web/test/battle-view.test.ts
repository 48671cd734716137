// The battle engine's real view() (branch `battle`, server/napoleonic/battle/view.py) for a spectator after a few turns of a
// random battle on a drawn map, read by the client's model.
import { describe, expect, it } from "vitest";
import { footprint } from "../src/battle/geometry";
import { readBattle } from "../src/battle/model";
import { fireZones } from "../src/battle/view";
import view from "./fixtures/battle-view-spectator.json";

type Raw = { units: { id: string; status: string; cells: number[][]; x: number; y: number; facing: number; formation: string; type: string }[] };

describe("the battle engine's view", () => {
  const m = readBattle(view as Record<string, unknown>);

  it("reads the 70×70 field from symbol rows and elevation digits", () => {
    expect([m.cols, m.rows]).toEqual([70, 70]);
    const kinds = new Set(m.terrain.flat());
    for (const k of ["open", "road", "river", "crossing", "light_forest", "dense_forest", "settlement"]) expect(kinds).toContain(k);
    expect(Math.max(...m.elevation.flat())).toBe(2);
  });

  it("draws the units on the field with the engine's own footprints", () => {
    const onField = (view as Raw).units.filter((u) => u.status === "field");
    expect(m.units.map((u) => u.id).sort()).toEqual(onField.map((u) => u.id).sort());
    for (const u of m.units) expect(u.cells.length).toBeGreaterThan(0);
  });

  it("computes the same footprint as the engine for every unit on the field (D-N-4)", () => {
    for (const u of m.units) {
      const raw = (view as Raw).units.find((r) => r.id === u.id)!;
      const mine = footprint(u.anchor, u.facing, u.width, u.depth).map((c) => `${c.x},${c.y}`).sort();
      expect(mine, `${u.id} ${raw.type} ${raw.formation} facing ${raw.facing}`).toEqual(raw.cells.map((c) => `${c[0]},${c[1]}`).sort());
    }
  });

  it("lists the reinforcement groups waiting off the field", () => {
    expect(m.reinforcements[0]).toMatchObject({ name: "red-2", side: "red" });
  });

  it("has fire zones for deployed guns", () => {
    const gun = m.units.find((u) => u.type.includes("artillery") && u.formation === "deployed");
    if (gun) expect(fireZones(gun).canister.length).toBeGreaterThan(0);
  });
});
