// The siege engine's storm view (server/napoleonic/siege/engine.py: the battle view plus `siege`), captured for a spectator of
// the storm of Dresden (map seed 7, tests/napoleonic/siege/helpers.py), read by the client's battle model.
import { describe, expect, it } from "vitest";
import { readBattle } from "../src/battle/model";
import view from "./fixtures/siege-view-spectator.json";

describe("a siege storm's view", () => {
  const m = readBattle(view as Record<string, unknown>);
  const count = (kind: string) => m.terrain.flat().filter((k) => k === kind).length;

  it("reads the storm's ground through siege.legend: wall, fort, ditch, breach, parallel (N-SIEGE-5)", () => {
    for (const kind of ["wall", "fort", "ditch", "breach", "parallel"]) expect(count(kind), kind).toBeGreaterThan(0);
    // helpers.py: wall rows 30–32, ditch rows 33–34, parallels rows 46–47
    expect(m.terrain[31]![35]).toBe("wall");
    expect(m.terrain[33]![35]).toBe("ditch");
    expect(m.terrain[46]![35]).toBe("parallel");
    expect(m.terrain.flat().every((k) => k.length > 1)).toBe(true); // no symbol left unread
  });

  it("says who storms what, and shows both sides' units with the fortress guns", () => {
    expect(m.siege).toMatchObject({ fortress: "Dresden", besieger: "blue", garrison: "red" });
    expect(m.siege!.guns).toBeGreaterThan(0);
    expect(new Set(m.units.map((u) => u.side))).toEqual(new Set(["red", "blue"]));
  });

  it("falls back on the known siege symbols when a storm's view has no legend", () => {
    const bare = JSON.parse(JSON.stringify(view)) as { siege: Record<string, unknown> };
    delete bare.siege.legend;
    const again = readBattle(bare as unknown as Record<string, unknown>);
    expect(again.terrain).toEqual(m.terrain);
  });
});
