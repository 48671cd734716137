import { describe, expect, it } from "vitest";
import type { ContinentalView, DrillView, NapoleonicView, ReconAnswerView } from "../net/protocol";
import { cheapestPath } from "./geometry";
import { maySplit, moves, readCampaign, stepCost } from "./model";
import { placesToName } from "./paint";

// Views in the protocol's shapes (shared/protocol/campaign_views.py) of a 6×3 map whose origin is [40, 20]: cells
// are [longitude, latitude], latitude growing north, so the north row (grid row 0) is latitude 22.

/** A Napoleonic campaign (NapoleonicView): terrain rows, a road as a line, an army with its movement points. */
const state: NapoleonicView = {
  scenario: "test", title: "Test", turn: 4, active: ["red"], teams: [{ colour: "red", seats: 1 }, { colour: "blue", seats: 1 }],
  map: {
    origin: [40, 20], size: [6, 3],
    legend: { terrain: { ".": "plain", F: "forest", "~": "sea" }, states: {} },
    terrain: ["..F...", "..F...", "..F..~"],
    roads: [[[40, 21], [41, 21], [42, 21], [43, 21]]], rivers: [],
    places: [{ name: "Minsk", cell: [41, 22], kind: "capital", state: "red" }],
  },
  armies: [{ id: "17RD", name: "17 RD", team: "red", general: null, cell: [40, 21], status: "ready", points: 30, max_points: 30,
    units: [{ id: "17RD-1", type: "infantry", morale: 3, loss_tolerance: 10, guns: 0, accuracy: 0 }] }],
  battles: [], sieges: [], control: {}, fortifications: [], fortresses_built: [], prisoners: {}, interceptions: [],
  tables: { movement: { terrain: { plain: 10, forest: 15, sea: null }, road_step: 5, river_extra: 0 }, reinforcement_range: 7 },
};

const answer: ReconAnswerView = { number: 1, team: "red", turn: 3, question: { kind: "presence", cell: [44, 21], unit: null, feature: null }, answer: "no", cost: 0.5 };

/** The Continental War (ContinentalView) as a team sees it, or as the moderator does (every team's quota, and which
 * answers were false: D-C-7). */
function continental(viewer: "team:red" | "moderator"): ContinentalView {
  const budget = { quota: 11.5, spent: 0.5, answers: 1, false: 1 };
  return {
    scenario: "test", title: "Test", level: 2, phase: "operations", turn: 4, active: ["red"],
    teams: [{ colour: "red", seats: 1 }, { colour: "blue", seats: 1 }], neutrals: [], house_rules: [], mediator: "server",
    refused_order_fine: false, recon_deception: true, war: true, aggressor: "blue", violators: [], control: {}, closures: {},
    penalties: [], peace_pairs: [], result: null, prisoners: {}, defeated: {}, clock: null,
    map: {
      origin: [40, 20], size: [6, 3],
      terrain: { "42-22": "forest", "42-21": "forest", "42-20": "forest", "45-20": "sea" },
      states: ["rrrbbb", "rrrbbb", "rrrbbb"], legend: { states: { "~": null } },
      rivers: [], roads: [[40, 21], [41, 21], [42, 21], [43, 21]], railways: [], tracks: [],
      places: [{ name: "Minsk", cell: [41, 22], kind: "capital", state: "red" }],
    },
    tables: { speeds_km: { plain: { RD: 30 }, road: { RD: 40 } }, river_crossing_turns: { RD: 1 },
      turning_turns: { "90": { default: 0.5 }, min_level_45: 2 }, withdrawal_speed_l3: 0.5, no_regular_strike: ["AD"], rule: "C-T4" },
    units: [{ id: "r17RD", team: "red", cell: [40, 21], cover: false, name: "17 RD", arm: "RD", facing: "E", rating: 1, used: 0.25, debt: 0,
      regiments: [["rifle", 0.2], ["artillery", 0.4]], status: "ready" }],
    enemy_units: viewer === "moderator" ? null : [{ id: "b1RD", team: "blue", cell: [44, 21], cover: true }],
    recon: viewer === "moderator" ? { red: budget, blue: { ...budget, quota: 0, spent: 0, answers: 0, false: 0 } } : budget,
    answers: [viewer === "moderator" ? { ...answer, answer: "yes", false: true, truth: "no" } : answer],
  };
}

