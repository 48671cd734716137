// The Napoleonic decisions beyond the march, read from views the engine gave (fixtures/napoleon-decisions.json,
// captured from server/napoleonic/campaign/engine.py on the 1813 scenario): only what the viewer's team may do now is offered,
// and each offer carries the order the engine takes (server/napoleonic/campaign/engine.py docstring).
import { describe, expect, it } from "vitest";
import {
  appointOrder, armyOffers, cellsApart, imposeTermsRuling, interceptOffers, needsGeneral, readNapoleon, reinforceOffers, siegeOffers, termsOrder,
} from "../src/campaign/napoleon";
import type { ArmyUnitView, NapoleonicView } from "../src/net/protocol";
import views from "./fixtures/napoleon-decisions.json";

const v = (phase: keyof typeof views, team: "red" | "blue") => readNapoleon(views[phase][team] as unknown as NapoleonicView);
const orders = (offers: { order: Record<string, unknown> }[]) => offers.map((o) => o.order);

describe("siege decisions (N-SIEGE-2…5)", () => {
  it("reads the siege of Dresden as the engine's view gives it", () => {
    expect(v("siege_laid", "red").sieges).toEqual([expect.objectContaining({
      fortress: "Dresden", phase: "invested", besieger: "red", garrison: "blue", stormFrom: 2, sortied: false, holds: false, proposal: null,
    })]);
  });

  it("offers the besieger only lifting in the turn the siege is laid (N-SIEGE-2), the storm from the next (N-SIEGE-5)", () => {
    const laid = v("siege_laid", "red");
    expect(orders(siegeOffers(laid.sieges[0]!, "red", laid.turn))).toEqual([{ type: "siege", fortress: "Dresden", action: "lift" }]);
    const next = v("siege_next_turn", "red");
    expect(orders(siegeOffers(next.sieges[0]!, "red", next.turn))).toEqual([
      { type: "siege", fortress: "Dresden", action: "storm" }, { type: "siege", fortress: "Dresden", action: "lift" }]);
  });

  it("offers the garrison a sortie (once, N-SIEGE-3), holding (N-SIEGE-5) and surrender (N-SIEGE-4)", () => {
    const laid = v("siege_laid", "blue");
    const siege = laid.sieges[0]!;
    expect(orders(siegeOffers(siege, "blue", laid.turn)).map((o) => o.action)).toEqual(["sortie", "hold", "surrender"]);
    expect(orders(siegeOffers({ ...siege, sortied: true, holds: true }, "blue", laid.turn)).map((o) => o.action)).toEqual(["surrender"]);
  });

  it("offers nothing to a team outside the siege, to spectators, or once the storm is being fought", () => {
    const laid = v("siege_laid", "red");
    const siege = laid.sieges[0]!;
    expect(siegeOffers(siege, "green", laid.turn)).toEqual([]);
    expect(siegeOffers(siege, null, laid.turn)).toEqual([]);
    expect(siegeOffers({ ...siege, phase: "battle" }, "red", laid.turn)).toEqual([]);
  });
});

describe("capitulation terms (N-SIEGE-8)", () => {
  const siege = { ...v("siege_laid", "red").sieges[0]!, phase: "terms", proposal: { garrison: "prisoners", general: "captured" }, proposer: "red" };

  it("builds a proposal and the moderator's imposition", () => {
    expect(termsOrder("Dresden", "march_out", "released")).toEqual({ type: "terms", fortress: "Dresden", terms: { garrison: "march_out", general: "released" } });
    expect(imposeTermsRuling("Dresden", "prisoners", "captured")).toEqual({ type: "impose_terms", fortress: "Dresden", terms: { garrison: "prisoners", general: "captured" } });
  });

  it("lets only the other commander accept the standing proposal", () => {
    expect(orders(siegeOffers(siege, "blue", 2))).toEqual([{ type: "accept_terms", fortress: "Dresden" }]);
    expect(siegeOffers(siege, "red", 2)).toEqual([]);
    expect(siegeOffers({ ...siege, proposal: null, proposer: null }, "blue", 2)).toEqual([]);
  });
});

