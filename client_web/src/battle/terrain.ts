/** The battlefield's ground drawn as a period map (the Prussian Kriegsspiel sheets): paper, hills by tint,
 * contours and hachures, woods as tree crowns, marsh as reeds, villages as red house blocks, roads as cased brown
 * lines, rivers with their banks, bridges and fords, and a siege's works. Painted once per zoom step into an
 * off-screen canvas that every frame copies (TerrainLayer), and cell by cell for the legend's swatches. */
import type { BattleModel } from "./model";

export const PAPER = "#f1e9d2";
const INK = "#3b3226";
const WATER = "#a9cbe3";
const WATER_EDGE = "#3f78a8";
const ROAD_FILL = "#e2c48c";
const ROAD_CASE = "#7a5a32";
const HOUSE = "#a2483a";
const WOOD_LIGHT = "#cfdfb2";
const WOOD_DENSE = "#a9c78e";
const CROWN = "#6f9457";
const CROWN_EDGE = "#48673a";

/** The kinds a legend shows, in its order. */
export const TERRAIN_KINDS = ["open", "road", "light_forest", "dense_forest", "settlement", "marsh", "river", "crossing", "water", "mountain"] as const;
export const SIEGE_KINDS = ["wall", "fort", "ditch", "breach", "parallel"] as const;

const FILL: Record<string, string> = {
  light_forest: WOOD_LIGHT, dense_forest: WOOD_DENSE, settlement: "#eadcc4", marsh: "#d7e3cf",
  river: WATER, crossing: WATER, water: WATER, mountain: "#cdbb9c", ditch: "#bfae8c", breach: "#d8b48a", parallel: "#dccfa6",
  wall: "#6d645a", fort: "#4f463e",
};

const isWater = (k: string) => k === "river" || k === "water" || k === "crossing";
const isRoad = (k: string) => k === "road" || k === "crossing";

/** `a` blended towards `b` by `k` (both "#rrggbb"). */
export function mix(a: string, b: string, k: number): string {
  const p = (c: string, i: number) => parseInt(c.slice(1 + 2 * i, 3 + 2 * i), 16);
  return `#${[0, 1, 2].map((i) => Math.round(p(a, i) + (p(b, i) - p(a, i)) * k).toString(16).padStart(2, "0")).join("")}`;
}

