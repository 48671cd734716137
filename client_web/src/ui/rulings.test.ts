import { describe, expect, it } from "vitest";
import { buildRuling, engineOf, RULINGS } from "./rulings";

describe("ruling forms", () => {
  it("build the engine's ruling from the filled fields, leaving out empty optional ones", () => {
    const adjust = RULINGS.battle!.find((r) => r.type === "adjust")!;
    expect(buildRuling(adjust, { unit: "bulow-1", morale: "3", guns: "" })).toEqual({ type: "adjust", unit: "bulow-1", morale: 3 });
    expect(buildRuling(RULINGS.drill![0]!, { text: " hold " })).toEqual({ type: "note", text: "hold" });
  });

  it("tell the engine from the room's view", () => {
    expect(engineOf("battle", { siege: {} })).toBe("siege");
    expect(engineOf("campaign", { armies: [] })).toBe("napoleonic");
    expect(engineOf("campaign", { counters: [] })).toBe("drill");
  });
});
