import { describe, expect, it } from "vitest";
import { buildRuling, complete, engineOf, RULINGS } from "./rulings";

describe("ruling forms", () => {
  it("build the engine's ruling from the filled fields, leaving out empty optional ones", () => {
    const adjust = RULINGS.battle!.find((r) => r.type === "adjust")!;
    expect(buildRuling(adjust, { unit: "bulow-1", morale: "3", guns: "" })).toEqual({ type: "adjust", unit: "bulow-1", morale: 3 });
    expect(buildRuling(RULINGS.drill![0]!, { text: " hold " })).toEqual({ type: "note", text: "hold" });
  });

  it("send several units as a list and typed cells as [x, y] pairs (N-FIRE-4, C-9.4)", () => {
    const share = RULINGS.battle!.find((r) => r.type === "assign_fire")!;
    expect(buildRuling(share, { shooter: "ney-1", targets: ["bulow-1", "bulow-2"], turns: "" }))
      .toEqual({ type: "assign_fire", shooter: "ney-1", targets: ["bulow-1", "bulow-2"] });
    const close = RULINGS.continental!.find((r) => r.type === "close_road")!;
    expect(buildRuling(close, { cells: "45-22, 46,22", turns: "2" })).toEqual({ type: "close_road", cells: [[45, 22], [46, 22]], turns: 2 });
  });

  it("is complete only when every field that is not optional has a value", () => {
    const share = RULINGS.battle!.find((r) => r.type === "assign_fire")!;
    expect(complete(share, { shooter: "ney-1", targets: [] })).toBe(false);
    expect(complete(share, { shooter: "ney-1", targets: ["bulow-1"] })).toBe(true);
    const end = RULINGS.battle!.find((r) => r.type === "end_battle")!;
    expect(complete(end, { winner: "red", reason: "" })).toBe(true);
  });

  it("tell the engine from the room's view", () => {
    expect(engineOf("battle", { siege: {} })).toBe("siege");
    expect(engineOf("campaign", { kind: "skirmish", figures: [] })).toBe("skirmish");
    expect(engineOf("campaign", { armies: [] })).toBe("napoleonic");
    expect(engineOf("campaign", { counters: [] })).toBe("drill");
  });
});
