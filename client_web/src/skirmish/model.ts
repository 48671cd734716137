/** The skirmish's view as the server sends it (server/skirmish/view.py, docs/skirmish.md "Views and events"), read
 * tolerantly: the 40 × 30 table and its terrain, the figures this viewer may see (their weapon, unit, status), the
 * units with their cohesion, the sides' order dice, whose order it is, the hits to choose and the move range of the
 * side to order. The client judges nothing: ranges and costs come from the server. */
import { isObj, listOf, num, str, type Obj } from "../read";

export type Cell = [number, number];

export interface Element { id: string; kind: string; x: number; y: number; w: number; h: number; objective: boolean }
export interface Figure {
  id: string; side: string; unit: string; role: string; weapon: string | null; model: string; vehicle: string | null;
  x: number; y: number; facing: string; cells: Cell[]; status: string; ordered: boolean; contact: boolean; group: string | null;
  /** a figure of the viewer's own side (the view sends its full record) */
  own: boolean;
}
export interface Unit {
  id: string; name: string; kind: string; parent: string | null; commander: string | null; members: string[];
  children: string[]; start: number; lost: number; demoralised: boolean; ordered: boolean; inCohesion: string[];
}
export interface Side {
  team: string; name: string; nation: string; role: string; edge: string;
  ordersRolled: number; ordersLeft: number; ordersGiven: number; deployed: boolean; points: number;
}
export interface Decision { owner: string; candidates: string[]; count: number; tier: string; cause: string }
export interface Reach { full: Cell[]; half: Cell[] }
export interface TerrainKind { cover: number; blocks: boolean; infantryCost: number; obstacle: boolean }

export interface SkirmishModel {
  scenario: string;
  width: number;
  height: number;
  elements: Element[];
  objective: string | null;
  stage: string;
  turn: number;
  turns: number;
  initiative: string | null;
  active: string[];
  next: string | null;
  terrainLeft: number;
  terrainNext: string | null;
  sides: Side[];
  result: { winner: string | null; reason: string; turn: number } | null;
  figures: Figure[];
  units: Unit[];
  decision: Decision | null;
  hitsPending: { owner: string; count: number; tier: string } | null;
  lastSeen: { id: string; x: number; y: number; turn: number }[];
  reach: Map<string, Reach> | null;
  /** the defender's held-back units that could spring now, with a place for each figure (S-9.4, D-S-13) */
  ambushes: Map<string, Map<string, Cell>>;
  terrain: Map<string, TerrainKind>;
  infantryMove: number;
}

