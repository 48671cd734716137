/** The 70×70 battlefield on a canvas, drawn to be read in front of a group: the ground as a period map (cached per
 * zoom step), every regiment as its block with outline, front, facing, arm and flag, labels placed so that none
 * hides another, melee contacts marked, each resolution animated beat by beat (./effects.ts), a legend and a
 * minimap. Zoom and pan through the shared gesture controller. Orders and previews come from the server's options
 * answer when it gives one (./options.ts); a refusal is shown at the unit, in words. */
import { formatNumber, lang, proper, t, tn } from "../i18n";
import { clear, h } from "../ui/dom";
import { teamColour, teamMark } from "../ui/colours";
import { bindGestures, markViewport, zoomKey } from "../ui/gestures";
import { armWord, facingWord, formationWord, statusWord, teamWord, terrainWord } from "../i18n/words";
import type { Names } from "../ui/names";
import { placeLabels, aroundBox, type LabelRequest, type Rect } from "../ui/labels";
import { ruleLinks } from "../ui/rule-links";
import { zoomAt, type Viewport } from "../campaign/geometry";
import { artilleryZone, footprint, musketZone, type Cell, type ZoneCell } from "./geometry";
import { battleView, formationSize, readBattle, type BattleModel, type BattleUnit } from "./model";
import { cellBounds, centroid, contactPoint, drawFormationGlyph, drawPiece, drawSabres, isArtilleryType, type Piece } from "./pieces";
import { groundOf, paintGround, TerrainLayer } from "./terrain";
import { EffectQueue } from "./effects";
import { Minimap } from "./minimap";
import { battleLegend } from "./legend";
import { formationsOf, ownRefusal, reachable, refusal, type BattleOptions, type OptionsSource, type Placing, type Reach, type Refusal } from "./options";

export interface BattleActions {
  order(order: Record<string, unknown>): Promise<unknown>;
  /** the unit's legal options from the server (issue 14); absent or answering null: orders are offered plainly */
  options?: OptionsSource;
  /** a refused order in the viewer's words (the game's error sentences), shown at the unit */
  refusalText?(error: unknown): { text: string; rule: string | null };
}

const ANIM_MS = 650;
const REFUSAL_MS = 7000;
/** Ranges in cells when the view gives none (a view before issue 14 had no `characteristics`): N-INF-1, N-ART-2. */
const DEFAULT_RANGE: Record<string, number> = { infantry: 6, foot_artillery: 30, horse_artillery: 20 };
const LABEL_FONT = "600 14px system-ui, sans-serif";
const LABEL_H = 20;

export function isArtillery(u: { type: string }): boolean {
  return isArtilleryType(u.type);
}

export function isCavalry(u: { type: string }): boolean {
  return u.type.includes("cav");
}

/** The fire zones of D-N-7 as geometry (sight is not judged here: the options answer names the legal targets). */
export function fireZones(u: BattleUnit): { canister: ZoneCell[]; fire: ZoneCell[] } {
  const range = u.range ?? DEFAULT_RANGE[u.type] ?? (isArtillery(u) ? 20 : 0);
  if (isArtillery(u)) {
    if (u.formation === "limbered") return { canister: [], fire: [] };
    return { canister: artilleryZone(u.anchor, u.facing, u.width, 1, 5), fire: artilleryZone(u.anchor, u.facing, u.width, 6, range) };
  }
  if (isCavalry(u) || u.formation === "march_column" || !range) return { canister: [], fire: [] };
  return { canister: [], fire: musketZone(u.anchor, u.facing, u.width, range) };
}

const ease = (k: number) => (k < 0.5 ? 4 * k * k * k : 1 - (-2 * k + 2) ** 3 / 2);
const key = (c: Cell) => `${c.x},${c.y}`;

function pieceOf(u: BattleUnit): Piece {
  return { id: u.id, side: u.side, type: u.type, formation: u.formation, facing: u.facing, anchor: u.anchor, cells: u.cells, width: u.width, status: u.status };
}

/** Where a placing (wheel, about-face, formation change) or a move would leave the unit, as a ghost. */
function ghostOf(u: BattleUnit, at: Cell, facing: number | string, formation: string): Piece {
  const [w, d] = formationSize(u.type, formation);
  return { ...pieceOf(u), anchor: at, facing, formation, width: w, cells: footprint(at, facing, w, d) };
}

export class BattleView {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly panel: HTMLElement;
  private readonly status: HTMLElement;
  private readonly captionBar: HTMLElement;
  private readonly minimap: Minimap;
  private legend: HTMLDetailsElement;
  private model: BattleModel = readBattle({});
  private selected: string | null = null;
  private hovered: string | null = null;
  private hoverCell: Cell | null = null;
  private target: Cell | null = null;
  private pickingFire = false;
  private viewport: Viewport | null = null;
  /** set once the user zooms or pans; until then the field is fitted to the canvas on every resize */
  private userMoved = false;
  private fittedTo = "";
  /** where units stood before the last view, for the move's tween (and fading out what left the view) */
  private from = new Map<string, Piece>();
  private fading: Piece[] = [];
  private animStart = 0;
  /** the frame a paint is queued for (0: none) */
  private raf = 0;
  private mySide: string | null = null;
  private readonly effects = new EffectQueue();
  /** every unit as it last stood (effects of a unit that has fallen are drawn where it was) */
  private readonly lastSeen = new Map<string, Piece>();
  private readonly terrain = new TerrainLayer(() => this.requestDraw());
  private terrainSig = "";
  private options: BattleOptions | null = null;
  /** the options asked for: unit and state they were for */
  private optionsKey = "";
  /** the server answers options (null until asked; false: it does not) */
  private optionsServed: boolean | null = null;
  /** orders sent and not yet answered, and whether the selected unit's options are on their way: the panel is
   * settled (`data-settled` on the field, for tests and tools) when neither is */
  private ordersInFlight = 0;
  private optionsLoading = false;
  private ghost: Piece | null = null;
  private refused: { unit: string; text: string; rule: string | null; until: number } | null = null;
  private stateVersion = 0;
  /** the view last shown: the page re-renders on a chat line or a presence change with the same one */
  private shownState: Record<string, unknown> | null = null;
  /** label widths by text (measuring text is a good part of a frame) */
  private readonly textWidths = new Map<string, number>();
  /** units, armies and places by name (the game page sets them from its session) */
  names: Names = { unit: (id) => String(id), army: (id) => String(id), place: (c) => String(c), battle: (id) => String(id), room: (id) => id };
  /** shown when the battle is over: the game page opens the report and the replay */
  onReport: (() => void) | null = null;
  onReplay: (() => void) | null = null;

