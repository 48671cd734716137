import { describe, expect, it } from "vitest";
import { clockSpec, hasLevels, tokenFromLink } from "./api";

describe("join links", () => {
  it("take the token from the fragment, which the browser never sends to the server", () => {
    expect(tokenFromLink("http://127.0.0.1:8080/#token=abcDEF123456")).toBe("abcDEF123456");
    expect(tokenFromLink("#token=abcDEF123456&lang=ru")).toBe("abcDEF123456");
  });

  it("refuse links without a usable token", () => {
    expect(tokenFromLink("http://127.0.0.1:8080/?token=abcDEF123456")).toBeNull();
    expect(tokenFromLink("http://127.0.0.1:8080/#token=short")).toBeNull();
    expect(tokenFromLink("")).toBeNull();
  });
});

describe("a lobby row's game", () => {
  it("has a level for the campaigns and battles, none for a skirmish", () => {
    expect(["napoleonic", "continental", "battle", "siege"].map(hasLevels)).toEqual([true, true, true, true]);
    expect(["skirmish", "skirmish-platoon", "skirmish-tanks"].map(hasLevels)).toEqual([false, false, false]);
  });
});

describe("the lobby's clock choice (C-1.9)", () => {
  it("asks for the level's usual clock with an empty clock, never for none", () => {
    // null is "no clocks" to the server (docs/protocol.md, POST /api/campaigns): the default must not send it
    expect(clockSpec("", 5, 0)).toEqual({});
    expect(clockSpec("none", 5, 0)).toBeNull();
  });

  it("sends the chosen mode with the form's minutes and seconds", () => {
    expect(clockSpec("per_turn", 2.5, 0)).toEqual({ mode: "per_turn", turn_ms: 150_000 });
    expect(clockSpec("fischer", 30, 10)).toEqual({ mode: "fischer", initial_ms: 1_800_000, increment_ms: 10_000 });
    expect(clockSpec("per_turn_reserve", 5, 60)).toEqual({ mode: "per_turn_reserve", turn_ms: 300_000, reserve_ms: 60_000 });
  });
});
