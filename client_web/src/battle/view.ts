/** The 70×70 battlefield on a canvas: terrain and elevation, units by type, formation and facing with their
 * footprints, selection, movement preview with points left, fire and canister zones on hover, and a short tween of
 * every unit's move so that a spectator can follow each turn's resolution. */
import { formatNumber, proper, t, tn } from "../i18n";
import { clear, h } from "../ui/dom";
import { drawTeamShape, TERRAIN_FILL, teamColour, teamMark } from "../ui/colours";
import { bindGestures, markViewport, zoomKey } from "../ui/gestures";
import { armWord, facingWord, formationWord, statusWord, teamWord, terrainWord } from "../i18n/words";
import type { Names } from "../ui/names";
import { zoomAt, type Viewport } from "../campaign/geometry";
import { artilleryZone, facingIndex, frontRank, musketZone, type Cell, type ZoneCell } from "./geometry";
import { readBattle, straightPath, type BattleModel, type BattleUnit } from "./model";

export interface BattleActions {
  order(order: Record<string, unknown>): Promise<unknown>;
}

const ANIM_MS = 700;
/** How long a shot or a melee stays drawn, and the gap between consecutive ones of a resolution. */
const FLASH_MS = 2200;
const FLASH_GAP_MS = 300;
const WEAPON_COLOURS: Record<string, string> = { musket: "#e67e00", canister: "#d00000", round_shot: "#222", crossing: "#e67e00", melee: "#7a00b3" };

interface Flash {
  from: string;
  to: string;
  weapon: string;
  label: string;
  start: number;
}
/** Default ranges in cells when the view gives none (N-INF muskets, N-ART guns). */
const DEFAULT_RANGE: Record<string, number> = { infantry: 4, foot_artillery: 25, horse_artillery: 20 };

export function isArtillery(u: BattleUnit): boolean {
  return u.type.includes("art");
}

export function isCavalry(u: BattleUnit): boolean {
  return u.type.includes("cav");
}

export function fireZones(u: BattleUnit): { canister: ZoneCell[]; fire: ZoneCell[] } {
  const range = u.range ?? DEFAULT_RANGE[u.type] ?? (isArtillery(u) ? 20 : 0);
  if (isArtillery(u)) {
    if (u.formation === "limbered") return { canister: [], fire: [] };
    return { canister: artilleryZone(u.anchor, u.facing, u.width, 1, 5), fire: artilleryZone(u.anchor, u.facing, u.width, 6, range) };
  }
  if (isCavalry(u) || u.formation === "march_column" || !range) return { canister: [], fire: [] };
  return { canister: [], fire: musketZone(u.anchor, u.facing, u.width, range) };
}

export class BattleView {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private model: BattleModel = readBattle({});
  private selected: string | null = null;
  private hovered: string | null = null;
  private hoverCell: Cell | null = null;
  private target: Cell | null = null;
  private pickingFire = false;
  private scale = 9;
  private viewport: Viewport | null = null;
  /** set once the user zooms or pans; until then the field is fitted to the canvas on every resize */
  private userMoved = false;
  private fittedTo = "";
  private from = new Map<string, Cell>();
  private animStart = 0;
  private raf = 0;
  private mySide: string | null = null;
  private flashes: Flash[] = [];
  /** units, armies and places by name (the game page sets them from its session) */
  names: Names = { unit: (id) => String(id), army: (id) => String(id), place: (c) => String(c), battle: (id) => String(id), room: (id) => id };

  constructor(private readonly actions: BattleActions, private canOrder: boolean) {
    this.canvas = h("canvas", { class: "battle-canvas", tabindex: 0, "data-testid": "battle-field" });
    this.status = h("div", { class: "map-status", "data-testid": "battle-status" });
    this.panel = h("div", { class: "side-panel", "data-testid": "battle-panel" });
    this.root = h("div", { class: "battle-view" }, h("div", { class: "canvas-wrap" }, this.canvas, this.zoomTools(), this.status), this.panel);
    this.bind();
  }

