/**
 * Strategic-map geometry (C-2.1): an orthogonal metric of 10×10 km cells; counters sit inside cells; a position is
 * written longitude first, then latitude ("17 RD – 45,22"). Cells are addressed here by grid indices (col, row);
 * `origin` says which coordinate the first column and row carry, `latitudeUp` whether latitude grows northwards
 * (up the screen) or down the sheet.
 */
export interface Cell {
  x: number;
  y: number;
}

export interface Metric {
  cols: number;
  rows: number;
  origin: Cell;
  latitudeUp: boolean;
  /** km per cell side (C-2.1: 10). */
  kmPerCell: number;
}

export interface Viewport {
  /** pixels per cell side */
  scale: number;
  /** pixel offset of cell (0,0)'s top-left corner */
  offsetX: number;
  offsetY: number;
}

/** Grid indices → the coordinates the players see (longitude, latitude). */
export function toCoord(m: Metric, cell: Cell): Cell {
  return { x: m.origin.x + cell.x, y: m.latitudeUp ? m.origin.y + (m.rows - 1 - cell.y) : m.origin.y + cell.y };
}

/** The players' coordinates → grid indices. */
export function fromCoord(m: Metric, coord: Cell): Cell {
  const x = coord.x - m.origin.x;
  return { x, y: m.latitudeUp ? m.rows - 1 - (coord.y - m.origin.y) : coord.y - m.origin.y };
}

export function formatCoord(m: Metric, cell: Cell): string {
  const c = toCoord(m, cell);
  return `${c.x},${c.y}`;
}

export function inside(m: Metric, cell: Cell): boolean {
  return cell.x >= 0 && cell.y >= 0 && cell.x < m.cols && cell.y < m.rows;
}

export function cellToPixel(v: Viewport, cell: Cell): { x: number; y: number } {
  return { x: v.offsetX + cell.x * v.scale, y: v.offsetY + cell.y * v.scale };
}

export function cellCentre(v: Viewport, cell: Cell): { x: number; y: number } {
  return { x: v.offsetX + (cell.x + 0.5) * v.scale, y: v.offsetY + (cell.y + 0.5) * v.scale };
}

export function pixelToCell(v: Viewport, px: number, py: number): Cell {
  return { x: Math.floor((px - v.offsetX) / v.scale), y: Math.floor((py - v.offsetY) / v.scale) };
}

/** Zoom about a fixed screen point (the mouse), keeping the cell under it in place. */
export function zoomAt(v: Viewport, px: number, py: number, factor: number, min = 4, max = 96): Viewport {
  const scale = Math.min(max, Math.max(min, v.scale * factor));
  const k = scale / v.scale;
  return { scale, offsetX: px - (px - v.offsetX) * k, offsetY: py - (py - v.offsetY) * k };
}

/** Fit the whole map into a canvas of w×h pixels. */
export function fit(m: Metric, w: number, h: number, margin = 28): Viewport {
  const scale = Math.max(4, Math.min(96, (w - 2 * margin) / m.cols, (h - 2 * margin) / m.rows));
  return { scale, offsetX: (w - m.cols * scale) / 2, offsetY: (h - m.rows * scale) / 2 };
}

/** Distance in cells along the grid's two axes (the source leaves the metric open; C-9.7 measures per axis). */
export function axisDistance(a: Cell, b: Cell): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));
}

export const key = (c: Cell): string => `${c.x},${c.y}`;

export interface PathCost {
  /** Cost of stepping from `from` into `to` (Infinity when impassable). */
  step(from: Cell, to: Cell): number;
}

/** Cheapest path by Dijkstra over orthogonal steps (and diagonal ones when `diagonal`); null when unreachable. */
export function cheapestPath(m: Metric, from: Cell, to: Cell, cost: PathCost, diagonal = false): { cells: Cell[]; cost: number } | null {
  if (!inside(m, to) || !inside(m, from)) return null;
  const dirs = diagonal
    ? [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]]
    : [[1, 0], [-1, 0], [0, 1], [0, -1]];
  const dist = new Map<string, number>([[key(from), 0]]);
  const prev = new Map<string, Cell>();
  // Small maps (tens of cells a side): a binary heap would be premature.
  const open: { c: Cell; d: number }[] = [{ c: from, d: 0 }];
  while (open.length) {
    let best = 0;
    for (let i = 1; i < open.length; i++) if (open[i]!.d < open[best]!.d) best = i;
    const { c, d } = open.splice(best, 1)[0]!;
    if (d > (dist.get(key(c)) ?? Infinity)) continue;
    if (c.x === to.x && c.y === to.y) break;
    for (const [dx, dy] of dirs) {
      const n = { x: c.x + dx!, y: c.y + dy! };
      if (!inside(m, n)) continue;
      const s = cost.step(c, n);
      if (!Number.isFinite(s)) continue;
      const nd = d + s;
      if (nd < (dist.get(key(n)) ?? Infinity)) {
        dist.set(key(n), nd);
        prev.set(key(n), c);
        open.push({ c: n, d: nd });
      }
    }
  }
  const total = dist.get(key(to));
  if (total === undefined) return null;
  const cells: Cell[] = [to];
  let cur = to;
  while (cur.x !== from.x || cur.y !== from.y) {
    cur = prev.get(key(cur))!;
    cells.unshift(cur);
  }
  return { cells, cost: total };
}
