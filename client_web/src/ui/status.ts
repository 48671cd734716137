/** The state that matters now, in one line (issue 16 §3): whose turn and how long is left, a decision someone must
 * take, a pause, a battle's phase, the secret module. The tab title, the favicon and the optional sound follow it. */
import { t } from "../i18n";
import { teamWord, teamsWord } from "../i18n/words";
import { formatMs } from "./dom";
import type { TeamClock } from "./clocks";

export interface StateInput {
  kind: "campaign" | "battle" | "secret_module" | "unknown";
  /** the viewer's team when it is a player (null: moderator, spectator) */
  myTeam: string | null;
  active: string[];
  clocks: { paused: boolean; teams: TeamClock[] };
  /** time left in the secret module for this player, if there */
  lockedMs: number | null;
  /** the battle room's name, turn and result winner */
  battle?: { name: string; turn: number | null; winner: string | null };
  /** a contact waiting for the defender's answer (N-START-3): who decides and where */
  decision?: { team: string; place: string } | null;
  /** a beaten army whose team chooses where it retreats (N-VICTORY-4): whose, which, how far */
  retreat?: { team: string; army: string; cells: number } | null;
  runningBattles?: number;
  /** the battle the viewer's team fights while the campaign waits for it (D-L-1), by name */
  myBattle?: string | null;
  /** the secret-module room (D-N-14): who is held there and how long is left for the first */
  secret?: { players: string[]; leftMs: number | null } | null;
  over?: boolean;
}

export interface StateLine {
  text: string;
  /** the viewer must act now */
  mine: boolean;
  /** what the viewer is asked to decide, for the buttons beside the line */
  asks?: "battle" | "retreat" | "go_to_battle";
}

export function stateLine(s: StateInput): StateLine {
  const time = (team: string) => {
    const c = s.clocks.teams.find((x) => x.team === team);
    return c ? formatMs(c.remainingMs) : "";
  };
  // a line that tells the time left, or its untimed wording when the team has no clock (an untimed campaign):
  // never "— {time} left" with nothing in it
  const timed = (key: "status.decide.you" | "status.decide.them" | "status.retreat.you" | "status.retreat.them" | "status.battle.yours" | "status.battle.theirs",
    params: Record<string, string | number>, team: string): string => {
    const left = time(team);
    return left ? t(key, { ...params, time: left }) : t(`${key}.untimed`, params);
  };
  if (s.lockedMs !== null) return { text: t("status.secret", { time: formatMs(s.lockedMs) }), mine: false };
  if (s.kind === "secret_module") {
    const held = s.secret?.players ?? [];
    return { text: held.length ? t("status.secret.room", { players: held.join(", "), time: formatMs(s.secret?.leftMs ?? 0) }) : t("status.secret.empty"), mine: false };
  }
  if (s.kind === "battle" && s.battle?.winner) return { text: t("status.battle.over", { battle: s.battle.name, winner: teamWord(s.battle.winner) }), mine: false };
  if (s.over) return { text: t("status.game_over"), mine: false };
  if (s.clocks.paused) return { text: t("status.paused"), mine: false };
  const decision = (asked: boolean): StateLine | null => {
    if (s.decision && (s.decision.team === s.myTeam) === asked) {
      const params = { team: teamWord(s.decision.team), place: s.decision.place };
      return { text: timed(asked ? "status.decide.you" : "status.decide.them", params, s.decision.team).trim(), mine: asked, ...(asked ? { asks: "battle" as const } : {}) };
    }
    if (s.retreat && (s.retreat.team === s.myTeam) === asked) {
      const params = { team: teamWord(s.retreat.team), army: s.retreat.army, cells: s.retreat.cells };
      return { text: timed(asked ? "status.retreat.you" : "status.retreat.them", params, s.retreat.team).trim(), mine: asked, ...(asked ? { asks: "retreat" as const } : {}) };
    }
    return null;
  };
  // what the viewer must decide first, then the viewer's own turn, then what the others are deciding
  const mine = s.myTeam !== null && s.active.includes(s.myTeam);
  const ours = decision(true);
  if (ours) return ours;
  const theirs = mine ? null : decision(false);
  if (theirs) return theirs;
  if (s.kind === "battle" && s.battle && s.active.length) {
    const side = s.active[0]!;
    const params = { battle: s.battle.name, turn: s.battle.turn ?? "—", team: teamWord(side) };
    return { text: timed(mine ? "status.battle.yours" : "status.battle.theirs", params, side), mine };
  }
  if (!s.active.length && s.myBattle) return { text: t("status.waiting_your_battle", { battle: s.myBattle }), mine: false, asks: "go_to_battle" };
  if (!s.active.length) return { text: t(s.runningBattles ? "status.waiting_battles" : "status.nobody"), mine: false };
  if (mine) {
    const left = time(s.myTeam!);
    return { text: left ? t("status.your_turn", { time: left }) : t("status.your_turn.untimed"), mine };
  }
  const others = s.active.filter((x) => x !== s.myTeam);
  const left = time(others[0]!);
  return { text: left ? t("status.their_turn", { team: teamsWord(others), time: left }) : t("status.their_turn.untimed", { team: teamsWord(others) }), mine };
}