  setState(state: Record<string, unknown>, mySide: string | null): void {
    const prev = new Map(this.model.units.map((u) => [u.id, u.anchor]));
    this.model = readBattle(state);
    this.mySide = mySide;
    this.from = new Map();
    for (const u of this.model.units) {
      const p = prev.get(u.id);
      if (p && (p.x !== u.anchor.x || p.y !== u.anchor.y)) this.from.set(u.id, p);
    }
    this.animStart = performance.now();
    this.renderPanel();
    this.animate();
  }

  /** The viewer may give orders again, or no longer (D-N-14): the panel's order controls follow at once. */
  setCanOrder(canOrder: boolean): void {
    if (canOrder === this.canOrder) return;
    this.canOrder = canOrder;
    this.target = null;
    this.pickingFire = false;
    this.renderPanel();
    this.draw();
  }

  /** Show a resolution event as it arrives: each shot and melee is drawn in turn, shooter to target, with the
   * losses it caused, so that a spectator can follow the turn. */
  play(kind: string, data: Record<string, unknown>): void {
    const unit = typeof data.unit === "string" ? data.unit : typeof data.a === "string" ? data.a : null;
    const target = typeof data.target === "string" ? data.target : typeof data.b === "string" ? data.b : null;
    if ((kind !== "fire" && kind !== "melee") || !unit || !target) return;
    const now = performance.now();
    const last = this.flashes[this.flashes.length - 1];
    const start = Math.max(now, last ? last.start + FLASH_GAP_MS : now);
    const losses = typeof data.losses === "number" ? data.losses : null;
    this.flashes.push({ from: unit, to: target, weapon: kind === "melee" ? "melee" : String(data.weapon ?? "musket"),
      label: data.hit === false ? "✗" : losses !== null ? `−${losses}` : "", start });
    this.animate();
  }

  private drawFlashes(ctx: CanvasRenderingContext2D, now: number): void {
    this.flashes = this.flashes.filter((f) => now - f.start < FLASH_MS);
    const centre = (id: string) => {
      const u = this.model.units.find((x) => x.id === id);
      if (!u) return null;
      const s = this.scale;
      return { x: (u.cells.reduce((a, c) => a + c.x, 0) / u.cells.length + 0.5) * s, y: (u.cells.reduce((a, c) => a + c.y, 0) / u.cells.length + 0.5) * s };
    };
    for (const f of this.flashes) {
      if (now < f.start) continue;
      const a = centre(f.from);
      const b = centre(f.to);
      if (!a || !b) continue;
      const k = Math.min(1, (now - f.start) / 400);
      ctx.globalAlpha = 1 - Math.max(0, (now - f.start - FLASH_MS / 2) / (FLASH_MS / 2));
      ctx.strokeStyle = WEAPON_COLOURS[f.weapon] ?? "#e67e00";
      ctx.lineWidth = f.weapon === "round_shot" ? 2 : 3;
      ctx.setLineDash(f.weapon === "round_shot" ? [6, 4] : []);
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(a.x + (b.x - a.x) * k, a.y + (b.y - a.y) * k);
      ctx.stroke();
      ctx.setLineDash([]);
      if (k >= 1 && f.label) {
        ctx.font = "bold 13px system-ui, sans-serif";
        ctx.fillStyle = "#fff";
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 3;
        ctx.strokeText(f.label, b.x + 6, b.y - 6);
        ctx.fillText(f.label, b.x + 6, b.y - 6);
      }
      ctx.globalAlpha = 1;
    }
  }

  private animate(): void {
    cancelAnimationFrame(this.raf);
    const step = () => {
      this.draw();
      const moving = this.from.size > 0 && performance.now() - this.animStart < ANIM_MS;
      if (moving || this.flashes.length) this.raf = requestAnimationFrame(step);
      if (!moving) this.from.clear();
    };
    step();
  }

  private own(u: BattleUnit): boolean {
    return this.canOrder && (this.mySide === null || u.side === this.mySide);
  }

  private unitAt(c: Cell): BattleUnit | undefined {
    return this.model.units.find((u) => u.cells.some((k) => k.x === c.x && k.y === c.y));
  }

