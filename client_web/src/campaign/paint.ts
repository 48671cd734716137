/** The strategic map drawn to be read: the ground tinted by its state (opaque, so no seams), woods, hills, marsh
 * and mountains marked, borders, rivers, roads and railways; places as period symbols (a capital's ringed dot, a
 * city's dot, a fortress's star); forces as counters of a readable size whatever the zoom — a stack in one cell
 * fanned out — carrying their side's shape, their arm, and their strength and morale when the viewer knows them.
 * The view places the names afterwards (../ui/labels.ts), so that none hides another or a counter. */
import { formatNumber, proper } from "../i18n";
import { drawTeamShape, TERRAIN_FILL, teamColour } from "../ui/colours";
import { mix } from "../battle/terrain";
import type { LabelRequest, Rect } from "../ui/labels";
import { around, aroundBox } from "../ui/labels";
import { cellCentre, cellToPixel, type Cell, type Viewport } from "./geometry";
import type { CampaignModel, City, Force } from "./model";

export const PLACE_FONT = "italic 14px Georgia, 'Times New Roman', serif";
export const CAPITAL_FONT = "italic 600 15px Georgia, 'Times New Roman', serif";
export const FORCE_FONT = "600 14px system-ui, sans-serif";

/** The ground, its marks, the grid, borders and lines of communication. */
export function paintGround(ctx: CanvasRenderingContext2D, m: CampaignModel, v: Viewport): void {
  const s = v.scale;
  for (let y = 0; y < m.metric.rows; y++) {
    for (let x = 0; x < m.metric.cols; x++) {
      const p = cellToPixel(v, { x, y });
      const base = TERRAIN_FILL[m.terrain[y]![x]!] ?? "#e9e4c9";
      const owner = m.owners[y]![x];
      ctx.fillStyle = owner ? mix(base, teamColour(owner).fill, 0.1) : base;
      ctx.fillRect(p.x, p.y, s + 0.5, s + 0.5);
    }
  }
  paintMarks(ctx, m, v);
  ctx.strokeStyle = "rgba(60,60,60,0.14)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let x = 0; x <= m.metric.cols; x++) {
    const p = cellToPixel(v, { x, y: 0 });
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(p.x, p.y + m.metric.rows * s);
  }
  for (let y = 0; y <= m.metric.rows; y++) {
    const p = cellToPixel(v, { x: 0, y });
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(p.x + m.metric.cols * s, p.y);
  }
  ctx.stroke();
  paintBorders(ctx, m, v);
  paintLines(ctx, v, m.rivers, "#3b7dc4", Math.max(2, s * 0.14), []);
  paintLines(ctx, v, m.railways, "#333", Math.max(1.5, s * 0.08), [s * 0.25, s * 0.15]);
  paintLines(ctx, v, m.tracks, "#9b7b4f", Math.max(1, s * 0.05), [s * 0.12, s * 0.12]);
  paintLines(ctx, v, m.roads, "#7a4f24", Math.max(1.5, s * 0.09), []);
  ctx.strokeStyle = "rgba(40,30,20,0.8)";
  ctx.lineWidth = 1.5;
  ctx.strokeRect(v.offsetX, v.offsetY, m.metric.cols * s, m.metric.rows * s);
}

/** A few strokes per cell: tree crowns, a hill's hump, a mountain's peak, reeds, the sea's ripples. */
export function paintMark(ctx: CanvasRenderingContext2D, kind: string, cx: number, cy: number, s: number): void {
  ctx.fillStyle = "rgba(52,86,38,0.5)";
  ctx.strokeStyle = "rgba(90,66,36,0.7)";
  ctx.lineWidth = Math.max(1, s * 0.04);
  if (kind.includes("forest") || kind === "woods") {
    for (const [dx, dy] of [[-0.2, -0.15], [0.18, 0.05], [-0.05, 0.22]] as const) {
      ctx.beginPath();
      ctx.arc(cx + dx * s, cy + dy * s, s * 0.1, 0, Math.PI * 2);
      ctx.fill();
    }
  } else if (kind.startsWith("mountain") || kind.startsWith("hill")) {
    const k = kind.startsWith("mountain") ? 0.3 : 0.22;
    ctx.beginPath();
    if (kind.startsWith("mountain")) {
      ctx.moveTo(cx - k * s, cy + k * 0.6 * s);
      ctx.lineTo(cx, cy - k * 0.8 * s);
      ctx.lineTo(cx + k * s, cy + k * 0.6 * s);
      ctx.moveTo(cx + k * 0.2 * s, cy - k * 0.3 * s);
      ctx.lineTo(cx + k * 0.45 * s, cy + k * 0.6 * s);
    } else {
      ctx.moveTo(cx - k * s, cy + k * 0.4 * s);
      ctx.quadraticCurveTo(cx, cy - k * 1.1 * s, cx + k * s, cy + k * 0.4 * s);
    }
    ctx.stroke();
  } else if (kind === "marsh" || kind === "swamp") {
    ctx.strokeStyle = "rgba(60,110,140,0.7)";
    ctx.beginPath();
    for (const dy of [-0.15, 0.05, 0.25]) {
      ctx.moveTo(cx - 0.25 * s, cy + dy * s);
      ctx.lineTo(cx + 0.25 * s, cy + dy * s);
    }
    ctx.stroke();
  } else if ((kind === "sea" || kind === "water") && s >= 18) {
    ctx.strokeStyle = "rgba(40,90,140,0.35)";
    ctx.beginPath();
    ctx.moveTo(cx - 0.25 * s, cy);
    ctx.quadraticCurveTo(cx - 0.12 * s, cy - 0.1 * s, cx, cy);
    ctx.quadraticCurveTo(cx + 0.12 * s, cy + 0.1 * s, cx + 0.25 * s, cy);
    ctx.stroke();
  }
}

