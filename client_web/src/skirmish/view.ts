/** The WWII squad skirmish (issue 21, rules S-*, D-S-*): the 40 × 30 table as SVG — terrain, the objective, every
 * figure the viewer may see marked by its weapon and side, its unit's number beside it and a dashed ring when it is
 * out of its commander's cohesion — with above it the turn's dice (initiative, each side's orders, the roll before
 * each order), whose order it is and how many each side has left, and beside it the orders: a unit or a figure is
 * picked on the table, its move range (full and half move, from the server's `reach`) tinted, a cell clicked to
 * move there or an enemy clicked to fire, the cover the target has named; the owner of hit figures chooses which
 * take the hits; the survival test is listed figure by figure. The server judges every order (refusals are shown
 * in words by the page). */
import { has, t, type MessageKey } from "../i18n";
import { teamWord } from "../i18n/words";
import { clear, h } from "../ui/dom";
import { teamColour } from "../ui/colours";
import { coverAt, readSkirmish, unitMoves, type Cell, type Figure, type SkirmishModel, type Unit } from "./model";

export interface SkirmishActions {
  order(order: Record<string, unknown>): Promise<unknown>;
}

const SVG = "http://www.w3.org/2000/svg";
const C = 20; // one 5 cm cell in SVG units
const TERRAIN: Record<string, { fill: string; stroke: string }> = {
  house: { fill: "#b08d6e", stroke: "#5e4632" },
  wood: { fill: "#7fa56b", stroke: "#4f7440" },
  bushes: { fill: "#c3d9a2", stroke: "#86a765" },
  hedge: { fill: "#6f9a52", stroke: "#3e6428" },
  wall: { fill: "#8d8478", stroke: "#4b453d" },
  road: { fill: "#d8c08e", stroke: "#b39a62" },
};

interface Roll { purpose: string; side: string | null; figure: string | null; unit: string | null; result: number[]; need: number | null; turn: number }

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

function word(prefix: string, id: string): string {
  const key = `${prefix}.${id}`;
  return has(key) ? t(key as MessageKey) : id.replace(/_/g, " ");
}

/** Whether a figure stands on the table: not still to deploy (its reserve, S-3.2, has no place yet), not held back
 * in ambush off the table (S-9.2), not out of action. */
const onTable = (f: Figure): boolean => f.status !== "reserve" && f.status !== "ambush" && f.status !== "out" && f.x >= 0;

/** The short mark of a weapon on its figure (R, S, MG … in English; В, А, П … in Russian). */
export function weaponMark(weapon: string | null, vehicle: string | null): string {
  if (vehicle) return word("sk.mark", "tank");
  return word("sk.mark", weapon ?? "none");
}

export class SkirmishView {
  readonly root: HTMLElement;
  readonly table: SVGSVGElement;
  private readonly bar: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly caption: HTMLElement;
  private model: SkirmishModel = readSkirmish({});
  private myTeam: string | null = null;
  private rolls: Roll[] = [];
  /** the body picked to order: a unit id or a figure id, and the figure it was picked by */
  private picked: { body: string; lead: string; figures: string[] } | null = null;
  private mode: "move" | "move_fire" | "fire" = "move";
  private plan: { to?: Cell; target?: string } = {};
  /** the held-back unit whose ambush is being ordered (S-9.3), if any */
  private ambush: string | null = null;
  private chosenHits = new Set<string>();
  private hitsKey = "";

  constructor(private readonly actions: SkirmishActions, private canOrder: boolean) {
    this.table = svg("svg", { class: "skirmish-table", "data-testid": "skirmish-table", role: "img" });
    this.table.addEventListener("click", (e) => this.onClick(e));
    this.bar = h("div", { class: "skirmish-bar", "data-testid": "skirmish-bar" });
    this.caption = h("div", { class: "map-status", "data-testid": "skirmish-caption", "aria-live": "polite" });
    this.panel = h("div", { class: "skirmish-panel", "data-testid": "skirmish-panel" });
    this.root = h("div", { class: "skirmish-view", "data-testid": "skirmish-view" },
      h("div", { class: "skirmish-main" }, this.bar, h("div", { class: "skirmish-table-wrap" }, this.table), this.caption), this.panel);
  }

  get modelForTests(): SkirmishModel {
    return this.model;
  }

