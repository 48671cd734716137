/** The battle as the client draws it, read from the battle room's projected state: the protocol's `BattleView`
 * (shared/protocol/views.py, generated into ../net/protocol.ts; see docs/client.md). */
import type { BattleResultView, BattleUnitView, BattleView } from "../net/protocol";
import { FIELD, FORMATION_SIZE, footprint, type Cell } from "./geometry";

export interface BattleUnit {
  id: string;
  name: string;
  side: string;
  type: string;
  formation: string;
  facing: number | string;
  anchor: Cell;
  cells: Cell[];
  width: number;
  depth: number;
  morale: number | null;
  lossTolerance: number | null;
  losses: number | null;
  movementLeft: number | null;
  range: number | null;
  guns: number | null;
  status: string;
  /** the rule that ended its move this turn (N-SIEGE-12 ditch, N-SIEGE-13 ladders), else null */
  moveEnded: string | null;
  raw: BattleUnitView;
}

export interface BattleModel {
  cols: number;
  rows: number;
  terrain: string[][];
  elevation: number[][];
  units: BattleUnit[];
  reinforcements: { id: string; name: string; side: string; type: string; eta: string }[];
  turn: number | null;
  active: string[];
  phase: string;
  spectators: number | null;
  result: BattleResultView | null;
  sides: string[];
  /** a siege storm's fortress (N-SIEGE-5): who besieges and who holds it, breaches and forts; null in a field battle */
  siege: { fortress: string; besieger: string; garrison: string; breaches: number; forts: number; guns: number } | null;
  /** pairs of units locked in melee (N-MELEE) */
  melees: { a: string; b: string }[];
  /** units no longer on the field: dispersed, surrendered, destroyed, marched off */
  fallen: { id: string; side: string; type: string; status: string }[];
}

/** Formation sizes by arm: cavalry columns differ from infantry ones (N-CAV, D-N-11). */
export function formationSize(type: string, formation: string): readonly [number, number] {
  const f = formation.toLowerCase();
  if (type.toLowerCase().includes("cav") && (f === "attack_column" || f === "march_column")) return FORMATION_SIZE[`cavalry_${f}`]!;
  return FORMATION_SIZE[f] ?? [1, 1];
}

/** The model of a room whose view has not come yet: an empty field. */
export function emptyBattle(): BattleModel {
  return {
    cols: FIELD, rows: FIELD, terrain: Array.from({ length: FIELD }, () => Array.from({ length: FIELD }, () => "open")),
    elevation: Array.from({ length: FIELD }, () => Array.from({ length: FIELD }, () => 0)), units: [], reinforcements: [],
    turn: null, active: [], phase: "", spectators: null, result: null, sides: [], siege: null, melees: [], fallen: [],
  };
}

/** A room's `state` as the battle (or storm) view the protocol types, or null before one has come. */
export function battleView(state: unknown): BattleView | null {
  const v = state as Partial<BattleView> | null;
  return v && typeof v === "object" && v.map && Array.isArray(v.units) ? (v as BattleView) : null;
}

const FALLEN = ["dispersed", "surrendered", "destroyed", "marched_off"];

/** The battle room's state read into the model; an empty field until a view has come. */
export function readBattle(state: unknown): BattleModel {
  const v = battleView(state);
  return v ? readBattleView(v) : emptyBattle();
}

export function readBattleView(v: BattleView): BattleModel {
  const { width: cols, height: rows } = v.map;
  // A siege storm's view carries the symbols of its own ground (`siege.legend`: wall, fort, ditch, breach, parallel).
  const legend: Record<string, string> = { ...BATTLE_SYMBOLS, ...(v.siege?.legend ?? {}) };
  const terrain = Array.from({ length: rows }, (_, y) =>
    Array.from({ length: cols }, (_, x) => { const c = v.map.rows[y]?.[x]; return c === undefined ? "open" : legend[c] ?? c; }));
  const elevation = Array.from({ length: rows }, (_, y) => Array.from({ length: cols }, (_, x) => Number(v.map.elevation[y]?.[x]) || 0));
  // issue 14: the rules' values of each unit type on the field (server/napoleonic/battle/view.py `characteristics`)
  const types = v.characteristics?.unit_types ?? {}; // absent from views of engines before issue 14
  const units: BattleUnit[] = v.units.filter((u) => u.status === "field").map((u) => {
    const [width, depth] = formationSize(u.type, u.formation);
    const anchor: Cell = { x: u.x, y: u.y };
    const given = u.cells.map(([x, y]) => ({ x: x ?? 0, y: y ?? 0 }));
    return {
      id: u.id, name: u.id, side: u.side, type: u.type, formation: u.formation, facing: u.facing, anchor,
      cells: given.length ? given : footprint(anchor, u.facing, width, depth), width, depth,
      morale: u.morale ?? null, lossTolerance: u.loss_tolerance ?? null, losses: u.losses ?? null,
      movementLeft: u.points ?? null, range: types[u.type]?.range ?? null, guns: u.guns ?? null,
      status: u.status, moveEnded: u.move_ended || null, raw: u,
    };
  });
  const s = v.siege;
  return {
    cols, rows, terrain, elevation, units,
    // Groups waiting off the field (N-START-5/6, D-N-12): their units, distance in campaign cells and status.
    reinforcements: v.reinforcements.map((r) => ({
      id: r.group, name: r.group, side: r.side, type: r.units.join(", "),
      eta: [r.status, `${r.distance}↔`, r.edge].filter(Boolean).join(" "),
    })),
    turn: v.turn,
    active: v.active ? [v.active] : [],
    phase: String(v.phase),
    result: v.result,
    melees: v.melees.filter((m) => m.a && m.b).map((m) => ({ a: m.a, b: m.b })),
    spectators: null,
    fallen: v.units.filter((u) => FALLEN.includes(u.status)).map((u) => ({ id: u.id, side: u.side, type: u.type, status: u.status })),
    siege: s ? {
      fortress: s.fortress.city, besieger: s.besieger, garrison: s.garrison,
      breaches: s.breaches.length, // breaches, not their cells
      forts: s.forts.length, guns: Object.keys(s.guns).length,
    } : null,
    sides: v.sides.map((side) => side.name),
  };
}

/** Map symbols of the battle engine (docs/battle.md). */
export const BATTLE_SYMBOLS: Record<string, string> = {
  ".": "open", "=": "road", f: "light_forest", F: "dense_forest", S: "settlement", "~": "river", "+": "crossing",
  M: "mountain", W: "water", m: "marsh",
  // server/napoleonic/siege/rules.py, used when a storm's view lacks `siege.legend`
  "#": "wall", X: "fort", _: "ditch", b: "breach", P: "parallel",
};
