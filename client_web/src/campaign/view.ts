/** The strategic map on a canvas (C-2.*): terrain, borders, rivers, roads, railways, cities and fortresses, the
 * coordinate metric, forces; selection, path preview with its cost, orders by mouse and keyboard. */
import { FACINGS, facingIndex } from "../battle/geometry";
import { proper, t, type MessageKey } from "../i18n";
import { h, clear } from "../ui/dom";
import { drawTeamShape, TERRAIN_FILL, teamColour, teamMark } from "../ui/colours";
import { armWord, facingWord, teamWord, terrainWord } from "../i18n/words";
import { cellCentre, cellToPixel, cheapestPath, fit, formatCoord, inside, pixelToCell, zoomAt, type Cell, type Viewport } from "./geometry";
import { bindGestures, markViewport, zoomKey } from "../ui/gestures";
import { readCampaign, stepCost, type CampaignModel, type CostUnit, type Force } from "./model";
import { appointOrder, armyOffers, needsGeneral, readNapoleon, type NapView } from "./napoleon";

export interface CampaignActions {
  /** Send an order to the campaign engine; resolves when acknowledged. */
  order(order: Record<string, unknown>): Promise<unknown>;
}

/** Order built from a planned path (coordinates as the players see them). */
export function moveOrder(model: CampaignModel, force: Force, path: Cell[]): Record<string, unknown> {
  if (model.drill) {
    const next = path[1]!;
    return { type: "move", counter: force.id, to: [next.x, next.y] };
  }
  const coord = (c: Cell) => formatCoord(model.metric, c).split(",").map(Number);
  if (model.napoleonic) return { type: "move", army: force.id, path: path.slice(1).map(coord) };
  return { type: "move", unit: force.id, path: path.slice(1).map(coord) };
}

/** Arms of service (C-T1 and the scenario's arms: RD rifle, CavD cavalry, TD tank, MD motorised, SPD self-propelled,
 * ATD anti-tank, AD artillery, FORT fortress garrison) by the symbol drawn on the counter. */
const ARM_KINDS: Record<string, string> = {
  rd: "infantry", cavd: "cavalry", td: "armour", md: "motorised", spd: "armour", atd: "antitank", ad: "artillery", fort: "fortress",
};

export function armKind(type: string): string {
  const ty = type.toLowerCase();
  if (ARM_KINDS[ty]) return ARM_KINDS[ty]!;
  if (ty.includes("cav")) return "cavalry";
  if (ty.includes("tank") || ty.includes("armo")) return "armour";
  if (ty.includes("art")) return "artillery";
  if (ty.includes("fort")) return "fortress";
  if (ty.includes("hq") || ty.includes("army")) return "hq";
  return "infantry";
}

/** A cost as shown: fractions of the day's turn as a percentage (D-C-1), distances in km. */
export function amount(value: number, unit: CostUnit): string {
  if (unit === "steps") return String(value);
  if (unit === "points") return `${Math.round(value * 10) / 10} pts`;
  return unit === "turn" ? `${Math.round(value * 100)}%` : `${Math.round(value * 10) / 10} km`;
}

export class CampaignView {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private model: CampaignModel = readCampaign({});
  private viewport: Viewport | null = null;
  private selected: string | null = null;
  private target: Cell | null = null;
  private hover: Cell | null = null;
  private path: { cells: Cell[]; cost: number; unit: CostUnit } | null = null;
  private myTeam: string | null = null;
  private nap: NapView | null = null;
  /** the replacement general's name being typed (D-N-14), kept across re-renders */
  private appointDraft = "";
  private appointFocused = false;
  /** set once the user zooms or pans; until then the map is refitted to the canvas on every resize */
  private userMoved = false;
  private fittedTo = "";

  /** `playerTeam`: the team this client gives Napoleonic decisions for now (null for the moderator, spectators and a
   * player in the secret module). */
  constructor(private readonly actions: CampaignActions, private canOrder: boolean,
              private readonly playerTeam: () => string | null = () => null) {
    this.canvas = h("canvas", { class: "map-canvas", tabindex: 0, "data-testid": "campaign-map" });
    this.status = h("div", { class: "map-status", "data-testid": "map-status" });
    this.panel = h("div", { class: "side-panel", "data-testid": "selection" });
    this.root = h("div", { class: "campaign-view" }, h("div", { class: "canvas-wrap" }, this.canvas, this.zoomTools(), this.status), this.panel);
    this.bind();
  }

