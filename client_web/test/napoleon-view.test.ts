// The Napoleonic campaign engine's view() (branch `napoleon`, server/napoleonic/campaign/view.py) for team red at the start,
// read by the client's campaign model: armies with movement points, the map, moves ordered per army.
import { describe, expect, it } from "vitest";
import { cheapestPath } from "../src/campaign/geometry";
import { readCampaign, stepCost } from "../src/campaign/model";
import { moveOrder } from "../src/campaign/view";
import view from "./fixtures/napoleon-view-red.json";

describe("the Napoleonic campaign's view", () => {
  const m = readCampaign(view as Record<string, unknown>);

  it("reads the 32×24 map with terrain rows through the scenario's legend, latitude northwards", () => {
    expect(m.metric).toMatchObject({ cols: 32, rows: 24, origin: { x: 0, y: 0 }, latitudeUp: true });
    expect(m.terrain[0]![0]).toBe("sea");
    expect(m.napoleonic).toBe(true);
    expect(m.cities.find((c) => c.name === "Lisbon")).toMatchObject({ fortress: true, owner: "green" });
  });

  it("shows red's armies with their general, regiments by type and movement points", () => {
    const blucher = m.forces.find((f) => f.id === "blucher")!;
    expect(blucher).toMatchObject({ team: "red", type: "army", movementLeft: 6 });
    expect(blucher.composition).toContain("General Blücher");
    expect(blucher.composition).toContain("7 × infantry");
  });

  it("orders a move per army with the path in the players' coordinates", () => {
    const blucher = m.forces.find((f) => f.id === "blucher")!;
    const to = { x: blucher.cell.x + 1, y: blucher.cell.y };
    const path = cheapestPath(m.metric, blucher.cell, to, stepCost(m, blucher), m.diagonal)!;
    expect(stepCost(m, blucher).unit).toBe("points");
    expect(moveOrder(m, blucher, path.cells)).toEqual({ type: "move", army: "blucher", path: [[28, 18]] });
  });

  it("prices a march with the scenario's movement table once the view carries it (D-NAP-1)", () => {
    const tables = { movement: { terrain: { plain: 1, hills: 2, forest: 2, swamp: 3, mountains: 3, sea: null }, road_step: 0.5, river_extra: 1 } };
    const withTable = readCampaign({ ...(view as Record<string, unknown>), tables });
    const blucher = withTable.forces.find((f) => f.id === "blucher")!;
    const cost = stepCost(withTable, blucher);
    const cells = withTable.terrain.flatMap((row, y) => row.map((t, x) => ({ x, y, t })));
    const road = new Set(withTable.roads.flat().map((c) => `${c.x},${c.y}`));
    const occupied = new Set(withTable.forces.map((f) => `${f.cell.x},${f.cell.y}`));
    const plainDry = (k: string) => !road.has(k) && !withTable.riverCells.has(k) && !occupied.has(k);
    const hills = cells.find((c) => c.t === "hills" && c.x > 0 && withTable.terrain[c.y]![c.x - 1] === "plain"
      && plainDry(`${c.x},${c.y}`) && plainDry(`${c.x - 1},${c.y}`))!;
    expect(cost.step({ x: hills.x - 1, y: hills.y }, hills)).toBe(2);
    expect(stepCost(m, blucher).step({ x: hills.x - 1, y: hills.y }, hills)).toBe(1); // without the table: 1 assumed
    const sea = cells.find((c) => c.t === "sea" && c.x > 0 && withTable.terrain[c.y]![c.x - 1] !== "sea")!;
    expect(cost.step({ x: sea.x - 1, y: sea.y }, sea)).toBe(Infinity);
  });
});
