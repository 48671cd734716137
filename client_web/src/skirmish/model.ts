/** The skirmish's view as the server sends it: the protocol's `SkirmishView` (server/skirmish/view.py,
 * shared/protocol/skirmish_views.py, generated into ../net/protocol.ts; docs/skirmish.md "Views and events"): the
 * 40 × 30 table and its terrain, the figures this viewer may see (their weapon, unit, status), the units with their
 * cohesion, the sides' order dice, whose order it is, the hits to choose and the move range of the side to order.
 * The client judges nothing: ranges and costs come from the server. Before the room's first view the model is an
 * empty table. */
import type { SkirmishFigureView, SkirmishView } from "../net/protocol";

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

const cell = (v: readonly number[]): Cell => [v[0] ?? 0, v[1] ?? 0];

/** A room's `state` as the skirmish's view, or null before one has come. */
export function skirmishView(state: unknown): SkirmishView | null {
  const v = state as Partial<SkirmishView> | null;
  return v && typeof v === "object" && v.kind === "skirmish" && v.table && Array.isArray(v.figures) ? (v as SkirmishView) : null;
}

/** The model of a room whose view has not come yet: the default 40 × 30 table (D-S-1), empty. */
export function emptySkirmish(): SkirmishModel {
  return {
    scenario: "", width: 40, height: 30, elements: [], objective: null, stage: "", turn: 0, turns: 8, initiative: null,
    active: [], next: null, terrainLeft: 0, terrainNext: null, sides: [], result: null, figures: [], units: [],
    decision: null, hitsPending: null, lastSeen: [], reach: null, ambushes: new Map(), terrain: new Map(), infantryMove: 4,
  };
}

function figure(f: SkirmishFigureView): Figure {
  return {
    id: f.id, side: f.side, unit: f.unit, role: f.role, weapon: f.weapon, model: f.model, vehicle: f.vehicle, x: f.x, y: f.y,
    facing: f.facing, cells: f.cells.map(cell), status: f.status, ordered: f.ordered === true, contact: f.contact === true,
    group: f.group ?? null, own: f.ordered !== undefined,
  };
}

/** The skirmish room's state read into the model; an empty table until a view has come. */
export function readSkirmish(state: unknown): SkirmishModel {
  const v = skirmishView(state);
  return v ? readSkirmishView(v) : emptySkirmish();
}

export function readSkirmishView(v: SkirmishView): SkirmishModel {
  const r = v.result;
  return {
    scenario: v.scenario, width: v.table.width, height: v.table.height,
    elements: v.table.elements.map((e) => ({ id: e.id, kind: e.kind, x: e.x, y: e.y, w: e.w, h: e.h, objective: e.objective })),
    objective: v.objective, stage: v.stage, turn: v.turn, turns: v.turns, initiative: v.initiative, active: v.active, next: v.next,
    terrainLeft: v.terrain_left, terrainNext: v.terrain_next,
    sides: v.sides.map((s) => ({
      team: s.team, name: s.name, nation: s.nation, role: s.role, edge: s.edge, ordersRolled: s.orders_rolled,
      ordersLeft: s.orders_left, ordersGiven: s.orders_given, deployed: s.deployed, points: s.points,
    })),
    result: r ? { winner: r.winner, reason: r.reason, turn: r.turn } : null,
    figures: v.figures.map(figure),
    units: v.units.map((u) => ({
      id: u.id, name: u.name, kind: u.kind, parent: u.parent, commander: u.commander, members: u.members, children: u.children,
      start: u.start, lost: u.lost, demoralised: u.demoralised, ordered: u.ordered, inCohesion: u.in_cohesion,
    })),
    decision: v.decision ? { ...v.decision } : null,
    hitsPending: v.hits_pending ? { ...v.hits_pending } : null,
    lastSeen: Object.entries(v.last_seen).map(([id, s]) => ({ id, x: s.x, y: s.y, turn: s.turn })),
    reach: v.reach ? new Map(Object.entries(v.reach).map(([id, r]) => [id, { full: r.full.map(cell), half: r.half.map(cell) }])) : null,
    ambushes: new Map(Object.entries(v.ambushes ?? {}).map(([u, places]) => [u, new Map(Object.entries(places).map(([f, c]) => [f, cell(c)]))])),
    terrain: new Map(Object.entries(v.terrain).map(([k, t]) => [k, { cover: t.cover, blocks: t.blocks, infantryCost: t.infantry_cost, obstacle: t.obstacle }])),
    infantryMove: v.settings.infantry_move,
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
