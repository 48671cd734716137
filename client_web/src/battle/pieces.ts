/** The regiments and companies on the field as the Kriegsspiel's blocks: each unit its footprint in its side's
 * colour with a firm outline, the front rank marked and a chevron showing its facing, the mark of its arm
 * (× infantry, / cavalry, // heavy cavalry, ● guns), its side's flag at the rear with the side's shape, and, in its
 * label, a glyph of its formation. Melee contacts get crossed sabres. Geometry is in cells; drawing in pixels. */
import { drawTeamShape, teamColour } from "../ui/colours";
import { facingIndex, facingVector, frontRank, lateralVector, type Cell } from "./geometry";
import type { BattleUnit } from "./model";

/** What drawing a unit needs of it (a BattleUnit has all of it; a ghost or a legend's sample only this). */
export type Piece = Pick<BattleUnit, "id" | "side" | "type" | "formation" | "facing" | "anchor" | "cells" | "width"> & { status?: string };

export interface Frame {
  scale: number;
  offsetX: number;
  offsetY: number;
}

const OUTLINE = "#15120d";

/** Guns of every kind: foot, horse and fortress artillery, and the companies turned howitzers for a storm
 * (N-SIEGE-9: `howitzer`, `horse_howitzer` — still artillery, deployed or limbered, firing, counted in guns). */
export const isArtilleryType = (type: string): boolean => type.includes("art") || type.includes("howitzer");
export const isCavalryType = (type: string): boolean => type.includes("cav");

const outlines = new WeakMap<readonly Cell[], [number, number, number, number][]>();

/** The edges of a footprint's outline: sides of its cells that border no other of its cells, in cell units
 * (remembered per footprint: a view's footprints do not change while it is drawn frame after frame). */
export function outline(cells: readonly Cell[]): [number, number, number, number][] {
  const known = outlines.get(cells);
  if (known) return known;
  const edges = outlineOf(cells);
  outlines.set(cells, edges);
  return edges;
}

function outlineOf(cells: readonly Cell[]): [number, number, number, number][] {
  const have = new Set(cells.map((c) => `${c.x},${c.y}`));
  const out: [number, number, number, number][] = [];
  for (const c of cells) {
    if (!have.has(`${c.x},${c.y - 1}`)) out.push([c.x, c.y, c.x + 1, c.y]);
    if (!have.has(`${c.x},${c.y + 1}`)) out.push([c.x, c.y + 1, c.x + 1, c.y + 1]);
    if (!have.has(`${c.x - 1},${c.y}`)) out.push([c.x, c.y, c.x, c.y + 1]);
    if (!have.has(`${c.x + 1},${c.y}`)) out.push([c.x + 1, c.y, c.x + 1, c.y + 1]);
  }
  return out;
}

export function centroid(cells: readonly Cell[]): { x: number; y: number } {
  if (!cells.length) return { x: 0, y: 0 };
  let x = 0, y = 0;
  for (const c of cells) { x += c.x + 0.5; y += c.y + 0.5; }
  return { x: x / cells.length, y: y / cells.length };
}

/** The footprint's bounding box in cells. */
export function cellBounds(cells: readonly Cell[]): { x: number; y: number; w: number; h: number } {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const c of cells) { x0 = Math.min(x0, c.x); y0 = Math.min(y0, c.y); x1 = Math.max(x1, c.x + 1); y1 = Math.max(y1, c.y + 1); }
  return cells.length ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : { x: 0, y: 0, w: 0, h: 0 };
}

export interface PieceLook {
  alpha?: number;
  /** pixel shift while it moves */
  dx?: number;
  dy?: number;
  selected?: boolean;
  hovered?: boolean;
  /** a ghost: where it would stand (a preview), drawn as a dashed outline */
  ghost?: boolean;
}

