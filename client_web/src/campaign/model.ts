/**
 * The campaign view the client draws, read from the room's projected state. The reader accepts the shapes the
 * campaign engine's `view()` produces (see docs/client.md) and tolerates missing parts: a map without rivers is
 * drawn without rivers. Cells in the state are the players' coordinates (longitude, latitude) when the map has an
 * `origin`; grid indices otherwise.
 */
import { proper, t, tn } from "../i18n";
import { armWord } from "../i18n/words";
import { isObj, listOf, num, str, type Obj } from "../read";
import { fromCoord, inside, type Cell, type Metric } from "./geometry";

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
  /** the second cell of a counter on a wide front (C-4.10) */
  second: Cell | null;
  facing: number | string | null;
  /** Units larger than one cell (C-2.1 [L2]) */
  size: { w: number; h: number };
  strength: number | null;
  morale: number | null;
  movementLeft: number | null;
  composition: string[];
  /** true when this is what the team was told of an enemy, not an exact position */
  reported: boolean;
  status: string;
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
  tracks: Cell[][];
  riverCells: Set<string>;
  /** C-T4 speeds in km per turn by ground (and "road", "track_<ground>") and arm, when the view carries them */
  speeds: Record<string, Record<string, number | string | null>> | null;
  riverCrossing: Record<string, number | null> | null;
  /** the campaign engine's map (latitude northwards, eight neighbours, D-GEN-2 steps) */
  engineMap: boolean;
  /** the Napoleonic campaign: armies with movement points, battles that open battle rooms */
  napoleonic: boolean;
  /** D-NAP-1: the Napoleonic scenario's movement table (points per terrain, road step, river extra), when the
   * view carries it as `tables.movement` */
  napMovement: { terrain: Record<string, number | null>; roadStep: number; riverExtra: number } | null;
  /** how a force's movement left is counted */
  leftUnit: CostUnit;
  battles: { id: string; cell: Cell; kind: string; status: string; attacker: string; defender: string; raw: Obj }[];
  diagonal: boolean;
  /** The foundation's drill engine (one cell per counter per turn) rather than the campaign engine. */
  drill: boolean;
  recon: { left: number | null; answers: { question: string; answer: string; falseAnswer: boolean; team: string; truth: string | null }[] };
  phase: string;
  level: number | null;
  houseRules: string[];
  teams: Record<string, { name: string; colour: string }>;
}

/** Symbols of the scenario's state map (`legend.states` of a scenario under shared/scenarios). */
const DEFAULT_STATE_LEGEND: Obj = { R: "red", B: "blue", G: "green", K: "black" };

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

/** Lines through cell centres. A flat list of cells (a network, as the campaign engine sends rivers, roads and
 * railways) becomes the segments between neighbouring cells: orthogonal ones always, diagonal ones only where no
 * orthogonal pair already joins the two cells. */
export function lines(v: unknown, m: Metric): Cell[][] {
  if (!Array.isArray(v)) return [];
  if (v.length && readCell(v[0], null) && !Array.isArray((v[0] as unknown[])[0])) {
    const cells = v.map((c) => readCell(c, m)).filter((c): c is Cell => c !== null);
    const have = new Set(cells.map((c) => `${c.x},${c.y}`));
    const has = (x: number, y: number) => have.has(`${x},${y}`);
    const out: Cell[][] = [];
    for (const c of cells) {
      if (has(c.x + 1, c.y)) out.push([c, { x: c.x + 1, y: c.y }]);
      if (has(c.x, c.y + 1)) out.push([c, { x: c.x, y: c.y + 1 }]);
      for (const dx of [1, -1]) {
        if (has(c.x + dx, c.y + 1) && !has(c.x + dx, c.y) && !has(c.x, c.y + 1)) out.push([c, { x: c.x + dx, y: c.y + 1 }]);
      }
      if (![[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]].some(([dx, dy]) => has(c.x + dx!, c.y + dy!))) out.push([c]);
    }
    return out;
  }
  return v.map((line) => {
    const pts = isObj(line) ? line.cells ?? line.path ?? line.points : line;
    return Array.isArray(pts) ? pts.map((p) => readCell(p, m)).filter((c): c is Cell => c !== null) : [];
  }).filter((l) => l.length > 0);
}


