// The campaign engine's real view() (server/continental/fog.py), captured for team red and for the moderator at the
// start of operations of the continental scenario, level 2 (tests/continental/helpers.py start(2, clear=False,
// deception=True)), read by the client's model.
import { describe, expect, it } from "vitest";
import { cheapestPath, formatCoord, fromCoord } from "../src/campaign/geometry";
import { readCampaign, stepCost } from "../src/campaign/model";
import moderatorView from "./fixtures/campaign-view-moderator.json";
import redView from "./fixtures/campaign-view-red.json";

describe("the campaign engine's view", () => {
  const m = readCampaign(redView as Record<string, unknown>);

  it("lays the metric as the scenario does: origin 30,10, 30×20 cells, latitude northwards (C-2.1)", () => {
    expect(m.metric).toMatchObject({ cols: 30, rows: 20, origin: { x: 30, y: 10 }, latitudeUp: true });
    expect(formatCoord(m.metric, { x: 0, y: 0 })).toBe("30,29");
    expect(m.terrain[0]![0]).toBe("sea"); // 30-29 is sea in the scenario
  });

  it("colours every land cell by its state and leaves the sea to nobody", () => {
    const owners = new Set(m.owners.flat());
    expect(owners).toContain("red");
    expect(owners).toContain("blue");
    expect(m.owners[0]![0]).toBeNull();
  });

  it("shows red's own forces and the enemies red may see, and places with capitals", () => {
    const own = m.forces.filter((f) => f.team === "red");
    const others = m.forces.filter((f) => f.team !== "red");
    expect(own.length).toBeGreaterThan(5);
    expect(others.length).toBe((redView as { enemy_units: unknown[] }).enemy_units.length);
    expect(own.every((f) => f.movementLeft === 1)).toBe(true);
    expect(m.cities.find((c) => c.name === "Rotgrad")).toMatchObject({ capital: true, owner: "red" });
    const rotgrad = m.cities.find((c) => c.name === "Rotgrad")!;
    expect(rotgrad.cell).toEqual(fromCoord(m.metric, { x: 33, y: 20 }));
  });

  it("draws rivers and roads from the engine's cell networks", () => {
    expect(m.rivers.length).toBeGreaterThan(5);
    expect(m.roads.length).toBeGreaterThan(10);
    expect(m.rivers.every((seg) => seg.length <= 2)).toBe(true);
  });

  it("plans a path for a red division over the land", () => {
    const unit = m.forces.find((f) => f.team === "red" && f.type === "RD")!;
    const target = { x: unit.cell.x - 2, y: unit.cell.y };
    const path = cheapestPath(m.metric, unit.cell, target, stepCost(m), m.diagonal);
    expect(path?.cells.length).toBeGreaterThan(1);
  });

  it("gives the moderator every unit of every side in full", () => {
    const mod = readCampaign(moderatorView as Record<string, unknown>);
    const units = (moderatorView as { units: { status: string }[] }).units.filter((u) => u.status !== "destroyed");
    expect(mod.forces.length).toBe(units.length);
    expect(new Set(mod.forces.map((f) => f.team))).toEqual(new Set(["red", "blue", "green"]));
    expect(mod.forces.some((f) => f.reported)).toBe(false);
  });

  it("prices a path in fractions of the turn from the view's C-T4 speeds and crossing times (D-C-2)", () => {
    expect(m.speeds?.plain?.RD).toBe(30);
    const rd = m.forces.find((f) => f.team === "red" && f.type === "RD")!;
    const cost = stepCost(m, rd);
    expect(cost.unit).toBe("turn");
    // 47,23 → 48,23: the river off any bridge; 34,27 → 35,27: plain ground, 10 km at 30 km a turn.
    const at = (x: number, y: number) => fromCoord(m.metric, { x, y });
    expect(cost.step(at(47, 23), at(48, 23))).toBe(1);
    expect(cost.step(at(34, 27), at(35, 27))).toBeCloseTo(10 / 30);
    const td = m.forces.find((f) => f.team === "red" && f.type === "TD")!;
    expect(stepCost(m, td).step(at(47, 23), at(48, 23))).toBe(2);
  });

  it("reads the states' legend from the view instead of assuming R/B/G/K", () => {
    const renamed = JSON.parse(JSON.stringify(redView)) as { map: { states: string[]; legend: { states: Record<string, string | null> } } };
    renamed.map.states = renamed.map.states.map((row) => row.replaceAll("R", "Q"));
    renamed.map.legend.states = { Q: "red", B: "blue", G: "green", "~": null };
    const owners = new Set(readCampaign(renamed as unknown as Record<string, unknown>).owners.flat());
    expect(owners).toEqual(new Set(["red", "blue", "green", null]));
  });
});