/** Draw one unit. */
export function drawPiece(ctx: CanvasRenderingContext2D, u: Piece, f: Frame, look: PieceLook = {}): void {
  const s = f.scale;
  const ox = f.offsetX + (look.dx ?? 0);
  const oy = f.offsetY + (look.dy ?? 0);
  const col = teamColour(u.side);
  const gone = u.status === "dispersed" || u.status === "surrendered" || u.status === "destroyed" || u.status === "routed";
  ctx.save();
  ctx.globalAlpha = (look.alpha ?? 1) * (gone ? 0.55 : 1);
  const edges = outline(u.cells);
  const strokeEdges = () => {
    ctx.beginPath();
    for (const [ax, ay, bx, by] of edges) { ctx.moveTo(ox + ax * s, oy + ay * s); ctx.lineTo(ox + bx * s, oy + by * s); }
    ctx.stroke();
  };
  if (look.ghost) {
    ctx.fillStyle = col.fill;
    ctx.globalAlpha *= 0.28;
    for (const c of u.cells) ctx.fillRect(ox + c.x * s, oy + c.y * s, s, s);
    ctx.globalAlpha /= 0.28;
    ctx.strokeStyle = OUTLINE;
    ctx.lineWidth = Math.max(1.5, s * 0.12);
    ctx.setLineDash([Math.max(3, s * 0.35), Math.max(2, s * 0.25)]);
    strokeEdges();
    ctx.restore();
    return;
  }
  if (look.selected) {
    // a gold halo outside the outline
    ctx.strokeStyle = "#ffcf1f";
    ctx.lineWidth = Math.max(4, s * 0.5);
    ctx.lineCap = "round";
    strokeEdges();
  }
  ctx.fillStyle = col.fill;
  for (const c of u.cells) ctx.fillRect(ox + c.x * s, oy + c.y * s, s + 0.3, s + 0.3);
  if (isArtilleryType(u.type)) {
    // guns: a lighter band across the rear, the limbers
    ctx.fillStyle = "rgba(255,255,255,0.18)";
    for (const c of u.cells.slice(u.width)) ctx.fillRect(ox + c.x * s, oy + c.y * s, s + 0.3, s + 0.3);
  }
  ctx.strokeStyle = look.hovered ? "#000" : OUTLINE;
  ctx.lineWidth = look.hovered ? Math.max(2.5, s * 0.2) : Math.max(1.2, s * 0.11);
  ctx.lineCap = "square";
  strokeEdges();
  drawFront(ctx, u, s, ox, oy);
  drawArm(ctx, u, s, ox, oy, col.ink);
  if (s >= 4) drawFlag(ctx, u, s, ox, oy); // the side's shape, so that colour is never the only mark
  ctx.restore();
}

/** The front rank as a light bar along its forward edge, and a chevron ahead of its middle. */
function drawFront(ctx: CanvasRenderingContext2D, u: Piece, s: number, ox: number, oy: number): void {
  const fwd = facingVector(u.facing);
  const front = frontRank(u.anchor, u.facing, Math.min(u.width, u.cells.length));
  const n = Math.hypot(fwd.x, fwd.y);
  const k = 0.5 - 0.12 / n;
  const pts = front.map((c) => ({ x: ox + (c.x + 0.5 + (fwd.x / n) * k) * s, y: oy + (c.y + 0.5 + (fwd.y / n) * k) * s }));
  const lat = lateralVector(u.facing);
  const ln = Math.hypot(lat.x, lat.y);
  const first = pts[0]!, last = pts[pts.length - 1]!;
  const ext = 0.42 * s;
  ctx.lineCap = "butt";
  ctx.strokeStyle = "#fff7dc";
  ctx.lineWidth = Math.max(1.5, s * 0.16);
  ctx.beginPath();
  ctx.moveTo(first.x - (lat.x / ln) * ext, first.y - (lat.y / ln) * ext);
  ctx.lineTo(last.x + (lat.x / ln) * ext, last.y + (lat.y / ln) * ext);
  ctx.stroke();
  if (s < 5) return;
  // the chevron: outside the front, pointing the way the unit faces
  const mid = { x: (first.x + last.x) / 2, y: (first.y + last.y) / 2 };
  const ux = fwd.x / n, uy = fwd.y / n;
  const size = Math.max(4, Math.min(12, s * 0.55));
  const tip = { x: mid.x + ux * (size + 0.2 * s), y: mid.y + uy * (size + 0.2 * s) };
  const base = { x: mid.x + ux * 0.2 * s, y: mid.y + uy * 0.2 * s };
  ctx.beginPath();
  ctx.moveTo(tip.x, tip.y);
  ctx.lineTo(base.x - uy * size * 0.8, base.y + ux * size * 0.8);
  ctx.lineTo(base.x + uy * size * 0.8, base.y - ux * size * 0.8);
  ctx.closePath();
  ctx.fillStyle = "#fff7dc";
  ctx.strokeStyle = OUTLINE;
  ctx.lineWidth = 1.2;
  ctx.fill();
  ctx.stroke();
}