function paintMarks(ctx: CanvasRenderingContext2D, m: CampaignModel, v: Viewport): void {
  if (v.scale < 10) return;
  for (let y = 0; y < m.metric.rows; y++) {
    for (let x = 0; x < m.metric.cols; x++) {
      const c = cellCentre(v, { x, y });
      paintMark(ctx, m.terrain[y]![x]!, c.x, c.y, v.scale);
    }
  }
}

function paintBorders(ctx: CanvasRenderingContext2D, m: CampaignModel, v: Viewport): void {
  const { owners, metric } = m;
  ctx.strokeStyle = "#5b2a86";
  ctx.lineWidth = Math.max(2, v.scale * 0.1);
  ctx.setLineDash([v.scale * 0.35, v.scale * 0.15]);
  ctx.beginPath();
  for (let y = 0; y < metric.rows; y++) {
    for (let x = 0; x < metric.cols; x++) {
      const o = owners[y]![x];
      if (x + 1 < metric.cols && owners[y]![x + 1] !== o) {
        const p = cellToPixel(v, { x: x + 1, y });
        ctx.moveTo(p.x, p.y);
        ctx.lineTo(p.x, p.y + v.scale);
      }
      if (y + 1 < metric.rows && owners[y + 1]![x] !== o) {
        const p = cellToPixel(v, { x, y: y + 1 });
        ctx.moveTo(p.x, p.y);
        ctx.lineTo(p.x + v.scale, p.y);
      }
    }
  }
  ctx.stroke();
  ctx.setLineDash([]);
}

export function paintLines(ctx: CanvasRenderingContext2D, v: Viewport, lines: Cell[][], colour: string, width: number, dash: number[]): void {
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  ctx.setLineDash(dash);
  for (const line of lines) strokeThrough(ctx, v, line);
  ctx.setLineDash([]);
}

/** One stroke through the centres of `cells`, in the context's current style. */
export function strokeThrough(ctx: CanvasRenderingContext2D, v: Viewport, cells: readonly Cell[]): void {
  ctx.beginPath();
  cells.forEach((c, i) => {
    const p = cellCentre(v, c);
    if (i === 0) ctx.moveTo(p.x, p.y);
    else ctx.lineTo(p.x, p.y);
  });
  ctx.stroke();
}

/** A place's symbol at (x, y), `r` its size: a capital's ringed dot, a city's dot, a fortress's star fort. */
export function paintPlace(ctx: CanvasRenderingContext2D, city: Pick<City, "capital" | "fortress" | "owner">, x: number, y: number, r: number): void {
  const fill = city.owner ? teamColour(city.owner).fill : "#222";
  ctx.lineWidth = 1.5;
  if (city.fortress) {
    // five bastions
    ctx.beginPath();
    for (let i = 0; i < 10; i++) {
      const a = (i * Math.PI) / 5 - Math.PI / 2;
      const k = i % 2 ? r * 0.95 : r * 1.6;
      ctx[i ? "lineTo" : "moveTo"](x + Math.cos(a) * k, y + Math.sin(a) * k);
    }
    ctx.closePath();
    ctx.fillStyle = "#fffaf0";
    ctx.fill();
    ctx.strokeStyle = "#222";
    ctx.stroke();
  }
  ctx.beginPath();
  ctx.arc(x, y, city.capital ? r : r * 0.72, 0, Math.PI * 2);
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.strokeStyle = "#fff";
  ctx.stroke();
  if (city.capital) {
    ctx.beginPath();
    ctx.arc(x, y, r * 1.45, 0, Math.PI * 2);
    ctx.strokeStyle = "#222";
    ctx.stroke();
  }
}

