import { describe, expect, it } from "vitest";
import { howitzerChoice, stormOrder, type NapView, type Siege } from "./napoleon";
import type { ArmyUnitView, NapoleonicArmyView } from "../net/protocol";

const unit = (id: string, type: string): ArmyUnitView => ({ id, type, accuracy: 2, guns: 4, loss_tolerance: 3, morale: 5 });
const army = (id: string, team: string, status: string, cell: number[], units: ArmyUnitView[] | number): NapoleonicArmyView =>
  ({ id, name: id, team, status, cell, general: "G", units });
const siege: Siege = { fortress: "Dresden", cell: [24, 18], phase: "invested", besieger: "red", garrison: "blue", stormFrom: 2,
  sortied: false, holds: false, proposal: null, proposer: null };
const view = (armies: NapoleonicArmyView[]): NapView => ({ turn: 2, active: ["red"], sieges: [siege], interceptions: [], fortifications: [],
  fortresses: [], places: [], armies, battles: [], reinforcementRange: 7 });

describe("howitzers for a storm (N-SIEGE-9, D-N-15)", () => {
  it("offers the besieging armies' field companies, at most half of them rounded up", () => {
    const v = view([
      army("silesia", "red", "besieging", [24, 18], [unit("silesia-1", "infantry"), unit("silesia-2", "foot_artillery"),
        unit("silesia-3", "horse_artillery"), unit("silesia-4", "foot_artillery")]),
      army("bulow", "red", "ready", [23, 20], [unit("bulow-1", "foot_artillery")]), // not at the siege
      army("grande", "blue", "besieged", [24, 18], [unit("grande-1", "foot_artillery")]),
    ]);
    const c = howitzerChoice(v, siege, "red");
    expect(c?.companies.map((u) => u.id)).toEqual(["silesia-2", "silesia-3", "silesia-4"]);
    expect(c?.limit).toBe(2); // D-N-15: half of 3, rounded up
    expect(c?.of).toBe(3);
  });

  it("offers nothing to the garrison, to a besieger without guns, or once the siege is not invested", () => {
    const v = view([army("silesia", "red", "besieging", [24, 18], [unit("silesia-1", "infantry")])]);
    expect(howitzerChoice(v, siege, "blue")).toBeNull();
    expect(howitzerChoice(v, siege, "red")).toBeNull();
    const guns = view([army("silesia", "red", "besieging", [24, 18], [unit("silesia-2", "foot_artillery")])]);
    expect(howitzerChoice(guns, siege, "red")?.limit).toBe(1);
    expect(howitzerChoice(guns, { ...siege, phase: "terms" }, "red")).toBeNull();
  });

  it("names the howitzers in the storm order only when some are chosen", () => {
    expect(stormOrder("Dresden", [])).toEqual({ type: "siege", fortress: "Dresden", action: "storm" });
    expect(stormOrder("Dresden", ["silesia-2"])).toEqual({ type: "siege", fortress: "Dresden", action: "storm", howitzers: ["silesia-2"] });
  });
});
