/** The strategic map on a canvas (C-2.*): terrain, borders, rivers, roads, railways, cities and fortresses, the
 * coordinate metric, forces; selection, path preview with its cost, orders by mouse and keyboard. */
import { FACINGS, facingIndex } from "../battle/geometry";
import { formatNumber, has, proper, properArgs, t, tn, type MessageKey } from "../i18n";
import { h, clear } from "../ui/dom";
import { teamMark } from "../ui/colours";
import { placeLabels, type Rect } from "../ui/labels";
import { Minimap } from "../battle/minimap";
import { drawSabres } from "../battle/pieces";
import { campaignLegend } from "./legend";
import { COMPACT_BELOW, forceLabel, FORCE_FONT, paintCounters, paintGround, paintPlace, placeNameRequests as placeLabelRequests, placesToName, placeRadius, strokeThrough, type Drawn } from "./paint";
import { armWord, facingWord, teamWord, terrainWord } from "../i18n/words";
import { cellCentre, cellToPixel, cheapestPath, fit, formatCoord, fromCoord, inside, pixelToCell, zoomAt, type Cell, type Viewport } from "./geometry";
import { bindGestures, markViewport, zoomKey } from "../ui/gestures";
import { maySplit, moves, readCampaign, stepCost, type CampaignModel, type CostUnit, type Force } from "./model";
import { appointOrder, armyOffers, napoleonicView, needsGeneral, readNapoleon, retreatOf, retreatOrder, type Army, type NapView, type Retreat } from "./napoleon";

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
  if (unit === "points") return t("map.points", { n: formatNumber(Math.round(value * 10) / 10) });
  return unit === "turn" ? `${Math.round(value * 100)}%` : `${Math.round(value * 10) / 10} km`;
}

/** How to give a march: with a finger on a touch screen (no keyboard to press Enter or Esc), else with the mouse;
 * to a viewer who gives no orders (a spectator, a player in the secret module), only how to look at a force. */
function mapHint(canOrder: boolean): string {
  const touch = globalThis.matchMedia?.("(pointer: coarse)").matches;
  if (!canOrder) return t(touch ? "map.hint_view_touch" : "map.hint_view");
  return t(touch ? "map.hint_touch" : "map.hint");
}

