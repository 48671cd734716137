// The field's drawing rules that are not pixels: labels that never collide, footprint outlines, the effects each
// resolution event makes, and the options answer as the preview reads it.
import { describe, expect, it } from "vitest";
import { aroundBox, overlaps, placeLabels, type Rect } from "../src/ui/labels";
import { contactPoint, outline } from "../src/battle/pieces";
import { effectsFor, EffectQueue } from "../src/battle/effects";
import { readOptions, reachable, refusal } from "../src/battle/options";
import { straightLine } from "../src/battle/view";
import engaged from "./fixtures/battle-engaged.json";

describe("label placement", () => {
  it("places no label over another, over an obstacle or across the edge, and drops what cannot fit", () => {
    const bounds = { x: 0, y: 0, w: 200, h: 100 };
    const obstacles: Rect[] = [{ x: 40, y: 40, w: 20, h: 20 }];
    const labels = Array.from({ length: 30 }, (_, i) => ({ item: i, priority: i, w: 50, h: 16,
      candidates: aroundBox({ x: 40 + (i % 3), y: 40, w: 20, h: 20 }, 50, 16) }));
    const placed = placeLabels(labels, obstacles, bounds);
    expect(placed.length).toBeGreaterThan(2);
    expect(placed.length).toBeLessThan(30);
    for (const a of placed) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + a.w).toBeLessThanOrEqual(200);
      expect(overlaps(a, obstacles[0]!)).toBe(false);
      for (const b of placed) if (a !== b) expect(overlaps(a, b)).toBe(false);
    }
    // the highest priority is placed first, in its first choice
    expect(placed[0]!.item).toBe(29);
  });
});

describe("pieces", () => {
  it("outlines a footprint by the sides of its cells that border none of its own", () => {
    const line = Array.from({ length: 8 }, (_, i) => ({ x: 10 + i, y: 5 }));
    expect(outline(line)).toHaveLength(8 * 2 + 2);
    const square = [0, 1, 2].flatMap((x) => [0, 1, 2].map((y) => ({ x, y })));
    expect(outline(square)).toHaveLength(12);
  });

  it("marks a melee between the closest cells of the two footprints", () => {
    expect(contactPoint([{ x: 0, y: 0 }, { x: 1, y: 0 }], [{ x: 2, y: 1 }])).toEqual({ x: 2, y: 1 });
  });
});

describe("effects of a resolution", () => {
  const units = new Map((engaged.before.units as { id: string; side: string; type: string; formation: string; facing: number; x: number; y: number; cells: number[][] }[])
    .map((u) => [u.id, { id: u.id, side: u.side, type: u.type, formation: u.formation, facing: u.facing, anchor: { x: u.x, y: u.y }, cells: u.cells.map(([x, y]) => ({ x: x!, y: y! })), width: 4 }]));
  const at = (id: unknown) => units.get(String(id));

  it("makes a picture of every shot, melee, loss and change of morale the engine reported", () => {
    const made = engaged.events.flatMap((e) => effectsFor(e.kind, e.data as Record<string, unknown>, at));
    const count = (k: string) => made.filter((m) => m.kind === k).length;
    const kinds = (k: string) => engaged.events.filter((e) => e.kind === k);
    expect(count("volley") + count("canister") + count("round_shot")).toBe(kinds("fire").length);
    expect(count("loss")).toBe(kinds("losses").length);
    expect(count("melee")).toBe(kinds("melee").length);
    expect(count("morale")).toBe(kinds("morale").filter((e) => Number((e.data as { delta?: number }).delta)).length);
    expect(made.filter((m) => m.kind === "loss").map((m) => m.text)).toEqual(kinds("losses").map((e) => `−${(e.data as { amount: number }).amount}`));
  });

  it("shows a round shot that misses, a fall and nothing for what it does not draw", () => {
    const [gun, target] = [...units.keys()];
    expect(effectsFor("roll", { purpose: "round_shot", unit: gun, target, success: false }, at)[0]).toMatchObject({ kind: "round_shot", hit: false });
    expect(effectsFor("roll", { purpose: "round_shot", unit: gun, target, success: true }, at)).toEqual([]);
    expect(effectsFor("fallen", { unit: gun, status: "dispersed" }, at)[0]).toMatchObject({ kind: "fall", status: "dispersed" });
    expect(effectsFor("moved", { unit: gun }, at)).toEqual([]);
    expect(effectsFor("fire", { unit: "nobody", target }, at)).toEqual([]);
  });

  it("paces shots one after another, and lands losses within the beat of their shot", () => {
    const q = new EffectQueue();
    const [a, b] = [...units.keys()];
    q.push("fire", { unit: a, target: b, weapon: "musket" }, at, 1000, "first");
    q.push("losses", { unit: b, amount: 2 }, at, 1000);
    q.push("fire", { unit: b, target: a, weapon: "canister" }, at, 1000, "second");
    expect(q.caption(1100)).toBe("first");
    expect(q.caption(1700)).toBe("second");
    expect(q.active(1000 + 650 + 1300 - 1)).toBe(true);
    expect(q.active(10_000)).toBe(false);
  });
});

describe("the options answer (issue 14's server/napoleonic/battle/options.py)", () => {
  const answer = {
    ruleset: "battle", unit: "r1", active: true, side: "red", points: 4,
    moves: [{ to: [10, 20], path: [[10, 21], [10, 20]], cost: 2, points_left: 2, road: false, contact: [], halts: null },
      { to: [10, 19], path: [[10, 21], [10, 20], [10, 19]], cost: 3, points_left: 1, road: false, contact: ["b2"], halts: null }],
    charge: false, leave_melee: [], wheels: [{ degrees: 45, to: [9, 22], facing: 1, formation: "line", cost: 2, carried: false }],
    about_face: null, formations: [{ to: [10, 22], facing: 0, formation: "attack_column", cost: 2, carried: false }],
    targets: [], max_targets: 2, guns: 0, barrage: false, retreat: true,
    refused: [{ order: "about_face", code: "illegal_order", rule: "N-INF-10", message: "not enough points" },
      { order: "formation", code: "illegal_order", rule: "N-INF-9", message: "square: a unit in melee cannot form square" }],
  };

  it("reads moves, placings and refusals with their rules", () => {
    const o = readOptions(answer)!;
    expect(o.moves.map((m) => [m.to, m.pointsLeft])).toEqual([[{ x: 10, y: 20 }, 2], [{ x: 10, y: 19 }, 1]]);
    expect(reachable(o).get("10,19")?.contact).toEqual(["b2"]);
    expect(refusal(o, "about_face")?.rule).toBe("N-INF-10");
    expect(refusal(o, "formation", "square")?.rule).toBe("N-INF-9");
    expect(refusal(o, "formation", "line")).toBeNull();
    expect(readOptions({ nothing: true })).toBeNull();
  });
});

describe("a move without the server's options", () => {
  it("goes straight, diagonally first", () => {
    expect(straightLine({ x: 0, y: 0 }, { x: 2, y: 3 })).toEqual([{ x: 0, y: 0 }, { x: 1, y: 1 }, { x: 2, y: 2 }, { x: 2, y: 3 }]);
  });
});
