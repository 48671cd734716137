import { describe, expect, it } from "vitest";
import { hasLevels, tokenFromLink } from "./api";

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