  setState(state: Record<string, unknown>, myTeam: string | null): void {
    this.model = readCampaign(state);
    this.nap = this.model.napoleonic ? readNapoleon(state) : null;
    this.myTeam = myTeam;
    // What the map shows, by team, for tests and assistive tools: "red:20 blue:3".
    const byTeam = new Map<string, number>();
    for (const f of this.model.forces) byTeam.set(f.team, (byTeam.get(f.team) ?? 0) + 1);
    this.canvas.dataset.forces = [...byTeam].map(([team, n]) => `${team}:${n}`).join(" ");
    if (this.selected && !this.model.forces.some((f) => f.id === this.selected)) this.selected = null;
    this.replan();
    this.draw();
    this.renderPanel();
  }

  /** The viewer may give orders again, or no longer (D-N-14): the panel's order controls follow at once. */
  setCanOrder(canOrder: boolean): void {
    if (canOrder === this.canOrder) return;
    this.canOrder = canOrder;
    this.target = null;
    this.replan();
    this.draw();
    this.renderPanel();
  }

  get modelForTests(): CampaignModel {
    return this.model;
  }

  private own(f: Force): boolean {
    return this.canOrder && (this.myTeam === null || f.team === this.myTeam);
  }

  private forceAt(c: Cell): Force | undefined {
    return this.model.forces.find((f) => c.x >= f.cell.x && c.x < f.cell.x + f.size.w && c.y >= f.cell.y && c.y < f.cell.y + f.size.h);
  }

  private bind(): void {
    const cv = this.canvas;
    const cellAt = (x: number, y: number) => (this.viewport ? pixelToCell(this.viewport, x, y) : null);
    bindGestures(cv, {
      viewport: () => this.viewport,
      setViewport: (v) => {
        this.viewport = v;
        this.userMoved = true;
        this.draw();
      },
      tap: (x, y) => {
        const c = cellAt(x, y);
        if (c) this.click(c);
      },
      hover: (x, y) => {
        const c = cellAt(x, y);
        this.hover = c && inside(this.model.metric, c) ? c : null;
        this.showStatus();
      },
      longPress: (x, y) => {
        // touch has no hover: holding a finger on a cell tells what is there
        const c = cellAt(x, y);
        this.hover = c && inside(this.model.metric, c) ? c : null;
        this.showStatus();
      },
      leave: () => {
        this.hover = null;
        this.showStatus();
      },
    });
    cv.addEventListener("keydown", (e) => this.key(e));
    new ResizeObserver(() => this.draw()).observe(cv);
  }

  /** Back to the whole map (the 0 key, the button). */
  fitMap(): void {
    this.userMoved = false;
    this.viewport = null;
    this.fittedTo = "";
    this.draw();
  }

  private click(c: Cell): void {
    if (!inside(this.model.metric, c)) return;
    const f = this.forceAt(c);
    if (f && (!this.selected || f.id !== this.selected) && (this.own(f) || !this.selected || !this.own(this.model.forces.find((x) => x.id === this.selected)!))) {
      this.selected = f.id;
      this.target = null;
    } else if (this.selected) {
      this.target = c;
    }
    this.replan();
    this.draw();
    this.renderPanel();
    this.canvas.focus();
  }