  private shownState: Record<string, unknown> | null = null;

  setState(state: Record<string, unknown>, myTeam: string | null): void {
    if (state === this.shownState && myTeam === this.myTeam) return;  // the page redrew with the same view (see BattleView)
    this.shownState = state;
    this.model = readSkirmish(state);
    this.myTeam = myTeam;
    if (this.picked && !this.canPick(this.picked)) this.picked = null;
    if (this.ambush && !this.model.ambushes.has(this.ambush)) this.ambush = null;
    const d = this.model.decision;
    const key = d ? `${d.owner}:${d.candidates.join(",")}:${d.count}` : "";
    if (key !== this.hitsKey) { this.hitsKey = key; this.chosenHits = new Set(); }
    if (d) this.chosenHits = new Set([...this.chosenHits].filter((id) => d.candidates.includes(id)));
    this.render();
  }

  setCanOrder(canOrder: boolean): void {
    if (canOrder === this.canOrder) return;
    this.canOrder = canOrder;
    this.render();
  }

  /** An event as a replay plays it (the replay player's target): its dice join the bar and the survival list. */
  play(kind: string, data: Record<string, unknown>): void {
    if (kind === "turn_started" || kind === "roll") {
      const turn = kind === "turn_started" && typeof data.turn === "number" ? data.turn : this.rolls[this.rolls.length - 1]?.turn ?? this.model.turn;
      if (kind === "turn_started") this.rolls = this.rolls.filter((r) => r.turn < turn);
      else this.rolls.push({ purpose: String(data.purpose ?? ""), side: typeof data.side === "string" ? data.side : null, figure: typeof data.figure === "string" ? data.figure : null,
        unit: typeof data.unit === "string" ? data.unit : null, result: Array.isArray(data.result) ? data.result.filter((x): x is number => typeof x === "number") : [],
        need: typeof data.need === "number" ? data.need : null, turn: this.model.turn });
      this.renderBar();
      this.renderPanel();
    }
  }

  /** The room's events this client saw: the dice of the turn (initiative, orders, next order, survival). */
  setEvents(events: readonly { kind: string; data: Record<string, unknown> }[]): void {
    const rolls: Roll[] = [];
    let turn = 0;
    for (const e of events) {
      if (e.kind === "turn_started" && typeof e.data.turn === "number") turn = e.data.turn;
      if (e.kind !== "roll") continue;
      const d = e.data;
      rolls.push({ purpose: String(d.purpose ?? ""), side: typeof d.side === "string" ? d.side : null, figure: typeof d.figure === "string" ? d.figure : null,
        unit: typeof d.unit === "string" ? d.unit : null, result: Array.isArray(d.result) ? d.result.filter((x): x is number => typeof x === "number") : [],
        need: typeof d.need === "number" ? d.need : null, turn });
    }
    this.rolls = rolls;
    this.renderBar();
    this.renderPanel();
  }

  private mine(): boolean {
    return this.canOrder && this.myTeam !== null && this.model.active.includes(this.myTeam);
  }

  private figure(id: string | null | undefined): Figure | undefined {
    return id ? this.model.figures.find((f) => f.id === id) : undefined;
  }

  /** A figure as the player knows it: its unit's name and its role ("1. Gruppe · machine gunner"); an enemy's unit
   * is not told (the view sends only the viewer's own units), so its side stands for it. Never the raw id. */
  private figureName(id: string): string {
    const f = this.figure(id);
    if (!f) return id;
    const u = this.model.units.find((x) => x.id === f.unit);
    return `${u ? u.name : teamWord(f.side)} · ${word("sk.figrole", f.role)}`;
  }

  private canPick(p: { body: string; lead: string }): boolean {
    const f = this.figure(p.lead);
    return !!f && f.own && f.status === "in_action" && !f.ordered && !!this.model.reach?.has(p.lead);
  }

  // --- drawing ------------------------------------------------------------------------------------------------

  private render(): void {
    this.renderBar();
    this.renderTable();
    this.renderPanel();
  }

