import { describe, expect, it } from "vitest";
import { describeEvent } from "./log";

const ev = (kind: string, data: Record<string, unknown>) => ({ t: "ev" as const, room: "b-1", seq: 7, at_ms: 0, kind, data });

describe("event lines", () => {
  it("show a die with what it needed, and the rule (D-GEN-1)", () => {
    expect(describeEvent(ev("roll", { purpose: "round_shot", unit: "r0", need: 1, face: 4, success: false, rule: "N-HIT-1" })))
      .toBe("#7 ⚄ round_shot r0: 4 (≤1) ✗ [N-HIT-1]");
  });

  it("show fire with distance and losses", () => {
    expect(describeEvent(ev("fire", { weapon: "canister", unit: "r4", target: "b2", distance: 3, losses: 2 })))
      .toBe("#7 ✷ r4 → b2 canister @3 −2");
  });

  it("fall back to the plain fields of an unknown kind", () => {
    expect(describeEvent(ev("weather", { road: "closed", cells: [1, 2], nested: { a: 1 } }))).toBe("#7 weather: road=closed cells=1,2");
  });
});
