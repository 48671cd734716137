import { describe, expect, it } from "vitest";
import { readReplay, replayChoices } from "./replay";

describe("readReplay", () => {
  it("reads the server's per-turn views oldest first", () => {
    const frames = readReplay({ room: "b-c1-b1", as: "team:red", frames: [
      { turn: 2, seq: 9, state: { turn: 2, units: [] } },
      { turn: 1, seq: 3, state: { turn: 1, units: [] } },
    ] });
    // ordered by position in the log (the same turn may appear twice: its last completed view and the final one)
    expect(frames.map((f) => [f.turn, f.seq])).toEqual([[1, 3], [2, 9]]);
    expect(frames[0]!.state).toEqual({ turn: 1, units: [] });
  });

  it("reads the server's answer: the view after each completed turn, then the final one (docs/protocol.md)", () => {
    const frames = readReplay({ room: "b-c1-1", as: "team:red", viewer: "team:red", kind: "battle", teams: ["red", "blue"],
      turns: [{ turn: 1, seq: 4, at_ms: 1, state: { turn: 2 } }, { turn: 2, seq: 9, at_ms: 2, state: { turn: 3 } }],
      final: { turn: 3, seq: 12, at_ms: 3, state: { turn: 3, result: { winner: "red" } } } });
    expect(frames.map((f) => [f.turn, f.seq])).toEqual([[1, 4], [2, 9], [3, 12]]);
    expect(frames[2]!.state.result).toEqual({ winner: "red" });
  });

  it("takes the turn from the view when the entry lacks it, and `view` for `state`", () => {
    const frames = readReplay({ turns: [{ view: { turn: { number: 4 } } }, { view: { turn: 5 } }, { nothing: 1 }] });
    expect(frames.map((f) => f.turn)).toEqual([4, 5]);
  });

  it("reads a bare list and ignores junk", () => {
    expect(readReplay([{ state: {} }, 3, null])).toEqual([{ turn: 1, seq: 0, state: {} }]);
    expect(readReplay("nope")).toEqual([]);
    expect(readReplay({ frames: "x" })).toEqual([]);
  });
});

describe("the replay classes offered while the campaign is played", () => {
  it("offer a spectator on the link the public's view only, never the full one the server refuses (403)", () => {
    expect(replayChoices("spectator", "public", ["red", "blue"])).toEqual(["public"]);
    expect(replayChoices("spectator", "spectator", ["red", "blue"])).toEqual(["spectator", "public"]);
  });

  it("offer a player its side's view or the public's, and the moderator every view", () => {
    expect(replayChoices("player", "team:red", ["red", "blue"])).toEqual(["team:red", "public"]);
    expect(replayChoices("moderator", "full", ["red", "blue"])).toEqual(["full", "spectator", "team:red", "team:blue", "public"]);
  });
});