const cell = (v: unknown): Cell | null => (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number" ? [v[0], v[1]] : null);
const cells = (v: unknown): Cell[] => (Array.isArray(v) ? v.map(cell).filter((c): c is Cell => c !== null) : []);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function figure(o: Obj): Figure {
  return {
    id: str(o.id), side: str(o.side), unit: str(o.unit), role: str(o.role), weapon: typeof o.weapon === "string" ? o.weapon : null,
    model: str(o.model), vehicle: typeof o.vehicle === "string" ? o.vehicle : null, x: num(o.x) ?? 0, y: num(o.y) ?? 0,
    facing: str(o.facing, "n"), cells: cells(o.cells), status: str(o.status, "in_action"), ordered: o.ordered === true,
    contact: o.contact === true, group: typeof o.group === "string" ? o.group : null, own: "ordered" in o,
  };
}

export function readSkirmish(state: Record<string, unknown>): SkirmishModel {
  const table = isObj(state.table) ? state.table : {};
  const settings = isObj(state.settings) ? state.settings : {};
  const reach = isObj(state.reach)
    ? new Map(Object.entries(state.reach).filter(([, r]) => isObj(r)).map(([id, r]) => [id, { full: cells((r as Obj).full), half: cells((r as Obj).half) }]))
    : null;
  const terrain = new Map<string, TerrainKind>();
  if (isObj(state.terrain)) for (const [k, v] of Object.entries(state.terrain)) {
    if (isObj(v)) terrain.set(k, { cover: num(v.cover) ?? 0, blocks: v.blocks === true, infantryCost: num(v.infantry_cost) ?? 1, obstacle: v.obstacle === true });
  }
  const d = isObj(state.decision) ? state.decision : null;
  const hp = isObj(state.hits_pending) ? state.hits_pending : null;
  const r = isObj(state.result) ? state.result : null;
  return {
    scenario: str(state.scenario),
    width: num(table.width) ?? 40,
    height: num(table.height) ?? 30,
    elements: listOf(table.elements).map((e) => ({ id: str(e.id), kind: str(e.kind), x: num(e.x) ?? 0, y: num(e.y) ?? 0, w: num(e.w) ?? 1, h: num(e.h) ?? 1, objective: e.objective === true })),
    objective: typeof state.objective === "string" ? state.objective : null,
    stage: str(state.stage),
    turn: num(state.turn) ?? 0,
    turns: num(state.turns) ?? 8,
    initiative: typeof state.initiative === "string" ? state.initiative : null,
    active: strs(state.active),
    next: typeof state.next === "string" ? state.next : null,
    terrainLeft: num(state.terrain_left) ?? 0,
    terrainNext: typeof state.terrain_next === "string" ? state.terrain_next : null,
    sides: listOf(state.sides).map((s) => ({
      team: str(s.team), name: str(s.name), nation: str(s.nation), role: str(s.role), edge: str(s.edge),
      ordersRolled: num(s.orders_rolled) ?? 0, ordersLeft: num(s.orders_left) ?? 0, ordersGiven: num(s.orders_given) ?? 0,
      deployed: s.deployed === true, points: num(s.points) ?? 0,
    })),
    result: r ? { winner: typeof r.winner === "string" ? r.winner : null, reason: str(r.reason), turn: num(r.turn) ?? 0 } : null,
    figures: listOf(state.figures).map(figure),
    units: listOf(state.units).map((u) => ({
      id: str(u.id), name: str(u.name), kind: str(u.kind), parent: typeof u.parent === "string" ? u.parent : null,
      commander: typeof u.commander === "string" ? u.commander : null, members: strs(u.members), children: strs(u.children),
      start: num(u.start) ?? 0, lost: num(u.lost) ?? 0, demoralised: u.demoralised === true, ordered: u.ordered === true,
      inCohesion: strs(u.in_cohesion),
    })),
    decision: d ? { owner: str(d.owner), candidates: strs(d.candidates), count: num(d.count) ?? 0, tier: str(d.tier), cause: str(d.cause) } : null,
    hitsPending: hp ? { owner: str(hp.owner), count: num(hp.count) ?? 0, tier: str(hp.tier) } : null,
    lastSeen: isObj(state.last_seen) ? Object.entries(state.last_seen).filter(([, v]) => isObj(v)).map(([id, v]) => ({ id, x: num((v as Obj).x) ?? 0, y: num((v as Obj).y) ?? 0, turn: num((v as Obj).turn) ?? 0 })) : [],
    reach,
    ambushes: new Map(isObj(state.ambushes) ? Object.entries(state.ambushes).filter(([, v]) => isObj(v)).map(([u, v]) =>
      [u, new Map(Object.entries(v as Obj).map(([f, c]) => [f, cell(c)]).filter((e): e is [string, Cell] => e[1] !== null))]) : []),
    terrain,
    infantryMove: num(settings.infantry_move) ?? 4,
  };
}

/** The terrain element under a cell, if any (the first listed wins, as the server places them without overlap). */
export function elementAt(m: SkirmishModel, x: number, y: number): Element | undefined {
  return m.elements.find((e) => x >= e.x && x < e.x + e.w && y >= e.y && y < e.y + e.h);
}

/** The cover a figure in a cell has from its ground (D-S-7: the terrain table's number; the server adds the cover
 * of a wall or hedge between, which this preview names only when the figure stands in it). */
export function coverAt(m: SkirmishModel, x: number, y: number): { kind: string; cover: number } | null {
  const e = elementAt(m, x, y);
  if (!e) return null;
  return { kind: e.kind, cover: m.terrain.get(e.kind)?.cover ?? 0 };
}

/** The unit the viewer's order would go to for a figure: its unit when the figure is in its commander's cohesion. */
export function unitOf(m: SkirmishModel, f: Figure): Unit | undefined {
  return m.units.find((u) => u.id === f.unit);
}

/** The moves of a unit order: every figure of the body that can reach the commander's chosen cell's offset goes
 * there (`to`, planned by the server); figures whose offset cell is out of their reach stay. */
export function unitMoves(m: SkirmishModel, figures: string[], lead: string, to: Cell, half = false): { figure: string; to: Cell }[] {
  const byId = new Map(m.figures.map((f) => [f.id, f]));
  const l = byId.get(lead);
  if (!l) return [];
  const dx = to[0] - l.x;
  const dy = to[1] - l.y;
  const out: { figure: string; to: Cell }[] = [];
  const taken = new Set<string>();
  for (const id of [lead, ...figures.filter((f) => f !== lead)]) {
    const f = byId.get(id);
    const r = m.reach?.get(id);
    if (!f || !r) continue;
    const options = half ? r.half : r.full;
    const want: Cell = id === lead ? to : [f.x + dx, f.y + dy];
    const ok = (c: Cell) => options.some((o) => o[0] === c[0] && o[1] === c[1]) && !taken.has(`${c[0]},${c[1]}`);
    if (!ok(want)) continue;
    taken.add(`${want[0]},${want[1]}`);
    out.push({ figure: id, to: want });
  }
  return out;
}