  constructor(private readonly actions: BattleActions, private canOrder: boolean) {
    this.canvas = h("canvas", { class: "battle-canvas", tabindex: 0, "data-testid": "battle-field", "aria-label": t("battle.field_label") });
    this.status = h("div", { class: "map-status", "data-testid": "battle-status" });
    this.captionBar = h("div", { class: "field-caption", "data-testid": "field-caption", "aria-hidden": "true" });
    this.panel = h("div", { class: "side-panel", "data-testid": "battle-panel" });
    this.minimap = new Minimap((x, y) => this.centreOn(x, y));
    this.legend = battleLegend(false);
    this.root = h("div", { class: "battle-view" },
      h("div", { class: "canvas-wrap" }, this.canvas, this.zoomTools(), this.minimap.canvas, this.legend, this.captionBar, this.status), this.panel);
    this.bind();
  }

  /** A new view of the battle. `instant`: no tween (a replay stepping back, a re-join). */
  setState(state: Record<string, unknown>, mySide: string | null, instant = false): void {
    // The same view again (the page redrew for a chat line, a clock, someone joining): nothing changes, and the order
    // buttons stay the elements they are — rebuilt under a pointer, they would swallow the click.
    if (state === this.shownState && mySide === this.mySide) return;
    this.shownState = state;
    const prev = new Map(this.model.units.map((u) => [u.id, pieceOf(u)]));
    const hadSiege = !!this.model.siege;
    this.model = readBattle(state);
    this.retreatTurns = new Map((battleView(state)?.sides ?? []).flatMap((side) =>
      side.retreat_turn === null ? [] : [[side.name, side.retreat_turn] as const]));
    this.mySide = mySide;
    this.stateVersion++;
    if (!!this.model.siege !== hadSiege) {
      const fresh = battleLegend(!!this.model.siege);
      fresh.open = this.legend.open;
      this.legend.replaceWith(fresh);
      this.legend = fresh;
    }
    const sig = `${this.model.cols}x${this.model.rows}|${this.model.terrain.map((r) => r.join("")).join("")}|${this.model.elevation.map((r) => r.join("")).join("")}`;
    if (sig !== this.terrainSig) this.terrainSig = sig;
    this.from = new Map();
    this.fading = [];
    const now = new Set(this.model.units.map((u) => u.id));
    if (!instant) {
      for (const u of this.model.units) {
        const p = prev.get(u.id);
        if (p && (p.anchor.x !== u.anchor.x || p.anchor.y !== u.anchor.y || p.facing !== u.facing || p.formation !== u.formation)) this.from.set(u.id, p);
      }
      for (const [id, p] of prev) if (!now.has(id)) this.fading.push(p);
    } else {
      this.effects.clear();
    }
    for (const u of this.model.units) this.lastSeen.set(u.id, pieceOf(u));
    if (this.selected && !now.has(this.selected)) this.selected = null;
    this.animStart = performance.now();
    this.options = null;
    this.optionsKey = "";
    this.ghost = null;
    this.loadOptions();
    this.renderPanel();
    this.animate();
  }

  /** The viewer may give orders again, or no longer (D-N-14): the panel's order controls follow at once. */
  setCanOrder(canOrder: boolean): void {
    if (canOrder === this.canOrder) return;
    this.canOrder = canOrder;
    this.target = null;
    this.pickingFire = false;
    this.options = null;
    this.optionsKey = "";
    this.loadOptions();
    this.renderPanel();
    this.draw();
  }

  /** Show an event as it arrives (or as a replay steps to it): shots, melees, losses, morale, falls in turn, with
   * `caption` (its sentence) under the field while its beat lasts. */
  play(kind: string, data: Record<string, unknown>, caption?: string): void {
    const at = (id: unknown) => (typeof id === "string" ? this.lastSeen.get(id) : undefined);
    if (this.effects.push(kind, data, at, performance.now(), caption)) this.animate();
  }

  /** Drop the effects still running (a replay jumping elsewhere). */
  stopEffects(): void {
    this.effects.clear();
    this.draw();
  }

  get modelForTests(): BattleModel {
    return this.model;
  }

  private own(u: BattleUnit): boolean {
    return this.canOrder && (this.mySide === null || u.side === this.mySide);
  }

  private unitAt(c: Cell): BattleUnit | undefined {
    return this.model.units.find((u) => u.cells.some((k) => k.x === c.x && k.y === c.y));
  }

  private cellAt(x: number, y: number): Cell {
    const v = this.viewport ?? { scale: 9, offsetX: 0, offsetY: 0 };
    return { x: Math.floor((x - v.offsetX) / v.scale), y: Math.floor((y - v.offsetY) / v.scale) };
  }

  /** Draw in the next frame, once however many changes come before it (a drag's pointer moves, a tween, effects):
   * one paint per display frame, as board clients do (chessground's redraw). */
  private requestDraw(): void {
    if (!this.raf) this.raf = requestAnimationFrame(() => this.frame());
  }

  private frame(): void {
    this.raf = 0;
    const now = performance.now();
    this.draw();
    const moving = (this.from.size > 0 || this.fading.length > 0) && now - this.animStart < ANIM_MS;
    if (!moving) {
      this.from.clear();
      this.fading = [];
    }
    if (moving || this.effects.active(now) || (this.refused && now < this.refused.until)) this.requestDraw();
  }

  private animate(): void {
    this.requestDraw();
  }

  // --- options ------------------------------------------------------------------------------------------------

  /** Ask the server what the selected unit may do now (once per unit and view). */
  private loadOptions(): void {
    const sel = this.selectedUnit();
    const source = this.actions.options;
    if (!sel || !this.own(sel) || !source || this.optionsServed === false) {
      this.optionsLoading = false;  // an answer still on its way is for a unit or a view no longer shown
      this.markSettled();
      return;
    }
    const k = `${sel.id}@${this.stateVersion}`;
    if (k === this.optionsKey) return;
    this.optionsKey = k;
    this.optionsLoading = true;
    this.markSettled();
    void source(sel.id).then((opts) => {
      if (this.optionsKey !== k) return;
      this.optionsServed = opts !== null;
      this.options = opts;
      this.optionsLoading = false;
      this.renderPanel();
      this.draw();
      this.markSettled();
    }).catch(() => {
      if (this.optionsKey !== k) return;
      this.options = null;
      this.optionsLoading = false;
      this.markSettled();
    });
  }

  private selectedUnit(): BattleUnit | undefined {
    return this.model.units.find((u) => u.id === this.selected);
  }

  /** The move to the target cell the options offer, if any. */
  private reachFor(c: Cell | null): (Reach & { leaving: boolean }) | null {
    if (!c || !this.options) return null;
    return reachable(this.options).get(key(c)) ?? null;
  }

  // --- pointer and keys ---------------------------------------------------------------------------------------

