import { describe, expect, it } from "vitest";
import { cheapestPath } from "./geometry";
import { readCampaign, stepCost } from "./model";

const state = {
  map: {
    cols: 6, rows: 3, origin: [40, 20],
    legend: { ".": "plain", F: "forest", "~": "sea" },
    terrain: ["..F...", "..F...", "..F..~"],
    owners: ["rrrbbb", "rrrbbb", "rrrbbb"],
    roads: [[[40, 21], [41, 21], [42, 21], [43, 21]]],
    cities: [{ name: "Minsk", cell: [41, 20], capital: true }],
  },
  forces: { "17RD": { team: "red", type: "rifle_division", cell: "40-21", morale: 3, movement_left: 30 } },
  turn: { number: 4, team: "red" },
  recon: { questions_left: 11, answers: [{ question: "Troops in 44,21?", answer: "Yes", false: true }] },
};

describe("campaign model", () => {
  it("reads cells in the players' coordinates into grid indices", () => {
    const m = readCampaign(state);
    expect(m.forces[0]).toMatchObject({ id: "17RD", cell: { x: 0, y: 1 }, morale: 3, movementLeft: 30 });
    expect(m.cities[0]).toMatchObject({ name: "Minsk", cell: { x: 1, y: 0 }, capital: true });
    expect(m.terrain[0]![2]).toBe("forest");
    expect(m.owners[2]![5]).toBe("b");
    expect(m.turn).toBe(4);
    expect(m.toMove).toEqual(["red"]);
    expect(m.recon.left).toBe(11);
    expect(m.recon.answers[0]?.falseAnswer).toBe(true);
  });

  it("prices a path along the road cheaper than across the forest", () => {
    const m = readCampaign(state);
    const along = cheapestPath(m.metric, { x: 0, y: 1 }, { x: 3, y: 1 }, stepCost(m));
    expect(along?.cost).toBe(15); // three road steps at 5 km
    const across = cheapestPath(m.metric, { x: 0, y: 0 }, { x: 3, y: 0 }, stepCost(m));
    expect(across?.cost).toBe(35); // straight through the forest (10+15+10) beats the road detour (40)
  });

  it("never plans a path into the sea or onto another counter (C-4.12)", () => {
    const m = readCampaign(state);
    expect(cheapestPath(m.metric, { x: 1, y: 1 }, { x: 5, y: 2 }, stepCost(m))).toBeNull();
    expect(cheapestPath(m.metric, { x: 1, y: 1 }, { x: 0, y: 1 }, stepCost(m))).toBeNull();
  });

  it("draws an empty default sheet from an empty state", () => {
    const m = readCampaign({});
    expect(m.metric.cols).toBe(40);
    expect(m.forces).toEqual([]);
  });
});

describe("the foundation's drill view", () => {
  it("reads counters on a bare grid and orders one step as {counter, to}", async () => {
    const { moveOrder } = await import("./view");
    const m = readCampaign({ width: 8, height: 8, turn: 1, teams: ["red", "blue"], active: ["red"],
      counters: [{ id: "r1", team: "red", x: 1, y: 0 }, { id: "b1", team: "blue", x: 1, y: 7 }] });
    expect(m.metric.cols).toBe(8);
    expect(m.drill).toBe(true);
    expect(m.toMove).toEqual(["red"]);
    expect(m.forces.map((f) => [f.id, f.cell.x, f.cell.y])).toEqual([["r1", 1, 0], ["b1", 1, 7]]);
    const path = cheapestPath(m.metric, m.forces[0]!.cell, { x: 2, y: 1 }, stepCost(m), m.diagonal);
    expect(path?.cells).toHaveLength(2);
    expect(moveOrder(m, m.forces[0]!, path!.cells)).toEqual({ type: "move", counter: "r1", to: [2, 1] });
  });
});
