import { describe, expect, it } from "vitest";
import { clockLevel, clocksAt } from "./clocks";

const view = {
  now_ms: 10_000, paused: false,
  teams: {
    red: { remaining_ms: 300_000, running: true, ticking: true, flagged: false },
    blue: { remaining_ms: 120_000, running: false, ticking: false, flagged: false },
  },
};

describe("clocks", () => {
  it("ticks down only the clocks that run, from the server's figures", () => {
    const { teams } = clocksAt(view, 10_000, 70_000);
    expect(teams).toEqual([
      { team: "red", remainingMs: 240_000, ticking: true, flagged: false },
      { team: "blue", remainingMs: 120_000, ticking: false, flagged: false },
    ]);
  });

  it("stops every clock while paused", () => {
    const { paused, teams } = clocksAt({ ...view, paused: true }, 10_000, 70_000);
    expect(paused).toBe(true);
    expect(teams[0]!.remainingMs).toBe(300_000);
  });

  it("never shows less than zero and warns at low time", () => {
    const { teams } = clocksAt(view, 10_000, 10_000 + 400_000);
    expect(teams[0]!.remainingMs).toBe(0);
    expect(clockLevel(teams[0]!)).toBe("critical");
    expect(clockLevel({ team: "x", remainingMs: 45_000, ticking: true, flagged: false })).toBe("low");
  });
});