export class CampaignView {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private readonly minimap: Minimap;
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
    this.minimap = new Minimap((x, y) => {
      const v = this.viewport;
      if (!v) return;
      this.viewport = { ...v, offsetX: this.canvas.clientWidth / 2 - x * v.scale, offsetY: this.canvas.clientHeight / 2 - y * v.scale };
      this.userMoved = true;
      this.draw();
    });
    this.root = h("div", { class: "campaign-view" }, h("div", { class: "canvas-wrap" }, this.canvas, this.zoomTools(), this.minimap.canvas, campaignLegend(), this.status), this.panel);
    this.bind();
  }

  private shownState: Record<string, unknown> | null = null;

  setState(state: Record<string, unknown>, myTeam: string | null): void {
    if (state === this.shownState && myTeam === this.myTeam) return;  // the page redrew with the same view (see BattleView)
    this.shownState = state;
    this.model = readCampaign(state);
    this.pending = this.model.engineMap && Array.isArray(state.pending) ? state.pending.filter((o): o is Record<string, unknown> => typeof o === "object" && o !== null && typeof (o as Record<string, unknown>).number === "number") : [];
    this.nap = this.model.napoleonic ? readNapoleon(napoleonicView(state)) : null;
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
    this.showStatus();
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
        if (c) this.click(c, this.forceAtPixel(x, y));
      },
      hover: (x, y) => {
        const c = cellAt(x, y);
        this.hover = c && inside(this.model.metric, c) ? c : null;
        this.hoverForce = this.forceAtPixel(x, y) ?? null;
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
    this.wholeMap = true;
    this.userMoved = false;
    this.viewport = null;
    this.fittedTo = "";
    this.draw();
  }

  private hoverForce: Force | null = null;
  /** C-1.7 [L3]: the team's orders recorded this turn, waiting for the mediator (the view's `pending`) */
  private pending: Record<string, unknown>[] = [];

  /** The recorded order that names a unit, if one waits this turn. */
  private pendingFor(unit: string): Record<string, unknown> | undefined {
    return this.pending.find((o) => o.unit === unit || (Array.isArray(o.echelons) && o.echelons.flat().includes(unit)));
  }

  /** An order as the player gave it, in words: "1. march 2nd Guards to 45,22". */
  private orderWords(o: Record<string, unknown>): string {
    const unit = typeof o.unit === "string" ? proper(this.model.forces.find((f) => f.id === o.unit)?.name ?? o.unit) : "";
    const to = Array.isArray(o.path) && o.path.length ? String(o.path[o.path.length - 1]) : Array.isArray(o.target) ? String(o.target) : "";
    const kind = has(`pending.${String(o.type)}`) ? t(`pending.${String(o.type)}` as MessageKey) : String(o.type).replace(/_/g, " ");
    return `${String(o.number)}. ${kind}${unit ? ` ${unit}` : ""}${to ? ` → ${to}` : ""}`;
  }

  /** C-1.7 [L3]: the orders waiting for this turn's mediation, each to withdraw (or, with a path planned for its
   * unit, to replace by the planned march — see the selection). */
  private pendingPanel(): HTMLElement | null {
    if (!this.pending.length || !this.canOrder) return null;
    const withdraw = (n: unknown) => () => void this.actions.order({ type: "withdraw_order", number: n }).catch(() => {});
    return h("section", { class: "pending-orders", "data-testid": "pending-orders" }, h("h4", {}, t("pending.title")),
      h("ul", {}, ...this.pending.map((o) => h("li", {}, this.orderWords(o), " ",
        h("button", { "data-testid": `withdraw-${String(o.number)}`, onclick: withdraw(o.number) }, t("pending.withdraw"))))));
  }

  private click(c: Cell, hit?: Force): void {
    if (!inside(this.model.metric, c)) return;
    const f = hit ?? this.forceAt(c);
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

  /** The selected army's retreat to choose (N-VICTORY-4), when it is this viewer's to choose. */
  private retreat(sel: Force | undefined): Retreat | null {
    const army = sel && this.own(sel) && sel.team === this.playerTeam() ? this.napArmy(sel) : undefined;
    return army ? retreatOf(army) : null;
  }

  /** The selected force as the Napoleonic campaign's view gives its army (NapoleonicArmyView). */
  private napArmy(sel: Force): Army | undefined {
    return this.nap?.armies.find((a) => a.id === sel.id);
  }

  /** N-VICTORY-4: a retreat is counted in steps to neighbouring cells, whatever the army's movement points, and
   * never enters a cell an enemy army holds (server/napoleonic/campaign/movement.py check_retreat). */
  private retreatCost(sel: Force): { step(from: Cell, to: Cell): number; unit: "steps" } {
    const ground = stepCost(this.model, sel);
    const enemy = new Set(this.model.forces.filter((f) => f.team !== sel.team).map((f) => `${f.cell.x},${f.cell.y}`));
    return { unit: "steps", step: (from, to) => (enemy.has(`${to.x},${to.y}`) || !Number.isFinite(ground.step(from, to)) ? Infinity : 1) };
  }

  private replan(): void {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    const retreating = this.retreat(sel);
    const cost = sel ? (retreating ? this.retreatCost(sel) : stepCost(this.model, sel)) : null;
    const found = sel && cost && this.target && this.own(sel)
      ? cheapestPath(this.model.metric, sel.cell, this.target, cost, retreating ? true : this.model.diagonal)
      : null;
    this.path = found && cost && found.cells.length > 1 ? { ...found, unit: cost.unit } : null;
    if (sel && this.target && this.target.x === sel.cell.x && this.target.y === sel.cell.y) this.target = null;
  }

  /** The campaign engine's other orders for one counter (server/continental/orders.py): turn (C-4.4), frontage
   * (C-4.10), formation and orientation, covering troops (C-5.8), split (C-4.11), march along the planned path
   * (C-4.8), and at the target cell an attack (C-9) or an artillery strike (C-9.7). */
  private engineOrders(sel: Force): HTMLElement {
    const send = (o: Record<string, unknown>) => () => void this.actions.order(o).catch(() => {});
    const coord = (c: Cell) => formatCoord(this.model.metric, c).split(",").map(Number);
    const facing = h("select", { "data-testid": "order-facing" }, ...FACINGS.map((f) => h("option", { value: f }, facingWord(f))));
    if (typeof sel.facing === "string") facing.value = sel.facing;
    const raw = sel.counter;
    const target = this.target;
    const isArtillery = armKind(sel.type) === "artillery";
    // C-1.5: planning takes deployment orders only (deploy, formation, covering troops); the rest wait for the turns
    const planning = this.model.phase === "planning";
    return h("div", { class: "engine-orders", "data-testid": "unit-orders" },
      h("h4", {}, t("battle.orders")),
      h("div", { class: "buttons" },
        ...(moves(sel) && planning ? [facing] : []), // the facing a deployment stands in (C-6)
        ...(moves(sel) && !planning ? [facing, h("button", { onclick: () => void this.actions.order({ type: "turn", unit: sel.id, facing: facing.value }).catch(() => {}) }, t("order.turn")),
          h("button", { onclick: send({ type: "frontage", unit: sel.id, width: raw?.wide ? 1 : 2 }) }, raw?.wide ? t("order.narrow") : t("order.wide"))] : []),
        // formations are a level-2 rule (C-9.6); covering troops are named while planning (C-5.8)
        (this.model.level ?? 2) >= 2 ? h("button", { onclick: send({ type: "formation", unit: sel.id, formation: raw?.formation === "support" ? "line" : "support" }) },
          raw?.formation === "support" ? t("order.line") : t("order.support")) : null,
        planning ? h("button", { onclick: send({ type: "cover", unit: sel.id, cover: !raw?.cover }) }, raw?.cover ? t("order.uncover") : t("order.cover")) : null,
        maySplit(sel) && !planning ? h("button", { "data-testid": "order-split", onclick: send({ type: "split", unit: sel.id }) }, t("order.split")) : null),
      target && this.path && this.path.cells.length > 1 && moves(sel) && !planning ? h("div", { class: "buttons" },
        h("button", { onclick: send({ type: "march", unit: sel.id, path: this.path.cells.slice(1).map(coord) }) }, t("order.march"))) : null,
      target && planning && moves(sel) ? h("div", { class: "buttons" }, // a fortress does not move (C-3.6)
        h("button", { "data-testid": "order-deploy", onclick: () => void this.actions.order({ type: "deploy", unit: sel.id, cell: coord(target), facing: facing.value }).catch(() => {}) },
          t("order.deploy", { cell: formatCoord(this.model.metric, target) }))) : null,
      target && !planning ? h("div", { class: "buttons" },
        isArtillery
          ? h("button", { onclick: send({ type: "strike", unit: sel.id, target: coord(target) }) }, t("order.strike", { cell: formatCoord(this.model.metric, target) }))
          : h("button", { onclick: send({ type: "attack", target: coord(target), echelons: [[sel.id]] }) }, t("order.attack", { cell: formatCoord(this.model.metric, target) }))) : null,
    );
  }

  /** The planned path costs more than the unit has left (only when both are counted alike). */
  private overBudget(sel: Force): boolean {
    const retreating = this.retreat(sel);
    if (retreating && this.path) return this.path.cells.length - 1 > retreating.cells;
    if (!this.path || sel.movementLeft === null) return false;
    if (this.path.unit !== this.model.leftUnit) return false;
    return this.path.cost > sel.movementLeft + 1e-9;
  }

  private async commit(): Promise<void> {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    if (!sel || !this.path || this.path.cells.length < 2) return;
    const retreating = this.retreat(sel);
    const coord = (c: Cell): [number, number] => formatCoord(this.model.metric, c).split(",").map(Number) as [number, number];
    const order = retreating ? retreatOrder(sel.id, this.path.cells.slice(1).map(coord)) : moveOrder(this.model, sel, this.path.cells);
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
      const f = this.hoverForce ?? this.forceAt(this.hover);
      if (f) parts.push(`${proper(f.name)} (${teamWord(f.team)})${f.strength !== null ? ` · ${tn("n.units", f.strength)}` : ""}${f.morale !== null ? ` · ${t("unit.morale")} ${f.morale}` : ""}`);
    }
    this.status.textContent = parts.join(" · ") || mapHint(this.canOrder);
  }

  /** The part of the map a default view shows: the forces and the battles with a margin, never less than a
   * quarter of the map, so that counters read at once; 0 (⤢) shows the whole map. */
  private theatre(dense = false): { x0: number; y0: number; x1: number; y1: number } | null {
    const m = this.model;
    let cells = [...m.forces.map((f) => f.cell), ...m.battles.map((b) => b.cell)];
    if (!cells.length) return null;
    if (dense) {
      // on a small screen: the busiest part — the forces within six cells of the one with the most neighbours
      const near = (a: Cell, b: Cell) => Math.abs(a.x - b.x) <= 6 && Math.abs(a.y - b.y) <= 6;
      const hub = cells.reduce((best, c) => (cells.filter((d) => near(c, d)).length > cells.filter((d) => near(best, d)).length ? c : best));
      cells = cells.filter((c) => near(hub, c));
    }
    const margin = 3;
    let x0 = Math.min(...cells.map((c) => c.x)) - margin, x1 = Math.max(...cells.map((c) => c.x)) + 1 + margin;
    let y0 = Math.min(...cells.map((c) => c.y)) - margin, y1 = Math.max(...cells.map((c) => c.y)) + 1 + margin;
    const minW = Math.ceil(m.metric.cols / (dense ? 3 : 2)), minH = Math.ceil(m.metric.rows / (dense ? 3 : 2));
    if (x1 - x0 < minW) { const d = (minW - (x1 - x0)) / 2; x0 -= d; x1 += d; }
    if (y1 - y0 < minH) { const d = (minH - (y1 - y0)) / 2; y0 -= d; y1 += d; }
    return { x0: Math.max(0, x0), y0: Math.max(0, y0), x1: Math.min(m.metric.cols, x1), y1: Math.min(m.metric.rows, y1) };
  }

  private defaultView(w: number, hgt: number): Viewport {
    const whole = fit(this.model.metric, w, hgt);
    if (this.wholeMap) return whole;
    const scaleOf = (th: { x0: number; y0: number; x1: number; y1: number }) => Math.max(whole.scale, Math.min(46, (w - 24) / (th.x1 - th.x0), (hgt - 24) / (th.y1 - th.y0)));
    let th = this.theatre();
    if (th && scaleOf(th) < COMPACT_BELOW) th = this.theatre(true);
    if (!th) return whole;
    const scale = scaleOf(th);
    const cx = (th.x0 + th.x1) / 2, cy = (th.y0 + th.y1) / 2;
    // no empty band beside the map where the map could fill the canvas
    const clamp = (o: number, size: number, span: number) => (span * scale <= size ? (size - span * scale) / 2 : Math.min(0, Math.max(size - span * scale, o)));
    return { scale, offsetX: clamp(w / 2 - cx * scale, w, this.model.metric.cols), offsetY: clamp(hgt / 2 - cy * scale, hgt, this.model.metric.rows) };
  }

  private wholeMap = false;
  /** where each counter was drawn in the last frame (taps and hovering hit them before their cells) */
  private drawn: Drawn[] = [];

  /** The force under a point of the canvas: the counter drawn there (the top of a stack), else one in the cell. */
  private forceAtPixel(x: number, y: number): Force | undefined {
    for (let i = this.drawn.length - 1; i >= 0; i--) {
      const d = this.drawn[i]!;
      if (x >= d.rect.x && x <= d.rect.x + d.rect.w && y >= d.rect.y && y <= d.rect.y + d.rect.h) return d.force;
    }
    return undefined;
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
    const size = `${w}x${hgt}x${m.metric.cols}x${m.metric.rows}x${this.model.forces.length > 0}`;
    if (!this.userMoved && this.fittedTo !== size) {
      this.viewport = null;
      this.fittedTo = size;
    }
    const v = (this.viewport ??= this.defaultView(w, hgt));
    markViewport(cv, v);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#e8e2d0";
    ctx.fillRect(0, 0, w, hgt);
    paintGround(ctx, m, v);
    const r = placeRadius(v.scale);
    for (const city of m.cities) {
      const c = cellCentre(v, city.cell);
      paintPlace(ctx, city, c.x, c.y, r);
    }
    this.drawPath(ctx, v);
    this.drawn = paintCounters(ctx, m.forces, v, this.selected, (f) => (m.napoleonic ? "army" : armKind(f.type)));
    this.drawBattles(ctx, v);
    // names: armies first, then capitals, fortresses and cities; none over another, a counter or the edge
    const places = placeLabelRequests(ctx, placesToName(m.cities, m.forces), v);
    const requests = [...this.drawn.map((d) => forceLabel(ctx, d, v.scale)), ...places.requests];
    // the zoom buttons, the minimap and the coordinates along the edges are no places for names
    const tools: Rect[] = [{ x: w - 56, y: 0, w: 56, h: 150 }, { x: 0, y: 0, w: 30, h: hgt }, { x: 0, y: Math.max(2, v.offsetY - 17), w, h: 17 }];
    if (!this.minimap.canvas.hidden) tools.push({ x: 0, y: hgt - 150, w: 165, h: 150 });
    const placed = placeLabels(requests, [...this.drawn.map((d) => d.rect), ...places.marks, ...tools], { x: 2, y: 2, w: w - 4, h: hgt - 4 }, 1);
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    for (const p of placed) {
      ctx.font = p.item.font;
      const army = p.item.font === FORCE_FONT;
      if (army) {
        ctx.fillStyle = "rgba(255,252,240,0.92)";
        ctx.fillRect(p.x, p.y, p.w, p.h);
        ctx.strokeStyle = "rgba(40,30,20,0.6)";
        ctx.lineWidth = 1;
        ctx.strokeRect(p.x + 0.5, p.y + 0.5, p.w - 1, p.h - 1);
      } else {
        ctx.lineWidth = 3.5;
        ctx.strokeStyle = "rgba(255,252,240,0.92)";
        ctx.strokeText(p.item.text, p.x + 2, p.y + p.h / 2 + 1);
      }
      ctx.fillStyle = "#1d1b16";
      ctx.fillText(p.item.text, p.x + (army ? 5 : 2), p.y + p.h / 2 + 1);
    }
    cv.dataset.labels = String(placed.length);
    cv.dataset.labelsWanted = String(requests.length);
    this.drawAxes(ctx, v, w, hgt);
    this.drawMinimap(v, w, hgt);
    this.showStatus();
  }

  private minimapPicture: HTMLCanvasElement | null = null;
  private minimapKey = "";

  /** The whole map small, for the minimap, painted again only when the ground's owners change. */
  private drawMinimap(v: Viewport, w: number, hgt: number): void {
    const m = this.model;
    const k = `${m.metric.cols}x${m.metric.rows}|${m.owners.map((r) => r.join(",")).join(";")}`;
    if (k !== this.minimapKey || !this.minimapPicture) {
      const c = this.minimapPicture ?? document.createElement("canvas");
      const px = 6;
      c.width = m.metric.cols * px;
      c.height = m.metric.rows * px;
      const ctx = c.getContext("2d");
      if (ctx) paintGround(ctx, m, { scale: px, offsetX: 0, offsetY: 0 });
      this.minimapPicture = c;
      this.minimapKey = k;
    }
    this.minimap.draw(this.minimapPicture, m.metric.cols, m.metric.rows,
      m.forces.map((f) => ({ side: f.team, cells: [f.cell] })), v, w, hgt, w < 500 ? 96 : 140);
  }

  /** Battles and sieges under way: crossed sabres on their cell (a battle room is open for each). */
  private drawBattles(ctx: CanvasRenderingContext2D, v: Viewport): void {
    for (const b of this.model.battles) {
      if (b.status === "over" || b.status === "ended" || b.status === "done" || b.status === "declined") continue;
      const c = cellCentre(v, b.cell);
      drawSabres(ctx, c.x + Math.max(12, v.scale * 0.4), c.y - Math.max(12, v.scale * 0.4), Math.max(9, Math.min(16, v.scale * 0.35)));
    }
  }

  /** The engine's own choice of retreat (N-VICTORY-4, D-NAP-3), dashed, while the team has not planned one. */
  private drawSuggestedRetreat(ctx: CanvasRenderingContext2D, v: Viewport, sel: Force, r: Retreat): void {
    const cells = [sel.cell, ...r.suggested.map(([x, y]) => fromCoord(this.model.metric, { x, y }))];
    if (cells.length < 2) return;
    ctx.save();
    ctx.setLineDash([Math.max(4, v.scale * 0.2), Math.max(4, v.scale * 0.15)]);
    ctx.lineCap = "round";
    for (const [colour, width] of [["rgba(21,18,13,0.75)", Math.max(4, v.scale * 0.16)], ["#fff6d0", Math.max(2, v.scale * 0.08)]] as const) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      strokeThrough(ctx, v, cells);
    }
    ctx.restore();
  }

  private drawPath(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const sel = this.model.forces.find((f) => f.id === this.selected);
    if (!sel) return;
    const retreating = this.retreat(sel);
    if (retreating && !this.path) this.drawSuggestedRetreat(ctx, v, sel, retreating);
    if (this.target && !this.path) {
      const p = cellToPixel(v, this.target);
      ctx.strokeStyle = "#c00";
      ctx.lineWidth = 2;
      ctx.strokeRect(p.x + 2, p.y + 2, v.scale - 4, v.scale - 4);
      return;
    }
    if (!this.path) return;
    const over = this.overBudget(sel);
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (const [colour, width] of [["#15120d", Math.max(5, v.scale * 0.2)], [over ? "#c00" : "#ffcf1f", Math.max(3, v.scale * 0.12)]] as const) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      strokeThrough(ctx, v, this.path.cells);
    }
    const end = cellCentre(v, this.path.cells[this.path.cells.length - 1]!);
    const label = amount(this.path.cost, this.path.unit);
    ctx.font = "600 14px system-ui, sans-serif";
    const tw = ctx.measureText(label).width;
    ctx.fillStyle = over ? "rgba(163,19,12,0.92)" : "rgba(21,18,13,0.85)";
    ctx.fillRect(end.x + 8, end.y - 24, tw + 10, 22);
    ctx.fillStyle = "#fff";
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.fillText(label, end.x + 13, end.y - 13);
  }

  /** Coordinates along the top and left edges of the map (or of the canvas when the map runs past them). */
  private drawAxes(ctx: CanvasRenderingContext2D, v: Viewport, w: number, hgt: number): void {
    const m = this.model.metric;
    const step = v.scale >= 36 ? 1 : v.scale >= 18 ? 2 : 5;
    ctx.font = "14px system-ui, sans-serif";
    ctx.fillStyle = "#3b3226";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const top = Math.max(2, v.offsetY - 17);
    for (let x = 0; x < m.cols; x++) {
      const lon = m.origin.x + x;
      if (lon % step) continue;
      const c = cellCentre(v, { x, y: 0 });
      if (c.x < 24 || c.x > w - 60) continue;
      ctx.fillText(String(lon), c.x, top);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let y = 0; y < m.rows; y++) {
      const lat = m.latitudeUp ? m.origin.y + (m.rows - 1 - y) : m.origin.y + y;
      if (lat % step) continue;
      const c = cellCentre(v, { x: 0, y });
      if (c.y < 20 || c.y > hgt - 10) continue;
      ctx.fillText(String(lat), Math.max(22, v.offsetX - 4), c.y);
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
    this.panel.append(this.sheetHandle(sel ? proper(sel.name) : t(this.canOrder ? "sheet.orders" : "sheet.details")));
    const waiting = this.pendingPanel();
    if (!sel) {
      this.panel.append(h("p", { class: "hint" }, mapHint(this.canOrder)));
    } else {
      const rows: [string, string][] = [
        [t("map.cell", { x: "", y: "" }).replace(/[\s,]+$/, ""), formatCoord(this.model.metric, sel.cell)],
        [t("unit.strength"), sel.strength === null ? "—" : formatNumber(sel.strength, 3)],
        [t("unit.morale"), sel.morale === null ? "—" : formatNumber(sel.morale)],
        [t("unit.movement"), sel.movementLeft === null ? "—" : amount(sel.movementLeft, this.model.leftUnit)],
      ];
      if (sel.facing !== null) rows.push([t("unit.facing"), facingWord(sel.facing)]);
      this.panel.append(
        h("h3", {}, teamMark(sel.team), ` ${proper(sel.name)}`),
        h("div", { class: "muted" }, (this.model.napoleonic ? armWord("army") : armWord(armKind(sel.type))) + (sel.general ? ` · ${proper(sel.general)}` : "")),
        h("table", { class: "kv" }, ...rows.map(([k, val]) => h("tr", {}, h("th", {}, k), h("td", {}, val)))),
      );
      if (sel.composition.length) {
        this.panel.append(h("h4", {}, t("unit.composition")), h("ul", { class: "composition" }, ...sel.composition.map((c) => h("li", {}, c))));
      }
      const retreating = this.retreat(sel);
      if (retreating) this.panel.append(this.retreatPanel(sel, retreating));
      else if (this.path) {
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
            this.model.level === 3 && this.pendingFor(sel.id) ? h("button", { "data-testid": "order-amend", onclick: () => {
              const waiting = this.pendingFor(sel.id)!;
              if (!this.path) return;
              void this.actions.order({ type: "amend_order", number: waiting.number, order: moveOrder(this.model, sel, this.path.cells) })
                .then(() => { this.target = null; this.path = null; this.draw(); this.renderPanel(); }).catch(() => {});
            } }, t("pending.amend", { n: String(this.pendingFor(sel.id)!.number) })) : null,
            h("button", { onclick: () => { this.target = null; this.replan(); this.draw(); this.renderPanel(); } }, t("map.cancel"))),
        );
      }
      if (this.own(sel) && this.model.engineMap) this.panel.append(this.engineOrders(sel));
      if (this.nap && sel.team === this.playerTeam()) this.panel.append(this.armyOrders(this.nap, sel));
    }
    if (waiting) this.panel.append(waiting);
  }

  /** N-VICTORY-4: where the beaten army goes — the path planned on the map (up to `cells` steps), or the engine's
   * choice drawn dashed, which holds if the team does not choose before its turn ends or its clock flags. */
  private retreatPanel(sel: Force, r: Retreat): HTMLElement {
    const steps = this.path ? this.path.cells.length - 1 : 0;
    const over = this.overBudget(sel);
    const go = (path: [number, number][]) => () => void this.actions.order(retreatOrder(sel.id, path))
      .then(() => { this.target = null; this.path = null; this.draw(); this.renderPanel(); }).catch(() => {});
    return h("div", { class: "engine-orders retreat", "data-testid": "retreat" },
      h("h4", {}, t("nap.retreat.title")),
      h("p", {}, t("nap.retreat.help", { cells: r.cells })),
      this.path ? h("p", { class: over ? "path over" : "path", "data-testid": "path-cost" }, t(over ? "nap.retreat.over" : "nap.retreat.path", { n: steps, cells: r.cells })) : null,
      h("div", { class: "buttons" },
        this.path && !over ? h("button", { "data-testid": "retreat-here", onclick: () => void this.commit() }, t("nap.retreat.here")) : null,
        r.suggested.length ? h("button", { "data-testid": "retreat-suggested", onclick: go(r.suggested) }, t("status.retreat.suggested")) : null,
        this.path ? h("button", { onclick: () => { this.target = null; this.replan(); this.draw(); this.renderPanel(); } }, t("map.cancel")) : null));
  }

  /** Select a force and bring it into view (the state line's "Show me"). */
  show(id: string): void {
    const f = this.model.forces.find((x) => x.id === id);
    if (!f) return;
    this.selected = id;
    this.target = null;
    const v = this.viewport;
    if (v) {
      const c = cellCentre(v, f.cell);
      const w = this.canvas.clientWidth, hgt = this.canvas.clientHeight;
      if (c.x < 40 || c.y < 40 || c.x > w - 40 || c.y > hgt - 40) {
        this.viewport = { ...v, offsetX: v.offsetX + w / 2 - c.x, offsetY: v.offsetY + hgt / 2 - c.y };
        this.userMoved = true;
      }
    }
    this.replan();
    this.draw();
    this.renderPanel();
    this.canvas.focus();
  }

  /** A Napoleonic army's orders besides the march (server/napoleonic/campaign/engine.py): posture (N-START-2, D-N-12), fortify
   * (D-N-16), a replacement general (D-N-14) — only those the team may give now (./napoleon.ts). */
  private armyOrders(nap: NapView, sel: Force): HTMLElement {
    const team = this.playerTeam();
    const army = nap.armies.find((a) => a.id === sel.id);
    const offers = army ? armyOffers(nap, army, team) : [];
    const fortifying = nap.fortifications.find((f) => f.army === sel.id);
    const root = h("div", { class: "engine-orders", "data-testid": "army-orders" },
      offers.length ? h("h4", {}, t("battle.orders")) : null,
      h("p", { class: "muted" }, t("nap.posture", {
        intercept: army?.intercept === true ? t("nap.yes") : t("nap.no"), support: army?.support === true ? t("nap.yes") : t("nap.no"),
      })),
      fortifying ? h("p", { "data-testid": "fortifying" }, t("nap.fortifying", { city: proper(fortifying.city), done: fortifying.done, needed: fortifying.needed })) : null,
      h("div", { class: "buttons" }, ...offers.map((o) => h("button", {
        "data-testid": `army-${o.key.replace(/\./g, "-")}`, onclick: () => void this.actions.order(o.order).catch(() => {}),
      }, t(`nap.${o.key}` as MessageKey, properArgs(o.args))))));
    if (army && needsGeneral(nap, army, team)) {
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