  private renderBar(): void {
    const m = this.model;
    clear(this.bar);
    const stage = word("sk.stage", m.stage);
    const whose = m.result ? (m.result.winner ? t("sk.won", { team: teamWord(m.result.winner) }) : t("sk.over"))
      : m.active.length ? (this.myTeam && m.active.includes(this.myTeam) ? t(m.decision ? "sk.your_hits" : "sk.your_order") : t("sk.whose", { team: teamWord(m.active[0]) }))
        : "";
    const dice = (team: string, purpose: string) => {
      const r = [...this.rolls].reverse().find((x) => x.purpose === purpose && x.side === team && x.turn === m.turn);
      // the orders die is the number of orders rolled (S-5.2): shown from the view when this client missed the roll
      const face = r ? r.result[0] : purpose === "orders" && m.turn ? m.sides.find((x) => x.team === team)?.ordersRolled : undefined;
      return face !== undefined ? h("span", { class: "die", title: word("roll", purpose) }, String(face)) : null;
    };
    this.bar.append(
      h("span", { class: "sk-turn", "data-testid": "sk-turn" }, m.turn ? t("sk.turn", { n: m.turn, of: m.turns }) : stage),
      h("span", { class: "sk-stage" }, m.turn ? stage : ""),
      ...m.sides.map((s) => h("span", { class: `sk-side${m.active.includes(s.team) ? " acting" : ""}`, "data-testid": `sk-side-${s.team}`,
        style: `border-color:${teamColour(s.team).fill}` },
      h("b", { style: `color:${teamColour(s.team).fill}` }, `${teamColour(s.team).glyph} ${teamWord(s.team)}`),
      ` ${word("sk.role", s.role)}`,
      m.stage === "orders" || m.turn ? h("span", { class: "sk-orders", "data-testid": `sk-orders-${s.team}` },
        ` · ${t("sk.orders_left", { left: s.ordersLeft, of: s.ordersRolled })}`) : null,
      m.initiative === s.team ? h("span", { class: "sk-init", title: t("sk.initiative") }, " ★") : null,
      dice(s.team, "initiative"), dice(s.team, "orders"))),
      h("span", { class: "sk-whose", "data-testid": "sk-whose" }, whose),
    );
    const next = [...this.rolls].reverse().find((r) => r.purpose === "next_order" && r.turn === m.turn);
    if (next && m.stage === "orders") {
      const pair = this.rolls.filter((r) => r.purpose === "next_order" && r.turn === m.turn).slice(-2);
      this.bar.append(h("span", { class: "sk-next", "data-testid": "sk-next-roll" }, t("sk.next_roll"), " ",
        ...pair.map((r) => h("span", { class: "die", style: `border-color:${teamColour(r.side).fill}`, title: teamWord(r.side) }, String(r.result[0] ?? "")))));
    }
  }