/** A repeatable pseudo-random number in [0, 1) for a cell and a salt: trees and houses do not jump when redrawn. */
export function jitter(x: number, y: number, salt: number): number {
  let h = (x * 374761393 + y * 668265263 + salt * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

export interface Ground {
  cols: number;
  rows: number;
  kind(x: number, y: number): string;
  level(x: number, y: number): number;
}

export function groundOf(m: BattleModel): Ground {
  return {
    cols: m.cols, rows: m.rows,
    kind: (x, y) => m.terrain[y]?.[x] ?? "",
    level: (x, y) => m.elevation[y]?.[x] ?? 0,
  };
}

/** Paint cells [x0, x1) × [y0, y1) of the ground at `s` pixels per cell, cell (0, 0) at the context's origin. */
export function paintGround(ctx: CanvasRenderingContext2D, g: Ground, s: number, x0 = 0, y0 = 0, x1 = g.cols, y1 = g.rows): void {
  ctx.fillStyle = PAPER;
  ctx.fillRect(x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s);
  const kx0 = Math.max(0, x0), ky0 = Math.max(0, y0), kx1 = Math.min(g.cols, x1), ky1 = Math.min(g.rows, y1);
  // hills: a warm tint by level
  for (let y = ky0; y < ky1; y++) {
    for (let x = kx0; x < kx1; x++) {
      const e = g.level(x, y);
      const k = g.kind(x, y);
      const base = FILL[k] ?? PAPER;
      if (base === PAPER && !(e > 0)) continue;
      // opaque, so that neighbouring cells' overlap leaves no seams
      ctx.fillStyle = e > 0 && !isWater(k) ? mix(base, "#9e7034", Math.min(0.36, 0.09 * e)) : base;
      ctx.fillRect(x * s, y * s, s + 0.6, s + 0.6);
    }
  }
  paintRelief(ctx, g, s, kx0, ky0, kx1, ky1);
  paintWater(ctx, g, s, kx0, ky0, kx1, ky1);
  paintRoads(ctx, g, s, kx0, ky0, kx1, ky1);
  for (let y = ky0; y < ky1; y++) for (let x = kx0; x < kx1; x++) paintSymbol(ctx, g, s, x, y);
  paintWorks(ctx, g, s, kx0, ky0, kx1, ky1);
}

/** Contours along the edges where the level changes, and hachures — short strokes down the slope — on the higher side. */
function paintRelief(ctx: CanvasRenderingContext2D, g: Ground, s: number, x0: number, y0: number, x1: number, y1: number): void {
  ctx.strokeStyle = "rgba(112,72,28,0.75)";
  ctx.lineWidth = Math.max(0.8, s * 0.06);
  ctx.beginPath();
  const hach: [number, number, number, number][] = [];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const e = g.level(x, y);
      for (const [dx, dy] of [[1, 0], [0, 1]] as const) {
        const nx = x + dx, ny = y + dy;
        if (nx >= g.cols || ny >= g.rows) continue;
        const f = g.level(nx, ny);
        if (f === e) continue;
        if (dx) { ctx.moveTo(nx * s, y * s); ctx.lineTo(nx * s, (y + 1) * s); }
        else { ctx.moveTo(x * s, ny * s); ctx.lineTo((x + 1) * s, ny * s); }
        if (s < 7) continue;
        // hachures on the higher cell, pointing downhill across the edge
        const high = e > f ? { x, y, dir: 1 } : { x: nx, y: ny, dir: -1 };
        const n = s >= 18 ? 4 : s >= 11 ? 3 : 2;
        for (let i = 0; i < n; i++) {
          const t = (i + 0.5) / n;
          const len = s * (0.22 + 0.06 * Math.abs(e - f));
          if (dx) {
            const ex = nx * s;
            hach.push([ex, (y + t) * s, ex - high.dir * len, (y + t) * s]);
          } else {
            const ey = ny * s;
            hach.push([(x + t) * s, ey, (x + t) * s, ey - high.dir * len]);
          }
        }
      }
    }
  }
  ctx.stroke();
  if (hach.length) {
    ctx.strokeStyle = "rgba(112,72,28,0.55)";
    ctx.lineWidth = Math.max(0.6, s * 0.04);
    ctx.beginPath();
    for (const [ax, ay, bx, by] of hach) { ctx.moveTo(ax, ay); ctx.lineTo(bx, by); }
    ctx.stroke();
  }
  // the level written on the hill at close range
  if (s >= 22) {
    ctx.fillStyle = "rgba(112,72,28,0.8)";
    ctx.font = `italic ${Math.round(s * 0.34)}px Georgia, serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const e = g.level(x, y);
        if (e > 0 && (x + 2 * y) % 7 === 0 && g.kind(x, y) === "open") ctx.fillText(String(e), (x + 0.5) * s, (y + 0.5) * s);
      }
    }
  }
}

/** Banks: a firm blue line where water meets land. */
function paintWater(ctx: CanvasRenderingContext2D, g: Ground, s: number, x0: number, y0: number, x1: number, y1: number): void {
  ctx.strokeStyle = WATER_EDGE;
  ctx.lineWidth = Math.max(1, s * 0.09);
  ctx.beginPath();
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (!isWater(g.kind(x, y))) continue;
      const land = (nx: number, ny: number) => nx >= 0 && ny >= 0 && nx < g.cols && ny < g.rows && !isWater(g.kind(nx, ny));
      if (land(x, y - 1)) { ctx.moveTo(x * s, y * s); ctx.lineTo((x + 1) * s, y * s); }
      if (land(x, y + 1)) { ctx.moveTo(x * s, (y + 1) * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
      if (land(x - 1, y)) { ctx.moveTo(x * s, y * s); ctx.lineTo(x * s, (y + 1) * s); }
      if (land(x + 1, y)) { ctx.moveTo((x + 1) * s, y * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
    }
  }
  ctx.stroke();
}

/** Roads as the road's colour on its cells, cased in brown where they meet other ground (a road two cells wide
 * stays one road); a village or a bridge it enters leaves the casing open. */
function paintRoads(ctx: CanvasRenderingContext2D, g: Ground, s: number, x0: number, y0: number, x1: number, y1: number): void {
  const joins = (x: number, y: number) => {
    const k = g.kind(x, y);
    return k === "road" || k === "crossing" || k === "settlement" || k === "";
  };
  ctx.fillStyle = ROAD_FILL;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (g.kind(x, y) === "road") ctx.fillRect(x * s, y * s, s + 0.6, s + 0.6);
  ctx.strokeStyle = ROAD_CASE;
  ctx.lineWidth = Math.max(1, s * 0.1);
  ctx.beginPath();
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (g.kind(x, y) !== "road") continue;
      if (!joins(x, y - 1)) { ctx.moveTo(x * s, y * s); ctx.lineTo((x + 1) * s, y * s); }
      if (!joins(x, y + 1)) { ctx.moveTo(x * s, (y + 1) * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
      if (!joins(x - 1, y)) { ctx.moveTo(x * s, y * s); ctx.lineTo(x * s, (y + 1) * s); }
      if (!joins(x + 1, y)) { ctx.moveTo((x + 1) * s, y * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
    }
  }
  ctx.stroke();
}

/** What stands on one cell: trees, reeds, houses, rocks, a bridge or a ford. */
function paintSymbol(ctx: CanvasRenderingContext2D, g: Ground, s: number, x: number, y: number): void {
  const k = g.kind(x, y);
  const px = x * s, py = y * s;
  if (k === "light_forest" || k === "dense_forest") {
    if (s < 5) return;
    const n = k === "dense_forest" ? 3 : 2;
    for (let i = 0; i < n; i++) {
      const cx = px + (0.22 + 0.56 * jitter(x, y, i * 2 + 1)) * s;
      const cy = py + (0.22 + 0.56 * jitter(x, y, i * 2 + 2)) * s;
      const r = s * (k === "dense_forest" ? 0.2 : 0.17) * (0.85 + 0.3 * jitter(x, y, i + 9));
      ctx.beginPath();
      ctx.arc(cx, cy, r, 0, Math.PI * 2);
      ctx.fillStyle = CROWN;
      ctx.fill();
      if (s >= 9) {
        ctx.strokeStyle = CROWN_EDGE;
        ctx.lineWidth = Math.max(0.6, s * 0.035);
        ctx.stroke();
      }
    }
  } else if (k === "marsh") {
    if (s < 5) return;
    ctx.strokeStyle = "#4d7f9a";
    ctx.lineWidth = Math.max(0.7, s * 0.05);
    ctx.beginPath();
    for (const [fy, fx] of [[0.3, 0.15], [0.7, 0.45]] as const) {
      const ly = py + fy * s, lx = px + fx * s;
      ctx.moveTo(lx, ly);
      ctx.lineTo(lx + s * 0.4, ly);
      // reeds
      for (const t of [0.1, 0.2, 0.3]) { ctx.moveTo(lx + t * s, ly); ctx.lineTo(lx + t * s + s * 0.03 * (t * 10 - 2), ly - s * 0.16); }
    }
    ctx.stroke();
  } else if (k === "settlement") {
    ctx.fillStyle = HOUSE;
    if (s < 6) {
      ctx.fillRect(px + s * 0.2, py + s * 0.2, s * 0.6, s * 0.6);
      return;
    }
    const houses = 2 + Math.floor(jitter(x, y, 5) * 2);
    for (let i = 0; i < houses; i++) {
      const w = s * (0.24 + 0.14 * jitter(x, y, i + 20));
      const hh = s * (0.18 + 0.1 * jitter(x, y, i + 30));
      const hx = px + s * 0.1 + (s * 0.8 - w) * jitter(x, y, i + 40);
      const hy = py + s * 0.1 + (s * 0.8 - hh) * jitter(x, y, i + 50);
      ctx.fillRect(hx, hy, w, hh);
    }
    if (s >= 12) {
      ctx.strokeStyle = "rgba(60,30,20,0.6)";
      ctx.lineWidth = 1;
      ctx.strokeRect(px + 0.5, py + 0.5, s - 1, s - 1);
    }
  } else if (k === "mountain") {
    if (s < 5) return;
    ctx.strokeStyle = "#6b5637";
    ctx.lineWidth = Math.max(0.8, s * 0.06);
    ctx.beginPath();
    const cx = px + s * (0.4 + 0.2 * jitter(x, y, 3));
    ctx.moveTo(px + s * 0.12, py + s * 0.8);
    ctx.lineTo(cx, py + s * 0.22);
    ctx.lineTo(px + s * 0.88, py + s * 0.8);
    // hachured shadow side
    for (const t of [0.3, 0.5, 0.7]) { ctx.moveTo(cx + (px + s * 0.88 - cx) * t, py + s * (0.22 + 0.58 * t)); ctx.lineTo(cx + (px + s * 0.88 - cx) * t - s * 0.08, py + s * 0.8); }
    ctx.stroke();
  } else if (k === "water" && s >= 10) {
    ctx.strokeStyle = "rgba(63,120,168,0.5)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(px + s * 0.2, py + s * 0.55);
    ctx.quadraticCurveTo(px + s * 0.35, py + s * 0.42, px + s * 0.5, py + s * 0.55);
    ctx.quadraticCurveTo(px + s * 0.65, py + s * 0.68, px + s * 0.8, py + s * 0.55);
    ctx.stroke();
  } else if (k === "crossing") {
    const roadNext = [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([dx, dy]) => isRoad(g.kind(x + dx!, y + dy!)) || g.kind(x + dx!, y + dy!) === "settlement");
    if (!roadNext) {
      // a ford: the water broken by stepping stones
      ctx.fillStyle = "#8aa9bf";
      for (const [fx, fy] of [[0.25, 0.3], [0.55, 0.45], [0.35, 0.7], [0.7, 0.72]] as const) ctx.fillRect(px + fx * s, py + fy * s, s * 0.14, s * 0.1);
      return;
    }
    // a bridge: parapets across the water, along the road's way
    const across = isWater(g.kind(x, y - 1)) || isWater(g.kind(x, y + 1));
    ctx.fillStyle = ROAD_FILL;
    ctx.strokeStyle = INK;
    ctx.lineWidth = Math.max(1, s * 0.08);
    if (across) {
      ctx.fillRect(px, py + s * 0.3, s, s * 0.4);
      ctx.beginPath();
      ctx.moveTo(px - s * 0.1, py + s * 0.3); ctx.lineTo(px + s * 1.1, py + s * 0.3);
      ctx.moveTo(px - s * 0.1, py + s * 0.7); ctx.lineTo(px + s * 1.1, py + s * 0.7);
      ctx.stroke();
    } else {
      ctx.fillRect(px + s * 0.3, py, s * 0.4, s);
      ctx.beginPath();
      ctx.moveTo(px + s * 0.3, py - s * 0.1); ctx.lineTo(px + s * 0.3, py + s * 1.1);
      ctx.moveTo(px + s * 0.7, py - s * 0.1); ctx.lineTo(px + s * 0.7, py + s * 1.1);
      ctx.stroke();
    }
  }
}

/** A storm's works over their fill (N-SIEGE-5): walls and forts outlined where they meet other ground, the ditch
 * shaded, breaches as rubble, the besieger's parallels as a trench line. */
function paintWorks(ctx: CanvasRenderingContext2D, g: Ground, s: number, x0: number, y0: number, x1: number, y1: number): void {
  const solid = (x: number, y: number) => { const k = g.kind(x, y); return k === "wall" || k === "fort"; };
  ctx.strokeStyle = "#2e2924";
  ctx.lineWidth = Math.max(1, s / 5);
  ctx.beginPath();
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const k = g.kind(x, y);
      if (solid(x, y)) {
        if (!solid(x, y - 1)) { ctx.moveTo(x * s, y * s); ctx.lineTo((x + 1) * s, y * s); }
        if (!solid(x, y + 1)) { ctx.moveTo(x * s, (y + 1) * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
        if (!solid(x - 1, y)) { ctx.moveTo(x * s, y * s); ctx.lineTo(x * s, (y + 1) * s); }
        if (!solid(x + 1, y)) { ctx.moveTo((x + 1) * s, y * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
      } else if (k === "parallel") {
        ctx.moveTo(x * s, (y + 0.5) * s);
        ctx.lineTo((x + 1) * s, (y + 0.5) * s);
      }
    }
  }
  ctx.stroke();
  ctx.fillStyle = "rgba(60,40,20,0.55)";
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const k = g.kind(x, y);
      if (k === "breach") {
        for (const [dx, dy] of [[0.25, 0.3], [0.65, 0.25], [0.4, 0.7], [0.75, 0.7]] as const) ctx.fillRect((x + dx) * s - 1, (y + dy) * s - 1, Math.max(2, s * 0.12), Math.max(2, s * 0.12));
      } else if (k === "ditch") {
        ctx.fillRect(x * s, (y + 0.6) * s, s, Math.max(1, s * 0.15));
      }
    }
  }
}

/** A legend swatch: a few cells of one kind of ground (a hill is open ground at level 1 beside level 0). */
export function paintSwatch(canvas: HTMLCanvasElement, kind: string, cellPx = 14, cols = 3, rows = 2): void {
  const dpr = globalThis.devicePixelRatio || 1;
  canvas.width = cols * cellPx * dpr;
  canvas.height = rows * cellPx * dpr;
  canvas.style.width = `${cols * cellPx}px`;
  canvas.style.height = `${rows * cellPx}px`;
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const hill = kind === "hill";
  const kindAt = (x: number, y: number): string => {
    if (x < 0 || y < 0 || x >= cols || y >= rows) return "";
    if (hill) return "open";
    // a river down the middle column with the road across it on a bridge
    if (kind === "crossing") return x === 1 ? (y === 0 ? "crossing" : "river") : y === 0 ? "road" : "open";
    if (kind === "road") return y === 0 ? "road" : "open";
    return kind;
  };
  const g: Ground = { cols, rows, kind: kindAt, level: (x) => (hill ? Math.min(2, Math.max(0, x)) : 0) };
  paintGround(ctx, g, cellPx);
}

/** The ground painted once per zoom step into an off-screen canvas, so that a frame costs one image copy. A
 * step not painted yet is painted once the zoom has rested a moment (`ready` then asks for a frame); meanwhile the
 * nearest step painted stands in, scaled — so zooming never waits for a repaint of the whole field. */
export class TerrainLayer {
  private readonly pictures = new Map<number, HTMLCanvasElement>();
  private signature = "";
  private pending = 0;
  private wanted = 0;

  constructor(private readonly ready: () => void = () => {}) {}

  /** The picture for this ground at about `devicePx` pixels per cell, or null when the zoom is beyond what a
   * picture of the whole field should hold (then paint the visible cells directly). */
  picture(g: Ground, signature: string, devicePx: number): HTMLCanvasElement | null {
    const steps = [6, 10, 16, 24, 32];
    const maxSide = 2400;
    const step = steps.find((k) => k >= devicePx * 0.9) ?? Infinity;
    if (!Number.isFinite(step) || step * Math.max(g.cols, g.rows) > maxSide) return null;
    if (signature !== this.signature) {
      this.pictures.clear();
      this.signature = signature;
    }
    const have = this.pictures.get(step);
    if (have) return have;
    if (!this.pictures.size) return this.paint(g, step);
    // the nearest picture for now, the right one when the zoom rests
    this.wanted = step;
    window.clearTimeout(this.pending);
    this.pending = window.setTimeout(() => {
      if (this.signature !== signature || this.pictures.has(this.wanted)) return;
      this.paint(g, this.wanted);
      this.ready();
    }, 140);
    const near = [...this.pictures.keys()].sort((a, b) => Math.abs(a - step) - Math.abs(b - step))[0]!;
    return this.pictures.get(near)!;
  }

  private paint(g: Ground, step: number): HTMLCanvasElement {
    const c = document.createElement("canvas");
    c.width = g.cols * step;
    c.height = g.rows * step;
    const ctx = c.getContext("2d");
    if (ctx) paintGround(ctx, g, step);
    this.pictures.set(step, c);
    // keep three steps at most (a 32-pixel picture of the field is 20 MB)
    if (this.pictures.size > 3) {
      const drop = [...this.pictures.keys()].sort((a, b) => Math.abs(b - step) - Math.abs(a - step))[0]!;
      this.pictures.delete(drop);
    }
    return c;
  }
}
