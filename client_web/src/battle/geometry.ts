/**
 * Battlefield geometry on the 70×70 grid: eight facings, footprints `anchor + i·lateral + j·back` (D-N-4) and the
 * fire zones drawn on hover (D-N-7). Rows grow southwards (screen down); facing 0 is north, clockwise in 45° steps.
 * The engine is the authority: when a unit's view carries its cells, those are drawn instead of these.
 */
export interface Cell {
  x: number;
  y: number;
}

export const FIELD = 70;
export const FACINGS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"] as const;
export type Facing = (typeof FACINGS)[number];
const VECTORS: readonly Cell[] = [
  { x: 0, y: -1 }, { x: 1, y: -1 }, { x: 1, y: 0 }, { x: 1, y: 1 },
  { x: 0, y: 1 }, { x: -1, y: 1 }, { x: -1, y: 0 }, { x: -1, y: -1 },
];

/** Width × depth of each formation (N-INF, N-CAV, N-ART). */
export const FORMATION_SIZE: Readonly<Record<string, readonly [number, number]>> = {
  line: [8, 1],
  attack_column: [4, 2],
  square: [3, 3],
  march_column: [2, 4],
  cavalry_attack_column: [3, 2],
  cavalry_march_column: [2, 3],
  deployed: [4, 2],
  limbered: [2, 4],
};

export function facingIndex(f: number | string): number {
  if (typeof f === "number") return ((Math.round(f) % 8) + 8) % 8;
  const i = FACINGS.indexOf(f.toUpperCase() as Facing);
  return i < 0 ? 0 : i;
}

export function facingVector(f: number | string): Cell {
  return VECTORS[facingIndex(f)]!;
}

/** The facing's right hand: the direction along the front rank. */
export function lateralVector(f: number | string): Cell {
  return VECTORS[(facingIndex(f) + 2) % 8]!;
}

export function isDiagonal(f: number | string): boolean {
  return facingIndex(f) % 2 === 1;
}

export const cellKey = (c: Cell): string => `${c.x},${c.y}`;

function uniq(cells: Cell[]): Cell[] {
  const seen = new Set<string>();
  return cells.filter((c) => (seen.has(cellKey(c)) ? false : (seen.add(cellKey(c)), true)));
}

/** Cells a unit covers: anchor (front-left from its own view) + i·lateral + j·back; on a diagonal facing, between
 * every two diagonal neighbours the cell more to the rear (then more to the right) is occupied too (D-N-4, as
 * server/napoleonic/battle/footprint.py plays it). */
export function footprint(anchor: Cell, facing: number | string, width: number, depth: number): Cell[] {
  const lat = lateralVector(facing);
  const fwd = facingVector(facing);
  const cells: Cell[] = [];
  for (let j = 0; j < depth; j++) {
    for (let i = 0; i < width; i++) {
      cells.push({ x: anchor.x + i * lat.x - j * fwd.x, y: anchor.y + i * lat.y - j * fwd.y });
    }
  }
  if (!isDiagonal(facing)) return cells;
  const filled = [...cells];
  const have = new Set(cells.map(cellKey));
  for (const a of cells) {
    for (const b of cells) {
      if (Math.abs(a.x - b.x) === 1 && Math.abs(a.y - b.y) === 1) {
        const back = (c: Cell) => -(c.x * fwd.x + c.y * fwd.y);
        const right = (c: Cell) => c.x * lat.x + c.y * lat.y;
        const [p, q] = [{ x: a.x, y: b.y }, { x: b.x, y: a.y }];
        const c = back(p) !== back(q) ? (back(p) > back(q) ? p : q) : right(p) >= right(q) ? p : q;
        if (!have.has(cellKey(c))) {
          have.add(cellKey(c));
          filled.push(c);
        }
      }
    }
  }
  return uniq(filled);
}

/** The front rank: the first `width` cells of the footprint. */
export function frontRank(anchor: Cell, facing: number | string, width: number): Cell[] {
  const lat = lateralVector(facing);
  return Array.from({ length: width }, (_, i) => ({ x: anchor.x + i * lat.x, y: anchor.y + i * lat.y }));
}

export interface ZoneCell extends Cell {
  distance: number;
}

const onField = (c: Cell) => c.x >= 0 && c.y >= 0 && c.x < FIELD && c.y < FIELD;

/** Musket zone: straight ahead of the front rank, as wide as the frontage, up to the range (D-N-7). */
export function musketZone(anchor: Cell, facing: number | string, width: number, range: number): ZoneCell[] {
  const fwd = facingVector(facing);
  const cells: ZoneCell[] = [];
  for (const f of frontRank(anchor, facing, width)) {
    for (let d = 1; d <= range; d++) cells.push({ x: f.x + d * fwd.x, y: f.y + d * fwd.y, distance: d });
  }
  return uniq(cells).filter(onField) as ZoneCell[];
}

/** Artillery zone: from the company's front, one cell wider on each side per three cells of distance, from `from`
 * to `to` cells (canister 1–5, round shot 6 to range; D-N-7, N-ART). */
export function artilleryZone(anchor: Cell, facing: number | string, width: number, from: number, to: number): ZoneCell[] {
  const fwd = facingVector(facing);
  const lat = lateralVector(facing);
  const cells: ZoneCell[] = [];
  for (let d = from; d <= to; d++) {
    const spread = Math.floor(d / 3);
    for (let i = -spread; i < width + spread; i++) {
      cells.push({ x: anchor.x + i * lat.x + d * fwd.x, y: anchor.y + i * lat.y + d * fwd.y, distance: d });
    }
  }
  return (uniq(cells) as ZoneCell[]).filter(onField);
}
