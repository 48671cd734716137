/**
 * The campaign map the client draws, read from the campaign room's projected state: the protocol's
 * `ContinentalView`, `NapoleonicView` or `DrillView` (shared/protocol/campaign_views.py, generated into
 * ../net/protocol.ts; docs/client.md), each by a reader of its own. Cells of the Continental War and the Napoleonic
 * campaign are the players' coordinates (longitude, latitude growing north from the map's `origin`); the drill's are
 * grid indices. Before a room's first view the model is an empty sheet.
 */
import { formatNumber, has, proper, t, tn, type MessageKey } from "../i18n";
import { armWord, reconAnswer, unitWord } from "../i18n/words";
import type { ArmyUnitView, ContinentalUnitView, ContinentalView, DrillView, NapoleonicBattleView, NapoleonicView, ReconAnswerView, TeamView } from "../net/protocol";
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
  /** a Napoleonic army's general, if it has one */
  general: string | null;
  /** a Continental War counter as the view gives it (its frontage, formation, cover: C-4.10, C-5.8) */
  counter: ContinentalUnitView | null;
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
  battles: { id: string; cell: Cell; kind: string; status: string; attacker: string; defender: string; raw: NapoleonicBattleView }[];
  diagonal: boolean;
  /** The foundation's drill engine (one cell per counter per turn) rather than the campaign engine. */
  drill: boolean;
  recon: { left: number | null; answers: { question: string; answer: string; falseAnswer: boolean; team: string; truth: string | null }[] };
  phase: string;
  level: number | null;
  houseRules: string[];
  teams: Record<string, { name: string; colour: string }>;
}

/** Default Table-4-like costs in km per cell entered: what no force may enter (the sea) is infinite. */
export const DEFAULT_MOVE_COSTS: Record<string, number> = {
  plain: 10, steppe: 10, forest: 15, hills: 15, marsh: 20, mountains: 25, desert: 15, sea: Infinity, water: Infinity, lake: Infinity,
};

/** A campaign room's `state` as the view of its ruleset, told apart by shape (the snapshot's kind is "campaign" for
 * all three): the drill's counters on a bare grid, the Napoleonic armies as a list, the Continental War's as a map
 * of teams. Null before a view has come. */
export type CampaignView =
  | { ruleset: "continental"; view: ContinentalView }
  | { ruleset: "napoleonic"; view: NapoleonicView }
  | { ruleset: "drill"; view: DrillView };

export function campaignView(state: unknown): CampaignView | null {
  if (typeof state !== "object" || state === null) return null;
  const v = state as Partial<ContinentalView & NapoleonicView & DrillView>;
  if (Array.isArray(v.counters) && typeof v.width === "number") return { ruleset: "drill", view: state as DrillView };
  if (!v.map || !Array.isArray(v.map.size)) return null;
  return Array.isArray(v.armies) ? { ruleset: "napoleonic", view: state as NapoleonicView } : { ruleset: "continental", view: state as ContinentalView };
}

const pair = (v: readonly number[]): Cell => ({ x: v[0] ?? 0, y: v[1] ?? 0 });
/** A cell of the view (the players' coordinates) as grid indices. */
const at = (m: Metric, v: readonly number[]): Cell => fromCoord(m, pair(v));
const key = (c: Cell): string => `${c.x},${c.y}`;

/** The map's size and origin; campaign maps count latitude northwards and list rows from the north
 * (server/continental/grid.py). */
function mapMetric(size: readonly number[], origin: readonly number[]): Metric {
  return { cols: size[0] ?? 0, rows: size[1] ?? 0, origin: pair(origin), latitudeUp: true, kmPerCell: 10 };
}

function filled<T>(m: Metric, fill: T): T[][] {
  return Array.from({ length: m.rows }, () => Array.from({ length: m.cols }, () => fill));
}

/** Rows of symbols (north first) through their legend; a symbol without a name in the legend stands for itself. */
function rowsGrid<T>(m: Metric, rows: readonly string[], legend: Record<string, T>, fill: T, conv: (s: string) => T): T[][] {
  const out = filled(m, fill);
  rows.slice(0, m.rows).forEach((row, y) => [...row].slice(0, m.cols).forEach((c, x) => {
    out[y]![x] = c in legend ? legend[c]! : conv(c);
  }));
  return out;
}

/** A network sent as a flat list of cells (the Continental War's rivers, roads, railways and tracks) as the
 * segments between neighbouring cells: orthogonal ones always, diagonal ones only where no orthogonal pair
 * already joins the two cells; a cell with no neighbour stands alone. */
export function network(cells: readonly (readonly number[])[], m: Metric): Cell[][] {
  const grid = cells.map((c) => at(m, c));
  const have = new Set(grid.map(key));
  const has = (x: number, y: number) => have.has(`${x},${y}`);
  const out: Cell[][] = [];
  for (const c of grid) {
    if (has(c.x + 1, c.y)) out.push([c, { x: c.x + 1, y: c.y }]);
    if (has(c.x, c.y + 1)) out.push([c, { x: c.x, y: c.y + 1 }]);
    for (const dx of [1, -1]) {
      if (has(c.x + dx, c.y + 1) && !has(c.x + dx, c.y) && !has(c.x, c.y + 1)) out.push([c, { x: c.x + dx, y: c.y + 1 }]);
    }
    if (![[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]].some(([dx, dy]) => has(c.x + dx!, c.y + dy!))) out.push([c]);
  }
  return out;
}

