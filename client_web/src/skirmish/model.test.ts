import { describe, expect, it } from "vitest";
import type { SkirmishFigureView, SkirmishSettingsView, SkirmishSideView, SkirmishView } from "../net/protocol";
import { coverAt, readSkirmish, unitMoves } from "./model";

/** The skirmish's default settings (D-S-*), as the view carries them. */
const SETTINGS: SkirmishSettingsView = {
  width: 40, height: 30, turns: 8, terrain_count: null, terrain_margin: 5, defender_zone: 8, attacker_zone: 4, deploy_distance: 18,
  ambush_zone: 6, ambush_distance: 4, infantry_move: 4, rough_cost: 2, obstacle_cost: 2, tank_rough_cost: 2, tank_turn_cost: 2,
  soft_cover: 1, hard_cover: 2, six_hits_short: true, move_fire_penalty: 1, random_fire_penalty: 1, knock_out_front: 4, knock_out_side: 3,
  grenade_need: 6, melee_close_weapon: 1, melee_commander: 1, melee_contact: 1, melee_extra: 1, melee_max_rolls: 20, survive_on: 4,
  morale_losses: [1, 2], morale_hold: 4, morale_commander: 1, objective_radius: 2, pickup_turns: 1, choose_hits: true, fog: "sight",
};

const side = (team: string, role: string, edge: string, rolled: number, left: number): SkirmishSideView => ({
  team, name: team, nation: team === "red" ? "german" : "soviet", role, edge, orders_rolled: rolled, orders_left: left,
  orders_given: rolled - left, deployed: true, points: 0,
});

/** A figure as the view sends it: of the viewer's own side with its orders' state, of the enemy without. */
function fig(id: string, sideOf: string, role: string, weapon: string, x: number, y: number, status: string, own: boolean): SkirmishFigureView {
  const f = { id, side: sideOf, unit: id.split(".")[0]!, role, weapon, model: "infantry", vehicle: null, x, y, facing: "n", cells: [[x, y]], status };
  return own ? { ...f, ordered: false, contact: false, group: null, no_fire_at: [] } : f;
}

/** Red's view of a squad skirmish in its orders phase (SkirmishView, shared/protocol/skirmish_views.py). */
const STATE: SkirmishView = {
  kind: "skirmish", scenario: "squad", stage: "orders", turn: 2, turns: 8, active: ["red"], next: "red", objective: null,
  initiative: "red", terrain_left: 0, terrain_next: null, result: null, fog: "sight", settings: SETTINGS, weapons: {}, hits_pending: null,
  table: { width: 40, height: 30, elements: [{ id: "wood-1", kind: "wood", x: 10, y: 10, w: 3, h: 2, objective: false, by: "scenario" }] },
  terrain: {
    wood: { cover: 1, blocks: true, infantry_cost: 2, tank_cost: null, obstacle: false },
    house: { cover: 2, blocks: true, infantry_cost: 1, tank_cost: null, obstacle: false },
  },
  sides: [side("red", "attacker", "south", 4, 3), side("blue", "defender", "north", 2, 2)],
  figures: [
    fig("a.1", "red", "commander", "submachine_gun", 5, 20, "in_action", true),
    fig("a.2", "red", "rifleman", "rifle", 6, 20, "in_action", true),
    fig("a.3", "red", "rifleman", "rifle", 7, 20, "down", true),
    fig("d.1", "blue", "rifleman", "rifle", 11, 10, "in_action", false),
  ],
  units: [{ id: "a", name: "1. Gruppe", kind: "squad", parent: null, commander: "a.1", members: ["a.1", "a.2", "a.3"], children: [], start: 3,
    lost: 0, demoralised: false, ordered: false, in_cohesion: ["a.1", "a.2"] }],
  groups: [], dropped: [], last_seen: {},
  reach: { "a.1": { full: [[5, 18], [5, 17]], half: [[5, 18]] }, "a.2": { full: [[6, 18]], half: [[6, 18]] } },
  ambushes: {},
  decision: null,
};

describe("the skirmish's view read by the client", () => {
  it("reads the figures, the sides' orders, the reach and whose figures are the viewer's own", () => {
    const m = readSkirmish(STATE);
    expect(m.figures.map((f) => [f.id, f.own])).toEqual([["a.1", true], ["a.2", true], ["a.3", true], ["d.1", false]]);
    expect(m.sides.map((s) => [s.team, s.ordersLeft, s.ordersRolled])).toEqual([["red", 3, 4], ["blue", 2, 2]]);
    expect(m.reach?.get("a.1")?.half).toEqual([[5, 18]]);
    expect(m.units[0]!.inCohesion).toEqual(["a.1", "a.2"]);
  });

  it("names the cover of a figure's ground from the terrain table (D-S-7)", () => {
    const m = readSkirmish(STATE);
    expect(coverAt(m, 11, 10)).toEqual({ kind: "wood", cover: 1 });
    expect(coverAt(m, 0, 0)).toBeNull();
  });

  it("moves a unit by its commander's offset, each figure only within its own reach (D-S-6)", () => {
    const m = readSkirmish(STATE);
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 18])).toEqual([{ figure: "a.1", to: [5, 18] }, { figure: "a.2", to: [6, 18] }]);
    // two cells up: a.2 cannot reach (6, 17), so it stays
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 17])).toEqual([{ figure: "a.1", to: [5, 17] }]);
    expect(unitMoves(m, ["a.1", "a.2"], "a.1", [5, 17], true)).toEqual([]);
  });

  it("survives a view it does not know", () => {
    const m = readSkirmish({});
    expect([m.width, m.height, m.figures.length, m.reach]).toEqual([40, 30, 0, null]);
  });
});