  private key(e: KeyboardEvent): void {
    if (zoomKey(e, this.canvas, { viewport: () => this.viewport, setViewport: (v) => { this.viewport = v; this.userMoved = true; this.draw(); } }, () => this.fitMap())) return;
    const sel = this.model.forces.find((f) => f.id === this.selected);
    const dirs: Record<string, [number, number]> = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (e.key === "Escape") {
      this.target = null;
      if (!this.path) this.selected = null;
    } else if (e.key === "Tab") {
      const mine = this.model.forces.filter((f) => this.own(f));
      if (!mine.length) return;
      e.preventDefault();
      const i = mine.findIndex((f) => f.id === this.selected);
      this.selected = mine[(i + (e.shiftKey ? mine.length - 1 : 1)) % mine.length]!.id;
      this.target = null;
    } else if (e.key in dirs && sel) {
      e.preventDefault();
      const [dx, dy] = dirs[e.key]!;
      const from = this.target ?? sel.cell;
      const next = { x: from.x + dx, y: from.y + dy };
      if (inside(this.model.metric, next)) this.target = next;
    } else if (e.key === "Enter") {
      void this.commit();
      return;
    } else return;
    this.replan();
    this.draw();
    this.renderPanel();
  }

  private replan(): void {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    const cost = sel ? stepCost(this.model, sel) : null;
    const found = sel && cost && this.target && this.own(sel)
      ? cheapestPath(this.model.metric, sel.cell, this.target, cost, this.model.diagonal)
      : null;
    this.path = found && cost && found.cells.length > 1 ? { ...found, unit: cost.unit } : null;
    if (sel && this.target && this.target.x === sel.cell.x && this.target.y === sel.cell.y) this.target = null;
  }

  /** The campaign engine's other orders for one counter (server/campaign/orders.py): turn (C-4.4), frontage
   * (C-4.10), formation and orientation, covering troops (C-5.8), split (C-4.11), march along the planned path
   * (C-4.8), and at the target cell an attack (C-9) or an artillery strike (C-9.7). */
  private engineOrders(sel: Force): HTMLElement {
    const send = (o: Record<string, unknown>) => () => void this.actions.order(o).catch(() => {});
    const coord = (c: Cell) => formatCoord(this.model.metric, c).split(",").map(Number);
    const facing = h("select", {}, ...FACINGS.map((f) => h("option", { value: f }, f)));
    if (typeof sel.facing === "string") facing.value = sel.facing;
    const raw = sel.raw;
    const target = this.target;
    const isArtillery = armKind(sel.type) === "artillery";
    return h("div", { class: "engine-orders", "data-testid": "unit-orders" },
      h("h4", {}, t("battle.orders")),
      h("div", { class: "buttons" },
        facing, h("button", { onclick: () => void this.actions.order({ type: "turn", unit: sel.id, facing: facing.value }).catch(() => {}) }, t("order.turn")),
        h("button", { onclick: send({ type: "frontage", unit: sel.id, width: raw.wide ? 1 : 2 }) }, raw.wide ? t("order.narrow") : t("order.wide")),
        h("button", { onclick: send({ type: "formation", unit: sel.id, formation: raw.formation === "support" ? "line" : "support" }) },
          raw.formation === "support" ? t("order.line") : t("order.support")),
        h("button", { onclick: send({ type: "cover", unit: sel.id, cover: !raw.cover }) }, raw.cover ? t("order.uncover") : t("order.cover")),
        h("button", { onclick: send({ type: "split", unit: sel.id }) }, t("order.split"))),
      target && this.path && this.path.cells.length > 1 ? h("div", { class: "buttons" },
        h("button", { onclick: send({ type: "march", unit: sel.id, path: this.path.cells.slice(1).map(coord) }) }, t("order.march"))) : null,
      target && this.model.phase === "planning" ? h("div", { class: "buttons" },
        h("button", { "data-testid": "order-deploy", onclick: () => void this.actions.order({ type: "deploy", unit: sel.id, cell: coord(target), facing: facing.value }).catch(() => {}) },
          t("order.deploy", { cell: formatCoord(this.model.metric, target) }))) : null,
      target ? h("div", { class: "buttons" },
        isArtillery
          ? h("button", { onclick: send({ type: "strike", unit: sel.id, target: coord(target) }) }, t("order.strike", { cell: formatCoord(this.model.metric, target) }))
          : h("button", { onclick: send({ type: "attack", target: coord(target), echelons: [[sel.id]] }) }, t("order.attack", { cell: formatCoord(this.model.metric, target) }))) : null,
    );
  }

