/** Label placement for both canvases: every label tries its candidate positions in order of preference and takes
 * the first that overlaps no label placed before it, no obstacle (counters, units, symbols) and stays inside the
 * canvas; a label with no free place is left out (its thing is still drawn, and named on hover). Labels are placed
 * in priority order, so what matters most (the selected unit, capitals) is never the one dropped. A greedy pass
 * over a few candidates — the usual cartographic compromise (Imhof's rules, as map labelling libraries apply them). */

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LabelRequest<T = unknown> {
  /** what the label names (given back with its placement) */
  item: T;
  /** higher first */
  priority: number;
  w: number;
  h: number;
  /** top-left corners to try, best first */
  candidates: { x: number; y: number }[];
}

export interface Placed<T = unknown> extends Rect {
  item: T;
}

export function overlaps(a: Rect, b: Rect, gap = 0): boolean {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

/** Bucketed rectangles, so that a few hundred labels and obstacles are checked in roughly linear time. */
class Grid {
  private readonly cells = new Map<number, Rect[]>();
  constructor(private readonly size = 64) {}

  private keys(r: Rect): number[] {
    const s = this.size;
    const out: number[] = [];
    for (let gx = Math.floor(r.x / s); gx <= Math.floor((r.x + r.w) / s); gx++) {
      for (let gy = Math.floor(r.y / s); gy <= Math.floor((r.y + r.h) / s); gy++) out.push(gx * 100_003 + gy);
    }
    return out;
  }

  add(r: Rect): void {
    for (const k of this.keys(r)) {
      const list = this.cells.get(k);
      if (list) list.push(r);
      else this.cells.set(k, [r]);
    }
  }

  hits(r: Rect, gap: number): boolean {
    for (const k of this.keys(r)) for (const o of this.cells.get(k) ?? []) if (overlaps(r, o, gap)) return true;
    return false;
  }
}

/** Place the labels; `bounds` is the canvas (labels never cross its edge), `gap` the clear space between boxes. */
export function placeLabels<T>(labels: LabelRequest<T>[], obstacles: Rect[], bounds: Rect, gap = 2): Placed<T>[] {
  const grid = new Grid();
  for (const o of obstacles) grid.add(o);
  const placed: Placed<T>[] = [];
  const ordered = [...labels].sort((a, b) => b.priority - a.priority);
  for (const l of ordered) {
    for (const c of l.candidates) {
      const r = { x: c.x, y: c.y, w: l.w, h: l.h };
      if (r.x < bounds.x || r.y < bounds.y || r.x + r.w > bounds.x + bounds.w || r.y + r.h > bounds.y + bounds.h) continue;
      if (grid.hits(r, gap)) continue;
      grid.add(r);
      placed.push({ ...r, item: l.item });
      break;
    }
  }
  return placed;
}

/** The usual candidates around a point symbol of radius `r`: right, left, above, below, then the diagonals. */
export function around(cx: number, cy: number, r: number, w: number, h: number, pad = 3): { x: number; y: number }[] {
  const d = r + pad;
  return [
    { x: cx + d, y: cy - h / 2 }, { x: cx - d - w, y: cy - h / 2 }, { x: cx - w / 2, y: cy - d - h }, { x: cx - w / 2, y: cy + d },
    { x: cx + d * 0.7, y: cy - d * 0.7 - h }, { x: cx - d * 0.7 - w, y: cy - d * 0.7 - h },
    { x: cx + d * 0.7, y: cy + d * 0.7 }, { x: cx - d * 0.7 - w, y: cy + d * 0.7 },
  ];
}

/** Candidates around a box (a unit's footprint, a counter): below, above, right, left, centred and at the ends. */
export function aroundBox(b: Rect, w: number, h: number, pad = 2): { x: number; y: number }[] {
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  return [
    { x: cx - w / 2, y: b.y + b.h + pad }, { x: cx - w / 2, y: b.y - h - pad },
    { x: b.x + b.w + pad, y: cy - h / 2 }, { x: b.x - w - pad, y: cy - h / 2 },
    { x: b.x, y: b.y + b.h + pad }, { x: b.x + b.w - w, y: b.y + b.h + pad },
    { x: b.x, y: b.y - h - pad }, { x: b.x + b.w - w, y: b.y - h - pad },
  ];
}