  private hoverAt(x: number, y: number): void {
    const c = this.cellAt(x, y);
    this.hoverCell = c;
    const u = this.unitAt(c);
    this.hovered = u?.id ?? null;
    const r = this.reachFor(c);
    this.status.textContent = u
      ? `${this.names.unit(u.id)} · ${armWord(u.type)} · ${formationWord(u.formation)} · ${t("unit.facing")} ${facingWord(u.facing)} · ${t("unit.morale")} ${u.morale ?? "—"} · ${t("unit.losses")} ${u.lossTolerance ?? "—"}`
      : `${c.x},${c.y} · ${terrainWord(this.model.terrain[c.y]?.[c.x] ?? "open")}${this.model.elevation[c.y]?.[c.x] ? ` · ${t("legend.level", { n: this.model.elevation[c.y]![c.x]! })}` : ""}${r ? ` · ${t("preview.reach", { cost: formatNumber(r.cost), left: formatNumber(r.pointsLeft) })}` : ""}`;
    this.requestDraw();
  }

  private tapAt(x: number, y: number): void {
    const c = this.cellAt(x, y);
    const u = this.unitAt(c);
    const sel = this.selectedUnit();
    if (this.pickingFire && sel && u && u.side !== sel.side) {
      this.pickingFire = false;
      this.orderTarget(sel, u);
    } else if (u && (!sel || u.side === sel.side || !this.own(sel)) && !this.reachFor(c)) {
      this.select(u.id);
    } else if (sel && this.own(sel)) {
      this.target = c;
    }
    this.renderPanel();
    this.draw();
    this.canvas.focus();
  }

  private select(id: string | null): void {
    this.selected = id;
    this.target = null;
    this.pickingFire = false;
    this.ghost = null;
    this.options = null;
    this.optionsKey = "";
    this.loadOptions();
  }