/** The arm's mark in the middle of the block, turned with the unit. */
function drawArm(ctx: CanvasRenderingContext2D, u: Piece, s: number, ox: number, oy: number, ink: string): void {
  const c = centroid(u.cells);
  const cx = ox + c.x * s, cy = oy + c.y * s;
  const r = Math.max(2.5, Math.min(11, s * 0.42));
  ctx.save();
  ctx.translate(cx, cy);
  ctx.rotate((facingIndex(u.facing) * Math.PI) / 4);
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.lineWidth = Math.max(1.2, r * 0.26);
  ctx.lineCap = "round";
  ctx.beginPath();
  if (isArtilleryType(u.type)) {
    ctx.arc(0, 0, r * 0.55, 0, Math.PI * 2);
    ctx.fill();
    if (u.type.includes("horse")) { ctx.moveTo(-r * 1.2, r * 0.7); ctx.lineTo(r * 1.2, -r * 0.7); ctx.stroke(); }
  } else if (isCavalryType(u.type)) {
    ctx.moveTo(-r * 1.3, r * 0.7);
    ctx.lineTo(r * 1.3, -r * 0.7);
    if (u.type.includes("heavy")) { ctx.moveTo(-r * 1.3, r * 0.05); ctx.lineTo(r * 0.2, -r * 0.75); }
    ctx.stroke();
  } else {
    ctx.moveTo(-r * 1.2, -r * 0.7); ctx.lineTo(r * 1.2, r * 0.7);
    ctx.moveTo(-r * 1.2, r * 0.7); ctx.lineTo(r * 1.2, -r * 0.7);
    ctx.stroke();
  }
  ctx.restore();
}

/** The side's flag on a pole at the rear left of the block, with the side's shape on it (never colour alone). */
function drawFlag(ctx: CanvasRenderingContext2D, u: Piece, s: number, ox: number, oy: number): void {
  const back = facingVector(u.facing);
  const lat = lateralVector(u.facing);
  const rear = u.cells.reduce((best, c) => {
    const score = -(c.x * back.x + c.y * back.y) * 100 - (c.x * lat.x + c.y * lat.y);
    return score > best.score ? { c, score } : best;
  }, { c: u.anchor, score: -Infinity }).c;
  const px = ox + (rear.x + 0.5) * s, py = oy + (rear.y + 0.5) * s;
  const pole = Math.max(11, Math.min(26, s * 1.3));
  const fw = Math.max(9, Math.min(20, s * 0.95));
  const fh = fw * 0.68;
  ctx.strokeStyle = OUTLINE;
  ctx.lineWidth = 1.3;
  ctx.beginPath();
  ctx.moveTo(px, py);
  ctx.lineTo(px, py - pole);
  ctx.stroke();
  const col = teamColour(u.side);
  ctx.fillStyle = col.fill;
  ctx.fillRect(px, py - pole, fw, fh);
  ctx.strokeRect(px, py - pole, fw, fh);
  ctx.save();
  ctx.globalAlpha *= 1;
  drawTeamShape(ctx, u.side, px + fw / 2, py - pole + fh / 2, fh * 0.26);
  ctx.restore();
}

/** A formation's glyph in a label (line, attack column, square, march column; guns deployed or limbered), `size`
 * its height in pixels, drawn in `ink` with its top-left corner at (x, y). Returns its width. */
