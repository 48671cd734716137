import { describe, expect, it } from "vitest";
import { setLang } from "../i18n";
import { stateLine, type StateInput } from "./status";

const clocks = (teams: Record<string, number>, paused = false) => ({
  paused, teams: Object.entries(teams).map(([team, ms]) => ({ team, remainingMs: ms, ticking: true, flagged: false })),
});
const campaign = (over: Partial<StateInput>): StateInput => ({ kind: "campaign", myTeam: "blue", active: [], clocks: clocks({ red: 300_000, blue: 270_000 }), lockedMs: null, ...over });

describe("the state in one line (issue 16 §3)", () => {
  it("asks the defender to decide, with its clock, and tells the others who decides (N-START-3)", () => {
    setLang("en");
    const line = stateLine(campaign({ active: ["blue", "red"], decision: { team: "blue", place: "Leipzig" } }));
    expect(line).toEqual({ text: "You decide: fight at Leipzig? 4:30", mine: true, asks: "battle" });
    expect(stateLine(campaign({ myTeam: null, active: ["blue", "red"], decision: { team: "blue", place: "Leipzig" } })).text).toBe("Blue decides: fight at Leipzig? 4:30");
  });

  it("asks the beaten army's team where it retreats, before its own turn (N-VICTORY-4)", () => {
    setLang("en");
    const line = stateLine(campaign({ active: ["blue", "red"], retreat: { team: "blue", army: "III Corps", cells: 7 } }));
    expect(line.asks).toBe("retreat");
    expect(line.text).toBe("III Corps was beaten and must retreat: choose where, up to 7 cells — 4:30 left");
    setLang("ru");
    expect(stateLine(campaign({ active: ["blue", "red"], retreat: { team: "blue", army: "III корпус", cells: 7 } })).text)
      .toBe("После поражения III корпус отступает: выберите куда, не дальше 7 кл. — осталось 4:30");
    setLang("en");
  });

  it("tells the team whose turn it is its turn, not the other team's decision", () => {
    setLang("en");
    const line = stateLine(campaign({ myTeam: "red", active: ["blue", "red"], retreat: { team: "blue", army: "III Corps", cells: 7 } }));
    expect(line).toEqual({ text: "Your turn — 5:00 left", mine: true });
  });

  it("sends a team whose battle holds up the campaign to that battle (D-L-1)", () => {
    setLang("en");
    expect(stateLine(campaign({ myTeam: "red", active: [], runningBattles: 1, myBattle: "Battle of Leipzig" })))
      .toEqual({ text: "The campaign waits while you fight the Battle of Leipzig", mine: false, asks: "go_to_battle" });
    expect(stateLine(campaign({ myTeam: null, active: [], runningBattles: 1 })).text).toBe("The campaign waits while its battles are fought");
  });

  it("says who is held in the secret module in its room (D-N-14)", () => {
    setLang("en");
    expect(stateLine({ ...campaign({}), kind: "secret_module", clocks: { paused: false, teams: [] }, secret: { players: ["Blue, seat 2"], leftMs: 125_000 } }).text)
      .toBe("In the secret module: Blue, seat 2 — back in 2:05");
  });

  it("puts a pause before everything but the secret module", () => {
    setLang("en");
    expect(stateLine(campaign({ active: ["blue"], clocks: clocks({ blue: 1000 }, true), decision: { team: "blue", place: "Leipzig" } })).text).toBe("Paused by the umpire");
  });

  it("in an untimed campaign asks for the retreat, the answer and the battle phase without a dangling time (N-VICTORY-4, N-START-3)", () => {
    const untimed = { teams: [], paused: false };
    setLang("ru");
    expect(stateLine(campaign({ clocks: untimed, active: ["blue", "red"], retreat: { team: "blue", army: "III корпус", cells: 7 } })).text)
      .toBe("После поражения III корпус отступает: выберите куда, не дальше 7 кл.");
    setLang("en");
    expect(stateLine(campaign({ clocks: untimed, active: ["blue", "red"], retreat: { team: "blue", army: "III Corps", cells: 7 } })).text)
      .toBe("III Corps was beaten and must retreat: choose where, up to 7 cells");
    expect(stateLine(campaign({ clocks: untimed, active: ["blue", "red"], decision: { team: "blue", place: "Leipzig" } })).text).toBe("You decide: fight at Leipzig?");
    expect(stateLine(campaign({ clocks: untimed, myTeam: null, active: ["blue", "red"], decision: { team: "blue", place: "Leipzig" } })).text).toBe("Blue decides: fight at Leipzig?");
    const battle = { kind: "battle" as const, clocks: untimed, battle: { name: "Battle of Leipzig", turn: 2, winner: null } };
    expect(stateLine(campaign({ ...battle, active: ["blue"] })).text).toBe("Battle of Leipzig, turn 2 — your phase");
    expect(stateLine(campaign({ ...battle, active: ["red"] })).text).toBe("Battle of Leipzig, turn 2 — Red's phase");
  });
});