  /** The planned path costs more than the unit has left (only when both are counted alike). */
  private overBudget(sel: Force): boolean {
    if (!this.path || sel.movementLeft === null) return false;
    if (this.path.unit !== this.model.leftUnit) return false;
    return this.path.cost > sel.movementLeft + 1e-9;
  }

  private async commit(): Promise<void> {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    if (!sel || !this.path || this.path.cells.length < 2) return;
    const order = moveOrder(this.model, sel, this.path.cells);
    try {
      await this.actions.order(order);
      this.target = null;
      this.path = null;
    } catch {
      // the error is shown by the game shell's error line
    }
    this.draw();
    this.renderPanel();
  }

  private showStatus(): void {
    const parts: string[] = [];
    if (this.hover) {
      parts.push(t("map.cell", { x: formatCoord(this.model.metric, this.hover).split(",")[0]!, y: formatCoord(this.model.metric, this.hover).split(",")[1]! }));
      parts.push(`${t("map.terrain")}: ${terrainWord(this.model.terrain[this.hover.y]?.[this.hover.x] ?? "plain")}`);
      const f = this.forceAt(this.hover);
      if (f) parts.push(`${proper(f.name)} (${teamWord(f.team)})`);
    }
    this.status.textContent = parts.join(" · ") || t("map.hint");
  }

