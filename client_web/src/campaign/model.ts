/**
 * The campaign view the client draws, read from the room's projected state. The reader accepts the shapes the
 * campaign engine's `view()` produces (see docs/client.md) and tolerates missing parts: a map without rivers is
 * drawn without rivers. Cells in the state are the players' coordinates (longitude, latitude) when the map has an
 * `origin`; grid indices otherwise.
 */
import { fromCoord, type Cell, type Metric } from "./geometry";

export interface City {
  name: string;
  cell: Cell;
  capital: boolean;
  fortress: boolean;
  owner: string | null;
}

export interface Force {
  id: string;
  name: string;
  team: string;
  type: string;
  cell: Cell;
  facing: number | string | null;
  /** Units larger than one cell (C-2.1 [L2]) */
  size: { w: number; h: number };
  strength: number | null;
  morale: number | null;
  movementLeft: number | null;
  composition: string[];
  /** true when this is what the team was told of an enemy, not an exact position */
  reported: boolean;
  orders: string[];
  raw: Record<string, unknown>;
}

export interface CampaignModel {
  metric: Metric;
  terrain: string[][];
  owners: (string | null)[][];
  rivers: Cell[][];
  roads: Cell[][];
  railways: Cell[][];
  cities: City[];
  forces: Force[];
  turn: number | null;
  toMove: string[];
  moveCosts: Record<string, number>;
  roadCost: number | null;
  diagonal: boolean;
  /** The foundation's drill engine (one cell per counter per turn) rather than the campaign engine. */
  drill: boolean;
  recon: { left: number | null; answers: { question: string; answer: string; falseAnswer: boolean }[] };
  houseRules: string[];
  teams: Record<string, { name: string; colour: string }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown, d = ""): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : d);

/** Default Table-4-like costs in km per cell entered; the state's `move_costs` replaces them. */
export const DEFAULT_MOVE_COSTS: Record<string, number> = {
  plain: 10, steppe: 10, forest: 15, hills: 15, marsh: 20, mountains: 25, desert: 15, sea: Infinity, water: Infinity, lake: Infinity,
};

export function readCell(v: unknown, m: Metric | null): Cell | null {
  let c: Cell | null = null;
  if (Array.isArray(v) && v.length >= 2 && typeof v[0] === "number" && typeof v[1] === "number") c = { x: v[0], y: v[1] };
  else if (isObj(v) && typeof v.x === "number" && typeof v.y === "number") c = { x: v.x, y: v.y };
  else if (typeof v === "string" && /^\s*-?\d+\s*[,-]\s*-?\d+\s*$/.test(v)) {
    const [x, y] = v.split(/[,-]/).map((s) => Number(s.trim()));
    c = { x: x!, y: y! };
  }
  if (!c) return null;
  return m && (m.origin.x !== 0 || m.origin.y !== 0 || m.latitudeUp) ? fromCoord(m, c) : c;
}

function grid<T>(v: unknown, cols: number, rows: number, legend: Obj, fill: T, conv: (s: unknown) => T): T[][] {
  const out: T[][] = Array.from({ length: rows }, () => Array.from({ length: cols }, () => fill));
  if (!Array.isArray(v)) return out;
  v.slice(0, rows).forEach((row, y) => {
    const cells: unknown[] = typeof row === "string" ? [...row] : Array.isArray(row) ? row : [];
    cells.slice(0, cols).forEach((c, x) => {
      const name = typeof c === "string" && c in legend ? legend[c] : c;
      out[y]![x] = conv(name);
    });
  });
  return out;
}

function lines(v: unknown, m: Metric): Cell[][] {
  if (!Array.isArray(v)) return [];
  return v.map((line) => {
    const pts = isObj(line) ? line.cells ?? line.path ?? line.points : line;
    return Array.isArray(pts) ? pts.map((p) => readCell(p, m)).filter((c): c is Cell => c !== null) : [];
  }).filter((l) => l.length > 0);
}

function listOf(v: unknown): Obj[] {
  if (Array.isArray(v)) return v.filter(isObj);
  if (isObj(v)) return Object.entries(v).filter(([, u]) => isObj(u)).map(([id, u]) => ({ id, ...(u as Obj) }));
  return [];
}

