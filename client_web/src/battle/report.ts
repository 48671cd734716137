/** The after-action report of a battle, computed by one pure function from the room's events as this viewer
 * received them (the event replay, server/rooms/replay.py) and its first and last views: losses per side and per
 * unit, units dispersed, taken and destroyed, the general's fate, the turning points (the largest losses) and each
 * side's dice against what the odds promised. Nothing in it comes from anywhere else, so a side's report holds
 * only what that side was shown. */
import { isObj, listOf, num, str, type Obj } from "../read";
import { isArtilleryType } from "./pieces";

export interface ReportEvent {
  seq: number;
  kind: string;
  data: Obj;
}

export interface UnitLine {
  id: string;
  side: string;
  type: string;
  /** loss tolerance (guns for artillery) when first seen, if the viewer was shown it */
  start: number | null;
  /** losses taken, as the `losses` events add up */
  losses: number;
  /** losses it inflicted (the `by` of `losses` events) */
  inflicted: number;
  /** dispersed, surrendered or destroyed in the battle (the `fallen` event), else null */
  fell: string | null;
  /** its status in the result: in_line, destroyed, prisoner, reserve */
  final: string | null;
  takenBy: string | null;
}

export interface DiceLine {
  rolls: number;
  /** rolls that went the side's way */
  good: number;
  /** what the odds promised: the sum of each roll's chance of going its way */
  expected: number;
  /** initiative rolls won, and of how many turns */
  initiative: { won: number; of: number };
}

export interface SideLine {
  side: string;
  general: string;
  units: number;
  losses: number;
  inflicted: number;
  dispersed: number;
  taken: number;
  destroyed: number;
  dice: DiceLine;
}

export interface TurningPoint {
  turn: number;
  seq: number;
  /** what caused the losses: a weapon (musket, canister, round_shot, crossing) or melee */
  cause: string;
  /** the unit that dealt them, if one did */
  by: string | null;
  /** the units that took them, and the total */
  units: string[];
  amount: number;
  side: string;
}

export interface GeneralFate {
  side: string;
  general: string;
  /** killed (N-VICTORY-3's roll), survived, or unknown (the viewer saw no roll) */
  fate: "killed" | "survived" | "unknown";
  face: number | null;
  need: number | null;
}

export interface AfterAction {
  turns: number;
  winner: string | null;
  loser: string | null;
  reason: string;
  sides: SideLine[];
  units: UnitLine[];
  turningPoints: TurningPoint[];
  /** losses per turn and side */
  byTurn: { turn: number; losses: Record<string, number> }[];
  general: GeneralFate | null;
  events: number;
}

/** Which way a die went for the side that rolled it: dispersal and the general's death are bad when they succeed. */
const BAD_WHEN_SUCCESS = new Set(["dispersal", "general_death"]);

