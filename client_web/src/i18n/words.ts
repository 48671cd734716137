/** The game's words for what the server sends as identifiers: terrains, arms, formations, states, facings (as
 * compass points), weapons, dice, teams. An identifier the tables lack is shown with its underscores as spaces. */
import { has, lang, listWords, proper, t } from "./index";
import { RU_UNIT_WORDS } from "./proper";
import { FACINGS } from "../battle/geometry";

function word(prefix: string, id: string): string {
  const key = `${prefix}.${id}`;
  return has(key) ? t(key) : id.replace(/_/g, " ");
}

export const terrainWord = (id: string): string => word("terrain", id);
export const armWord = (id: string): string => word("arm", id);
export const formationWord = (id: string): string => word("formation", id);
export const statusWord = (id: string): string => word("status", id);
export const weaponWord = (id: string): string => word("weapon", id);
export const rollWord = (id: string): string => (has(`roll.${id}`) ? t(`roll.${id}` as never) : t("roll.other"));
export const phaseWord = (id: string): string => word("siege.phase", id);
export const kindWord = (id: string): string => word("kind", id);
/** A Continental War arm (C-T1: "RD") or regiment kind (C-T7: "rifle", "artillery_motor"), abbreviated in Russian as
 * its rules do. */
export const unitWord = (id: string): string => (lang() === "ru" ? RU_UNIT_WORDS[id] : undefined) ?? id.replace(/_/g, " ");

/** A reconnaissance answer (C-8.3, server/continental/recon.py) in words: yes or no, how many, the arms there, the
 * square a counter is in, where each state mobilizes. */
export function reconAnswer(a: unknown): string {
  if (a === true || a === "yes") return t("nap.yes");
  if (a === false || a === "no") return t("nap.no");
  if (a === "unknown" || a === "none") return t(`recon.${a}`);
  if (Array.isArray(a)) return a.every((x) => typeof x === "number") ? a.join("-") : a.map(reconAnswer).join(", ");
  if (typeof a === "string") return unitWord(a);
  if (typeof a === "object" && a !== null) {
    return Object.entries(a).map(([team, cities]) => `${teamWord(team)}: ${(Array.isArray(cities) ? cities : [cities]).map((c) => proper(String(c))).join(", ")}`).join("; ");
  }
  return String(a ?? "");
}

/** A team by its colour, in words ("Blue", "Синие"). */
export function teamWord(team: string | null | undefined): string {
  if (!team) return "—";
  return has(`team.${team}`) ? t(`team.${team}` as never) : team;
}

/** Several teams: "Red and Blue". */
export const teamsWord = (teams: readonly string[]): string => listWords(teams.map(teamWord));

/** A facing (0–7 clockwise from north, or "NE") as a compass point in words. */
export function facingWord(f: number | string): string {
  const i = typeof f === "number" ? ((Math.round(f) % 8) + 8) % 8 : FACINGS.indexOf(String(f).toUpperCase() as (typeof FACINGS)[number]);
  return i >= 0 ? t(`facing.${i}` as never) : String(f);
}

/** Why a player is in the secret module, in this language: the umpire's own words as written, and the server's
 * note for a fallen general — "general Ney killed (22-18)" (server/napoleonic/campaign/battles.py) — as a sentence. */
export function lockoutReason(reason: string, place: (cell: [number, number]) => string = (c) => `${c[0]},${c[1]}`): string {
  const m = /^general (.+) (killed|captured) \((-?\d+)-(-?\d+)\)$/.exec(reason.trim());
  if (!m) return reason;
  // where he fell: the city on that campaign cell when the caller knows the map ("Leipzig", not "22,18")
  return t(m[2] === "killed" ? "secret.reason.killed" : "secret.reason.captured", { general: proper(m[1]!), place: place([Number(m[3]), Number(m[4])]) });
}

/** A seat's player id (`red-2`) as "Red, seat 2"; the moderator as "the umpire". */
export function playerWord(player: string | null | undefined): string {
  if (!player) return "—";
  if (player === "moderator") return t("player.moderator");
  const m = /^([a-z]+)-(\d+)$/.exec(player);
  return m ? t("player.seat", { team: teamWord(m[1]), seat: m[2]! }) : player;
}