export function readCampaign(state: Obj): CampaignModel {
  const map = isObj(state.map) ? state.map : {};
  const cols = num(map.cols ?? map.width ?? state.width) ?? 40;
  const rows = num(map.rows ?? map.height ?? state.height) ?? 30;
  const origin = readCell(map.origin, null) ?? { x: 0, y: 0 };
  const metric: Metric = { cols, rows, origin, latitudeUp: map.latitude_up === true, kmPerCell: num(map.km_per_cell) ?? 10 };
  const legend = isObj(map.legend) ? map.legend : {};
  const terrain = grid<string>(map.terrain, cols, rows, legend, "plain", (s) => str(s, "plain"));
  const owners = grid<string | null>(map.owners ?? map.states, cols, rows, isObj(map.owner_legend) ? map.owner_legend : {}, null,
    (s) => (typeof s === "string" && s !== "." && s !== "" ? s : null));
  const cities: City[] = listOf(map.cities).flatMap((c) => {
    const cell = readCell(c.cell ?? c.at ?? c.position, metric);
    return cell ? [{
      name: str(c.name ?? c.id), cell, capital: c.capital === true, fortress: c.fortress === true,
      owner: typeof c.owner === "string" ? c.owner : null,
    }] : [];
  });
  const forces: Force[] = listOf(state.forces ?? state.units ?? state.counters).flatMap((u) => {
    const cell = readCell(u.cell ?? u.at ?? u.position ?? (typeof u.x === "number" ? [u.x, u.y] : null), metric);
    if (!cell) return [];
    const size = Array.isArray(u.size) ? { w: Number(u.size[0]) || 1, h: Number(u.size[1]) || 1 } : { w: 1, h: 1 };
    const comp = Array.isArray(u.composition) ? u.composition.map((c) => (isObj(c) ? str(c.name ?? c.id ?? c.type) : str(c))) : [];
    return [{
      id: str(u.id), name: str(u.name ?? u.id), team: str(u.team ?? u.side ?? u.owner), type: str(u.type ?? u.kind ?? u.arm, "division"),
      cell, facing: (u.facing as number | string | undefined) ?? null, size,
      strength: num(u.strength ?? u.rating), morale: num(u.morale), movementLeft: num(u.movement_left ?? u.mp_left ?? u.km_left),
      composition: comp, reported: u.reported === true || u.exact === false,
      orders: Array.isArray(u.orders) ? u.orders.map((o) => str(o)) : [], raw: u,
    }];
  });
  const turnObj = isObj(state.turn) ? state.turn : {};
  const toMove = state.to_move ?? turnObj.teams ?? turnObj.team ?? state.active;
  const drill = Array.isArray(state.counters) && !state.map;
  const recon = isObj(state.recon) ? state.recon : isObj(state.reconnaissance) ? state.reconnaissance : {};
  const teams: CampaignModel["teams"] = {};
  for (const tm of Array.isArray(state.teams) ? state.teams.map((x): Obj => (isObj(x) ? x : { id: x })) : listOf(state.teams)) {
    const id = str(tm.id ?? tm.colour ?? tm.color);
    teams[id] = { name: str(tm.name, id), colour: str(tm.colour ?? tm.color, id) };
  }
  return {
    metric, terrain, owners, cities, forces,
    rivers: lines(map.rivers, metric), roads: lines(map.roads, metric), railways: lines(map.railways, metric),
    turn: num(state.turn) ?? num(turnObj.number ?? turnObj.n),
    toMove: Array.isArray(toMove) ? toMove.map((x) => str(x)) : typeof toMove === "string" ? [toMove] : [],
    moveCosts: { ...DEFAULT_MOVE_COSTS, ...(isObj(state.move_costs) ? (state.move_costs as Record<string, number>) : {}) },
    roadCost: num(isObj(state.move_costs) ? state.move_costs.road : null) ?? 5,
    diagonal: map.diagonal === true || drill,
    drill,
    recon: {
      left: num(recon.left ?? recon.questions_left ?? recon.budget),
      answers: listOf(recon.answers).map((a) => ({ question: str(a.question ?? a.q), answer: str(a.answer ?? a.a), falseAnswer: a.false === true || a.is_false === true })),
    },
    houseRules: Array.isArray(state.house_rules) ? state.house_rules.map((r) => str(r)) : [],
    teams,
  };
}

/** Step cost for the path preview: the terrain cost of the cell entered, the road cost along a road. */
export function stepCost(model: CampaignModel): { step(from: Cell, to: Cell): number } {
  const onRoad = new Set<string>();
  for (const road of model.roads) {
    for (let i = 1; i < road.length; i++) onRoad.add(`${road[i - 1]!.x},${road[i - 1]!.y}>${road[i]!.x},${road[i]!.y}`);
  }
  const occupied = new Set(model.forces.map((f) => `${f.cell.x},${f.cell.y}`));
  return {
    step(from, to) {
      if (occupied.has(`${to.x},${to.y}`)) return Infinity; // C-4.12: no two counters in one cell
      const fwd = `${from.x},${from.y}>${to.x},${to.y}`;
      const back = `${to.x},${to.y}>${from.x},${from.y}`;
      if (model.roadCost !== null && (onRoad.has(fwd) || onRoad.has(back))) return model.roadCost;
      const t = model.terrain[to.y]?.[to.x] ?? "plain";
      return model.moveCosts[t] ?? 10;
    },
  };
}
