/** One sentence per room event, in the viewer's language: units, armies, teams and places by name, durations as
 * clock times, the dice with what they needed, and the rule the engine cited (linked to the rulebook by the
 * caller). A kind without its own sentence is read as "an event of the game". */
import { has, listWords, proper, t, tn, type MessageKey } from "../i18n";
import { facingWord, formationWord, kindWord, lockoutReason, playerWord, reconAnswer, rollWord, statusWord, teamWord, teamsWord, weaponWord } from "../i18n/words";
import type { Event } from "../net/protocol";
import { formatMs } from "./dom";
import type { Names } from "./names";

type D = Record<string, unknown>;
type Params = Record<string, string | number>;
const s = (v: unknown): string => (Array.isArray(v) ? v.join(",") : v === null || v === undefined ? "" : String(v));
const n = (v: unknown): number => (typeof v === "number" ? v : Number(v) || 0);

/** Events the log does not show: chat has its channels, the clocks' own ticking shows on the clocks. */
export const QUIET_KINDS = new Set(["chat", "clock_started", "clock_stopped"]);

/** The events worth a line, in order: not the quiet ones, and not a `turn` that only repeats who is to move (the
 * room re-sends it with the clocks after a clock change, an outage or a ruling). */
export function worthTelling<E extends { kind: string; data: Record<string, unknown> }>(events: readonly E[]): E[] {
  let active = "";
  return events.filter((e) => {
    if (QUIET_KINDS.has(e.kind)) return false;
    if (e.kind !== "turn" || Array.isArray(e.data.order)) return true;
    const now = JSON.stringify(e.data.active ?? []);
    const same = now === active && !e.data.ended;
    active = now;
    return !same;
  });
}

const TEAM_KEYS = ["team", "side", "by", "winner", "loser", "attacker", "defender", "holder", "besieger", "garrison", "proposer", "owner", "first"];
const UNIT_KEYS = ["unit", "a", "b", "shooter", "behind", "into"];

/** The data of an event as words: teams, units, armies, places, facings, formations, weapons, durations. */
function params(d: D, names: Names): Params {
  const p: Params = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === null || v === undefined || (typeof v === "object" && !Array.isArray(v))) continue;
    p[k] = s(v);
  }
  for (const k of TEAM_KEYS) if (typeof d[k] === "string") p[k] = teamWord(d[k] as string);
  for (const k of UNIT_KEYS) if (typeof d[k] === "string") p[k] = names.unit(d[k]);
  if (typeof d.target === "string") p.target = names.unit(d.target);
  else if (typeof d.enemy === "string") p.target = names.unit(d.enemy); // a battle's contact names the enemy unit
  if (typeof d.army === "string") p.army = names.army(d.army);
  if (d.cell !== undefined) p.cell = names.place(d.cell);
  if (typeof d.battle === "string" || typeof d.battle === "number") { p.battle = names.battle(d.battle); }
  if (d.cell !== undefined) p.place = names.place(d.cell);
  for (const k of ["fortress", "city", "general", "title"]) if (typeof d[k] === "string") p[k] = proper(d[k] as string);
  if (Array.isArray(d.active)) p.active = teamsWord(d.active.map(s));
  if (Array.isArray(d.teams)) p.teams = teamsWord(d.teams.map((x) => (typeof x === "object" && x ? s((x as D).colour) : s(x))));
  if (Array.isArray(d.order)) p.order = d.order.map((x) => teamWord(s(x))).join(", ");
  if (Array.isArray(d.between)) p.between = teamsWord(d.between.map(s));
  if (d.at !== undefined) p.at = names.place(d.at);
  if (typeof d.name === "string") p.name = proper(d.name);
  if (typeof d.city === "string") p.city = proper(d.city);
  if (d.facing !== undefined) p.facing = facingWord(d.facing as number);
  if (typeof d.formation === "string") p.formation = formationWord(d.formation);
  if (typeof d.weapon === "string") p.weapon = weaponWord(d.weapon);
  if (typeof d.status === "string") p.status = statusWord(d.status);
  if (typeof d.kind === "string") p.kind = kindWord(d.kind);
  if (typeof d.player === "string") p.player = playerWord(d.player);
  if (d.distance !== undefined) p.distance = tn("n.cells", n(d.distance));
  if (d.points !== undefined) p.points = tn("n.points", n(d.points));
  if (d.truth !== undefined) p.truth = reconAnswer(d.truth);
  if (d.intercept !== undefined) p.intercept = t(d.intercept ? "nap.yes" : "nap.no");
  if (d.support !== undefined) p.support = t(d.support ? "nap.yes" : "nap.no");
  if (Array.isArray(d.to)) p.to = s(d.to);
  else if (Array.isArray(d.path) && d.path.length) p.to = s(d.path[d.path.length - 1]);
  p.losses = s(d.losses ?? 0);
  p.amount = s(d.losses ?? d.amount ?? 0);
  return p;
}