  private cellAt(x: number, y: number): Cell {
    const v = this.viewport ?? { scale: this.scale, offsetX: 0, offsetY: 0 };
    return { x: Math.floor((x - v.offsetX) / v.scale), y: Math.floor((y - v.offsetY) / v.scale) };
  }

  private hoverAt(x: number, y: number): void {
    const c = this.cellAt(x, y);
    this.hoverCell = c;
    const u = this.unitAt(c);
    this.hovered = u?.id ?? null;
    this.status.textContent = u
      ? `${this.names.unit(u.id)} · ${armWord(u.type)} · ${formationWord(u.formation)} · ${t("unit.facing")} ${facingWord(u.facing)} · ${t("unit.morale")} ${u.morale ?? "—"} · ${t("unit.losses")} ${u.lossTolerance ?? "—"}`
      : `${c.x},${c.y} · ${terrainWord(this.model.terrain[c.y]?.[c.x] ?? "open")}${this.model.elevation[c.y]?.[c.x] ? ` · ▲${this.model.elevation[c.y]![c.x]}` : ""}`;
    this.draw();
  }

  private tapAt(x: number, y: number): void {
    const c = this.cellAt(x, y);
    const u = this.unitAt(c);
    const sel = this.model.units.find((x) => x.id === this.selected);
    if (this.pickingFire && sel && u && u.side !== sel.side) {
      this.pickingFire = false;
      // N-ART-7: up to two round-shot targets; one picked here takes all the guns in action.
      void this.send({ type: "targets", unit: sel.id, targets: [{ unit: u.id, guns: sel.guns ?? 4 }] });
    } else if (u && (!sel || u.side === sel.side || !this.own(sel))) {
      this.selected = u.id;
      this.target = null;
    } else if (sel && this.own(sel)) {
      this.target = c;
    }
    this.renderPanel();
    this.draw();
    this.canvas.focus();
  }

  /** Back to the whole field (the 0 key). */
  fitField(): void {
    this.userMoved = false;
    this.viewport = null;
    this.fittedTo = "";
    this.draw();
  }