  private renderTable(): void {
    const m = this.model;
    const t0 = this.table;
    t0.setAttribute("viewBox", `0 0 ${m.width * C} ${m.height * C}`);
    t0.setAttribute("aria-label", t("sk.table", { w: m.width, h: m.height }));
    t0.replaceChildren();
    t0.append(svg("rect", { x: 0, y: 0, width: m.width * C, height: m.height * C, fill: "#ece6c8" }));
    // the deployment zones' edges, faint: the defender's rows at the top, the attacker's at the bottom (S-3)
    const grid = svg("g", { class: "grid", stroke: "#d9d0ae", "stroke-width": 0.6 });
    for (let x = 0; x <= m.width; x += 1) grid.append(svg("line", { x1: x * C, y1: 0, x2: x * C, y2: m.height * C, ...(x % 5 ? {} : { stroke: "#c7bb92" }) }));
    for (let y = 0; y <= m.height; y += 1) grid.append(svg("line", { x1: 0, y1: y * C, x2: m.width * C, y2: y * C, ...(y % 5 ? {} : { stroke: "#c7bb92" }) }));
    t0.append(grid);
    for (const e of m.elements) {
      const style = TERRAIN[e.kind] ?? { fill: "#ddd", stroke: "#999" };
      const g = svg("g", { class: `terrain ${e.kind}`, "data-terrain": e.id });
      g.append(svg("rect", { x: e.x * C, y: e.y * C, width: e.w * C, height: e.h * C, fill: style.fill, stroke: style.stroke, "stroke-width": e.kind === "house" ? 2 : 1, rx: e.kind === "wood" || e.kind === "bushes" ? 6 : 0 }));
      if (e.id === m.objective || e.objective) g.append(svg("rect", { x: e.x * C - 4, y: e.y * C - 4, width: e.w * C + 8, height: e.h * C + 8, fill: "none", stroke: "#d4a017", "stroke-width": 3, "stroke-dasharray": "8 4" }));
      g.append(svg("title", {}, `${word("sk.terrain", e.kind)}${e.id === m.objective ? ` · ${t("sk.objective")}` : ""}`));
      t0.append(g);
    }
    // the move range of the picked body: full move tinted, half move (before firing) stronger
    const picked = this.picked;
    if (picked && this.mine()) {
      const r = m.reach?.get(picked.lead);
      if (r) {
        const half = new Set(r.half.map(([x, y]) => `${x},${y}`));
        const wanted = this.mode === "move_fire" ? r.half : r.full;
        const g = svg("g", { class: "reach", "data-testid": "sk-reach", "data-cells": String(wanted.length) });
        for (const [x, y] of wanted) g.append(svg("rect", { x: x * C + 1, y: y * C + 1, width: C - 2, height: C - 2, class: "reach-cell", "data-cell": `${x},${y}`,
          fill: half.has(`${x},${y}`) ? "rgba(40,120,60,.35)" : "rgba(40,120,60,.16)" }));
        t0.append(g);
      }
    }
    // where the enemy was last seen (D-S-7): hollow marks
    for (const s of m.lastSeen) {
      t0.append(svg("circle", { cx: (s.x + 0.5) * C, cy: (s.y + 0.5) * C, r: C * 0.32, fill: "none", stroke: "#777", "stroke-dasharray": "3 3", class: "last-seen" },
        svg("title", {}, t("sk.last_seen", { turn: s.turn }))));
    }
    const cohesive = new Set(m.units.flatMap((u) => u.inCohesion));
    const withUnit = new Set(m.units.map((u) => u.id));
    const selected = new Set(picked?.figures ?? []);
    const hitChoice = this.model.decision && this.myTeam === this.model.decision.owner ? new Set(this.model.decision.candidates) : new Set<string>();
    for (const f of m.figures) {
      if (!onTable(f)) continue;
      const colour = teamColour(f.side);
      const g = svg("g", { class: `figure ${f.status}`, "data-figure": f.id, "data-testid": `fig-${f.id}`, "data-side": f.side, "data-status": f.status, cursor: "pointer" });
      const cx = (f.x + 0.5) * C;
      const cy = (f.y + 0.5) * C;
      if (f.vehicle) {
        const xs = f.cells.map((c) => c[0]);
        const ys = f.cells.map((c) => c[1]);
        const x0 = Math.min(...xs, f.x);
        const y0 = Math.min(...ys, f.y);
        g.append(svg("rect", { x: x0 * C + 2, y: y0 * C + 2, width: (Math.max(...xs, f.x) - x0 + 1) * C - 4, height: (Math.max(...ys, f.y) - y0 + 1) * C - 4, rx: 4, fill: colour.fill, stroke: "#222", "stroke-width": 2 }));
      } else {
        g.append(svg("circle", { cx, cy, r: C * 0.42, fill: f.status === "down" ? "#fff" : colour.fill, stroke: colour.fill, "stroke-width": f.status === "down" ? 3 : 1.5 }));
      }
      g.append(svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: f.status === "down" ? colour.fill : colour.ink, "pointer-events": "none" }, weaponMark(f.weapon, f.vehicle)));
      if (f.own && withUnit.has(f.unit) && !cohesive.has(f.id) && f.status === "in_action") {
        g.append(svg("circle", { cx, cy, r: C * 0.5, fill: "none", stroke: "#d4380d", "stroke-width": 1.5, "stroke-dasharray": "3 2", class: "out-of-cohesion" }));
      }
      if (f.ordered) g.append(svg("circle", { cx: cx + C * 0.36, cy: cy - C * 0.36, r: 3, fill: "#333" }));
      if (selected.has(f.id)) g.append(svg("circle", { cx, cy, r: C * 0.55, fill: "none", stroke: "#f3b400", "stroke-width": 3 }));
      if (hitChoice.has(f.id)) g.append(svg("circle", { cx, cy, r: C * 0.58, fill: "none", stroke: this.chosenHits.has(f.id) ? "#b3261e" : "#e08a7d", "stroke-width": this.chosenHits.has(f.id) ? 4 : 2, class: "hit-candidate" }));
      if (this.plan.target === f.id) g.append(svg("path", { d: `M${cx - 9},${cy} h18 M${cx},${cy - 9} v18`, stroke: "#b3261e", "stroke-width": 2.5 }));
      g.append(svg("title", {}, this.describe(f)));
      t0.append(g);
    }
    // the unit's number by its commander: figures by unit
    for (const u of m.units) {
      const c = this.figure(u.commander);
      if (!c || !onTable(c)) continue;
      t0.append(svg("text", { x: c.x * C + C * 0.95, y: c.y * C + 6, "font-size": 9, fill: "#222", "font-weight": 700, "pointer-events": "none", class: "unit-label" }, u.id));
    }
    const spots = this.ambush ? this.model.ambushes.get(this.ambush) : undefined;
    if (spots) for (const [fid, c] of spots) {
      t0.append(svg("circle", { cx: (c[0] + 0.5) * C, cy: (c[1] + 0.5) * C, r: C * 0.38, fill: "rgba(31,78,156,.35)", stroke: "#1f4e9c", "stroke-dasharray": "3 2", class: "ghost ambush-spot", "data-spot": fid }));
    }
    if (this.plan.to && picked) {
      const moves = unitMoves(m, picked.figures, picked.lead, this.plan.to, this.mode === "move_fire");
      for (const mv of moves) t0.append(svg("circle", { cx: (mv.to[0] + 0.5) * C, cy: (mv.to[1] + 0.5) * C, r: C * 0.36, fill: "rgba(243,180,0,.5)", stroke: "#a07800", class: "ghost" }));
    }
    const byTeam = new Map<string, number>();
    for (const f of m.figures) if (f.status !== "out" && f.status !== "reserve" && f.x >= 0) byTeam.set(f.side, (byTeam.get(f.side) ?? 0) + 1);
    t0.dataset.figures = [...byTeam].map(([k, v]) => `${k}:${v}`).join(" ");
  }

  private describe(f: Figure): string {
    const u = this.model.units.find((x) => x.id === f.unit);
    const cover = coverAt(this.model, f.x, f.y);
    return [`${teamWord(f.side)} · ${u ? `${u.name} · ` : ""}${word("sk.figrole", f.role)}`, f.vehicle ? word("sk.vehicle", f.vehicle) : word("sk.weapon", f.weapon ?? "none"),
      word("sk.status", f.status), cover?.cover ? t("sk.cover", { kind: word("sk.terrain", cover.kind), n: cover.cover }) : ""].filter(Boolean).join(" · ");
  }

  // --- input ----------------------------------------------------------------------------------------------------

  private cellOf(e: MouseEvent): Cell | null {
    const box = this.table.getBoundingClientRect();
    if (!box.width || !box.height) return null;
    const x = Math.floor(((e.clientX - box.left) / box.width) * this.model.width);
    const y = Math.floor(((e.clientY - box.top) / box.height) * this.model.height);
    return x >= 0 && y >= 0 && x < this.model.width && y < this.model.height ? [x, y] : null;
  }

  private onClick(e: MouseEvent): void {
    const target = (e.target as Element).closest?.("[data-figure]");
    const fid = target?.getAttribute("data-figure") ?? null;
    const f = this.figure(fid);
    const d = this.model.decision;
    if (f && d && this.mine() && d.owner === this.myTeam && d.candidates.includes(f.id)) {
      if (this.chosenHits.has(f.id)) this.chosenHits.delete(f.id);
      else if (this.chosenHits.size < d.count) this.chosenHits.add(f.id);
      this.render();
      return;
    }
    if (f && f.own && this.mine()) {
      this.pick(f, this.picked?.lead === f.id && this.picked.body !== f.id ? "figure" : "unit");
      return;
    }
    if (f && !f.own && this.ambush && this.mine()) {
      this.plan = { target: this.plan.target === f.id ? undefined : f.id };
      this.render();
      return;
    }
    if (f && !f.own && this.picked && this.mine()) {
      this.plan = { ...this.plan, target: f.id };
      if (this.mode === "move") this.mode = this.plan.to ? "move_fire" : "fire";
      this.render();
      return;
    }
    const cell = this.cellOf(e);
    if (cell && this.picked && this.mine()) {
      const r = this.model.reach?.get(this.picked.lead);
      const pool = this.mode === "move_fire" ? r?.half : r?.full;
      if (pool?.some((c) => c[0] === cell[0] && c[1] === cell[1])) {
        this.plan = { ...this.plan, to: cell };
        if (this.mode === "fire") this.mode = "move_fire";
        this.render();
        return;
      }
    }
    const cover = cell ? coverAt(this.model, cell[0], cell[1]) : null;
    this.caption.textContent = f ? this.describe(f) : cell ? `${cell[0]}-${cell[1]}${cover ? ` · ${word("sk.terrain", cover.kind)} · ${t("sk.cover_n", { n: cover.cover })}` : ""}` : "";
  }

  /** Pick a figure's unit (its commander's order: the figures in cohesion), or the figure alone (S-6.1). */
  pick(f: Figure, how: "unit" | "figure"): void {
    const u: Unit | undefined = this.model.units.find((x) => x.id === f.unit);
    if (u?.demoralised) { // D-S-12: its figures may only fall back, which the panel offers for the whole unit
      this.picked = null;
      this.ambush = null;
      this.caption.textContent = t("sk.demoralised_only", { unit: u.name });
      this.render();
      return;
    }
    // S-6.3: a unit whose sub-unit has had its order this turn (a platoon whose squad has) takes no order of its own
    const under = (x: Unit): Unit[] => x.children.flatMap((c) => { const k = this.model.units.find((v) => v.id === c); return k ? [k, ...under(k)] : []; });
    const unitFree = u && !u.ordered && !under(u).some((k) => k.ordered) && !u.demoralised && u.commander && this.figure(u.commander)?.status === "in_action" && !this.figure(u.commander)?.ordered && u.inCohesion.includes(f.id);
    if (how === "unit" && u && unitFree) {
      const figures = u.inCohesion.filter((id) => this.model.reach?.has(id));
      this.picked = { body: u.id, lead: u.commander ?? f.id, figures };
    } else {
      this.picked = { body: f.id, lead: f.id, figures: [f.id] };
    }
    this.plan = {};
    this.mode = "move";
    this.ambush = null;
    this.caption.textContent = this.describe(f);
    this.render();
  }

  private send(order: Record<string, unknown>): void {
    void this.actions.order(order).then(() => { this.picked = null; this.ambush = null; this.plan = {}; this.mode = "move"; this.chosenHits = new Set(); this.render(); }).catch(() => {});
  }

  private planned(): Record<string, unknown> | null {
    const spots = this.ambush ? this.model.ambushes.get(this.ambush) : undefined;
    if (this.ambush && spots) {
      const order: Record<string, unknown> = { type: "ambush", unit: this.ambush, figures: Object.fromEntries(spots) };
      if (this.plan.target) Object.assign(order, { target: this.plan.target, group: true });
      return order;
    }
    const p = this.picked;
    if (!p) return null;
    const moves = this.plan.to ? unitMoves(this.model, p.figures, p.lead, this.plan.to, this.mode === "move_fire") : [];
    if (this.mode === "move" && moves.length) return { type: "move", body: p.body, moves };
    if (this.mode === "fire" && this.plan.target) return { type: "fire", body: p.body, target: this.plan.target, group: true };
    if (this.mode === "move_fire" && this.plan.target && moves.length) return { type: "move_fire", body: p.body, moves, target: this.plan.target };
    return null;
  }

  // --- the panel ------------------------------------------------------------------------------------------------

  private renderPanel(): void {
    const m = this.model;
    clear(this.panel);
    if (m.result) {
      this.panel.append(h("h3", {}, t("sk.result")), h("p", { "data-testid": "sk-result" },
        m.result.winner ? t("sk.won", { team: teamWord(m.result.winner) }) : t("sk.over"), " · ", word("sk.reason", m.result.reason.replace(/ /g, "_"))));
    }
    const mine = this.mine();
    if (mine && m.stage === "terrain") {
      this.panel.append(h("h3", {}, t("sk.stage.terrain")), h("p", {}, t("sk.terrain_help", { n: m.terrainLeft })),
        h("button", { "data-testid": "sk-auto-terrain", onclick: () => this.send({ type: "auto_terrain" }) }, t("sk.auto_terrain")));
    }
    if (mine && m.stage === "deploy") {
      this.panel.append(h("h3", {}, t("sk.stage.deploy")), h("p", {}, t("sk.deploy_help")),
        h("button", { "data-testid": "sk-deploy", onclick: () => this.send({ type: "deploy" }) }, t("sk.deploy")));
    }
    const d = m.decision;
    if (d && this.myTeam === d.owner && mine) {
      const list = h("ul", { class: "sk-hits", "data-testid": "sk-hits" }, ...d.candidates.map((id) => {
        const f = this.figure(id);
        const box = h("input", { type: "checkbox", "data-testid": `sk-hit-${id}`, ...(this.chosenHits.has(id) ? { checked: true } : {}),
          onchange: () => { if (this.chosenHits.has(id)) this.chosenHits.delete(id); else if (this.chosenHits.size < d.count) this.chosenHits.add(id); this.render(); } });
        return h("li", {}, h("label", {}, box, ` ${id} · ${f ? word("sk.figrole", f.role) : ""}`));
      }));
      this.panel.append(h("h3", {}, t("sk.hits_title")), h("p", {}, t(d.tier === "out" ? "sk.hits_help_out" : "sk.hits_help", { n: d.count, of: d.candidates.length })), list,
        h("div", { class: "buttons" },
          h("button", { "data-testid": "sk-hits-send", ...(this.chosenHits.size === d.count ? {} : { disabled: true }),
            onclick: () => this.send({ type: "hits", figures: [...this.chosenHits] }) }, t("sk.hits_send", { n: this.chosenHits.size, of: d.count }))));
    } else if (m.hitsPending && !(this.myTeam === m.hitsPending.owner)) {
      this.panel.append(h("p", { class: "muted" }, t("sk.hits_waiting", { team: teamWord(m.hitsPending.owner), n: m.hitsPending.count })));
    }
    if (mine && m.stage === "orders" && !d) this.panel.append(this.orderPanel());
    this.panel.append(this.survivalPanel(), this.unitsPanel(), this.legend());
  }

  private orderPanel(): HTMLElement {
    const p = this.picked;
    const box = h("section", { class: "sk-order", "data-testid": "sk-order" }, h("h3", {}, t("sk.your_order")));
    if (this.ambush) {
      const unit = this.model.units.find((u) => u.id === this.ambush);
      box.append(h("p", { "data-testid": "sk-picked" }, t("sk.ambush_picked", { unit: unit?.name ?? this.ambush })), h("p", { class: "muted" }, t("sk.help.ambush")));
      if (this.plan.target) box.append(h("p", { "data-testid": "sk-target" }, t("sk.target", { figure: this.figureName(this.plan.target) })));
      box.append(h("div", { class: "buttons" },
        h("button", { "data-testid": "sk-send", onclick: () => { const o = this.planned(); if (o) this.send(o); } }, t("sk.send")),
        h("button", { onclick: () => { this.ambush = null; this.plan = {}; this.render(); } }, t("sk.cancel"))));
    } else if (!p) {
      box.append(h("p", {}, t("sk.pick_help")));
    } else {
      const u = this.model.units.find((x) => x.id === p.body);
      const lead = this.figure(p.lead);
      box.append(h("p", { "data-testid": "sk-picked" }, u ? t("sk.picked_unit", { unit: u.name, n: p.figures.length }) : t("sk.picked_figure", { figure: this.figureName(p.body) })),
        h("div", { class: "buttons inline" },
          ...(["move", "fire", "move_fire"] as const).map((mode) => h("button", { "data-testid": `sk-mode-${mode}`, "aria-pressed": String(this.mode === mode),
            class: this.mode === mode ? "active" : "", onclick: () => { this.mode = mode; this.render(); } }, t(`sk.mode.${mode}`))),
          u && lead ? h("button", { "data-testid": "sk-pick-figure", onclick: () => this.pick(lead, "figure") }, t("sk.alone")) : null),
        h("p", { class: "muted" }, t(`sk.help.${this.mode}`)));
      if (this.plan.target) {
        const tf = this.figure(this.plan.target);
        const cover = tf ? coverAt(this.model, tf.x, tf.y) : null;
        box.append(h("p", { "data-testid": "sk-target" }, t("sk.target", { figure: this.figureName(this.plan.target) }), cover?.cover ? ` · ${t("sk.cover", { kind: word("sk.terrain", cover.kind), n: cover.cover })}` : ` · ${t("sk.no_cover")}`));
      }
      const order = this.planned();
      box.append(h("div", { class: "buttons" },
        h("button", { "data-testid": "sk-send", ...(order ? {} : { disabled: true }), onclick: () => { if (order) this.send(order); } }, t("sk.send")),
        h("button", { onclick: () => { this.picked = null; this.plan = {}; this.render(); } }, t("sk.cancel"))));
    }
    const falling = this.model.units.filter((u) => u.demoralised && this.model.figures.some((f) => f.own && f.unit === u.id && f.status === "in_action"));
    box.append(h("div", { class: "buttons" },
      ...[...this.model.ambushes.keys()].map((u) => h("button", { "data-testid": `sk-ambush-${u}`,
        onclick: () => { this.ambush = u; this.picked = null; this.plan = {}; this.render(); } }, t("sk.ambush", { unit: this.model.units.find((x) => x.id === u)?.name ?? u }))),
      ...falling.map((u) => h("button", { "data-testid": `sk-fall-back-${u.id}`, onclick: () => this.send({ type: "fall_back", body: u.id }) }, t("sk.fall_back", { unit: u.name }))),
      h("button", { "data-testid": "sk-pass", onclick: () => this.send({ type: "pass" }) }, t("sk.pass"))));
    return box;
  }

  /** D-S-12: this turn's survival test, figure by figure (the die, what it needed, whether the figure stood up). */
  private survivalPanel(): HTMLElement {
    const rolls = this.rolls.filter((r) => r.purpose === "survival");
    const last = rolls.length ? rolls[rolls.length - 1]!.turn : 0;
    const now = rolls.filter((r) => r.turn === last);
    if (!now.length) return h("span", {});
    return h("section", { class: "sk-survival", "data-testid": "sk-survival" }, h("h3", {}, t("sk.survival", { turn: last })),
      h("ul", {}, ...now.map((r) => {
        const ok = (r.result[0] ?? 0) >= (r.need ?? 7);
        return h("li", { class: ok ? "ok" : "bad" }, `${teamColour(r.side).glyph} ${r.figure ?? ""}: `, h("span", { class: "die" }, String(r.result[0] ?? "")),
          ` ${t("sk.needs", { n: r.need ?? 0 })} — ${t(ok ? "sk.stands" : "sk.falls")}`);
      })));
  }

  private unitsPanel(): HTMLElement {
    const own = this.model.units;
    if (!own.length) return h("span", {});
    return h("section", { class: "sk-units" }, h("h3", {}, t("sk.units")),
      h("table", { class: "units", "data-testid": "sk-units" }, ...own.filter((u) => u.members.length).map((u) => {
        const alive = u.members.filter((id) => { const f = this.figure(id); return f && f.status !== "out"; }).length;
        const held = u.members.every((id) => this.figure(id)?.status === "ambush");
        return h("tr", { "data-unit": u.id },
          h("td", {}, h("span", { style: `color:${teamColour(this.figure(u.members[0])?.side).fill}` }, u.id), " ", u.name),
          h("td", { class: "num", title: t("sk.cohesion_title") }, held ? t("sk.held") : alive ? t("sk.cohesion", { n: u.inCohesion.length, of: alive }) : t("sk.status.out")),
          h("td", {}, u.demoralised ? t("sk.demoralised") : u.ordered ? t("sk.ordered") : ""));
      })));
  }

  private legend(): HTMLElement {
    const weapons = [...new Set(this.model.figures.map((f) => (f.vehicle ? "tank" : f.weapon ?? "none")))].sort();
    return h("details", { class: "sk-legend" }, h("summary", {}, t("sk.legend")),
      h("ul", {}, ...weapons.map((w) => h("li", {}, h("b", {}, word("sk.mark", w)), ` ${w === "tank" ? word("sk.vehicle", "medium_tank") : word("sk.weapon", w)}`)),
        h("li", {}, t("sk.legend.down")), h("li", {}, t("sk.legend.cohesion")), h("li", {}, t("sk.legend.objective")),
        h("li", {}, t("sk.legend.move", { n: this.model.infantryMove })), h("li", {}, t("sk.legend.dice")), h("li", {}, t("sk.legend.last_seen"))));
  }
}