/** Lines sent as lists of cells (the Napoleonic roads and rivers). */
function polylines(lines: readonly (readonly (readonly number[])[])[], m: Metric): Cell[][] {
  return lines.map((line) => line.map((c) => at(m, c))).filter((l) => l.length > 0);
}

function meanMorale(units: readonly ArmyUnitView[]): number | null {
  const values = units.filter((u) => !u.type.includes("art")).map((u) => u.morale);
  return values.length ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10 : null;
}

function countByType(units: readonly ArmyUnitView[]): string[] {
  const counts = new Map<string, number>();
  for (const u of units) counts.set(u.type, (counts.get(u.type) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${n} × ${armWord(type)}`);
}

function readAnswer(a: ReconAnswerView): CampaignModel["recon"]["answers"][number] {
  const q = a.question;
  return {
    question: [has(`recon.kind.${q.kind}`) ? t(`recon.kind.${q.kind}` as MessageKey) : q.kind, q.cell ? q.cell.join("-") : "", proper(q.unit ?? ""), proper(q.feature ?? "")].filter(Boolean).join(" "),
    answer: reconAnswer(a.answer), falseAnswer: a.false === true, team: a.team, truth: a.truth === undefined ? null : reconAnswer(a.truth),
  };
}

function readTeams(teams: readonly (TeamView | string)[]): CampaignModel["teams"] {
  const out: CampaignModel["teams"] = {};
  for (const tm of teams) {
    const id = typeof tm === "string" ? tm : tm.colour;
    out[id] = { name: id, colour: id };
  }
  return out;
}

const GONE = ["destroyed", "captured"];

/** The model of a room whose view has not come yet: an empty sheet. */
export function emptyCampaign(): CampaignModel {
  const metric: Metric = { cols: 40, rows: 30, origin: { x: 0, y: 0 }, latitudeUp: false, kmPerCell: 10 };
  return {
    metric, terrain: filled(metric, "plain"), owners: filled<string | null>(metric, null), rivers: [], roads: [], railways: [],
    cities: [], forces: [], turn: null, toMove: [], moveCosts: { ...DEFAULT_MOVE_COSTS }, tracks: [], riverCells: new Set(),
    speeds: null, riverCrossing: null, engineMap: false, napoleonic: false, napMovement: null, leftUnit: "km", battles: [],
    diagonal: false, drill: false, recon: { left: null, answers: [] }, phase: "", level: null, houseRules: [], teams: {},
  };
}

/** The campaign room's state read into the model by its ruleset's reader; an empty sheet until a view has come. */
export function readCampaign(state: unknown): CampaignModel {
  const v = campaignView(state);
  if (!v) return emptyCampaign();
  return v.ruleset === "continental" ? readContinental(v.view) : v.ruleset === "napoleonic" ? readNapoleonic(v.view) : readDrill(v.view);
}

/** The Continental War (server/continental/fog.py): terrain by cell label, the states' rows, networks of cells,
 * counters (the team's own, and the enemies it found: those known only by position have no arm), the
 * reconnaissance quota and answers (C-8.3). */
export function readContinental(v: ContinentalView): CampaignModel {
  const map = v.map;
  const metric = mapMetric(map.size, map.origin);
  const terrain = filled(metric, "plain");
  for (const [label, kind] of Object.entries(map.terrain)) {
    // {"45-22": "forest", …}: cells not listed are plain
    const m = /^(-?\d+)-(-?\d+)$/.exec(label);
    const c = m ? at(metric, [Number(m[1]), Number(m[2])]) : null;
    if (c && inside(metric, c)) terrain[c.y]![c.x] = kind;
  }
  const owners = rowsGrid<string | null>(metric, map.states, map.legend.states, null, (s) => (s !== "." && s !== "~" ? s : null));
  const seen = (v.enemy_units ?? []).map((u) => ({ u, reported: u.arm == null }));
  const forces: Force[] = [...(v.units ?? []).map((u) => ({ u, reported: false })), ...seen]
    .filter(({ u }) => !GONE.includes(u.status ?? ""))
    .map(({ u, reported }) => {
      // C-4 (D-C-1): the campaign engine counts movement in fractions of the day's turn used so far.
      const used = u.used ?? null;
      return {
        id: u.id, name: u.name ?? u.id, team: u.team, type: u.arm ?? "division", cell: at(metric, u.cell),
        second: u.second ? at(metric, u.second) : null, facing: u.facing ?? null, size: { w: 1, h: 1 },
        strength: u.rating ?? null, morale: null,
        movementLeft: used !== null ? Math.max(0, 1 - used - (u.debt ?? 0)) : null,
        composition: (u.regiments ?? []).map((r) => `${unitWord(String(r[0]))}${r.length > 1 ? ` (${typeof r[1] === "number" ? formatNumber(r[1], 3) : String(r[1])})` : ""}`),
        reported, status: u.status ?? "", general: null, counter: u,
      };
    });
  const recon = v.recon && typeof v.recon.quota === "number" ? v.recon : null;
  const rivers = network(map.rivers, metric);
  return {
    ...emptyCampaign(), metric, terrain, owners, forces,
    cities: map.places.map((p) => ({ name: p.name, cell: at(metric, p.cell), capital: p.kind === "capital", fortress: p.kind === "fortress", owner: p.state })),
    rivers, roads: network(map.roads, metric), railways: network(map.railways, metric), tracks: network(map.tracks, metric),
    riverCells: new Set(rivers.flat().map(key)),
    turn: v.turn, toMove: v.active, diagonal: true, engineMap: true, leftUnit: "turn",
    speeds: v.tables.speeds_km, riverCrossing: v.tables.river_crossing_turns,
    recon: {
      left: recon ? Math.round((Number(recon.quota) - Number(recon.spent)) * 100) / 100 : null,
      answers: (v.answers ?? []).map(readAnswer),
    },
    phase: v.phase, level: v.level, houseRules: v.house_rules, teams: readTeams(v.teams),
  };
}

/** The Napoleonic campaign (server/napoleonic/campaign/view.py): terrain rows, roads and rivers as lines, armies
 * (an enemy's only with the number of its units, D-NAP-2) with their movement points, the battles on the map. */
export function readNapoleonic(v: NapoleonicView): CampaignModel {
  const map = v.map;
  const metric = mapMetric(map.size, map.origin);
  const forces: Force[] = v.armies.filter((a) => !GONE.includes(a.status)).map((a) => ({
    id: a.id, name: a.name, team: a.team, type: "army", cell: at(metric, a.cell), second: null, facing: null, size: { w: 1, h: 1 },
    // an army's strength is its regiments and companies (their count is all an enemy is told), its morale the mean
    // of its units' when its own team sees them (D-NAP-2)
    strength: typeof a.units === "number" ? a.units : a.units.length,
    morale: typeof a.units === "number" ? null : meanMorale(a.units),
    movementLeft: a.points ?? null,
    composition: [...(a.general ? [t("unit.general", { name: proper(a.general) })] : []),
      ...(typeof a.units === "number" ? [tn("n.units", a.units)] : countByType(a.units))],
    // an enemy army a Napoleonic team sees is where it is (D-NAP-2), only its regiments are not told
    reported: false, status: a.status, general: a.general || null, counter: null,
  }));
  const rivers = polylines(map.rivers, metric);
  // a view recorded before the campaign sent its tables (test/fixtures) has none: plain ground is assumed (stepCost)
  const movement = v.tables?.movement;
  return {
    ...emptyCampaign(), metric, forces,
    terrain: rowsGrid(metric, map.terrain, map.legend.terrain, "plain", (s) => s),
    owners: filled<string | null>(metric, null),
    cities: map.places.map((p) => ({ name: p.name, cell: at(metric, p.cell), capital: p.kind === "capital", fortress: p.kind === "fortress", owner: p.state ?? null })),
    rivers, roads: polylines(map.roads, metric), riverCells: new Set(rivers.flat().map(key)),
    turn: v.turn, toMove: v.active, diagonal: true, napoleonic: true, leftUnit: "points",
    napMovement: movement ? { terrain: movement.terrain, roadStep: movement.road_step, riverExtra: movement.river_extra } : null,
    battles: v.battles.map((b) => ({ id: b.id, cell: at(metric, b.cell), kind: b.kind, status: b.status, attacker: b.attacker, defender: b.defender, raw: b })),
    teams: readTeams(v.teams),
  };
}

/** The drill (server/drill/engine.py): counters on a bare grid of indices, one cell a turn. */
export function readDrill(v: DrillView): CampaignModel {
  const metric: Metric = { cols: v.width, rows: v.height, origin: { x: 0, y: 0 }, latitudeUp: false, kmPerCell: 10 };
  return {
    ...emptyCampaign(), metric, terrain: filled(metric, "plain"), owners: filled<string | null>(metric, null),
    forces: v.counters.map((c) => ({
      id: c.id, name: c.id, team: c.team, type: "division", cell: { x: c.x, y: c.y }, second: null, facing: null, size: { w: 1, h: 1 },
      strength: null, morale: null, movementLeft: null, composition: [], reported: false, status: "", general: null, counter: null,
    })),
    turn: v.turn, toMove: v.active, diagonal: true, drill: true, leftUnit: "steps", teams: readTeams(v.teams),
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

/** Whether a Continental War counter moves and so takes the field's orders (turn, frontage, march, split): a
 * fortress's garrison stays in its fortress (C-3.6). */
export const moves = (f: Force): boolean => f.type !== "FORT";

/** Whether a counter may break up into its regiments (C-4.9, C-4.10 [L2]): a division of two regiments or more,
 * not a regiment already, and not a fortress (C-3.6). */
export function maySplit(f: Force): boolean {
  return moves(f) && !f.counter?.parent && (f.counter?.regiments?.length ?? 0) >= 2;
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
      return model.moveCosts[t] ?? 10;
    },
  };
}