  private bind(): void {
    const setViewport = (v: Viewport) => {
      this.viewport = v;
      this.userMoved = true;
      this.draw();
    };
    bindGestures(this.canvas, {
      viewport: () => this.viewport,
      setViewport,
      tap: (x, y) => this.tapAt(x, y),
      hover: (x, y) => this.hoverAt(x, y),
      longPress: (x, y) => this.hoverAt(x, y),
      leave: () => {
        this.hovered = null;
        this.hoverCell = null;
        this.draw();
      },
    });
    this.canvas.addEventListener("keydown", (e) => {
      if (zoomKey(e, this.canvas, { viewport: () => this.viewport, setViewport }, () => this.fitField())) return;
    });
    this.canvas.addEventListener("keydown", (e) => {
      if (e.defaultPrevented) return;
      if (e.key === "Tab") {
        // Tab / Shift-Tab: the next of one's own units (all units for a spectator).
        const pool = this.model.units.filter((u) => !this.canOrder || this.own(u));
        if (!pool.length) return;
        e.preventDefault();
        const i = pool.findIndex((u) => u.id === this.selected);
        this.selected = pool[(i + (e.shiftKey ? pool.length - 1 : 1)) % pool.length]!.id;
        this.target = null;
        this.renderPanel();
        this.draw();
        return;
      }
      const sel = this.model.units.find((x) => x.id === this.selected);
      if (!sel) return;
      const arrows: Record<string, [number, number]> = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
      if (arrows[e.key] && this.own(sel)) {
        e.preventDefault();
        const [dx, dy] = arrows[e.key]!;
        const from = this.target ?? sel.anchor;
        this.target = { x: Math.max(0, Math.min(this.model.cols - 1, from.x + dx)), y: Math.max(0, Math.min(this.model.rows - 1, from.y + dy)) };
        this.renderPanel();
        this.draw();
        return;
      }
      const keys: Record<string, Record<string, unknown>> = {
        q: { type: "wheel", unit: sel.id, degrees: -45 },
        e: { type: "wheel", unit: sel.id, degrees: 45 },
        a: { type: "about_face", unit: sel.id },
        s: { type: "formation", unit: sel.id, formation: "square" },
        l: { type: sel.formation === "limbered" ? "unlimber" : "limber", unit: sel.id },
      };
      if (e.key === "Escape") {
        this.target = null;
        this.pickingFire = false;
      } else if (e.key === "Enter" && this.target) {
        void this.send(this.moveOrder(sel, this.target));
      } else if (e.key === "c" && this.target && isCavalry(sel) && this.own(sel)) {
        void this.send(this.chargeOrder(sel, this.target));
      } else if (e.key === "f") this.pickingFire = true;
      else if (keys[e.key] && this.own(sel)) void this.send(keys[e.key]!);
      else return;
      this.renderPanel();
      this.draw();
    });
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  private moveOrder(u: BattleUnit, to: Cell): Record<string, unknown> {
    const path = straightPath(this.model, u, to);
    return { type: "move", unit: u.id, path: path.cells.slice(1).map((c) => [c.x, c.y]) };
  }

  /** Cavalry ending a straight run of 4+ cells in contact charges (N-CHARGE-1, D-N-11). */
  private chargeOrder(u: BattleUnit, to: Cell): Record<string, unknown> {
    return { ...this.moveOrder(u, to), type: "charge" };
  }

  private async send(order: Record<string, unknown>): Promise<void> {
    try {
      await this.actions.order(order);
      this.target = null;
    } catch {
      // shown by the shell's error line
    }
    this.renderPanel();
    this.draw();
  }

  draw(): void {
    const cv = this.canvas;
    const dpr = globalThis.devicePixelRatio || 1;
    const w = cv.clientWidth || 630;
    const hgt = cv.clientHeight || 630;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(hgt * dpr)) {
      cv.width = Math.round(w * dpr);
      cv.height = Math.round(hgt * dpr);
    }
    const ctx = cv.getContext("2d");
    if (!ctx) return;
    const m = this.model;
    const size = `${w}x${hgt}x${m.cols}x${m.rows}`;
    if (!this.userMoved && this.fittedTo !== size) {
      this.viewport = null;
      this.fittedTo = size;
    }
    const scale = Math.max(2, Math.min(w / m.cols, hgt / m.rows));
    const v = (this.viewport ??= { scale, offsetX: (w - m.cols * scale) / 2, offsetY: (hgt - m.rows * scale) / 2 });
    markViewport(cv, v);
    this.scale = v.scale;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#d8d2c0";
    ctx.fillRect(0, 0, w, hgt);
    ctx.setTransform(dpr, 0, 0, dpr, dpr * v.offsetX, dpr * v.offsetY);
    const s = this.scale;
    for (let y = 0; y < m.rows; y++) {
      for (let x = 0; x < m.cols; x++) {
        ctx.fillStyle = TERRAIN_FILL[m.terrain[y]![x]!] ?? "#e9e4c9";
        ctx.fillRect(x * s, y * s, s + 0.5, s + 0.5);
        const e = m.elevation[y]![x]!;
        if (e > 0) {
          ctx.fillStyle = `rgba(110,80,40,${Math.min(0.4, 0.1 * e)})`;
          ctx.fillRect(x * s, y * s, s + 0.5, s + 0.5);
        }
      }
    }
    // contour lines where elevation changes
    ctx.strokeStyle = "rgba(100,70,30,0.7)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let y = 0; y < m.rows; y++) {
      for (let x = 0; x < m.cols; x++) {
        const e = m.elevation[y]![x]!;
        if (x + 1 < m.cols && m.elevation[y]![x + 1] !== e) {
          ctx.moveTo((x + 1) * s, y * s);
          ctx.lineTo((x + 1) * s, (y + 1) * s);
        }
        if (y + 1 < m.rows && m.elevation[y + 1]![x] !== e) {
          ctx.moveTo(x * s, (y + 1) * s);
          ctx.lineTo((x + 1) * s, (y + 1) * s);
        }
      }
    }
    ctx.stroke();
    if (m.siege) this.drawSiegeWorks(ctx, s);
    ctx.strokeStyle = "rgba(0,0,0,0.05)";
    ctx.beginPath();
    for (let i = 0; i <= m.cols; i += 5) {
      ctx.moveTo(i * s, 0);
      ctx.lineTo(i * s, m.rows * s);
      ctx.moveTo(0, i * s);
      ctx.lineTo(m.cols * s, i * s);
    }
    ctx.stroke();
    const zoneUnit = this.model.units.find((u) => u.id === (this.hovered ?? this.selected));
    if (zoneUnit) {
      const z = fireZones(zoneUnit);
      ctx.fillStyle = "rgba(255,140,0,0.25)";
      for (const c of z.fire) ctx.fillRect(c.x * s, c.y * s, s, s);
      ctx.fillStyle = "rgba(220,0,0,0.35)";
      for (const c of z.canister) ctx.fillRect(c.x * s, c.y * s, s, s);
    }
    this.drawPreview(ctx);
    const now = performance.now();
    const k = Math.min(1, (now - this.animStart) / ANIM_MS);
    for (const u of m.units) this.drawUnit(ctx, u, k);
    this.drawFlashes(ctx, now);
  }

  private drawPreview(ctx: CanvasRenderingContext2D): void {
    const sel = this.model.units.find((u) => u.id === this.selected);
    if (!sel || !this.target) return;
    const s = this.scale;
    const path = straightPath(this.model, sel, this.target);
    const left = sel.movementLeft ?? Infinity;
    ctx.strokeStyle = path.cost > left ? "#c00" : "#ffd400";
    ctx.lineWidth = 3;
    ctx.beginPath();
    path.cells.forEach((c, i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, (c.x + 0.5) * s, (c.y + 0.5) * s));
    ctx.stroke();
  }

  private drawUnit(ctx: CanvasRenderingContext2D, u: BattleUnit, k: number): void {
    const s = this.scale;
    const from = this.from.get(u.id);
    const dx = from ? (from.x - u.anchor.x) * (1 - k) * s : 0;
    const dy = from ? (from.y - u.anchor.y) * (1 - k) * s : 0;
    const col = teamColour(u.side);
    const routed = u.status === "routed" || u.status === "dispersed";
    ctx.globalAlpha = u.status === "destroyed" || u.status === "surrendered" ? 0.3 : routed ? 0.6 : 1;
    ctx.fillStyle = col.fill;
    for (const c of u.cells) ctx.fillRect(c.x * s + dx + 0.5, c.y * s + dy + 0.5, s - 1, s - 1);
    // front rank and facing
    const front = frontRank(u.anchor, u.facing, Math.min(u.width, u.cells.length));
    const ang = (facingIndex(u.facing) * Math.PI) / 4 - Math.PI / 2;
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = Math.max(1.5, s * 0.18);
    ctx.beginPath();
    for (const c of front) {
      const cx = (c.x + 0.5) * s + dx + Math.cos(ang) * s * 0.38;
      const cy = (c.y + 0.5) * s + dy + Math.sin(ang) * s * 0.38;
      ctx.moveTo(cx - Math.sin(ang) * s * 0.45, cy + Math.cos(ang) * s * 0.45);
      ctx.lineTo(cx + Math.sin(ang) * s * 0.45, cy - Math.cos(ang) * s * 0.45);
    }
    ctx.stroke();
    if (u.moveEnded) {
      // N-SIEGE-12/13: its move ended at the ditch or the ladders this turn — a dark stop mark on its first cell
      const c0 = u.cells[0] ?? u.anchor;
      ctx.fillStyle = "#222";
      ctx.fillRect(c0.x * s + dx + s * 0.05, c0.y * s + dy + s * 0.05, s * 0.35, s * 0.35);
    }
    // the side's shape on the rearmost cell, so that colour is never the only mark
    const rear = u.cells[u.cells.length - 1] ?? u.anchor;
    if (s >= 5) drawTeamShape(ctx, u.side, (rear.x + 0.5) * s + dx, (rear.y + 0.5) * s + dy, Math.max(1.8, s * 0.26));
    // type mark at the centre
    const cx = u.cells.reduce((a, c) => a + c.x + 0.5, 0) / u.cells.length * s + dx;
    const cy = u.cells.reduce((a, c) => a + c.y + 0.5, 0) / u.cells.length * s + dy;
    ctx.fillStyle = col.ink;
    ctx.strokeStyle = col.ink;
    ctx.lineWidth = 1.5;
    const r = s * 0.35;
    ctx.beginPath();
    if (isArtillery(u)) {
      ctx.arc(cx, cy, r * 0.6, 0, Math.PI * 2);
      ctx.fill();
    } else if (isCavalry(u)) {
      ctx.moveTo(cx - r, cy + r);
      ctx.lineTo(cx + r, cy - r);
      if (u.type.includes("heavy")) {
        ctx.moveTo(cx - r, cy);
        ctx.lineTo(cx, cy - r);
      }
      ctx.stroke();
    } else {
      ctx.moveTo(cx - r, cy - r);
      ctx.lineTo(cx + r, cy + r);
      ctx.moveTo(cx - r, cy + r);
      ctx.lineTo(cx + r, cy - r);
      ctx.stroke();
    }
    if (u.id === this.selected || u.id === this.hovered) {
      ctx.strokeStyle = u.id === this.selected ? "#ffd400" : "#000";
      ctx.lineWidth = 2;
      for (const c of u.cells) ctx.strokeRect(c.x * s + dx, c.y * s + dy, s, s);
    }
    ctx.globalAlpha = 1;
  }

  /** A storm's works over their fill (N-SIEGE-5): walls and forts outlined where they meet other ground, the
   * ditch shaded, breaches as rubble, the besieger's parallels as a trench line. */
  private drawSiegeWorks(ctx: CanvasRenderingContext2D, s: number): void {
    const m = this.model;
    const at = (x: number, y: number) => m.terrain[y]?.[x] ?? "";
    const solid = (k: string) => k === "wall" || k === "fort";
    ctx.strokeStyle = "#2e2924";
    ctx.lineWidth = Math.max(1, s / 5);
    ctx.beginPath();
    for (let y = 0; y < m.rows; y++) {
      for (let x = 0; x < m.cols; x++) {
        const k = at(x, y);
        if (solid(k)) {
          if (!solid(at(x, y - 1))) { ctx.moveTo(x * s, y * s); ctx.lineTo((x + 1) * s, y * s); }
          if (!solid(at(x, y + 1))) { ctx.moveTo(x * s, (y + 1) * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
          if (!solid(at(x - 1, y))) { ctx.moveTo(x * s, y * s); ctx.lineTo(x * s, (y + 1) * s); }
          if (!solid(at(x + 1, y))) { ctx.moveTo((x + 1) * s, y * s); ctx.lineTo((x + 1) * s, (y + 1) * s); }
        } else if (k === "parallel") {
          ctx.moveTo(x * s, (y + 0.5) * s);
          ctx.lineTo((x + 1) * s, (y + 0.5) * s);
        }
      }
    }
    ctx.stroke();
    ctx.fillStyle = "rgba(60,40,20,0.55)";
    for (let y = 0; y < m.rows; y++) {
      for (let x = 0; x < m.cols; x++) {
        const k = at(x, y);
        if (k === "breach") {
          for (const [dx, dy] of [[0.25, 0.3], [0.65, 0.25], [0.4, 0.7], [0.75, 0.7]] as const) ctx.fillRect((x + dx) * s - 1, (y + dy) * s - 1, 2, 2);
        } else if (k === "ditch") {
          ctx.fillRect(x * s, (y + 0.6) * s, s, Math.max(1, s * 0.15));
        }
      }
    }
  }

  /** + / − / whole map over the canvas: zoom without a wheel or two fingers. */
  private zoomTools(): HTMLElement {
    const zoom = (k: number) => () => {
      const v = this.viewport;
      if (!v) return;
      this.viewport = zoomAt(v, this.canvas.clientWidth / 2, this.canvas.clientHeight / 2, k);
      this.userMoved = true;
      this.draw();
    };
    return h("div", { class: "zoom-tools" },
      h("button", { type: "button", "aria-label": t("map.zoom_in"), title: `${t("map.zoom_in")} (+)`, "data-testid": "zoom-in", onclick: zoom(1.25) }, "+"),
      h("button", { type: "button", "aria-label": t("map.zoom_out"), title: `${t("map.zoom_out")} (−)`, "data-testid": "zoom-out", onclick: zoom(0.8) }, "−"),
      h("button", { type: "button", "aria-label": t("map.zoom_fit"), title: `${t("map.zoom_fit")} (0)`, "data-testid": "zoom-fit", onclick: () => this.fitField() }, "⤢"));
  }

  /** On a phone the panel is a bottom sheet: its handle opens and closes it; selecting a unit opens it. */
  private sheetOpen = false;
  private sheetFor: string | null = null;

  private sheetHandle(title: string): HTMLElement {
    return h("button", { type: "button", class: "sheet-handle", "aria-expanded": String(this.sheetOpen), "data-testid": "sheet-handle",
      onclick: () => { this.sheetOpen = !this.sheetOpen; this.panel.classList.toggle("open", this.sheetOpen); } }, title);
  }

  private renderPanel(): void {
    clear(this.panel);
    const m = this.model;
    const sel = m.units.find((u) => u.id === this.selected);
    if ((sel?.id ?? null) !== this.sheetFor) {
      this.sheetFor = sel?.id ?? null;
      this.sheetOpen = !!sel;
    }
    this.panel.classList.toggle("open", this.sheetOpen);
    this.panel.append(this.sheetHandle(sel ? this.names.unit(sel.id) : t("sheet.orders")));
    const head = [m.turn !== null ? t("game.turn", { n: m.turn }) : "",
      m.active.length ? t("game.to_move", { team: m.active.map(teamWord).join(", ") }) : ""].filter(Boolean).join(" · ");
    this.panel.append(h("p", { class: "muted", "data-testid": "battle-turn" }, head));
    if (m.siege) this.panel.append(h("p", { "data-testid": "siege-info" }, t("siege.info", {
      fortress: proper(m.siege.fortress), besieger: teamWord(m.siege.besieger), garrison: teamWord(m.siege.garrison), breaches: m.siege.breaches, guns: m.siege.guns })));
    if (m.result) this.panel.append(h("p", { class: "result", "data-testid": "battle-result" }, t("battle.won", { winner: teamWord(String(m.result.winner ?? "")) })));
    if (m.spectators !== null) this.panel.append(h("p", { class: "muted", "data-testid": "spectator-count" }, tn("n.spectators", m.spectators)));
    if (sel) {
      const rows: [string, string][] = [
        [t("unit.arm"), armWord(sel.type)], [t("unit.formation"), formationWord(sel.formation)], [t("unit.facing"), facingWord(sel.facing)],
        [t("unit.morale"), sel.morale === null ? "—" : String(sel.morale)],
        [t("unit.losses"), sel.lossTolerance === null ? "—" : `${sel.lossTolerance}${sel.losses !== null ? ` (−${sel.losses})` : ""}`],
        [t("unit.movement"), sel.movementLeft === null ? "—" : String(sel.movementLeft)],
        [t("unit.status"), statusWord(sel.status)],
      ];
      if (sel.moveEnded) rows.push([t("unit.movement"), t("battle.move_ended", { rule: sel.moveEnded })]);
      if (sel.guns !== null) rows.push([t("unit.guns"), String(sel.guns)]);
      this.panel.append(
        h("h3", {}, teamMark(sel.side), ` ${this.names.unit(sel.id)}`),
        h("table", { class: "kv" }, ...rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))),
      );
      if (this.target) {
        const p = straightPath(m, sel, this.target);
        const left = sel.movementLeft;
        this.panel.append(h("p", { class: "path", "data-testid": "battle-path" },
          `${tn("n.cells", p.cells.length - 1)} · ${tn("n.points", p.cost)}${left !== null ? ` · ${t("battle.points", { left: formatNumber(left - p.cost) })}` : ""}`));
      }
      if (this.own(sel)) {
        const b = (label: string, order: Record<string, unknown>, key: string) => h("button", { onclick: () => void this.send(order), "aria-keyshortcuts": key, title: t("key.hint", { key: key.toUpperCase() }) }, label, h("kbd", {}, key.toUpperCase()));
        this.panel.append(h("h4", {}, t("battle.orders")), h("div", { class: "buttons" },
          this.target ? h("button", { "data-testid": "battle-move", "aria-keyshortcuts": "Enter", onclick: () => void this.send(this.moveOrder(sel, this.target!)) }, t("map.move"), h("kbd", {}, "↵")) : null,
          this.target && isCavalry(sel) ? h("button", { "aria-keyshortcuts": "c", onclick: () => void this.send(this.chargeOrder(sel, this.target!)) }, t("battle.charge"), h("kbd", {}, "C")) : null,
          b(t("battle.wheel_left"), { type: "wheel", unit: sel.id, degrees: -45 }, "q"),
          b(t("battle.wheel_right"), { type: "wheel", unit: sel.id, degrees: 45 }, "e"),
          b(t("battle.about_face"), { type: "about_face", unit: sel.id }, "a"),
          isArtillery(sel) ? b(t("battle.limber"), { type: sel.formation === "limbered" ? "unlimber" : "limber", unit: sel.id }, "l")
            : !isCavalry(sel) ? b(t("battle.square"), { type: "formation", unit: sel.id, formation: "square" }, "s") : null,
          isArtillery(sel) ? h("button", { "aria-keyshortcuts": "f", onclick: () => { this.pickingFire = true; this.renderPanel(); } }, t("battle.fire"), h("kbd", {}, "F")) : null,
        ));
        if (!isArtillery(sel)) {
          const forms = isCavalry(sel) ? ["attack_column", "march_column"] : ["line", "attack_column", "march_column"];
          this.panel.append(h("div", { class: "buttons" }, ...forms.filter((f) => f !== sel.formation).map((f) =>
            h("button", { onclick: () => void this.send({ type: "formation", unit: sel.id, formation: f }) }, `${t("battle.reform")}: ${formationWord(f)}`))));
        }
      }
    } else {
      this.panel.append(h("p", { class: "hint" }, t("battle.hover")));
    }
    const rows = m.units.map((u) => h("tr", { class: u.id === this.selected ? "sel" : "", "data-side": u.side },
      h("td", {}, teamMark(u.side)), h("td", {}, this.names.unit(u.id)),
      h("td", {}, u.morale ?? "—"), h("td", {}, isArtillery(u) ? `${u.guns ?? "—"} ⊙` : u.lossTolerance ?? "—"),
      h("td", {}, formationWord(u.formation), u.moveEnded ? h("span", { class: "move-ended", "data-testid": "move-ended", title: t("battle.move_ended", { rule: u.moveEnded }) }, ` ⏹ ${u.moveEnded}`) : null)));
    this.panel.append(h("table", { class: "units", "data-testid": "unit-table" },
      h("tr", {}, h("th", {}), h("th", {}), h("th", {}, t("unit.morale")), h("th", {}, t("unit.losses")), h("th", {}, t("unit.formation"))), ...rows));
    if (m.fallen.length) {
      this.panel.append(h("h4", {}, t("battle.fallen")), h("ul", {}, ...m.fallen.map((f) =>
        h("li", {}, teamMark(f.side), ` ${this.names.unit(f.id)}: ${statusWord(f.status)}`))));
    }
    if (this.canOrder && this.mySide && !m.result) {
      this.panel.append(h("div", { class: "buttons" }, h("button", { class: "danger", onclick: () => {
        if (confirm(t("battle.retreat"))) void this.send({ type: "retreat" });
      } }, t("battle.retreat"))));
    }
    if (m.reinforcements.length) {
      this.panel.append(h("h4", {}, t("battle.reinforcements")), h("ul", {}, ...m.reinforcements.map((r) =>
        h("li", {}, teamMark(r.side), ` ${this.names.army(r.name) !== r.name ? this.names.army(r.name) : this.names.army(r.id)}${r.eta ? ` · ${r.eta}` : ""}`))));
    }
  }
}
