import { describe, expect, it } from "vitest";
import { artilleryZone, cellKey, footprint, FORMATION_SIZE, frontRank, musketZone } from "./geometry";

const keys = (cells: { x: number; y: number }[]) => cells.map(cellKey).sort();

describe("battle geometry", () => {
  it("lays a north-facing line 8×1 along the row from its anchor (D-N-4)", () => {
    const [w, d] = FORMATION_SIZE.line!;
    expect(keys(footprint({ x: 10, y: 20 }, "N", w, d))).toEqual(keys(Array.from({ length: 8 }, (_, i) => ({ x: 10 + i, y: 20 }))));
  });

  it("puts a column's depth behind its front: facing east, back is west", () => {
    const cells = footprint({ x: 30, y: 30 }, "E", 4, 2);
    expect(cells).toHaveLength(8);
    expect(keys(cells)).toEqual(keys([
      { x: 30, y: 30 }, { x: 30, y: 31 }, { x: 30, y: 32 }, { x: 30, y: 33 },
      { x: 29, y: 30 }, { x: 29, y: 31 }, { x: 29, y: 32 }, { x: 29, y: 33 },
    ]));
  });

  it("fills the cell to the rear between diagonal neighbours on a 45° facing (D-N-4)", () => {
    const cells = footprint({ x: 5, y: 5 }, "NE", 2, 1);
    expect(keys(cells)).toEqual(keys([{ x: 5, y: 5 }, { x: 6, y: 6 }, { x: 5, y: 6 }]));
  });

  it("a square 3×3 covers nine cells whatever its facing", () => {
    for (const f of ["N", "E", "S", "W"]) expect(footprint({ x: 9, y: 9 }, f, 3, 3)).toHaveLength(9);
  });

  it("aims the musket zone straight ahead of the front rank, frontage wide, up to range (D-N-7)", () => {
    const zone = musketZone({ x: 10, y: 20 }, "N", 8, 4);
    expect(zone).toHaveLength(32);
    expect(zone.every((c) => c.y < 20 && c.y >= 16 && c.x >= 10 && c.x < 18)).toBe(true);
    expect(zone.find((c) => c.y === 16)?.distance).toBe(4);
    expect(frontRank({ x: 10, y: 20 }, "N", 8)).toHaveLength(8);
  });

  it("widens the artillery zone one cell each side per three cells (D-N-7), canister 1–5", () => {
    const canister = artilleryZone({ x: 30, y: 40 }, "N", 4, 1, 5);
    const row = (d: number) => canister.filter((c) => c.distance === d).map((c) => c.x);
    expect(row(1)).toEqual([30, 31, 32, 33]);
    expect(row(3)).toEqual([29, 30, 31, 32, 33, 34]);
    expect(Math.max(...canister.map((c) => c.distance))).toBe(5);
  });

  it("clips zones to the 70×70 field", () => {
    expect(musketZone({ x: 0, y: 2 }, "N", 8, 5).every((c) => c.y >= 0)).toBe(true);
  });
});
