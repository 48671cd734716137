/** The battle as the client draws it, read from the battle room's projected state (see docs/client.md). */
import { isObj, listOf, num, str, type Obj } from "../read";
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
  raw: Record<string, unknown>;
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
  result: Record<string, unknown> | null;
  sides: string[];
  /** a siege storm's fortress (N-SIEGE-5): who besieges and who holds it, breaches and forts; null in a field battle */
  siege: { fortress: string; besieger: string; garrison: string; breaches: number; forts: number; guns: number } | null;
  /** pairs of units locked in melee (N-MELEE) */
  melees: { a: string; b: string }[];
  /** units no longer on the field: dispersed, surrendered, destroyed, marched off */
  fallen: { id: string; side: string; type: string; status: string }[];
}


function cellOf(v: unknown): Cell | null {
  if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number") return { x: v[0], y: v[1] };
  if (isObj(v) && typeof v.x === "number" && typeof v.y === "number") return { x: v.x, y: v.y };
  return null;
}


/** Formation sizes by arm: cavalry columns differ from infantry ones (N-CAV, D-N-11). */
export function formationSize(type: string, formation: string): readonly [number, number] {
  const f = formation.toLowerCase();
  if (type.toLowerCase().includes("cav") && (f === "attack_column" || f === "march_column")) return FORMATION_SIZE[`cavalry_${f}`]!;
  return FORMATION_SIZE[f] ?? [1, 1];
}

export function readBattle(state: Obj): BattleModel {
  const map = isObj(state.map) ? state.map : state;
  const cols = num(map.width ?? map.cols) ?? FIELD;
  const rows = num(map.height ?? map.rows) ?? FIELD;
  // A siege storm's view carries the symbols of its own ground (`siege.legend`: wall, fort, ditch, breach, parallel).
  const siege = isObj(state.siege) ? state.siege : null;
  const legend: Obj = { ...BATTLE_SYMBOLS, ...(siege && isObj(siege.legend) ? siege.legend : {}), ...(isObj(map.legend) ? map.legend : {}) };
  const terrain: string[][] = Array.from({ length: rows }, () => Array.from({ length: cols }, () => "open"));
  const elevation: number[][] = Array.from({ length: rows }, () => Array.from({ length: cols }, () => 0));
  const drawn = map.terrain ?? map.rows;
  if (Array.isArray(drawn)) {
    drawn.slice(0, rows).forEach((row, y) => {
      const cells: unknown[] = typeof row === "string" ? [...row] : Array.isArray(row) ? row : [];
      cells.slice(0, cols).forEach((c, x) => (terrain[y]![x] = str(typeof c === "string" && c in legend ? legend[c] : c, "open")));
    });
  }
  const elev = map.elevation ?? map.heights;
  if (Array.isArray(elev)) {
    elev.slice(0, rows).forEach((row, y) => {
      const cells: unknown[] = typeof row === "string" ? [...row] : Array.isArray(row) ? row : [];
      cells.slice(0, cols).forEach((c, x) => (elevation[y]![x] = Number(c) || 0));
    });
  }
  // issue 14: the rules' values of each unit type on the field (server/napoleonic/battle/view.py `characteristics`)
  const types = isObj(state.characteristics) && isObj(state.characteristics.unit_types) ? state.characteristics.unit_types : {};
  const typeRange = (type: string): number | null => { const t = types[type]; return isObj(t) ? num(t.range) : null; };
  const units: BattleUnit[] = listOf(state.units).filter((u) => u.status === undefined || u.status === "field").flatMap((u) => {
    const anchor = cellOf(u.anchor ?? u.at ?? u.position ?? (typeof u.x === "number" ? [u.x, u.y] : null));
    const given = Array.isArray(u.cells) ? u.cells.map(cellOf).filter((c): c is Cell => c !== null) : [];
    if (!anchor && !given.length) return [];
    const type = str(u.type ?? u.kind ?? u.arm, "infantry");
    const formation = str(u.formation, "line");
    const [width, depth] = formationSize(type, formation);
    const facing = (u.facing as number | string | undefined) ?? 0;
    const a = anchor ?? given[0]!;
    return [{
      id: str(u.id), name: str(u.name ?? u.id), side: str(u.side ?? u.team), type, formation, facing, anchor: a,
      cells: given.length ? given : footprint(a, facing, width, depth), width, depth,
      morale: num(u.morale), lossTolerance: num(u.loss_tolerance ?? u.tolerance), losses: num(u.losses),
      movementLeft: num(u.movement_left ?? u.mp ?? u.points), range: num(u.range) ?? typeRange(type), guns: num(u.guns),
      status: str(u.status, "field"), moveEnded: typeof u.move_ended === "string" && u.move_ended ? u.move_ended : null, raw: u,
    }];
  });
  const turn = isObj(state.turn) ? state.turn : {};
  const active = state.active ?? state.to_move ?? turn.side;
  const fallen = listOf(state.units).filter((u) => ["dispersed", "surrendered", "destroyed", "marched_off"].includes(str(u.status)));
  return {
    cols, rows, terrain, elevation, units,
    // Groups waiting off the field (N-START-5/6, D-N-12): their units, distance in campaign cells and status.
    reinforcements: listOf(state.reinforcements).map((r) => ({
      id: str(r.id ?? r.group), name: str(r.name ?? r.group ?? r.id), side: str(r.side ?? r.team),
      type: Array.isArray(r.units) ? r.units.map((u) => str(u)).join(", ") : str(r.type),
      eta: [str(r.eta ?? r.status ?? r.turn), r.distance !== undefined ? `${str(r.distance)}↔` : "", str(r.edge)].filter(Boolean).join(" "),
    })),
    turn: num(state.turn) ?? num(turn.number ?? turn.n),
    active: Array.isArray(active) ? active.map((a) => str(a)) : typeof active === "string" ? [active] : [],
    phase: str(state.phase ?? turn.phase),
    result: isObj(state.result) ? state.result : null,
    melees: listOf(state.melees).map((m) => ({ a: str(m.a), b: str(m.b) })).filter((m) => m.a && m.b),
    spectators: num(state.spectators),
    fallen: fallen.map((u) => ({ id: str(u.id), side: str(u.side), type: str(u.type), status: str(u.status) })),
    siege: siege ? {
      fortress: str(isObj(siege.fortress) ? siege.fortress.city ?? siege.fortress.name : siege.fortress),
      besieger: str(siege.besieger), garrison: str(siege.garrison),
      breaches: Array.isArray(siege.breaches) ? siege.breaches.length : 0, // breaches, not their cells
      forts: Array.isArray(siege.forts) ? siege.forts.length : 0,
      guns: isObj(siege.guns) ? Object.keys(siege.guns).length : 0,
    } : null,
    sides: Array.isArray(state.sides) ? state.sides.map((s) => (isObj(s) ? str(s.name ?? s.id ?? s.team) : str(s))) : [...new Set(units.map((u) => u.side))],
  };
}

/** Map symbols of the battle engine (docs/battle.md). */
export const BATTLE_SYMBOLS: Record<string, string> = {
  ".": "open", "=": "road", f: "light_forest", F: "dense_forest", S: "settlement", "~": "river", "+": "crossing",
  M: "mountain", W: "water", m: "marsh",
  // server/napoleonic/siege/rules.py, used when a storm's view lacks `siege.legend`
  "#": "wall", X: "fort", _: "ditch", b: "breach", P: "parallel",
};
