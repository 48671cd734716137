import { describe, expect, it } from "vitest";
import { viewKind } from "./view-kind";

describe("viewKind", () => {
  it("draws a skirmish on its table, a battle on its field, any other campaign on the map", () => {
    expect(viewKind(false, { kind: "skirmish", stage: "orders" })).toBe("skirmish");
    expect(viewKind(true, { units: [] })).toBe("battle");
    expect(viewKind(false, { map: {}, units: [] })).toBe("campaign");
  });
});