  draw(): void {
    const cv = this.canvas;
    const dpr = globalThis.devicePixelRatio || 1;
    const w = cv.clientWidth || 800;
    const hgt = cv.clientHeight || 600;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(hgt * dpr)) {
      cv.width = Math.round(w * dpr);
      cv.height = Math.round(hgt * dpr);
    }
    const ctx = cv.getContext("2d");
    if (!ctx) return;
    const m = this.model;
    const size = `${w}x${hgt}x${m.metric.cols}x${m.metric.rows}`;
    if (!this.userMoved && this.fittedTo !== size) {
      this.viewport = null;
      this.fittedTo = size;
    }
    const v = (this.viewport ??= fit(m.metric, w, hgt));
    markViewport(cv, v);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#f6f3ea";
    ctx.fillRect(0, 0, w, hgt);
    const s = v.scale;
    // terrain
    for (let y = 0; y < m.metric.rows; y++) {
      for (let x = 0; x < m.metric.cols; x++) {
        const p = cellToPixel(v, { x, y });
        ctx.fillStyle = TERRAIN_FILL[m.terrain[y]![x]!] ?? "#e9e4c9";
        ctx.fillRect(p.x, p.y, s + 0.5, s + 0.5);
        const owner = m.owners[y]![x];
        if (owner) {
          ctx.fillStyle = teamColour(owner).light;
          ctx.fillRect(p.x, p.y, s + 0.5, s + 0.5);
        }
      }
    }
    this.drawTerrainMarks(ctx, v);
    // metric grid
    ctx.strokeStyle = "rgba(60,60,60,0.18)";
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
    this.drawBorders(ctx, v);
    this.drawLines(ctx, v, m.rivers, "#3b7dc4", Math.max(2, s * 0.14), []);
    this.drawLines(ctx, v, m.railways, "#333", Math.max(1.5, s * 0.08), [s * 0.25, s * 0.15]);
    this.drawLines(ctx, v, m.tracks, "#9b7b4f", Math.max(1, s * 0.05), [s * 0.12, s * 0.12]);
    this.drawLines(ctx, v, m.roads, "#8a5a2b", Math.max(1.5, s * 0.1), []);
    this.drawCities(ctx, v);
    this.drawPath(ctx, v);
    this.drawForces(ctx, v);
    this.drawBattles(ctx, v);
    this.drawLabels(ctx, v, w, hgt);
    this.showStatus();
  }

  private drawTerrainMarks(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const s = v.scale;
    if (s < 10) return;
    ctx.fillStyle = "rgba(40,70,30,0.45)";
    ctx.strokeStyle = "rgba(90,70,40,0.6)";
    for (let y = 0; y < this.model.metric.rows; y++) {
      for (let x = 0; x < this.model.metric.cols; x++) {
        const tr = this.model.terrain[y]![x]!;
        const c = cellCentre(v, { x, y });
        if (tr.includes("forest") || tr === "woods") {
          for (const [dx, dy] of [[-0.2, -0.15], [0.18, 0.05], [-0.05, 0.22]]) {
            ctx.beginPath();
            ctx.arc(c.x + dx! * s, c.y + dy! * s, s * 0.09, 0, Math.PI * 2);
            ctx.fill();
          }
        } else if (tr.startsWith("mountain") || tr.startsWith("hill")) {
          const k = tr.startsWith("mountain") ? 0.3 : 0.2;
          ctx.beginPath();
          ctx.moveTo(c.x - k * s, c.y + k * 0.6 * s);
          ctx.lineTo(c.x, c.y - k * 0.8 * s);
          ctx.lineTo(c.x + k * s, c.y + k * 0.6 * s);
          ctx.stroke();
        } else if (tr === "marsh" || tr === "swamp") {
          ctx.beginPath();
          for (const dy of [-0.15, 0.05, 0.25]) {
            ctx.moveTo(c.x - 0.25 * s, c.y + dy * s);
            ctx.lineTo(c.x + 0.25 * s, c.y + dy * s);
          }
          ctx.stroke();
        }
      }
    }
  }

  private drawBorders(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const { owners, metric } = this.model;
    ctx.strokeStyle = "#5b2a86";
    ctx.lineWidth = Math.max(2, v.scale * 0.12);
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

  private drawLines(ctx: CanvasRenderingContext2D, v: Viewport, lines: Cell[][], colour: string, width: number, dash: number[]): void {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.setLineDash(dash);
    for (const line of lines) {
      ctx.beginPath();
      line.forEach((c, i) => {
        const p = cellCentre(v, c);
        if (i === 0) ctx.moveTo(p.x, p.y);
        else ctx.lineTo(p.x, p.y);
      });
      ctx.stroke();
    }
    ctx.setLineDash([]);
  }

  /** Battles and sieges under way: crossed sabres on their cell (a battle room is open for each). */
  private drawBattles(ctx: CanvasRenderingContext2D, v: Viewport): void {
    for (const b of this.model.battles) {
      if (b.status === "over" || b.status === "ended" || b.status === "done") continue;
      const c = cellCentre(v, b.cell);
      const r = v.scale * 0.35;
      ctx.strokeStyle = "#000";
      ctx.lineWidth = Math.max(2, v.scale * 0.1);
      ctx.beginPath();
      ctx.moveTo(c.x - r, c.y - r);
      ctx.lineTo(c.x + r, c.y + r);
      ctx.moveTo(c.x + r, c.y - r);
      ctx.lineTo(c.x - r, c.y + r);
      ctx.stroke();
      ctx.strokeStyle = "#ffd400";
      ctx.lineWidth = Math.max(1, v.scale * 0.05);
      ctx.stroke();
    }
  }

  private drawCities(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const s = v.scale;
    ctx.font = `${Math.max(10, Math.min(14, s * 0.45))}px system-ui, sans-serif`;
    ctx.textBaseline = "top";
    for (const city of this.model.cities) {
      const c = cellCentre(v, city.cell);
      const r = s * (city.capital ? 0.22 : 0.16);
      if (city.fortress) {
        ctx.strokeStyle = "#222";
        ctx.lineWidth = 2;
        ctx.strokeRect(c.x - r * 1.4, c.y - r * 1.4, r * 2.8, r * 2.8);
      }
      ctx.fillStyle = city.owner ? teamColour(city.owner).fill : "#222";
      ctx.beginPath();
      ctx.arc(c.x, c.y, r, 0, Math.PI * 2);
      ctx.fill();
      if (city.capital) {
        ctx.strokeStyle = "#fff";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.arc(c.x, c.y, r * 0.5, 0, Math.PI * 2);
        ctx.stroke();
      }
      ctx.fillStyle = "#111";
      ctx.fillText(proper(city.name), c.x + r + 2, c.y + 2);
    }
  }

  private drawForces(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const s = v.scale;
    for (const f of this.model.forces) {
      const p = cellToPixel(v, f.cell);
      const col = teamColour(f.team);
      const pad = s * 0.1;
      const w = f.size.w * s - 2 * pad;
      const hh = f.size.h * s - 2 * pad;
      ctx.globalAlpha = f.reported ? 0.55 : 1;
      ctx.fillStyle = col.fill;
      ctx.fillRect(p.x + pad, p.y + pad, w, hh);
      ctx.strokeStyle = f.id === this.selected ? "#ffd400" : "#111";
      ctx.lineWidth = f.id === this.selected ? 3 : 1;
      if (f.reported) ctx.setLineDash([3, 3]);
      ctx.strokeRect(p.x + pad, p.y + pad, w, hh);
      ctx.setLineDash([]);
      // the team's shape in the corner, so that colour is never the only mark
      if (s >= 8) drawTeamShape(ctx, f.team, p.x + pad + Math.max(3, s * 0.13), p.y + pad + Math.max(3, s * 0.13), Math.max(2.2, s * 0.1));
      // arm-of-service symbol: infantry ×, cavalry /, armour/tank oval, artillery dot
      ctx.strokeStyle = col.ink;
      ctx.fillStyle = col.ink;
      ctx.lineWidth = 1.2;
      const cx = p.x + pad + w / 2;
      const cy = p.y + pad + hh / 2;
      const a = Math.min(w, hh) * 0.3;
      const kind = armKind(f.type);
      ctx.beginPath();
      if (kind === "cavalry") {
        ctx.moveTo(cx - a, cy + a * 0.7);
        ctx.lineTo(cx + a, cy - a * 0.7);
      } else if (kind === "armour") {
        ctx.ellipse(cx, cy, a, a * 0.55, 0, 0, Math.PI * 2);
      } else if (kind === "artillery") {
        ctx.arc(cx, cy, a * 0.35, 0, Math.PI * 2);
        ctx.fill();
      } else if (kind === "antitank") {
        ctx.moveTo(cx - a, cy + a * 0.6);
        ctx.lineTo(cx, cy - a * 0.6);
        ctx.lineTo(cx + a, cy + a * 0.6);
      } else if (kind === "fortress") {
        ctx.rect(cx - a * 0.7, cy - a * 0.7, a * 1.4, a * 1.4);
      } else if (kind === "hq") {
        ctx.rect(cx - a, cy - a * 0.5, a * 2, a);
      } else {
        ctx.moveTo(cx - a, cy - a * 0.6);
        ctx.lineTo(cx + a, cy + a * 0.6);
        ctx.moveTo(cx - a, cy + a * 0.6);
        ctx.lineTo(cx + a, cy - a * 0.6);
        if (kind === "motorised") {
          ctx.moveTo(cx - a, cy + a * 0.85);
          ctx.lineTo(cx + a, cy + a * 0.85);
        }
      }
      ctx.stroke();
      if (f.facing !== null) {
        const i = facingIndex(f.facing);
        const ang = (i * Math.PI) / 4 - Math.PI / 2;
        ctx.strokeStyle = "#111";
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(cx + Math.cos(ang) * hh * 0.5, cy + Math.sin(ang) * hh * 0.5);
        ctx.lineTo(cx + Math.cos(ang) * (hh * 0.5 + s * 0.18), cy + Math.sin(ang) * (hh * 0.5 + s * 0.18));
        ctx.stroke();
      }
      if (s >= 18) {
        ctx.fillStyle = col.ink;
        ctx.font = `${Math.max(8, s * 0.26)}px system-ui, sans-serif`;
        ctx.textBaseline = "bottom";
        ctx.textAlign = "center";
        ctx.fillText(proper(f.name).slice(0, 10), cx, p.y + pad + hh - 1);
        ctx.textAlign = "start";
      }
      ctx.globalAlpha = 1;
    }
  }

  private drawPath(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    if (!sel) return;
    if (this.target && !this.path) {
      const p = cellToPixel(v, this.target);
      ctx.strokeStyle = "#c00";
      ctx.lineWidth = 2;
      ctx.strokeRect(p.x + 2, p.y + 2, v.scale - 4, v.scale - 4);
      return;
    }
    if (!this.path) return;
    ctx.strokeStyle = this.overBudget(sel) ? "#c00" : "#ffd400";
    ctx.lineWidth = Math.max(3, v.scale * 0.15);
    ctx.beginPath();
    this.path.cells.forEach((c, i) => {
      const p = cellCentre(v, c);
      if (i === 0) ctx.moveTo(p.x, p.y);
      else ctx.lineTo(p.x, p.y);
    });
    ctx.stroke();
    const end = cellCentre(v, this.path.cells[this.path.cells.length - 1]!);
    ctx.fillStyle = "rgba(0,0,0,0.75)";
    const label = amount(this.path.cost, this.path.unit);
    ctx.font = "12px system-ui, sans-serif";
    const tw = ctx.measureText(label).width;
    ctx.fillRect(end.x + 6, end.y - 18, tw + 8, 16);
    ctx.fillStyle = "#fff";
    ctx.textBaseline = "middle";
    ctx.fillText(label, end.x + 10, end.y - 10);
  }

  private drawLabels(ctx: CanvasRenderingContext2D, v: Viewport, w: number, hgt: number): void {
    const m = this.model.metric;
    const step = v.scale >= 24 ? 1 : v.scale >= 12 ? 2 : 5;
    ctx.font = "10px system-ui, sans-serif";
    ctx.fillStyle = "#333";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (let x = 0; x < m.cols; x++) {
      const lon = m.origin.x + x;
      if (lon % step) continue;
      const c = cellCentre(v, { x, y: 0 });
      if (c.x < 0 || c.x > w) continue;
      ctx.fillText(String(lon), c.x, Math.max(2, v.offsetY - 12));
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let y = 0; y < m.rows; y++) {
      const lat = m.latitudeUp ? m.origin.y + (m.rows - 1 - y) : m.origin.y + y;
      if (lat % step) continue;
      const c = cellCentre(v, { x: 0, y });
      if (c.y < 0 || c.y > hgt) continue;
      ctx.fillText(String(lat), Math.max(18, v.offsetX - 4), c.y);
    }
    ctx.textAlign = "start";
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
      h("button", { type: "button", "aria-label": t("map.zoom_fit"), title: `${t("map.zoom_fit")} (0)`, "data-testid": "zoom-fit", onclick: () => this.fitMap() }, "⤢"));
  }

  /** On a phone the panel is a bottom sheet: its handle opens and closes it; selecting a unit opens it. */
  private sheetOpen = false;
  private sheetFor: string | null = null;

  private sheetHandle(title: string): HTMLElement {
    return h("button", { type: "button", class: "sheet-handle", "aria-expanded": String(this.sheetOpen), "data-testid": "sheet-handle",
      onclick: () => { this.sheetOpen = !this.sheetOpen; this.panel.classList.toggle("open", this.sheetOpen); } }, title);
  }

  private renderPanel(): void {
    this.appointFocused = document.activeElement?.getAttribute("data-testid") === "appoint-name";
    clear(this.panel);
    const sel = this.model.forces.find((f) => f.id === this.selected);
    if ((sel?.id ?? null) !== this.sheetFor) {
      this.sheetFor = sel?.id ?? null;
      this.sheetOpen = !!sel;
    }
    this.panel.classList.toggle("open", this.sheetOpen);
    this.panel.append(this.sheetHandle(sel ? proper(sel.name) : t("sheet.orders")));
    if (!sel) {
      this.panel.append(h("p", { class: "hint" }, t("map.hint")));
    } else {
      const rows: [string, string][] = [
        [t("map.cell", { x: "", y: "" }).replace(/[\s,]+$/, ""), formatCoord(this.model.metric, sel.cell)],
        [t("unit.strength"), sel.strength === null ? "—" : String(sel.strength)],
        [t("unit.morale"), sel.morale === null ? "—" : String(sel.morale)],
        [t("unit.movement"), sel.movementLeft === null ? "—" : amount(sel.movementLeft, this.model.leftUnit)],
      ];
      if (sel.facing !== null) rows.push([t("unit.facing"), facingWord(sel.facing)]);
      this.panel.append(
        h("h3", {}, teamMark(sel.team), ` ${proper(sel.name)}`),
        h("div", { class: "muted" }, armWord(armKind(sel.type)) + (sel.raw.general ? ` · ${proper(String(sel.raw.general))}` : "")),
        h("table", { class: "kv" }, ...rows.map(([k, val]) => h("tr", {}, h("th", {}, k), h("td", {}, val)))),
      );
      if (sel.composition.length) {
        this.panel.append(h("h4", {}, t("unit.composition")), h("ul", { class: "composition" }, ...sel.composition.map((c) => h("li", {}, c))));
      }
      if (this.path) {
        const over = this.overBudget(sel);
        const cells = this.path.cells.length - 1;
        const cost = amount(this.path.cost, this.path.unit);
        const comparable = sel.movementLeft !== null && this.path.unit === this.model.leftUnit;
        const text = comparable
          ? t(over ? "map.path.over" : "map.path", { cells, cost, left: amount(sel.movementLeft!, this.path.unit) })
          : t("map.path.plain", { cells, cost });
        this.panel.append(
          h("p", { class: over ? "path over" : "path", "data-testid": "path-cost" }, text),
          h("div", { class: "buttons" },
            h("button", { onclick: () => void this.commit(), "data-testid": "order-move" }, t("map.move")),
            h("button", { onclick: () => { this.target = null; this.replan(); this.draw(); this.renderPanel(); } }, t("map.cancel"))),
        );
      }
      if (this.own(sel) && sel.orders.length) {
        this.panel.append(h("div", { class: "buttons" }, ...sel.orders.filter((o) => o !== "move").map((o) =>
          h("button", { onclick: () => void this.actions.order({ type: o, unit: sel.id }).catch(() => {}) }, o))));
      }
      if (this.own(sel) && this.model.engineMap) this.panel.append(this.engineOrders(sel));
      if (this.nap && sel.team === this.playerTeam()) this.panel.append(this.armyOrders(this.nap, sel));
    }
  }

  /** A Napoleonic army's orders besides the march (server/napoleon/engine.py): posture (N-START-2, D-N-12), fortify
   * (D-N-16), a replacement general (D-N-14) — only those the team may give now (./napoleon.ts). */
  private armyOrders(nap: NapView, sel: Force): HTMLElement {
    const team = this.playerTeam();
    const offers = armyOffers(nap, sel.raw, team);
    const fortifying = nap.fortifications.find((f) => f.army === sel.id);
    const root = h("div", { class: "engine-orders", "data-testid": "army-orders" },
      offers.length ? h("h4", {}, t("battle.orders")) : null,
      h("p", { class: "muted" }, t("nap.posture", {
        intercept: sel.raw.intercept === true ? t("nap.yes") : t("nap.no"), support: sel.raw.support === true ? t("nap.yes") : t("nap.no"),
      })),
      fortifying ? h("p", { "data-testid": "fortifying" }, t("nap.fortifying", { city: fortifying.city, done: fortifying.done, needed: fortifying.needed })) : null,
      h("div", { class: "buttons" }, ...offers.map((o) => h("button", {
        "data-testid": `army-${o.key.replace(/\./g, "-")}`, onclick: () => void this.actions.order(o.order).catch(() => {}),
      }, t(`nap.${o.key}` as MessageKey, o.args)))));
    if (needsGeneral(nap, sel.raw, team)) {
      const name = h("input", { type: "text", size: 14, placeholder: t("nap.general"), value: this.appointDraft, "data-testid": "appoint-name",
        oninput: () => { this.appointDraft = name.value; } });
      const appoint = (e: globalThis.Event) => {
        e.preventDefault();
        if (!name.value.trim()) return;
        void this.actions.order(appointOrder(sel.id, name.value)).then(() => { this.appointDraft = ""; }).catch(() => {});
      };
      root.append(h("form", { class: "buttons", onsubmit: appoint }, t("nap.no_general"), " ", name, " ",
        h("button", { type: "submit", "data-testid": "appoint" }, t("nap.appoint"))));
      if (this.appointFocused) queueMicrotask(() => name.focus());
    }
    return root;
  }
}