export function afterAction(events: readonly ReportEvent[], first: Obj, last: Obj): AfterAction {
  const units = new Map<string, UnitLine>();
  const sideOf = new Map<string, string>();
  const sides: string[] = listOf(last.sides ?? first.sides).map((s) => str(s.name)).filter(Boolean);
  const generals = new Map(listOf(last.sides ?? first.sides).map((s) => [str(s.name), str(s.general)]));
  const touch = (u: Obj) => {
    const id = str(u.id);
    if (!id) return null;
    let line = units.get(id);
    if (!line) {
      const type = str(u.type);
      const start = isArtilleryType(type) ? num(u.guns) : num(u.loss_tolerance);
      line = { id, side: str(u.side), type, start, losses: 0, inflicted: 0, fell: null, final: null, takenBy: null };
      units.set(id, line);
      sideOf.set(id, line.side);
      if (line.side && !sides.includes(line.side)) sides.push(line.side);
    } else if (line.start === null) {
      line.start = isArtilleryType(line.type) ? num(u.guns) : num(u.loss_tolerance);
    }
    return line;
  };
  for (const u of listOf(first.units)) touch(u);
  for (const e of events) {
    if (e.kind === "battle_started" || e.kind === "arrived") for (const u of listOf(e.data.units)) touch(u);
  }
  for (const u of listOf(last.units)) touch(u);

  let turn = num(first.turn) ?? 1;
  const blows = new Map<string, TurningPoint>();
  const byTurn = new Map<number, Record<string, number>>();
  const dice = new Map<string, DiceLine>(sides.map((s) => [s, { rolls: 0, good: 0, expected: 0, initiative: { won: 0, of: 0 } }]));
  const diceOf = (side: string) => {
    let d = dice.get(side);
    if (!d) dice.set(side, (d = { rolls: 0, good: 0, expected: 0, initiative: { won: 0, of: 0 } }));
    return d;
  };
  const initiative = new Map<number, { side: string; face: number }[]>();
  let general: GeneralFate | null = null;
  let result: Obj | null = isObj(last.result) ? last.result : null;
  for (const e of events) {
    const d = e.data;
    if ((e.kind === "battle_turn" || e.kind === "turn") && num(d.turn) !== null) turn = num(d.turn)!; // "turn": logs before issue 14
    if (e.kind === "losses") {
      const id = str(d.unit);
      const amount = num(d.amount) ?? 0;
      const line = units.get(id) ?? touch({ id, side: "", type: "" })!;
      line.losses += amount;
      const by = typeof d.by === "string" && d.by ? d.by : null;
      if (by && units.has(by)) units.get(by)!.inflicted += amount;
      const side = line.side || sideOf.get(id) || "";
      const row = byTurn.get(turn) ?? {};
      row[side] = (row[side] ?? 0) + amount;
      byTurn.set(turn, row);
      // one blow: a shooter's (or a melee partner's) losses dealt in one turn by one cause
      const cause = str(d.cause, "other");
      const key = `${turn}|${by ?? ""}|${cause}|${side}`;
      const blow = blows.get(key) ?? { turn, seq: e.seq, cause, by, units: [], amount: 0, side };
      blow.amount += amount;
      if (!blow.units.includes(id)) blow.units.push(id);
      blows.set(key, blow);
    } else if (e.kind === "fallen") {
      const line = units.get(str(d.unit));
      if (line) {
        line.fell = str(d.status) || null;
        line.takenBy = typeof d.taken_by === "string" ? d.taken_by : line.takenBy;
      }
    } else if (e.kind === "roll") {
      const purpose = str(d.purpose);
      const side = str(d.side) || sideOf.get(str(d.unit)) || "";
      const face = num(d.face);
      if (purpose === "initiative") {
        if (face !== null && side) initiative.set(turn, [...(initiative.get(turn) ?? []), { side, face }]);
        continue;
      }
      const need = num(d.need);
      const faces = num(d.faces) ?? 6;
      if (purpose === "general_death") general = { side, general: generals.get(side) ?? "", fate: d.success ? "killed" : "survived", face, need };
      if (need === null || !side || typeof d.success !== "boolean") continue;
      const p = Math.max(0, Math.min(1, need / faces));
      const bad = BAD_WHEN_SUCCESS.has(purpose);
      const line = diceOf(side);
      line.rolls += 1;
      line.expected += bad ? 1 - p : p;
      line.good += d.success !== bad ? 1 : 0;
    } else if (e.kind === "battle_over") {
      result = d;
    }
  }
  // initiative (D-N-1): the turn's last pair of rolls decides (ties are rolled again); higher goes first
  for (const rolls of initiative.values()) {
    const pair = rolls.slice(-2);
    if (pair.length < 2 || pair[0]!.face === pair[1]!.face) continue;
    const [a, b] = pair as [{ side: string; face: number }, { side: string; face: number }];
    for (const r of pair) diceOf(r.side).initiative.of += 1;
    diceOf(a.face > b.face ? a.side : b.side).initiative.won += 1;
  }
  if (result) {
    for (const u of listOf(result.units)) {
      const line = touch(u);
      if (line) line.final = str(u.status) || null;
    }
    if (!general && result.loser) {
      const side = str(result.loser);
      general = { side, general: str(result.general) || generals.get(side) || "", fate: result.general_killed === true ? "killed" : result.general_killed === false ? "survived" : "unknown", face: null, need: null };
    }
  }
  const all = [...units.values()].sort((a, b) => sides.indexOf(a.side) - sides.indexOf(b.side) || a.id.localeCompare(b.id, undefined, { numeric: true }));
  const sideLines: SideLine[] = sides.map((side) => {
    const mine = all.filter((u) => u.side === side);
    return {
      side, general: generals.get(side) ?? "", units: mine.length,
      losses: mine.reduce((a, u) => a + u.losses, 0), inflicted: mine.reduce((a, u) => a + u.inflicted, 0),
      dispersed: mine.filter((u) => u.fell === "dispersed").length,
      taken: mine.filter((u) => u.final === "prisoner" || (u.final === null && u.fell === "surrendered")).length,
      destroyed: mine.filter((u) => u.final === "destroyed" || (u.final === null && u.fell === "destroyed")).length,
      dice: diceOf(side),
    };
  });
  const turningPoints = [...blows.values()].sort((a, b) => b.amount - a.amount || a.seq - b.seq).slice(0, 5);
  const turns = num(result?.turn) ?? num(last.turn) ?? turn;
  return {
    turns, winner: result ? str(result.winner) || null : null, loser: result ? str(result.loser) || null : null,
    reason: result ? str(result.reason) : "", sides: sideLines, units: all, turningPoints,
    byTurn: [...byTurn.entries()].sort((a, b) => a[0] - b[0]).map(([t, losses]) => ({ turn: t, losses })),
    general, events: events.length,
  };
}

/** The report as CSV: one row per unit, then one per side (its totals and dice). */
export function reportCsv(r: AfterAction, name: (id: string) => string): string {
  const q = (v: unknown) => {
    const s = v === null || v === undefined ? "" : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const rows: unknown[][] = [["row", "side", "unit", "name", "type", "start", "losses", "inflicted", "fell", "final", "taken_by"]];
  for (const u of r.units) rows.push(["unit", u.side, u.id, name(u.id), u.type, u.start, u.losses, u.inflicted, u.fell, u.final, u.takenBy]);
  rows.push(["side", "side", "general", "units", "losses", "inflicted", "dispersed", "taken", "destroyed", "dice_rolls", "dice_good", "dice_expected", "initiative_won", "initiative_of"]);
  for (const s of r.sides) rows.push(["side", s.side, s.general, s.units, s.losses, s.inflicted, s.dispersed, s.taken, s.destroyed, s.dice.rolls, s.dice.good, s.dice.expected.toFixed(2), s.dice.initiative.won, s.dice.initiative.of]);
  return rows.map((row) => row.map(q).join(",")).join("\n") + "\n";
}