describe("reinforcements (N-START-4, D-N-12)", () => {
  it("offers each side its free armies 1 to 7 cells from a contact, never the armies already in it", () => {
    const red = v("contact", "red");
    expect(red.battles[0]).toMatchObject({ id: "1", status: "contact", attacker: "red", defender: "blue" });
    // Bülow is in the contact; Blücher at 27,18 is 5 cells from Leipzig (22,18); Wittgenstein at 31,19 is 9.
    expect(orders(reinforceOffers(red, "red"))).toEqual([{ type: "reinforce", battle: "1", army: "blucher" }]);
    const blue = v("contact", "blue");
    expect(orders(reinforceOffers(blue, "blue")).map((o) => o.army).sort()).toEqual(["davout", "grande"]);
    expect(reinforceOffers(red, null)).toEqual([]);
  });

  it("measures distance as the engine does (D-GEN-2: Euclidean, rounded half up)", () => {
    expect(cellsApart([27, 18], [22, 18])).toBe(5);
    expect(cellsApart([31, 19], [22, 18])).toBe(9);
    expect(cellsApart([0, 0], [1, 1])).toBe(1);
    expect(cellsApart([0, 0], [5, 5])).toBe(7);
  });
});

describe("an army's orders in its team's turn", () => {
  const red = v("siege_laid", "red");
  const bulow = red.armies.find((a) => a.id === "bulow")!;

  it("sets the posture for interception and support (N-START-2, D-N-12)", () => {
    const offers = armyOffers(red, bulow, "red");
    expect(orders(offers)).toContainEqual({ type: "posture", army: "bulow", intercept: true });
    expect(orders(offers)).toContainEqual({ type: "posture", army: "bulow", support: true });
    expect(orders(armyOffers(red, { ...bulow, intercept: true }, "red"))).toContainEqual({ type: "posture", army: "bulow", intercept: false });
  });

  it("fortifies a city (D-N-16) with artillery, not a fortress city nor one being fortified", () => {
    // Bülow stands in Berlin (a capital) with a foot artillery company.
    expect(orders(armyOffers(red, bulow, "red"))).toContainEqual({ type: "fortify", army: "bulow" });
    const noGuns = { ...bulow, units: (bulow.units as ArmyUnitView[]).filter((u) => !u.type.includes("artillery")) };
    expect(orders(armyOffers(red, noGuns, "red")).some((o) => o.type === "fortify")).toBe(false);
    const busy = { ...red, fortifications: [{ city: "Berlin", army: "bulow", team: "red", done: 1, needed: 10 }] };
    expect(orders(armyOffers(busy, bulow, "red")).some((o) => o.type === "fortify")).toBe(false);
    const blucher = red.armies.find((a) => a.id === "blucher")!; // besieging Dresden: frozen
    expect(armyOffers(red, blucher, "red")).toEqual([]);
  });

  it("offers nothing out of the team's turn or for another team's army", () => {
    const blue = v("siege_laid", "blue");
    const davout = blue.armies.find((a) => a.id === "davout")!;
    expect(armyOffers(blue, davout, "blue")).toEqual([]); // red's turn
    expect(armyOffers(red, bulow, "blue")).toEqual([]);
  });

  it("appoints a replacement general only for an army without one (D-N-14)", () => {
    expect(needsGeneral(red, bulow, "red")).toBe(false);
    expect(needsGeneral(red, { ...bulow, general: null }, "red")).toBe(true);
    expect(appointOrder("bulow", "  Yorck ")).toEqual({ type: "appoint", army: "bulow", general: "Yorck" });
  });

  it("intercepts an army the view lists as within reach (N-START-2, D-N-13), in the team's turn", () => {
    const chance = { ...red, interceptions: [{ by: "bulow", target: "ney", cell: [22, 18] as [number, number] }] };
    expect(orders(interceptOffers(chance, "red"))).toEqual([{ type: "intercept", army: "bulow", target: "ney" }]);
    expect(interceptOffers({ ...chance, active: ["blue"] }, "red")).toEqual([]);
  });
});