/** Which sentence: most kinds have one, some a variant by what happened. */
function sentence(kind: string, d: D): MessageKey | null {
  const umpire = d.by === "moderator";
  switch (kind) {
    case "battle_turn":
      return "ev.battle_turn";
    case "turn": // a battle's own turn was a `turn` too in logs written before issue 14 (now `battle_turn`)
      return Array.isArray(d.order) && d.turn !== undefined ? "ev.battle_turn" : Array.isArray(d.active) && d.active.length ? "ev.turn.active" : "ev.turn.none";
    case "clock_paused":
      return umpire ? "ev.clock_paused.umpire" : "ev.clock_paused";
    case "clock_resumed":
      return umpire ? "ev.clock_resumed.umpire" : "ev.clock_resumed";
    case "clock_adjusted":
      return n(d.delta_ms) >= 0 ? "ev.clock_adjusted.add" : "ev.clock_adjusted.take";
    case "clock_downtime_skipped":
      return n(d.to_ms ?? d.to) - n(d.from_ms ?? d.from) < 1000 ? "ev.clock_downtime_skipped.short" : "ev.clock_downtime_skipped";
    case "phase":
      return d.phase === "planning" ? "ev.phase.planning" : "ev.phase.operations";
    case "battle_started":
      return d.battle !== undefined ? "ev.battle_started" : "ev.battle_started.field";
    case "turn_begun":
      return Array.isArray(d.teams) ? "ev.turn_begun" : "ev.turn_begun.team";
    case "posture":
      return typeof d.on_attack === "string" ? "ev.posture.on_attack" : "ev.posture";
    case "capitulation":
      return typeof d.side === "string" ? "ev.capitulation" : "ev.capitulation.team";
    case "fortress_gun":
      return d.manned === false ? "ev.fortress_gun.silent" : "ev.fortress_gun";
    case "charge":
      return n(d.bonus) > 0 ? "ev.charge" : "ev.charge.none";
    case "cover_set":
      return d.cover ? "ev.cover_set.on" : "ev.cover_set.off";
    case "retreat_made":
      return d.chosen ? "ev.retreat_made" : "ev.retreat_made.default";
    case "spectator_delay":
      return n(d.ms) > 0 ? "ev.spectator_delay" : "ev.spectator_delay.off";
    case "ai_seat":  // issue 18: a seat handed to the computer or back; a stand-in for an absent player
      return d.on ? (d.why === "stand_in" ? "ev.ai_seat.stand_in" : "ev.ai_seat.on") : "ev.ai_seat.off";
    case "muted":
      return `ev.muted.${d.who === "spectators" ? "all" : "one"}.${d.muted ? "on" : "off"}`;
    case "secret_module":
      if (d.action === "returned") return d.early ? "ev.secret_module.early" : "ev.secret_module.returned";
      return d.reason ? "ev.secret_module.sent_reason" : "ev.secret_module.sent";
    case "turn_ended":
      return d.flagged ? "ev.turn_ended.flagged" : d.passed ? "ev.turn_ended.passed" : "ev.turn_ended";
    case "phase_over":
      return d.flagged ? "ev.phase_over.flagged" : "ev.phase_over";
    case "roll":
      if (Array.isArray(d.result)) return typeof d.need === "number" ? "ev.roll.dice_need" : "ev.roll.dice"; // the skirmish's dice
      return d.need !== undefined && d.need !== null ? "ev.roll.need" : "ev.roll.plain";
    case "deployed":
      return Array.isArray(d.figures) ? "ev.deployed.side" : "ev.deployed";
    case "ruling": // the skirmish's rulings set orders, morale or a figure's status (server/skirmish/engine.py)
      return typeof d.orders_left === "number" ? "ev.ruling.orders" : typeof d.demoralised === "boolean" ? "ev.ruling.morale"
        : typeof d.figure === "string" && typeof d.status === "string" ? "ev.ruling.figure" : "ev.ruling";
    case "game_over":
      return d.winner ? "ev.game_over" : "ev.game_over.draw";
    case "morale":
      return typeof d.outcome === "string" ? "ev.morale.test" : "ev.morale";
    case "fire":
      return d.hit === false ? "ev.fire.miss" : "ev.fire";
    case "contact":
      return d.attacker !== undefined ? "ev.contact" : "ev.contact.units";
    case "battle_ended":
      return d.how === "quick" ? "ev.battle_ended.quick" : "ev.battle_ended";
    case "battle_over":
      return d.general_killed ? "ev.battle_over.general_killed" : "ev.battle_over";
    case "campaign_over":
      return d.winner ? "ev.campaign_over.won" : "ev.campaign_over";
    default: {
      const key = `ev.${kind}`;
      return has(key) ? key : null;
    }
  }
}