function meanMorale(units: unknown): number | null {
  const values = Array.isArray(units) ? units.flatMap((x) => (isObj(x) && typeof x.morale === "number" && !str(x.type).includes("art") ? [x.morale] : [])) : [];
  return values.length ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10 : null;
}

function countByType(units: unknown[]): string[] {
  const counts = new Map<string, number>();
  for (const u of units) {
    const type = isObj(u) ? str(u.type, "?") : str(u);
    counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return [...counts].map(([type, n]) => `${n} × ${armWord(type)}`);
}

function questionText(q: unknown): string {
  if (!isObj(q)) return str(q);
  const cell = Array.isArray(q.cell) ? q.cell.join("-") : "";
  return [str(q.kind), cell, str(q.unit), str(q.feature)].filter(Boolean).join(" ");
}

function answerText(a: unknown): string {
  if (a === true) return "yes";
  if (a === false) return "no";
  if (Array.isArray(a)) return a.join("-");
  if (isObj(a)) return JSON.stringify(a);
  return str(a);
}

export function readCampaign(state: Obj): CampaignModel {
  const map = isObj(state.map) ? state.map : {};
  const size = Array.isArray(map.size) ? map.size.map(Number) : null;
  const cols = (size ? size[0] : null) ?? num(map.cols ?? map.width ?? state.width) ?? 40;
  const rows = (size ? size[1] : null) ?? num(map.rows ?? map.height ?? state.height) ?? 30;
  const origin = readCell(map.origin, null) ?? { x: 0, y: 0 };
  // The campaign engine's maps count latitude northwards and list rows from the north (server/continental/grid.py).
  const latitudeUp = typeof map.latitude_up === "boolean" ? map.latitude_up : size !== null;
  const metric: Metric = { cols, rows, origin, latitudeUp, kmPerCell: num(map.km_per_cell) ?? 10 };
  const legends = isObj(map.legend) ? map.legend : {};
  const legend = isObj(legends.terrain) ? legends.terrain : legends;
  const terrain = grid<string>(Array.isArray(map.terrain) ? map.terrain : [], cols, rows, legend, "plain", (s) => str(s, "plain"));
  if (isObj(map.terrain)) {
    // {"45-22": "forest", …}: cells not listed are plain
    for (const [at, kind] of Object.entries(map.terrain)) {
      const c = readCell(at, metric);
      if (c && inside(metric, c)) terrain[c.y]![c.x] = str(kind, "plain");
    }
  }
  const ownerLegend = isObj(legends.states) ? legends.states : isObj(map.owner_legend) ? map.owner_legend : DEFAULT_STATE_LEGEND;
  const owners = grid<string | null>(map.owners ?? map.states, cols, rows, ownerLegend, null,
    (s) => (typeof s === "string" && s !== "." && s !== "" && s !== "~" ? s : null));
  const cities: City[] = listOf(map.cities ?? map.places).flatMap((c) => {
    const cell = readCell(c.cell ?? c.at ?? c.position, metric);
    const kind = str(c.kind);
    return cell ? [{
      name: str(c.name ?? c.id), cell, capital: c.capital === true || kind === "capital", fortress: c.fortress === true || kind === "fortress",
      owner: typeof (c.owner ?? c.state) === "string" ? str(c.owner ?? c.state) : null,
    }] : [];
  });
  const napoleonic = Array.isArray(state.armies);
  const own = listOf(state.forces ?? state.units ?? state.counters ?? state.armies);
  const seen = listOf(state.enemy_units).map((u): Obj => ({ ...u, reported: u.reported ?? u.arm === undefined }));
  const forces: Force[] = [...own, ...seen].flatMap((u: Obj) => {
    const cell = readCell(u.cell ?? u.at ?? u.position ?? (typeof u.x === "number" ? [u.x, u.y] : null), metric);
    if (!cell) return [];
    if (u.status === "destroyed" || u.status === "captured") return [];
    const second = readCell(u.second, metric);
    const size = Array.isArray(u.size) ? { w: Number(u.size[0]) || 1, h: Number(u.size[1]) || 1 } : { w: 1, h: 1 };
    const parts = u.composition ?? u.regiments ?? (Array.isArray(u.units) ? countByType(u.units) : typeof u.units === "number" ? [tn("n.units", u.units)] : undefined);
    const comp = Array.isArray(parts)
      ? parts.map((c) => (isObj(c) ? str(c.name ?? c.id ?? c.type) : Array.isArray(c) ? `${str(c[0])}${c.length > 1 ? ` (${str(c[1])})` : ""}` : str(c)))
      : [];
    // C-4 (D-C-1): the campaign engine counts movement in fractions of the day's turn used so far.
    const used = num(u.used);
    return [{
      id: str(u.id), name: str(u.name ?? u.id), team: str(u.team ?? u.side ?? u.owner), type: str(u.type ?? u.kind ?? u.arm, napoleonic ? "army" : "division"),
      cell, second, facing: (u.facing as number | string | undefined) ?? null, size,
      // a Napoleonic army's strength is its regiments and companies (their count is all an enemy is told), its
      // morale the mean of its units' when its own team sees them (D-NAP-2)
      strength: num(u.strength ?? u.rating) ?? (napoleonic ? (Array.isArray(u.units) ? u.units.length : num(u.units)) : null),
      morale: num(u.morale) ?? (napoleonic ? meanMorale(u.units) : null),
      movementLeft: num(u.movement_left ?? u.mp_left ?? u.km_left ?? u.points) ?? (used !== null ? Math.max(0, 1 - used - (num(u.debt) ?? 0)) : null),
      composition: [...(typeof u.general === "string" && u.general ? [t("unit.general", { name: proper(u.general) })] : []), ...comp],
      // an enemy army a Napoleonic team sees is where it is (D-NAP-2), only its regiments are not told
      reported: u.reported === true || u.exact === false,
      status: str(u.status), orders: Array.isArray(u.orders) ? u.orders.map((o) => str(o)) : [], raw: u,
    }];
  });
  const turnObj = isObj(state.turn) ? state.turn : {};
  const toMove = state.to_move ?? turnObj.teams ?? turnObj.team ?? state.active;
  const drill = Array.isArray(state.counters) && !state.map;
  const tables = isObj(state.tables) ? state.tables : state;
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
    diagonal: map.diagonal === true || drill || size !== null,
    engineMap: size !== null && !napoleonic,
    napoleonic,
    napMovement: napoleonic && isObj(tables.movement) && isObj(tables.movement.terrain) ? {
      terrain: tables.movement.terrain as Record<string, number | null>,
      roadStep: num(tables.movement.road_step) ?? 0.5,
      riverExtra: num(tables.movement.river_extra) ?? 0,
    } : null,
    leftUnit: napoleonic ? "points" : drill ? "steps" : size !== null ? "turn" : "km",
    battles: listOf(state.battles).flatMap((b) => {
      const cell = readCell(b.cell, metric);
      return cell ? [{ id: str(b.id), cell, kind: str(b.kind), status: str(b.status), attacker: str(b.attacker), defender: str(b.defender), raw: b }] : [];
    }),
    tracks: lines(map.tracks, metric),
    riverCells: new Set(lines(map.rivers, metric).flat().map((c) => `${c.x},${c.y}`)),
    speeds: isObj(tables.speeds_km) ? (tables.speeds_km as CampaignModel["speeds"]) : null,
    riverCrossing: isObj(tables.river_crossing_turns) ? (tables.river_crossing_turns as Record<string, number | null>) : null,
    drill,
    recon: {
      left: num(recon.left ?? recon.questions_left ?? recon.budget) ??
        (num(recon.quota) !== null ? Math.round(((num(recon.quota) ?? 0) - (num(recon.spent) ?? 0)) * 100) / 100 : null),
      answers: listOf(Array.isArray(state.answers) ? state.answers : recon.answers).map((a) => ({
        question: questionText(a.question ?? a.q), answer: answerText(a.answer ?? a.a),
        falseAnswer: a.false === true || a.is_false === true, team: str(a.team), truth: a.truth === undefined ? null : answerText(a.truth),
      })),
    },
    phase: str(state.phase),
    level: num(state.level),
    houseRules: Array.isArray(state.house_rules) ? state.house_rules.map((r) => str(r)) : [],
    teams,
  };
}