export interface Drawn {
  force: Force;
  rect: Rect;
}

/** Below this many pixels a cell, counters are compact: no figures on them (their label carries them). */
export const COMPACT_BELOW = 30;

/** A counter's size in pixels at this zoom: its cells, but never smaller than its figures need (or, compact on a
 * small map, than its symbol needs). */
export function counterSize(f: Force, s: number): { w: number; h: number } {
  if (s < COMPACT_BELOW) return { w: Math.max(24, f.size.w * s * 0.95), h: Math.max(17, f.size.h * s * 0.7) };
  return { w: Math.max(54, Math.min(68, f.size.w * s * 0.9)), h: Math.max(36, Math.min(48, f.size.h * s * 0.66)) };
}

/** Forces as counters, a stack in one cell fanned out; returns where each was drawn (hits and label obstacles). */
export function paintCounters(ctx: CanvasRenderingContext2D, forces: readonly Force[], v: Viewport, selected: string | null,
                              kind: (f: Force) => string): Drawn[] {
  const stacks = new Map<string, Force[]>();
  for (const f of forces) {
    const k = `${f.cell.x},${f.cell.y}`;
    stacks.set(k, [...(stacks.get(k) ?? []), f]);
  }
  const out: Drawn[] = [];
  for (const stack of stacks.values()) {
    // the selected one on top
    stack.sort((a, b) => Number(a.id === selected) - Number(b.id === selected));
    stack.forEach((f, i) => {
      const { w, h } = counterSize(f, v.scale);
      const c = cellToPixel(v, { x: f.cell.x + f.size.w / 2, y: f.cell.y + f.size.h / 2 });
      const shift = (i - (stack.length - 1) / 2) * (v.scale < COMPACT_BELOW ? 5 : 9);
      const rect = { x: c.x - w / 2 + shift, y: c.y - h / 2 + shift, w, h };
      paintCounter(ctx, v.scale < COMPACT_BELOW ? { ...f, strength: null } : f, rect, f.id === selected, kind(f));
      out.push({ force: f, rect });
    });
  }
  return out;
}

/** One counter: its side's colour and shape, the arm's symbol in a frame, strength · morale beneath when known. */
export function paintCounter(ctx: CanvasRenderingContext2D, f: Pick<Force, "team" | "reported" | "strength" | "morale" | "facing">, r: Rect, selected: boolean, kind: string): void {
  const col = teamColour(f.team);
  ctx.save();
  ctx.globalAlpha = f.reported ? 0.6 : 1;
  // a shadow, the counter, its edge
  ctx.fillStyle = "rgba(0,0,0,0.28)";
  ctx.fillRect(r.x + 2, r.y + 2, r.w, r.h);
  ctx.fillStyle = col.fill;
  ctx.fillRect(r.x, r.y, r.w, r.h);
  ctx.strokeStyle = selected ? "#ffcf1f" : "#111";
  ctx.lineWidth = selected ? 3.5 : 1.2;
  if (f.reported) ctx.setLineDash([4, 3]);
  ctx.strokeRect(r.x, r.y, r.w, r.h);
  ctx.setLineDash([]);
  // the arm's symbol in its frame, upper part
  const known = f.strength !== null;
  const fh = known ? r.h * 0.48 : r.h * 0.62;
  const fw = Math.min(r.w * 0.62, fh * 1.5);
  const fx = r.x + (r.w - fw) / 2 + 4, fy = r.y + (known ? 3 : (r.h - fh) / 2);
  ctx.strokeStyle = col.ink;
  ctx.fillStyle = col.ink;
  ctx.lineWidth = 1.4;
  ctx.strokeRect(fx, fy, fw, fh);
  armSymbol(ctx, kind, fx, fy, fw, fh);
  if (r.w >= 40) drawTeamShape(ctx, f.team, r.x + 6, r.y + 6, 3.6);
  if (f.strength !== null) {
    ctx.font = "700 14px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    ctx.fillStyle = col.ink;
    ctx.fillText(f.morale !== null ? `${formatNumber(f.strength, 3)} · ${Math.round(f.morale)}` : formatNumber(f.strength, 3), r.x + r.w / 2, r.y + r.h - 4);
  }
  if (f.facing !== null) {
    const ang = ((typeof f.facing === "number" ? f.facing : ["N", "NE", "E", "SE", "S", "SW", "W", "NW"].indexOf(String(f.facing).toUpperCase())) * Math.PI) / 4 - Math.PI / 2;
    const cx = r.x + r.w / 2, cy = r.y + r.h / 2;
    ctx.strokeStyle = "#111";
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    ctx.moveTo(cx + Math.cos(ang) * r.h * 0.5, cy + Math.sin(ang) * r.h * 0.5);
    ctx.lineTo(cx + Math.cos(ang) * r.h * 0.8, cy + Math.sin(ang) * r.h * 0.8);
    ctx.stroke();
  }
  ctx.restore();
}