  /** Put field position (x, y) in the middle of the view (the minimap, the unit table). */
  centreOn(x: number, y: number): void {
    const v = this.viewport;
    if (!v) return;
    this.viewport = { ...v, offsetX: this.canvas.clientWidth / 2 - x * v.scale, offsetY: this.canvas.clientHeight / 2 - y * v.scale };
    this.userMoved = true;
    markViewport(this.canvas, this.viewport);
    this.requestDraw();
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
      markViewport(this.canvas, v);
      this.requestDraw();
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
        this.requestDraw();
      },
    });
    this.canvas.addEventListener("keydown", (e) => {
      if (zoomKey(e, this.canvas, { viewport: () => this.viewport, setViewport }, () => this.fitField())) return;
      this.key(e);
    });
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  private key(e: KeyboardEvent): void {
    if (e.defaultPrevented) return;
    if (e.key === "Tab") {
      // Tab / Shift-Tab: the next of one's own units (all units for a spectator).
      const pool = this.model.units.filter((u) => !this.canOrder || this.own(u));
      if (!pool.length) return;
      e.preventDefault();
      const i = pool.findIndex((u) => u.id === this.selected);
      this.select(pool[(i + (e.shiftKey ? pool.length - 1 : 1)) % pool.length]!.id);
      this.renderPanel();
      this.draw();
      return;
    }
    const sel = this.selectedUnit();
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
    if (e.key === "Escape") {
      this.target = null;
      this.pickingFire = false;
    } else if (e.key === "Enter" && this.target) {
      this.orderMove(sel, this.target, false);
    } else if (e.key === "c" && this.target && isCavalry(sel) && this.own(sel)) {
      this.orderMove(sel, this.target, true);
    } else if (e.key === "f" && isArtillery(sel) && this.own(sel)) {
      this.startPicking(sel);
    } else if (this.own(sel) && ["q", "e", "a", "s", "l"].includes(e.key)) {
      const o = this.keyOrder(sel, e.key);
      if (o) this.give(sel, o.order, o.refusal);
    } else return;
    this.renderPanel();
    this.draw();
  }

  /** The order a hotkey gives, and — when the options do not offer it — why not. */
  private keyOrder(sel: BattleUnit, k: string): { order: Record<string, unknown>; refusal: Refusal | null } | null {
    const opts = this.options;
    const wheel = (deg: number) => ({ order: { type: "wheel", unit: sel.id, degrees: deg },
      refusal: opts && !opts.wheels.some((w) => w.degrees === deg) ? refusal(opts, "wheel") ?? this.notOffered("wheel") : null });
    switch (k) {
      case "q": return wheel(-45);
      case "e": return wheel(45);
      case "a": return { order: { type: "about_face", unit: sel.id }, refusal: opts && !opts.aboutFace ? refusal(opts, "about_face") ?? this.notOffered("about_face") : null };
      case "s": return isCavalry(sel) || isArtillery(sel) ? null : this.formationOrder(sel, "square");
      case "l": return isArtillery(sel) ? this.formationOrder(sel, sel.formation === "limbered" ? "deployed" : "limbered") : null;
      default: return null;
    }
  }

  private formationOrder(sel: BattleUnit, f: string): { order: Record<string, unknown>; refusal: Refusal | null } {
    const opts = this.options;
    const order = isArtillery(sel) ? { type: f === "limbered" ? "limber" : "unlimber", unit: sel.id } : { type: "formation", unit: sel.id, formation: f };
    return { order, refusal: opts && !opts.formations.some((p) => p.formation === f) ? refusal(opts, "formation", f) ?? this.notOffered("formation") : null };
  }

  private notOffered(order: string): Refusal {
    return ownRefusal(order, null, t("preview.not_offered"));
  }

  private startPicking(sel: BattleUnit): void {
    const opts = this.options;
    if (opts && !opts.targets.length) {
      this.showRefusal(sel.id, refusal(opts, "targets") ?? this.notOffered("targets"));
      return;
    }
    this.pickingFire = true;
  }

  /** N-ART-7: a round-shot target; one picked here takes all the guns in action. */
  private orderTarget(sel: BattleUnit, enemy: BattleUnit): void {
    const opts = this.options;
    if (opts && !opts.targets.some((x) => x.unit === enemy.id)) {
      this.showRefusal(sel.id, refusal(opts, "targets") ?? ownRefusal("targets", "D-N-7", t("preview.not_a_target")));
      return;
    }
    void this.send(sel, { type: "targets", unit: sel.id, targets: [{ unit: enemy.id, guns: opts?.guns || sel.guns || 4 }] });
  }

  /** A move or charge to `to`: along the options' path when they offer that cell; else (no options from the server)
   * a straight path, which the engine judges. */
  private orderMove(sel: BattleUnit, to: Cell, charge: boolean): void {
    const opts = this.options;
    if (opts) {
      const r = this.reachFor(to);
      if (!r) {
        this.showRefusal(sel.id, refusal(opts, "move") ?? ownRefusal("move", "D-GEN-2", t("preview.out_of_reach", { points: formatNumber(opts.points) })));
        return;
      }
      const type = r.leaving ? "leave_melee" : charge && opts.charge && r.contact.length ? "charge" : "move";
      void this.send(sel, { type, unit: sel.id, path: r.path.map((c) => [c.x, c.y]) });
      return;
    }
    void this.send(sel, { type: charge ? "charge" : "move", unit: sel.id, path: straightLine(sel.anchor, to).slice(1).map((c) => [c.x, c.y]) });
  }

  /** Give an order, unless the options say it is not allowed: then the reason shows at the unit without asking. */
  private give(sel: BattleUnit, order: Record<string, unknown>, why: Refusal | null): void {
    if (why) this.showRefusal(sel.id, why);
    else void this.send(sel, order);
  }

  private refusalWords(r: Refusal): string {
    return (r.said || lang() === "en") && r.message ? r.message : this.actions.refusalText?.({ code: r.code, message: r.message, rule: r.rule }).text ?? r.message;
  }

  private showRefusal(unit: string, r: Refusal): void {
    this.refused = { unit, text: this.refusalWords(r), rule: r.rule, until: performance.now() + REFUSAL_MS };
    this.renderPanel();
    this.animate();
  }

  private markSettled(): void {
    this.canvas.dataset.settled = String(this.ordersInFlight === 0 && !this.optionsLoading);
  }

  private async send(sel: BattleUnit, order: Record<string, unknown>): Promise<void> {
    this.ordersInFlight++;
    this.markSettled();
    try {
      await this.actions.order(order);
      this.target = null;
      this.ghost = null;
      this.refused = null;
    } catch (exc) {
      // the game's error line shows it too; here it is said at the unit
      const words = this.actions.refusalText?.(exc) ?? { text: String((exc as Error)?.message ?? exc), rule: null };
      this.refused = { unit: sel.id, text: words.text, rule: words.rule, until: performance.now() + REFUSAL_MS };
    } finally {
      this.ordersInFlight--;
    }
    this.renderPanel();
    this.animate();
    this.markSettled();
  }

  // --- drawing ------------------------------------------------------------------------------------------------

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
    const fitScale = Math.max(2, Math.min((w - 8) / m.cols, (hgt - 8) / m.rows));
    const v = (this.viewport ??= { scale: fitScale, offsetX: (w - m.cols * fitScale) / 2, offsetY: (hgt - m.rows * fitScale) / 2 });
    markViewport(cv, v);
    const s = v.scale;
    const now = performance.now();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#cfc5a8";
    ctx.fillRect(0, 0, w, hgt);
    // the ground: the cached picture, or — closer in than a picture of the whole field should hold — the cells on screen
    const vx0 = Math.max(0, Math.floor(-v.offsetX / s)), vy0 = Math.max(0, Math.floor(-v.offsetY / s));
    const vx1 = Math.min(m.cols, Math.ceil((w - v.offsetX) / s)), vy1 = Math.min(m.rows, Math.ceil((hgt - v.offsetY) / s));
    const ground = groundOf(m);
    const picture = this.terrain.picture(ground, this.terrainSig, s * dpr);
    if (picture) {
      ctx.imageSmoothingEnabled = true;
      ctx.drawImage(picture, v.offsetX, v.offsetY, m.cols * s, m.rows * s);
    } else {
      ctx.save();
      ctx.translate(v.offsetX, v.offsetY);
      ctx.beginPath();
      ctx.rect(vx0 * s, vy0 * s, (vx1 - vx0) * s, (vy1 - vy0) * s);
      ctx.clip();
      paintGround(ctx, ground, s, vx0, vy0, vx1, vy1);
      ctx.restore();
    }
    this.drawGrid(ctx, v, vx0, vy0, vx1, vy1);
    this.drawZones(ctx, v);
    this.drawReach(ctx, v);
    this.drawPreview(ctx, v);
    const k = ease(Math.min(1, (now - this.animStart) / ANIM_MS));
    const falling = this.effects.falling(now);
    for (const p of this.fading) if (!falling.has(p.id)) drawPiece(ctx, p, v, { alpha: 1 - k });
    const drawn: Piece[] = [];
    for (const u of m.units) {
      const piece = pieceOf(u);
      const old = this.from.get(u.id);
      const look = { selected: u.id === this.selected, hovered: u.id === this.hovered };
      if (old && k < 1) {
        const sameShape = old.facing === u.facing && old.formation === u.formation;
        if (sameShape) {
          drawPiece(ctx, piece, v, { ...look, dx: (old.anchor.x - u.anchor.x) * (1 - k) * s, dy: (old.anchor.y - u.anchor.y) * (1 - k) * s });
        } else {
          drawPiece(ctx, old, v, { alpha: 1 - k });
          drawPiece(ctx, piece, v, { ...look, alpha: k });
        }
      } else {
        drawPiece(ctx, piece, v, look);
      }
      drawn.push(piece);
    }
    this.drawMelees(ctx, v);
    if (this.ghost) drawPiece(ctx, this.ghost, v, { ghost: true });
    const labels = this.drawLabels(ctx, v, w, hgt);
    this.effects.draw(ctx, v, now);
    this.drawRefusal(ctx, v, now, w);
    const caption = this.effects.caption(now);
    if (this.captionBar.textContent !== caption) this.captionBar.textContent = caption;
    this.captionBar.hidden = !caption;
    this.minimap.draw(picture ?? this.terrain.picture(ground, this.terrainSig, 6), m.cols, m.rows, drawn, v, w, hgt, w < 500 ? 96 : 150);
    // what is on screen, for tests and tools
    const onScreen = m.units.filter((u) => {
      const b = cellBounds(u.cells);
      return v.offsetX + (b.x + b.w) * s > 0 && v.offsetX + b.x * s < w && v.offsetY + (b.y + b.h) * s > 0 && v.offsetY + b.y * s < hgt;
    });
    cv.dataset.visibleUnits = String(onScreen.length);
    cv.dataset.labels = String(labels);
    cv.dataset.reach = String(this.options ? reachable(this.options).size : 0);
  }

  private drawGrid(ctx: CanvasRenderingContext2D, v: Viewport, x0: number, y0: number, x1: number, y1: number): void {
    const s = v.scale;
    const m = this.model;
    ctx.strokeStyle = "rgba(59,50,38,0.85)";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(v.offsetX, v.offsetY, m.cols * s, m.rows * s);
    const every = s >= 16 ? 1 : s >= 6 ? 5 : 10;
    ctx.strokeStyle = every === 1 ? "rgba(59,50,38,0.10)" : "rgba(59,50,38,0.12)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = Math.ceil(x0 / every) * every; x <= x1; x += every) { ctx.moveTo(v.offsetX + x * s, v.offsetY + y0 * s); ctx.lineTo(v.offsetX + x * s, v.offsetY + y1 * s); }
    for (let y = Math.ceil(y0 / every) * every; y <= y1; y += every) { ctx.moveTo(v.offsetX + x0 * s, v.offsetY + y * s); ctx.lineTo(v.offsetX + x1 * s, v.offsetY + y * s); }
    ctx.stroke();
  }

  /** The hovered (or selected) unit's fire zones, D-N-7's geometry; when the options list its targets, those are
   * ringed instead of guessed. */
  private drawZones(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const u = this.model.units.find((x) => x.id === (this.hovered ?? this.selected));
    if (!u) return;
    const s = v.scale;
    const z = fireZones(u);
    ctx.fillStyle = "rgba(255,140,0,0.22)";
    for (const c of z.fire) ctx.fillRect(v.offsetX + c.x * s, v.offsetY + c.y * s, s, s);
    ctx.fillStyle = "rgba(220,0,0,0.3)";
    for (const c of z.canister) ctx.fillRect(v.offsetX + c.x * s, v.offsetY + c.y * s, s, s);
  }

  /** Where the selected unit can move this turn (from the options): a dot on every anchor cell it can reach, pale
   * when it would leave few points. */
  private drawReach(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const sel = this.selectedUnit();
    if (!sel || !this.options || !this.own(sel)) return;
    const s = v.scale;
    const top = Math.max(1, this.options.points);
    for (const r of reachable(this.options).values()) {
      const a = 0.35 + 0.45 * (r.pointsLeft / top);
      ctx.fillStyle = r.leaving ? `rgba(122,0,179,${a})` : r.contact.length ? `rgba(179,20,12,${a})` : `rgba(32,110,40,${a})`;
      ctx.beginPath();
      ctx.arc(v.offsetX + (r.to.x + 0.5) * s, v.offsetY + (r.to.y + 0.5) * s, Math.max(1.8, s * 0.2), 0, Math.PI * 2);
      ctx.fill();
    }
    if (this.pickingFire) {
      for (const tgt of this.options.targets) {
        const u = this.model.units.find((x) => x.id === tgt.unit);
        if (!u) continue;
        const b = cellBounds(u.cells);
        ctx.strokeStyle = "#d00";
        ctx.lineWidth = 3;
        ctx.setLineDash([6, 4]);
        ctx.strokeRect(v.offsetX + b.x * s - 3, v.offsetY + b.y * s - 3, b.w * s + 6, b.h * s + 6);
        ctx.setLineDash([]);
      }
    }
  }

  /** The planned move: its path and the destination footprint as a ghost, with its cost when the options price it. */
  private drawPreview(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const sel = this.selectedUnit();
    const to = this.target ?? (this.options && this.hoverCell && this.reachFor(this.hoverCell) ? this.hoverCell : null);
    if (!sel || !to || !this.own(sel)) return;
    const s = v.scale;
    const r = this.reachFor(to);
    const path = r ? [sel.anchor, ...r.path] : this.options ? [] : straightLine(sel.anchor, to);
    if (path.length > 1) {
      ctx.strokeStyle = "#15120d";
      ctx.lineWidth = Math.max(4, s * 0.3);
      ctx.lineJoin = "round";
      ctx.beginPath();
      path.forEach((c, i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, v.offsetX + (c.x + 0.5) * s, v.offsetY + (c.y + 0.5) * s));
      ctx.stroke();
      ctx.strokeStyle = "#ffcf1f";
      ctx.lineWidth = Math.max(2, s * 0.16);
      ctx.stroke();
      drawPiece(ctx, ghostOf(sel, to, sel.facing, sel.formation), v, { ghost: true });
    }
    const p = { x: v.offsetX + (to.x + 1) * s + 4, y: v.offsetY + to.y * s - 4 };
    const text = r ? t("preview.reach", { cost: formatNumber(r.cost), left: formatNumber(r.pointsLeft) })
      : this.options ? t("preview.out_of_reach_short") : "";
    if (!text) {
      if (!this.options) return;
      return;
    }
    ctx.font = "600 14px system-ui, sans-serif";
    const tw = ctx.measureText(text).width;
    ctx.fillStyle = r ? "rgba(21,18,13,0.85)" : "rgba(163,19,12,0.92)";
    ctx.fillRect(p.x, p.y - 18, tw + 10, 22);
    ctx.fillStyle = "#fff";
    ctx.textBaseline = "middle";
    ctx.textAlign = "start";
    ctx.fillText(text, p.x + 5, p.y - 7);
  }

  private drawMelees(ctx: CanvasRenderingContext2D, v: Viewport): void {
    const raw = Array.isArray(this.model.melees) ? this.model.melees : [];
    for (const mel of raw) {
      const a = this.model.units.find((u) => u.id === mel.a);
      const b = this.model.units.find((u) => u.id === mel.b);
      if (!a || !b) continue;
      const at = contactPoint(a.cells, b.cells);
      if (!at) continue;
      drawSabres(ctx, v.offsetX + at.x * v.scale, v.offsetY + at.y * v.scale, Math.max(6, Math.min(14, v.scale * 0.8)));
    }
  }

  /** The army's retreat (N-VICTORY-2, D-N-2): irrevocable, so asked twice on the page (a browser's own dialog can
   * be blocked or missed); once given, what it means instead of the button. */
  private retreatAsked = false;
  /** the turn each side's retreat was ordered in (N-VICTORY-2) */
  private retreatTurns = new Map<string, number>();

  private retreatOrder(): HTMLElement {
    const ordered = this.mySide ? this.retreatTurns.get(this.mySide) : undefined;
    if (ordered !== undefined) {
      return h("p", { class: "retreating", "data-testid": "army-retreating" }, t("battle.retreating", { turn: ordered + 1 }));
    }
    const again = () => { this.renderPanel(); };
    if (!this.retreatAsked) {
      return h("div", { class: "buttons" }, h("button", { class: "danger", "data-testid": "army-retreat", onclick: () => { this.retreatAsked = true; again(); } }, t("battle.retreat")));
    }
    return h("div", { class: "confirm", "data-testid": "army-retreat-confirm", role: "alertdialog" }, h("p", {}, t("battle.retreat.confirm")),
      h("div", { class: "buttons" },
        h("button", { class: "danger", "data-testid": "army-retreat-yes", onclick: () => {
          this.retreatAsked = false;
          void this.actions.order({ type: "retreat" }).catch(() => {}).finally(again);
        } }, t("battle.retreat.yes")),
        h("button", { "data-testid": "army-retreat-no", onclick: () => { this.retreatAsked = false; again(); } }, t("battle.retreat.no"))));
  }

  /** Units' labels — formation glyph and short name — where they fit without hiding a unit or another label. */
  private drawLabels(ctx: CanvasRenderingContext2D, v: Viewport, w: number, hgt: number): number {
    const s = v.scale;
    ctx.font = LABEL_FONT;
    const boxes: Rect[] = [];
    const requests: LabelRequest<{ u: BattleUnit; text: string }>[] = [];
    for (const u of this.model.units) {
      const b = cellBounds(u.cells);
      const box = { x: v.offsetX + b.x * s, y: v.offsetY + b.y * s, w: b.w * s, h: b.h * s };
      boxes.push(box);
      const important = u.id === this.selected || u.id === this.hovered;
      if (s < 6 && !important) continue;
      const name = (this.names.short ?? this.names.unit)(u.id);
      const text = s >= 26 ? `${name} · ${formationWord(u.formation)}` : name;
      let tw = this.textWidths.get(text);
      if (tw === undefined) this.textWidths.set(text, (tw = ctx.measureText(text).width));
      const lw = 18 + 4 + tw + 8;
      requests.push({ item: { u, text }, priority: important ? 100 : this.own(u) ? 10 : 5, w: lw, h: LABEL_H, candidates: aroundBox(box, lw, LABEL_H, 3) });
    }
    // the zoom buttons and the minimap are not places for labels
    const tools: Rect[] = [{ x: w - 56, y: 0, w: 56, h: 150 }];
    if (!this.minimap.canvas.hidden) tools.push({ x: 0, y: hgt - 190, w: 170, h: 190 });
    const placed = placeLabels(requests, [...boxes, ...tools], { x: 0, y: 0, w, h: hgt }, 1);
    ctx.textBaseline = "middle";
    ctx.textAlign = "start";
    for (const p of placed) {
      const { u, text } = p.item;
      const col = teamColour(u.side);
      ctx.fillStyle = "rgba(255,252,240,0.9)";
      ctx.strokeStyle = col.fill;
      ctx.lineWidth = u.id === this.selected ? 2.5 : 1.2;
      ctx.beginPath();
      ctx.rect(p.x + 0.5, p.y + 0.5, p.w - 1, p.h - 1);
      ctx.fill();
      ctx.stroke();
      drawFormationGlyph(ctx, u.formation, p.x + 4, p.y + 3, 14, col.fill);
      ctx.fillStyle = "#1d1b16";
      ctx.fillText(text, p.x + 4 + 18 + 4, p.y + p.h / 2 + 0.5);
    }
    return placed.length;
  }

  /** A refused order, said at the unit in a bubble for a few seconds. */
  private drawRefusal(ctx: CanvasRenderingContext2D, v: Viewport, now: number, w: number): void {
    const r = this.refused;
    if (!r || now > r.until) return;
    const u = this.model.units.find((x) => x.id === r.unit) ?? this.lastSeen.get(r.unit);
    if (!u) return;
    const c = centroid(u.cells);
    const x = v.offsetX + c.x * v.scale, y = v.offsetY + cellBounds(u.cells).y * v.scale - 10;
    ctx.font = "600 14px system-ui, sans-serif";
    const text = r.rule ? `${r.text} (${r.rule})` : r.text;
    const words = text.split(" ");
    const lines: string[] = [];
    const max = Math.min(320, w - 20);
    for (const word of words) {
      const last = lines[lines.length - 1];
      if (last !== undefined && ctx.measureText(`${last} ${word}`).width < max) lines[lines.length - 1] = `${last} ${word}`;
      else lines.push(word);
    }
    const bw = Math.min(max, Math.max(...lines.map((l) => ctx.measureText(l).width))) + 16;
    const bh = lines.length * 18 + 10;
    const bx = Math.max(6, Math.min(w - bw - 6, x - bw / 2));
    const by = Math.max(6, y - bh - 8);
    ctx.globalAlpha = Math.min(1, (r.until - now) / 600);
    ctx.fillStyle = "#fff4f2";
    ctx.strokeStyle = "#a3130c";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.rect(bx, by, bw, bh);
    ctx.moveTo(Math.min(Math.max(x, bx + 10), bx + bw - 10) - 7, by + bh);
    ctx.lineTo(Math.min(Math.max(x, bx + 10), bx + bw - 10), by + bh + 8);
    ctx.lineTo(Math.min(Math.max(x, bx + 10), bx + bw - 10) + 7, by + bh);
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = "#7a0d08";
    ctx.textBaseline = "top";
    lines.forEach((l, i) => ctx.fillText(l, bx + 8, by + 6 + i * 18));
    ctx.globalAlpha = 1;
  }

  /** + / − / whole field over the canvas: zoom without a wheel or two fingers. */
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

  // --- the panel ----------------------------------------------------------------------------------------------

  /** On a phone the panel is a bottom sheet: its handle opens and closes it; selecting a unit opens it. */
  private sheetOpen = false;
  private sheetFor: string | null = null;
  private tableOpen = !(globalThis.matchMedia?.("(max-width: 760px)").matches ?? false);

  private sheetHandle(title: string): HTMLElement {
    return h("button", { type: "button", class: "sheet-handle", "aria-expanded": String(this.sheetOpen), "data-testid": "sheet-handle",
      onclick: () => { this.sheetOpen = !this.sheetOpen; this.panel.classList.toggle("open", this.sheetOpen); } }, title);
  }

  /** A button for an order the options do not offer: disabled, with the reason in words and its rule linked. */
  private refusedButton(label: string, r: Refusal | null, testid?: string): HTMLElement {
    const why = r ? this.refusalWords(r) : t("preview.not_offered");
    return h("div", { class: "refused-order", "data-testid": testid ? `${testid}-refused` : "refused-order" },
      h("button", { type: "button", disabled: true, title: why, ...(testid ? { "data-testid": testid } : {}) }, label),
      h("span", { class: "why", "data-testid": "refusal-reason" }, why, ...(r?.rule ? [" (", ...ruleLinks(r.rule.split(/[,\s]+/).filter(Boolean)), ")"] : [])));
  }

  private orderButton(label: string, hotkey: string | null, go: () => void, opts: { testid?: string; ghost?: Piece | null; note?: string } = {}): HTMLElement {
    const b = h("button", { type: "button", onclick: go, ...(hotkey ? { "aria-keyshortcuts": hotkey, title: t("key.hint", { key: hotkey.toUpperCase() }) } : {}), ...(opts.testid ? { "data-testid": opts.testid } : {}) },
      label, opts.note ? h("span", { class: "cost" }, ` ${opts.note}`) : null, hotkey ? h("kbd", {}, hotkey === "Enter" ? "↵" : hotkey.toUpperCase()) : null);
    if (opts.ghost) {
      const show = () => { this.ghost = opts.ghost ?? null; this.draw(); };
      const hide = () => { this.ghost = null; this.draw(); };
      b.addEventListener("pointerenter", show);
      b.addEventListener("focus", show);
      b.addEventListener("pointerleave", hide);
      b.addEventListener("blur", hide);
    }
    return b;
  }

  private placingNote(p: Placing): string {
    return p.carried ? t("preview.carried", { cost: p.cost }) : tn("n.points", p.cost);
  }

  /** The selected unit's orders from the options: what is offered is enabled, the rest disabled with its reason. */
  private optionOrders(sel: BattleUnit, opts: BattleOptions): HTMLElement[] {
    const out: HTMLElement[] = [];
    if (!opts.active) {
      const r = refusal(opts, "*");
      out.push(h("p", { class: "why", "data-testid": "options-inactive" }, r ? this.refusalWords(r) : t("preview.not_now"), ...(r?.rule ? [" (", ...ruleLinks([r.rule]), ")"] : [])));
      return out;
    }
    out.push(h("p", { class: "muted", "data-testid": "options-points" }, t("preview.points", { points: formatNumber(opts.points) })));
    const moves = h("div", { class: "buttons" });
    const r = this.reachFor(this.target);
    if (this.target) {
      if (r) {
        out.push(h("p", { class: "path", "data-testid": "battle-path" }, t("preview.reach", { cost: formatNumber(r.cost), left: formatNumber(r.pointsLeft) }),
          r.contact.length ? ` · ${t("preview.contact", { units: r.contact.map((id) => this.names.unit(id)).join(", ") })}` : "",
          r.halts ? [" · ", t("preview.halts", { rule: r.halts })].join("") : "", r.road ? ` · ${t("preview.road")}` : ""));
        moves.append(this.orderButton(t(r.leaving ? "preview.leave_melee" : "map.move"), "Enter", () => this.orderMove(sel, this.target!, false), { testid: "battle-move" }));
        if (!r.leaving && opts.charge && r.contact.length) moves.append(this.orderButton(t("battle.charge"), "c", () => this.orderMove(sel, this.target!, true), { testid: "battle-charge" }));
      } else {
        moves.append(this.refusedButton(t("map.move"), refusal(opts, "move") ?? ownRefusal("move", "D-GEN-2", t("preview.out_of_reach", { points: formatNumber(opts.points) })), "battle-move"));
      }
    } else if (opts.moves.length || opts.leaveMelee.length) {
      out.push(h("p", { class: "hint" }, t("preview.pick_cell", { n: reachable(opts).size })));
    } else {
      moves.append(this.refusedButton(t("map.move"), refusal(opts, "move") ?? refusal(opts, "leave_melee"), "battle-move"));
    }
    out.push(moves);
    const turns = h("div", { class: "buttons" });
    for (const [deg, label, hot] of [[-90, t("preview.wheel_left_90"), null], [-45, t("battle.wheel_left"), "q"], [45, t("battle.wheel_right"), "e"], [90, t("preview.wheel_right_90"), null]] as const) {
      const wh = opts.wheels.find((x) => x.degrees === deg);
      turns.append(wh ? this.orderButton(label, hot, () => void this.send(sel, { type: "wheel", unit: sel.id, degrees: deg }), { ghost: ghostOf(sel, wh.to, wh.facing, wh.formation), note: this.placingNote(wh), testid: `wheel-${deg}` })
        : this.refusedButton(label, refusal(opts, "wheel"), `wheel-${deg}`));
    }
    const af = opts.aboutFace;
    turns.append(af ? this.orderButton(t("battle.about_face"), "a", () => void this.send(sel, { type: "about_face", unit: sel.id }), { ghost: ghostOf(sel, af.to, af.facing, af.formation), note: this.placingNote(af), testid: "about-face" })
      : this.refusedButton(t("battle.about_face"), refusal(opts, "about_face"), "about-face"));
    out.push(h("h4", {}, t("preview.turns")), turns);
    const forms = h("div", { class: "buttons" });
    for (const f of formationsOf(sel.type)) {
      if (f === sel.formation) continue;
      const p = opts.formations.find((x) => x.formation === f);
      const { order } = this.formationOrder(sel, f);
      const hot = f === "square" ? "s" : isArtillery(sel) ? "l" : null;
      forms.append(p ? this.orderButton(formationWord(f), hot, () => void this.send(sel, order), { ghost: ghostOf(sel, p.to, p.facing, f), note: this.placingNote(p), testid: `formation-${f}` })
        : this.refusedButton(formationWord(f), refusal(opts, "formation", f), `formation-${f}`));
    }
    out.push(h("h4", {}, t("battle.reform")), forms);
    if (isArtillery(sel)) {
      const guns = h("div", { class: "buttons" });
      guns.append(opts.targets.length ? this.orderButton(this.pickingFire ? t("preview.pick_target") : t("battle.fire"), "f", () => { this.startPicking(sel); this.renderPanel(); this.draw(); }, { testid: "battle-fire", note: tn("n.targets", opts.targets.length) })
        : this.refusedButton(t("battle.fire"), refusal(opts, "targets"), "battle-fire"));
      guns.append(opts.barrage ? this.orderButton(t("preview.barrage"), null, () => void this.send(sel, { type: "barrage", unit: sel.id }), { testid: "battle-barrage" })
        : this.refusedButton(t("preview.barrage"), refusal(opts, "barrage"), "battle-barrage"));
      out.push(h("h4", {}, t("preview.guns")), guns);
    }
    return out;
  }

  /** Orders without the server's options (it does not answer them yet): offered plainly, judged by the engine. */
  private plainOrders(sel: BattleUnit): HTMLElement[] {
    const b = (label: string, order: Record<string, unknown>, k: string) => this.orderButton(label, k, () => void this.send(sel, order));
    const out: HTMLElement[] = [];
    if (this.target) {
      out.push(h("p", { class: "path", "data-testid": "battle-path" }, tn("n.cells", Math.max(0, straightLine(sel.anchor, this.target).length - 1)), " · ", t("preview.engine_decides")));
    }
    out.push(h("div", { class: "buttons" },
      this.target ? this.orderButton(t("map.move"), "Enter", () => this.orderMove(sel, this.target!, false), { testid: "battle-move" }) : null,
      this.target && isCavalry(sel) ? this.orderButton(t("battle.charge"), "c", () => this.orderMove(sel, this.target!, true)) : null,
      b(t("battle.wheel_left"), { type: "wheel", unit: sel.id, degrees: -45 }, "q"),
      b(t("battle.wheel_right"), { type: "wheel", unit: sel.id, degrees: 45 }, "e"),
      b(t("battle.about_face"), { type: "about_face", unit: sel.id }, "a"),
      isArtillery(sel) ? b(t("battle.limber"), { type: sel.formation === "limbered" ? "unlimber" : "limber", unit: sel.id }, "l")
        : !isCavalry(sel) ? b(t("battle.square"), { type: "formation", unit: sel.id, formation: "square" }, "s") : null,
      isArtillery(sel) ? this.orderButton(t("battle.fire"), "f", () => { this.pickingFire = true; this.renderPanel(); }) : null));
    if (!isArtillery(sel)) {
      out.push(h("div", { class: "buttons" }, ...formationsOf(sel.type).filter((f) => f !== sel.formation && f !== "square").map((f) =>
        this.orderButton(`${t("battle.reform")}: ${formationWord(f)}`, null, () => void this.send(sel, { type: "formation", unit: sel.id, formation: f })))));
    }
    return out;
  }

  private renderPanel(): void {
    const keepScroll = this.panel.scrollTop;
    clear(this.panel);
    const m = this.model;
    const sel = this.selectedUnit();
    if ((sel?.id ?? null) !== this.sheetFor) {
      this.sheetFor = sel?.id ?? null;
      this.sheetOpen = !!sel;
    }
    this.panel.classList.toggle("open", this.sheetOpen);
    this.panel.append(this.sheetHandle(sel ? this.names.unit(sel.id) : t(this.canOrder ? "sheet.orders" : "sheet.details")));
    const head = [m.turn !== null ? t("game.turn", { n: m.turn }) : "",
      m.active.length ? t("game.to_move", { team: m.active.map(teamWord).join(", ") }) : ""].filter(Boolean).join(" · ");
    this.panel.append(h("p", { class: "muted", "data-testid": "battle-turn" }, head));
    if (m.siege) this.panel.append(h("p", { "data-testid": "siege-info" }, t("siege.info", {
      fortress: proper(m.siege.fortress), besieger: teamWord(m.siege.besieger), garrison: teamWord(m.siege.garrison), breaches: m.siege.breaches, guns: m.siege.guns })));
    if (m.result) {
      this.panel.append(h("div", { class: "result-box" },
        h("p", { class: "result", "data-testid": "battle-result" }, t("battle.won", { winner: teamWord(String(m.result.winner ?? "")) })),
        h("div", { class: "buttons" },
          this.onReport ? h("button", { type: "button", "data-testid": "open-report", onclick: () => this.onReport?.() }, t("report.open")) : null,
          this.onReplay ? h("button", { type: "button", "data-testid": "open-replay", onclick: () => this.onReplay?.() }, t("replay.open")) : null)));
    }
    if (m.spectators !== null) this.panel.append(h("p", { class: "muted", "data-testid": "spectator-count" }, tn("n.spectators", m.spectators)));
    if (sel) {
      const rows: [string, string][] = [
        [t("unit.arm"), armWord(sel.type)], [t("unit.formation"), formationWord(sel.formation)], [t("unit.facing"), facingWord(sel.facing)],
        [t("unit.morale"), sel.morale === null ? "—" : String(sel.morale)],
        // a battery is counted in guns (N-ART), a regiment in its loss tolerance: as the unit list shows them, never
        // "Guns 0" for a regiment or "Loss tolerance 0" for a battery
        isArtillery(sel) ? [t("unit.guns"), sel.guns === null ? "—" : String(sel.guns)]
          : [t("unit.losses"), sel.lossTolerance === null ? "—" : `${sel.lossTolerance}${sel.losses !== null ? ` (−${sel.losses})` : ""}`],
        [t("unit.movement"), sel.movementLeft === null ? "—" : formatNumber(sel.movementLeft)],
        [t("unit.status"), statusWord(sel.status)],
      ];
      if (sel.moveEnded) rows.push([t("unit.movement"), t("battle.move_ended", { rule: sel.moveEnded })]);
      this.panel.append(
        h("h3", {}, teamMark(sel.side), ` ${this.names.unit(sel.id)}`),
        h("table", { class: "kv", "data-testid": "unit-details" }, ...rows.map(([k, val]) => h("tr", {}, h("th", {}, k), h("td", {}, val)))),
      );
      if (this.refused && performance.now() < this.refused.until && this.refused.unit === sel.id) {
        this.panel.append(h("p", { class: "why refused-line", "data-testid": "refusal-at-unit" }, this.refused.text,
          ...(this.refused.rule ? [" (", ...ruleLinks(this.refused.rule.split(/[,\s]+/).filter(Boolean)), ")"] : [])));
      }
      if (this.own(sel)) {
        this.panel.append(h("h4", {}, t("battle.orders")),
          ...(this.options ? this.optionOrders(sel, this.options) : this.plainOrders(sel)));
      }
    } else {
      this.panel.append(h("p", { class: "hint" }, t("battle.hover")));
    }
    const rows = m.units.map((u) => h("tr", { class: u.id === this.selected ? "sel" : "", "data-side": u.side, "data-unit": u.id,
      onclick: () => { this.select(u.id); const c = centroid(u.cells); if (this.userMoved) this.centreOn(c.x, c.y); this.renderPanel(); this.draw(); } },
      h("td", {}, teamMark(u.side)), h("td", { class: "name", title: `${this.names.unit(u.id)} · ${formationWord(u.formation)}` }, (this.names.short ?? this.names.unit)(u.id),
        u.moveEnded ? h("span", { class: "move-ended", "data-testid": "move-ended", title: t("battle.move_ended", { rule: u.moveEnded }) }, ` ⏹ ${u.moveEnded}`) : null),
      h("td", {}, u.morale ?? "—"), h("td", {}, isArtillery(u) ? `${u.guns ?? "—"} ⊙` : u.lossTolerance ?? "—")));
    const table = h("details", { class: "unit-list", ...(this.tableOpen ? { open: "" } : {}), ontoggle: () => { this.tableOpen = table.open; } },
      h("summary", {}, tn("n.units", m.units.length)),
      h("table", { class: "units", "data-testid": "unit-table" },
        h("tr", {}, h("th", {}), h("th", {}), h("th", {}, t("unit.morale")), h("th", {}, t("unit.losses"))), ...rows));
    this.panel.append(table);
    if (m.fallen.length) {
      this.panel.append(h("h4", {}, t("battle.fallen")), h("ul", {}, ...m.fallen.map((f) =>
        h("li", {}, teamMark(f.side), ` ${this.names.unit(f.id)}: ${statusWord(f.status)}`))));
    }
    if (this.canOrder && this.mySide && !m.result) this.panel.append(this.retreatOrder());
    if (m.reinforcements.length) {
      this.panel.append(h("h4", {}, t("battle.reinforcements")), h("ul", {}, ...m.reinforcements.map((r) =>
        h("li", {}, teamMark(r.side), ` ${this.names.army(r.name) !== r.name ? this.names.army(r.name) : this.names.army(r.id)}${r.eta ? ` · ${r.eta}` : ""}`))));
    }
    this.panel.scrollTop = keepScroll;
  }
}

/** The cells of a straight run from `a` to `b` (diagonal first, then straight), for a move the engine prices. */
export function straightLine(a: Cell, b: Cell): Cell[] {
  const cells: Cell[] = [a];
  let cur = a;
  while (cur.x !== b.x || cur.y !== b.y) {
    cur = { x: cur.x + Math.sign(b.x - cur.x), y: cur.y + Math.sign(b.y - cur.y) };
    cells.push(cur);
  }
  return cells;
}