export interface LogLine {
  text: string;
  /** the rule IDs the event cites (the engines write one or several, comma-separated) */
  rules: string[];
}

export function describeEvent(ev: Event, names: Names): LogLine {
  const d = ev.data;
  const key = sentence(ev.kind, d);
  const p = params(d, names);
  if (ev.kind === "clock_adjusted") p.delta = formatMs(Math.abs(n(d.delta_ms)));
  if (ev.kind === "reassigned" && typeof d.to === "string") p.to = names.unit(d.to);
  if (ev.kind === "posture" && typeof d.on_attack === "string" && typeof d.unit !== "string") p.unit = t("unit.every");
  if (typeof d.on_attack === "string") p.on_attack = has(`on_attack.${d.on_attack}`) ? t(`on_attack.${d.on_attack}` as MessageKey) : d.on_attack;
  if (ev.kind === "overrun" && typeof d.by === "string") p.by = names.unit(d.by); // the unit that overran, not a team
  if (ev.kind === "charge" && typeof d.reason === "string") p.reason = t(has(`charge.${d.reason.replace(/ /g, "_")}`) ? `charge.${d.reason.replace(/ /g, "_")}` as MessageKey : "charge.other");
  if (ev.kind === "fire_assigned" && d.targets && typeof d.targets === "object") {
    p.targets = listWords(Object.keys(d.targets).map((id) => names.unit(id)));
    p.turns = tn("n.turns", n(d.turns ?? 1));
  }
  if (ev.kind === "adjusted") {
    // what the umpire set, without the guns of a unit that has none
    const parts = (["morale", "loss_tolerance", "guns"] as const).filter((k) => d[k] !== undefined && d[k] !== null && !(k === "guns" && n(d[k]) === 0));
    p.what = listWords(parts.map((k) => t(`ev.adjusted.${k}`, { n: n(d[k]) })));
  }
  if (ev.kind === "spectator_delay") p.delay = formatMs(n(d.ms));
  if (ev.kind === "clock_downtime_skipped") p.span = formatMs(n(d.to_ms ?? d.to) - n(d.from_ms ?? d.from));
  if (ev.kind === "secret_module" && d.action !== "returned") p.span = formatMs(n(d.until_ms) - n(d.since_ms));
  if (ev.kind === "secret_module" && typeof d.reason === "string") p.reason = lockoutReason(d.reason, (c) => names.place(c));
  if (ev.kind === "terrain_placed" && d.element && typeof d.element === "object") {
    const kind = s((d.element as D).kind);
    p.what = has(`sk.terrain.${kind}`) ? t(`sk.terrain.${kind}` as MessageKey) : kind;
  }
  if (ev.kind === "game_over" && typeof d.reason === "string") p.reason = has(`sk.reason.${d.reason.replace(/ /g, "_")}`) ? t(`sk.reason.${d.reason.replace(/ /g, "_")}` as MessageKey) : d.reason;
  if (ev.kind === "figure_hit" && typeof d.status === "string" && has(`sk.status.${d.status}`)) p.status = t(`sk.status.${d.status}` as MessageKey);
  if (ev.kind === "morale" && typeof d.outcome === "string") p.outcome = has(`sk.outcome.${d.outcome.replace(/ /g, "_")}`) ? t(`sk.outcome.${d.outcome.replace(/ /g, "_")}` as MessageKey) : d.outcome;
  if (ev.kind === "roll" && Array.isArray(d.result)) p.faces = d.result.map(s).join(" ");
  if (ev.kind === "roll") {
    p.purpose = rollWord(s(d.purpose));
    p.who = typeof d.figure === "string" ? ` (${d.figure})` : typeof d.unit === "string" ? ` (${names.unit(d.unit)})` : typeof d.side === "string" ? ` (${teamWord(d.side)})` : "";
    // what the roll decided, in the game's words where the die has its own ("the general falls"), else success or failure
    const outcome = `roll.${s(d.purpose)}.${d.success ? "yes" : "no"}`;
    p.result = has(outcome) ? t(outcome) : t(d.success ? "ev.roll.success" : "ev.roll.failure");
  }
  const text = key ? t(key, p) : t("ev.other", { what: ev.kind.replace(/_/g, " ") });
  const rules = typeof d.rule === "string" ? d.rule.split(/[,\s]+/).filter((r) => /^[A-Z]+(-[A-Z0-9.]+)+$/.test(r)) : [];
  return { text, rules };
}