describe("campaign model", () => {
  it("reads cells in the players' coordinates into grid indices", () => {
    const m = readCampaign(state);
    const c = readCampaign(continental("team:red"));
    expect(m.forces[0]).toMatchObject({ id: "17RD", cell: { x: 0, y: 1 }, morale: 3, movementLeft: 30 });
    expect(m.cities[0]).toMatchObject({ name: "Minsk", cell: { x: 1, y: 0 }, capital: true });
    expect(m.terrain[0]![2]).toBe("forest");
    expect(c.owners[2]![5]).toBe("b"); // the Continental War's map carries the states' rows
    expect(m.turn).toBe(4);
    expect(m.toMove).toEqual(["red"]);
    expect(c.recon.left).toBe(11); // C-8.3: the team's quota left
    expect(readCampaign(continental("moderator")).recon.answers[0]?.falseAnswer).toBe(true); // D-C-7: the moderator is told
  });

  it("reads the Continental War's terrain labels, states, counters and reconnaissance", () => {
    const c = readCampaign(continental("team:red"));
    expect(c.engineMap && c.diagonal && !c.napoleonic && !c.drill).toBe(true);
    expect(c.cities[0]).toMatchObject({ name: "Minsk", cell: { x: 1, y: 0 }, capital: true, owner: "red" });
    expect([c.terrain[0]![2], c.terrain[1]![2], c.terrain[2]![2], c.terrain[2]![5], c.terrain[1]![1]]).toEqual(["forest", "forest", "forest", "sea", "plain"]);
    expect(c.owners[0]![0]).toBe("r");
    expect(c.roads).toContainEqual([{ x: 0, y: 1 }, { x: 1, y: 1 }]);
    expect(c.forces.map((f) => [f.id, f.cell.x, f.cell.y, f.reported])).toEqual([["r17RD", 0, 1, false], ["b1RD", 4, 1, true]]);
    expect(c.forces[0]).toMatchObject({ type: "RD", strength: 1, movementLeft: 0.75, facing: "E", composition: ["rifle (0.2)", "artillery (0.4)"] });
    expect(c.forces[0]!.counter?.cover).toBe(false);
    expect(c.leftUnit).toBe("turn");
    expect(c.recon.answers).toEqual([{ question: "Is anyone there? 44-21", answer: "no", falseAnswer: false, team: "red", truth: null }]);
    expect(readCampaign(continental("moderator")).recon).toEqual({ left: null, answers: [
      { question: "Is anyone there? 44-21", answer: "yes", falseAnswer: true, team: "red", truth: "no" }] });
    expect(Object.keys(c.teams)).toEqual(["red", "blue"]);
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
    const drill: DrillView = { width: 8, height: 8, turn: 1, teams: ["red", "blue"], active: ["red"],
      counters: [{ id: "r1", team: "red", x: 1, y: 0 }, { id: "b1", team: "blue", x: 1, y: 7 }] };
    const m = readCampaign(drill);
    expect(m.metric.cols).toBe(8);
    expect(m.drill).toBe(true);
    expect(m.toMove).toEqual(["red"]);
    expect(m.forces.map((f) => [f.id, f.cell.x, f.cell.y])).toEqual([["r1", 1, 0], ["b1", 1, 7]]);
    const path = cheapestPath(m.metric, m.forces[0]!.cell, { x: 2, y: 1 }, stepCost(m), m.diagonal);
    expect(path?.cells).toHaveLength(2);
    expect(moveOrder(m, m.forces[0]!, path!.cells)).toEqual({ type: "move", counter: "r1", to: [2, 1] });
  });
});

describe("a fortress on the Continental map", () => {
  // the fortress of Brest with its garrison's counter, named after it (server/continental/deployment.py)
  const view = continental("team:red");
  view.map.places.push({ name: "Brest", cell: [42, 22], kind: "fortress", state: "red" });
  view.units!.push({ id: "fort-brest", team: "red", cell: [42, 22], cover: false, name: "Brest", arm: "FORT", facing: "E", rating: 1, used: 0,
    regiments: [["artillery", 0.25], ["artillery", 0.25], ["sapper", 0.25], ["rifle", 0.25]], status: "ready" });
  view.units!.push({ id: "r17RD.1", team: "red", cell: [40, 20], cover: false, name: "17 RD/1 rifle", arm: "rifle", parent: "r17RD", rating: 0.2,
    regiments: [["rifle", 0.2], ["artillery", 0.1]], status: "ready" });
  const m = readCampaign(view);
  const force = (id: string) => m.forces.find((f) => f.id === id)!;

  it("neither moves nor splits (C-3.6); a division splits into its regiments, a regiment no further (C-4.9, C-4.10)", () => {
    expect([moves(force("fort-brest")), maySplit(force("fort-brest"))]).toEqual([false, false]);
    expect([moves(force("r17RD")), maySplit(force("r17RD"))]).toEqual([true, true]);
    expect(maySplit(force("r17RD.1"))).toBe(false);
  });

  it("is named once, by its garrison's counter standing on it; a place without its counter by its own name", () => {
    expect(placesToName(m.cities, m.forces).map((c) => c.name)).toEqual(["Minsk"]);
    expect(placesToName(m.cities, m.forces.filter((f) => f.id !== "fort-brest")).map((c) => c.name)).toEqual(["Minsk", "Brest"]);
  });
});
