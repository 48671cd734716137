import { describe, expect, it } from "vitest";
import { isArtilleryType } from "./pieces";
import { formationsOf } from "./options";
import { isArtillery } from "./view";

describe("a storm's howitzers are guns (N-SIEGE-9)", () => {
  it("are artillery: deployed or limbered, with a fire order, never a square", () => {
    for (const type of ["howitzer", "horse_howitzer", "foot_artillery", "horse_artillery", "fortress_artillery"]) {
      expect(isArtilleryType(type)).toBe(true);
      expect(isArtillery({ type })).toBe(true);
      expect(formationsOf(type)).toEqual(["deployed", "limbered"]);
    }
    expect(isArtilleryType("infantry")).toBe(false);
  });
});
