import { describe, expect, it } from "vitest";
import { battleRoom, campaignOf, campaignRoom, compareRooms, isSecretRoom, parseRoom, secretRoom } from "./room-id";

describe("room ids", () => {
  it("read the server's grammar (server/bus/names.py)", () => {
    expect(parseRoom("c-0bc37916fc")).toEqual({ id: "c-0bc37916fc", kind: "campaign", campaign: "0bc37916fc", battle: null });
    expect(parseRoom("b-0bc37916fc-12")).toEqual({ id: "b-0bc37916fc-12", kind: "battle", campaign: "0bc37916fc", battle: "12" });
    expect(parseRoom("s-0bc37916fc")?.kind).toBe("secret");
    expect(campaignOf(battleRoom("abc", "3"))).toBe("abc");
    expect(isSecretRoom(secretRoom("abc"))).toBe(true);
    expect(campaignRoom("abc")).toBe("c-abc");
  });

  it("refuse what is not a room id", () => {
    for (const bad of ["", "x-abc", "c-", "b-abc", "c-abc-1", "lobby"]) expect(parseRoom(bad)).toBeNull();
    expect(campaignOf("b-1")).toBeNull();
  });

  it("list the campaign first, then its battles by number, then the secret module", () => {
    expect(["s-a", "b-a-10", "c-a", "b-a-2"].sort(compareRooms)).toEqual(["c-a", "b-a-2", "b-a-10", "s-a"]);
  });
});
