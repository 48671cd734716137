/** A battle unit's legal options as the server answers them (issue 14: the engine's `options`, computed by the same
 * checks that validate orders — server/napoleonic/battle/options.py), and what the preview reads from them. The client
 * never prices a move or judges an order itself: what it offers is what the answer lists, what it disables carries
 * the answer's reason and rule. Until the server answers options, the field offers the orders without any cost or
 * claim, and the engine's refusal is shown at the unit. */
import { isObj, listOf, num, str, type Obj } from "../read";
import type { Cell } from "./geometry";
import { isArtilleryType } from "./pieces";

export interface Refusal {
  order: string;
  code: string;
  rule: string | null;
  message: string;
  /** the message is the client's own, in the viewer's language (the server's are English) */
  said?: boolean;
}

/** A refusal the client says itself (a cell out of reach, an order the options do not offer), in the viewer's words. */
export function ownRefusal(order: string, rule: string | null, message: string): Refusal {
  return { order, code: "illegal_order", rule, message, said: true };
}

export interface Reach {
  to: Cell;
  path: Cell[];
  cost: number;
  pointsLeft: number;
  road: boolean;
  contact: string[];
  halts: string | null;
}

export interface Placing {
  to: Cell;
  facing: number;
  formation: string;
  cost: number;
  carried: boolean;
}

export interface BattleOptions {
  unit: string | null;
  side: string;
  active: boolean;
  refused: Refusal[];
  points: number;
  moves: Reach[];
  charge: boolean;
  leaveMelee: Reach[];
  wheels: (Placing & { degrees: number })[];
  aboutFace: Placing | null;
  formations: Placing[];
  targets: { unit: string; distance: number | null }[];
  maxTargets: number;
  guns: number;
  barrage: boolean;
  retreat: boolean;
}

/** Ask the server for a unit's options (`unit` null: the side's); null when this server has no such request. */
export type OptionsSource = (unit: string | null) => Promise<BattleOptions | null>;

function cell(v: unknown): Cell | null {
  return Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number" ? { x: v[0], y: v[1] } : null;
}

function reach(o: Obj): Reach | null {
  const to = cell(o.to);
  if (!to) return null;
  return {
    to, path: Array.isArray(o.path) ? o.path.map(cell).filter((c): c is Cell => c !== null) : [],
    cost: num(o.cost) ?? 0, pointsLeft: num(o.points_left) ?? 0, road: o.road === true,
    contact: Array.isArray(o.contact) ? o.contact.map((c) => str(c)) : [], halts: typeof o.halts === "string" ? o.halts : null,
  };
}

function placing(o: Obj): Placing | null {
  const to = cell(o.to);
  if (!to) return null;
  return { to, facing: num(o.facing) ?? 0, formation: str(o.formation), cost: num(o.cost) ?? 0, carried: o.carried === true };
}

/** The server's answer (snake_case, as server/napoleonic/battle/options.py's `BattleOptions` dumps it) as the client reads it. */
export function readOptions(body: unknown): BattleOptions | null {
  const o = isObj(body) && isObj(body.options) ? body.options : body;
  if (!isObj(o) || typeof o.active !== "boolean") return null;
  const some = <T>(v: unknown, f: (x: Obj) => T | null): T[] => listOf(v).map(f).filter((x): x is T => x !== null);
  return {
    unit: typeof o.unit === "string" ? o.unit : null, side: str(o.side), active: o.active,
    refused: listOf(o.refused).map((r) => ({ order: str(r.order), code: str(r.code), rule: typeof r.rule === "string" ? r.rule : null, message: str(r.message) })),
    points: num(o.points) ?? 0, moves: some(o.moves, reach), charge: o.charge === true, leaveMelee: some(o.leave_melee, reach),
    wheels: some(o.wheels, (w) => { const p = placing(w); return p ? { ...p, degrees: num(w.degrees) ?? 0 } : null; }),
    aboutFace: isObj(o.about_face) ? placing(o.about_face) : null, formations: some(o.formations, placing),
    targets: listOf(o.targets).map((x) => ({ unit: str(x.unit), distance: num(x.distance) })),
    maxTargets: num(o.max_targets) ?? 2, guns: num(o.guns) ?? 0, barrage: o.barrage === true, retreat: o.retreat === true,
  };
}

/** Why `order` is not offered (for a formation, why that formation), if the answer says. */
export function refusal(opts: BattleOptions, order: string, formation?: string): Refusal | null {
  const all = opts.refused.filter((r) => r.order === order || r.order === "*");
  if (formation) return all.find((r) => r.message.startsWith(`${formation}:`)) ?? all.find((r) => r.order === "*") ?? null;
  return all[0] ?? null;
}

/** The reachable anchors by cell key ("x,y"), moves first, then the ways out of a melee. */
export function reachable(opts: BattleOptions): Map<string, Reach & { leaving: boolean }> {
  const out = new Map<string, Reach & { leaving: boolean }>();
  for (const r of opts.moves) out.set(`${r.to.x},${r.to.y}`, { ...r, leaving: false });
  for (const r of opts.leaveMelee) if (!out.has(`${r.to.x},${r.to.y}`)) out.set(`${r.to.x},${r.to.y}`, { ...r, leaving: true });
  return out;
}

/** The formations a unit of this arm may stand in (N-INF, N-CAV, N-ART): the buttons the panel shows, each enabled
 * only when the options list it. */
export function formationsOf(type: string): string[] {
  if (isArtilleryType(type)) return ["deployed", "limbered"];
  if (type.includes("cav")) return ["attack_column", "march_column"];
  return ["line", "attack_column", "square", "march_column"];
}