function segments(lines: Cell[][]): Set<string> {
  const out = new Set<string>();
  for (const line of lines) {
    for (let i = 1; i < line.length; i++) {
      const a = `${line[i - 1]!.x},${line[i - 1]!.y}`;
      const b = `${line[i]!.x},${line[i]!.y}`;
      out.add(`${a}>${b}`).add(`${b}>${a}`);
    }
  }
  return out;
}

/** D-GEN-2: an orthogonal step is 10 km, a diagonal one 15 km. */
export function stepKm(a: Cell, b: Cell, kmPerCell = 10): number {
  return a.x !== b.x && a.y !== b.y ? 1.5 * kmPerCell : kmPerCell;
}

/** What a planned path costs, and in which unit: fractions of the turn when the view carries the speed table
 * (C-T4, D-C-2: km / speed of the arm on that ground or road), km otherwise. */
export type CostUnit = "turn" | "km" | "steps" | "points";

export function stepCost(model: CampaignModel, force?: Force): { step(from: Cell, to: Cell): number; unit: CostUnit } {
  const roads = segments(model.roads);
  const tracks = segments(model.tracks);
  const roadCells = new Set(model.roads.flat().map((c) => `${c.x},${c.y}`));
  // C-4.12: no two counters in one cell. A Napoleonic army may march into an enemy's cell: that is contact (N-START-1).
  const occupied = new Set(model.forces.filter((f) => f !== force && !(model.napoleonic && force && f.team !== force.team))
    .map((f) => `${f.cell.x},${f.cell.y}`));
  const speeds = model.speeds;
  const arm = force?.type ?? "";
  const speed = (row: string): number | null => {
    const v = speeds?.[row]?.[arm];
    return typeof v === "number" && v > 0 ? v : null;
  };
  return {
    unit: speeds && arm in (speeds.plain ?? {}) ? "turn" : model.drill ? "steps" : model.napoleonic ? "points" : "km",
    step(from, to) {
      if (occupied.has(`${to.x},${to.y}`)) return Infinity; // C-4.12: no two counters in one cell
      const seg = `${from.x},${from.y}>${to.x},${to.y}`;
      const t = model.terrain[to.y]?.[to.x] ?? "plain";
      if (!Number.isFinite(model.moveCosts[t] ?? 10)) return Infinity;
      if (speeds && arm in (speeds.plain ?? {})) {
        const crossing = model.riverCrossing?.[arm];
        if (model.riverCells.has(`${to.x},${to.y}`) && !roads.has(seg)) return typeof crossing === "number" ? crossing : Infinity;
        const v = roads.has(seg) ? speed("road") : tracks.has(seg) ? speed(`track_${t}`) ?? speed(t) : speed(t);
        return v === null ? Infinity : stepKm(from, to, model.metric.kmPerCell) / v;
      }
      if (model.drill) return 1;
      // D-NAP-1 as the Napoleonic engine plays it (server/napoleonic/campaign/movement.py step_cost): the terrain's points,
      // the road step along a road, a river cell off a bridge dearer, 1.5× on a diagonal. Without the table in
      // the view, plain ground (1 point) is assumed and the engine has the last word.
      if (model.napoleonic) {
        const diag = stepKm(from, to) / 10;
        const nm = model.napMovement;
        if (!nm) return diag * (roads.has(seg) ? 0.5 : 1);
        const base = nm.terrain[t];
        if (typeof base !== "number") return Infinity;
        if (roads.has(seg)) return diag * nm.roadStep;
        const key = `${to.x},${to.y}`;
        return diag * (base + (model.riverCells.has(key) && !roadCells.has(key) ? nm.riverExtra : 0));
      }
      if (model.engineMap) return stepKm(from, to, model.metric.kmPerCell);
      if (model.roadCost !== null && roads.has(seg)) return model.roadCost;
      return model.moveCosts[t] ?? 10;
    },
  };
}
