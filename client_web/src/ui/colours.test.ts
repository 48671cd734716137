import { describe, expect, it } from "vitest";
import { TEAM_COLOURS } from "./colours";

// Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
const SIMULATE: Record<string, number[][]> = {
  none: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
};

const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
function lab(hex: string, m: number[][]): [number, number, number] {
  const rgb = [1, 3, 5].map((i) => linear(parseInt(hex.slice(i, i + 2), 16) / 255));
  const [r, g, b] = m.map((row) => Math.min(1, Math.max(0, row[0]! * rgb[0]! + row[1]! * rgb[1]! + row[2]! * rgb[2]!)));
  const xyz = [0.4124 * r! + 0.3576 * g! + 0.1805 * b!, 0.2126 * r! + 0.7152 * g! + 0.0722 * b!, 0.0193 * r! + 0.1192 * g! + 0.9505 * b!];
  const f = (v: number) => (v > 0.008856 ? Math.cbrt(v) : 7.787 * v + 16 / 116);
  const [x, y, z] = [xyz[0]! / 0.95047, xyz[1]!, xyz[2]! / 1.08883].map(f);
  return [116 * y! - 16, 500 * (x! - y!), 200 * (y! - z!)];
}

describe("team colours", () => {
  it("stay apart under protanopia, deuteranopia and tritanopia (CIE76 ΔE ≥ 20 for every pair)", () => {
    const teams = Object.entries(TEAM_COLOURS);
    for (const [vision, m] of Object.entries(SIMULATE)) {
      for (let i = 0; i < teams.length; i++) {
        for (let j = i + 1; j < teams.length; j++) {
          const a = lab(teams[i]![1].fill, m);
          const b = lab(teams[j]![1].fill, m);
          const dE = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
          expect(dE, `${teams[i]![0]} vs ${teams[j]![0]} under ${vision}`).toBeGreaterThanOrEqual(20);
        }
      }
    }
  });

  it("give every team a shape of its own besides its colour", () => {
    const shapes = Object.values(TEAM_COLOURS).map((c) => c.shape);
    expect(new Set(shapes).size).toBe(shapes.length);
  });
});