/** NATO-like marks inside a frame: infantry ×, cavalry /, armour oval, artillery dot, anti-tank ∧, a fortress
 * square, a headquarters' flag, a Napoleonic army its crossed × with the army's XXXX above. */
function armSymbol(ctx: CanvasRenderingContext2D, kind: string, x: number, y: number, w: number, h: number): void {
  const cx = x + w / 2, cy = y + h / 2;
  ctx.beginPath();
  switch (kind) {
    case "cavalry": ctx.moveTo(x, y + h); ctx.lineTo(x + w, y); break;
    case "armour": ctx.ellipse(cx, cy, w * 0.32, h * 0.28, 0, 0, Math.PI * 2); break;
    case "artillery": ctx.arc(cx, cy, h * 0.18, 0, Math.PI * 2); ctx.fill(); break;
    case "antitank": ctx.moveTo(x, y + h); ctx.lineTo(cx, y); ctx.lineTo(x + w, y + h); break;
    case "fortress": ctx.rect(cx - h * 0.25, cy - h * 0.25, h * 0.5, h * 0.5); break;
    case "hq": ctx.moveTo(x + w * 0.2, y + h); ctx.lineTo(x + w * 0.2, y); ctx.rect(x + w * 0.2, y, w * 0.45, h * 0.4); break;
    default:
      ctx.moveTo(x, y); ctx.lineTo(x + w, y + h);
      ctx.moveTo(x, y + h); ctx.lineTo(x + w, y);
      if (kind === "motorised") { ctx.moveTo(x, y + h * 0.85); ctx.lineTo(x + w, y + h * 0.85); }
  }
  ctx.stroke();
}

/** The places to name on the map: not a fortress whose own garrison's counter stands on it, as that counter is
 * named after it (server/continental/deployment.py) and its label says the name once. */
export function placesToName(cities: readonly City[], forces: readonly Force[]): City[] {
  return cities.filter((c) => !forces.some((f) => f.cell.x === c.cell.x && f.cell.y === c.cell.y && proper(f.name) === proper(c.name)));
}

/** What every place's name asks of the label pass: a capital first, then fortresses, then cities. */
export function placeNameRequests(ctx: CanvasRenderingContext2D, cities: readonly City[], v: Viewport): { requests: LabelRequest<{ text: string; font: string }>[]; marks: Rect[] } {
  const requests: LabelRequest<{ text: string; font: string }>[] = [];
  const marks: Rect[] = [];
  const r = placeRadius(v.scale);
  for (const city of cities) {
    const c = cellCentre(v, city.cell);
    marks.push({ x: c.x - r * 1.6, y: c.y - r * 1.6, w: r * 3.2, h: r * 3.2 });
    const font = city.capital ? CAPITAL_FONT : PLACE_FONT;
    ctx.font = font;
    const text = proper(city.name);
    const w = ctx.measureText(text).width + 4;
    // beside its mark, else clear of a counter standing on it
    const clear = { x: c.x - 30, y: c.y - 21, w: 60, h: 42 };
    requests.push({ item: { text, font }, priority: city.capital ? 30 : city.fortress ? 25 : 20, w, h: 18,
      candidates: [...around(c.x, c.y, r * 1.6, w, 18, 2), ...aroundBox(clear, w, 18, 2)] });
  }
  return { requests, marks };
}

export const placeRadius = (s: number): number => Math.max(3.5, Math.min(8, s * 0.18));

/** A force's name for its label: a Napoleonic army by its general, else by its own name — with its figures when
 * its counter is too small to carry them. */
export function forceLabel(ctx: CanvasRenderingContext2D, d: Drawn, s: number): LabelRequest<{ text: string; font: string }> {
  const f = d.force;
  const general = f.general;
  const figures = s < COMPACT_BELOW && f.strength !== null ? ` ${formatNumber(f.strength, 3)}${f.morale !== null ? ` · ${Math.round(f.morale)}` : ""}` : "";
  const text = `${proper(general ?? f.name)}${figures}`;
  ctx.font = FORCE_FONT;
  const w = ctx.measureText(text).width + 10;
  return { item: { text, font: FORCE_FONT }, priority: 50, w, h: 20, candidates: [...aroundBox(d.rect, w, 20, 3), ...aroundBox(d.rect, w, 20, 24)] };
}
