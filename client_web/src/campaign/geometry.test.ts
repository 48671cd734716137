import { describe, expect, it } from "vitest";
import {
  axisDistance, cellCentre, cheapestPath, fit, formatCoord, fromCoord, pixelToCell, toCoord, zoomAt,
  type Metric, type Viewport,
} from "./geometry";

const sheet: Metric = { cols: 40, rows: 30, origin: { x: 20, y: 10 }, latitudeUp: false, kmPerCell: 10 };

describe("campaign map geometry (C-2.1)", () => {
  it("writes longitude first, then latitude, as in '17 RD – 45,22'", () => {
    expect(formatCoord(sheet, { x: 25, y: 12 })).toBe("45,22");
  });

  it("numbers latitude northwards when the sheet says so", () => {
    const north: Metric = { ...sheet, latitudeUp: true };
    expect(toCoord(north, { x: 0, y: 29 })).toEqual({ x: 20, y: 10 });
    expect(toCoord(north, { x: 0, y: 0 })).toEqual({ x: 20, y: 39 });
  });

  it("round-trips between grid indices and coordinates", () => {
    for (const m of [sheet, { ...sheet, latitudeUp: true }]) {
      for (const cell of [{ x: 0, y: 0 }, { x: 39, y: 29 }, { x: 7, y: 13 }]) {
        expect(fromCoord(m, toCoord(m, cell))).toEqual(cell);
      }
    }
  });

  it("maps pixels to the cell under them and back to its centre", () => {
    const v: Viewport = { scale: 20, offsetX: 10, offsetY: 5 };
    expect(pixelToCell(v, 10, 5)).toEqual({ x: 0, y: 0 });
    expect(pixelToCell(v, 29.9, 24.9)).toEqual({ x: 0, y: 0 });
    expect(pixelToCell(v, 30, 25)).toEqual({ x: 1, y: 1 });
    const c = cellCentre(v, { x: 3, y: 4 });
    expect(pixelToCell(v, c.x, c.y)).toEqual({ x: 3, y: 4 });
  });

  it("zooms about the mouse, keeping the cell under it", () => {
    const v: Viewport = { scale: 20, offsetX: 0, offsetY: 0 };
    const z = zoomAt(v, 105, 55, 2);
    expect(z.scale).toBe(40);
    expect(pixelToCell(z, 105, 55)).toEqual(pixelToCell(v, 105, 55));
  });

  it("fits the whole sheet in the canvas", () => {
    const v = fit(sheet, 856, 656);
    expect(v.scale).toBe(20);
    expect(pixelToCell(v, v.offsetX + 1, v.offsetY + 1)).toEqual({ x: 0, y: 0 });
    expect(pixelToCell(v, 856 - v.offsetX - 1, 656 - v.offsetY - 1)).toEqual({ x: 39, y: 29 });
  });

  it("measures distance per axis (C-9.7: 30 km = 3 cells in any direction)", () => {
    expect(axisDistance({ x: 0, y: 0 }, { x: 3, y: 3 })).toBe(3);
    expect(axisDistance({ x: 5, y: 1 }, { x: 1, y: 2 })).toBe(4);
  });

  it("finds the cheapest path round costly ground and refuses the impassable", () => {
    const m: Metric = { cols: 5, rows: 3, origin: { x: 0, y: 0 }, latitudeUp: false, kmPerCell: 10 };
    const marsh = new Set(["2,0", "2,1"]);
    const lake = new Set(["2,0", "2,1", "2,2"]);
    const step = (bad: Set<string>, price: number) => ({
      step: (_f: { x: number; y: number }, t: { x: number; y: number }) => (bad.has(`${t.x},${t.y}`) ? price : 10),
    });
    const around = cheapestPath(m, { x: 0, y: 0 }, { x: 4, y: 0 }, step(marsh, 60));
    expect(around?.cost).toBe(80);
    expect(around?.cells.map((c) => `${c.x},${c.y}`)).toContain("2,2");
    expect(cheapestPath(m, { x: 0, y: 0 }, { x: 4, y: 0 }, step(lake, Infinity))).toBeNull();
    expect(cheapestPath(m, { x: 0, y: 0 }, { x: 0, y: 0 }, step(lake, 1))).toEqual({ cells: [{ x: 0, y: 0 }], cost: 0 });
  });
});