export function drawFormationGlyph(ctx: CanvasRenderingContext2D, formation: string, x: number, y: number, size: number, ink: string): number {
  const w = size * 1.3;
  ctx.save();
  ctx.fillStyle = ink;
  ctx.strokeStyle = ink;
  ctx.lineWidth = Math.max(1.2, size * 0.13);
  const cx = x + w / 2, cy = y + size / 2;
  ctx.beginPath();
  switch (formation) {
    case "line":
      ctx.fillRect(x, cy - size * 0.14, w, size * 0.28);
      break;
    case "attack_column":
      ctx.fillRect(cx - size * 0.34, cy - size * 0.18, size * 0.68, size * 0.56);
      ctx.moveTo(cx, y); ctx.lineTo(cx + size * 0.34, cy - size * 0.22); ctx.lineTo(cx - size * 0.34, cy - size * 0.22); ctx.closePath(); ctx.fill();
      break;
    case "square":
      ctx.strokeRect(cx - size * 0.4, cy - size * 0.4, size * 0.8, size * 0.8);
      break;
    case "march_column":
      ctx.fillRect(cx - size * 0.13, y + size * 0.28, size * 0.26, size * 0.72);
      ctx.moveTo(cx, y); ctx.lineTo(cx + size * 0.3, y + size * 0.32); ctx.lineTo(cx - size * 0.3, y + size * 0.32); ctx.closePath(); ctx.fill();
      break;
    case "deployed":
      ctx.arc(cx - size * 0.1, cy + size * 0.12, size * 0.26, 0, Math.PI * 2); ctx.fill();
      ctx.fillRect(cx - size * 0.1, cy - size * 0.06, size * 0.62, size * 0.18);
      break;
    case "limbered":
      ctx.arc(cx - size * 0.32, cy + size * 0.12, size * 0.22, 0, Math.PI * 2);
      ctx.moveTo(cx + size * 0.54, cy + size * 0.12);
      ctx.arc(cx + size * 0.32, cy + size * 0.12, size * 0.22, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillRect(cx - size * 0.32, cy - size * 0.02, size * 0.64, size * 0.12);
      break;
    default:
      ctx.arc(cx, cy, size * 0.3, 0, Math.PI * 2); ctx.fill();
  }
  ctx.restore();
  return w;
}

/** Crossed sabres where two units are locked in melee, at (x, y), `r` their half-length. */
export function drawSabres(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, pulse = 0): void {
  ctx.save();
  ctx.translate(x, y);
  const k = 1 + 0.12 * pulse;
  ctx.scale(k, k);
  ctx.lineCap = "round";
  for (const [colour, width] of [["#fff", r * 0.45], ["#8b0d0d", r * 0.22]] as const) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = Math.max(width, colour === "#fff" ? 4 : 2);
    ctx.beginPath();
    // two blades, slightly curved, and their hilts
    ctx.moveTo(-r, r); ctx.quadraticCurveTo(-r * 0.1, r * 0.1, r, -r);
    ctx.moveTo(r, r); ctx.quadraticCurveTo(r * 0.1, r * 0.1, -r, -r);
    ctx.moveTo(-r * 0.95, r * 0.45); ctx.lineTo(-r * 0.45, r * 0.95);
    ctx.moveTo(r * 0.95, r * 0.45); ctx.lineTo(r * 0.45, r * 0.95);
    ctx.stroke();
  }
  ctx.restore();
}

/** Where two footprints touch: the middle between their closest cells (in cells). */
export function contactPoint(a: readonly Cell[], b: readonly Cell[]): { x: number; y: number } | null {
  let best: { x: number; y: number } | null = null;
  let dist = Infinity;
  for (const p of a) {
    for (const q of b) {
      const d = (p.x - q.x) ** 2 + (p.y - q.y) ** 2;
      if (d < dist) { dist = d; best = { x: (p.x + q.x) / 2 + 0.5, y: (p.y + q.y) / 2 + 0.5 }; }
    }
  }
  return best;
}
