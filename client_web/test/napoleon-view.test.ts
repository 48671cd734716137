// The Napoleonic campaign engine's view() (branch `napoleon`, server/napoleon/view.py) for team red at the start,
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
});
