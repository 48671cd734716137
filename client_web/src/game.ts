/** The game page: one websocket session (token from the join link), the rooms it may follow, and around the map or
 * field the clocks, channels, turn log, reconnaissance, banners and — for the umpire — the moderator's desk. */
import { BattleView } from "./battle/view";
import { CampaignView } from "./campaign/view";
import { readCampaign } from "./campaign/model";
import { lang, onLangChange, setLang, t } from "./i18n";
import { CommandError, Connection, websocketUrl, type Command, type ConnectionState } from "./net/connection";
import { Session } from "./net/session";
import { ChannelsPanel } from "./ui/channels";
import { ClocksPanel } from "./ui/clocks";
import { append, clear, formatMs, h } from "./ui/dom";
import { BATTLE_LOG_KINDS, describeEvent } from "./ui/log";
import { moderatorDesk } from "./ui/moderator";

export class GamePage {
  readonly root: HTMLElement;
  readonly conn: Connection;
  readonly session = new Session();
  private readonly header = h("header", { class: "game-header" });
  private readonly banners = h("div", { class: "banners" });
  private readonly roomTabs = h("nav", { class: "room-tabs", "data-testid": "room-tabs" });
  private readonly stage = h("div", { class: "stage" });
  private readonly side = h("aside", { class: "sidebar" });
  private readonly errorLine = h("div", { class: "error-line", "data-testid": "error-line" });
  private readonly clocks = new ClocksPanel();
  private readonly logList = h("ol", { class: "log", "data-testid": "turn-log" });
  private connState: ConnectionState = "connecting";
  private retryAt: number | null = null;
  private attempt = 0;
  private failure = "";
  private current: string | null = null;
  private views = new Map<string, CampaignView | BattleView>();
  private channels = new Map<string, ChannelsPanel>();
  private desk: (HTMLElement & { refresh?: () => void }) | null = null;
  private timer = 0;

  constructor(token: string, private readonly back: () => void) {
    this.conn = new Connection({ url: websocketUrl(location), token });
    this.root = h("div", { class: "game", "data-testid": "game" }, this.header, this.banners, this.roomTabs,
      h("div", { class: "game-body" }, this.stage, this.side), this.errorLine);
    this.conn.on("state", (state, detail) => {
      this.connState = state;
      this.attempt = detail.attempt;
      this.retryAt = detail.retryInMs !== null ? Date.now() + detail.retryInMs : null;
      if (state === "failed") this.failure = detail.reason;
      this.renderBanners();
    });
    this.conn.on("welcome", (w) => {
      this.session.onWelcome(w);
      for (const room of w.rooms) void this.conn.join(room).catch(() => {});
      this.current ??= w.rooms.find((r) => !r.startsWith("s-")) ?? w.rooms[0] ?? null;
      this.renderAll();
    });
    this.conn.on("snapshot", (s) => this.session.onSnapshot(s));
    this.conn.on("event", (e) => {
      if (this.session.onEvent(e)) this.scheduleResync(e.room);
    });
    this.conn.on("joined", (j) => this.session.onJoined(j));
    this.conn.on("error", (e) => this.showError(e.code, e.message, e.rule));
    this.session.subscribe((room) => {
      this.followSecretModule();
      if (room === null || room === this.current) this.renderAll();
      else this.renderRoomTabs();
    });
    onLangChange(() => this.rebuild());
    this.timer = window.setInterval(() => this.tick(), 250);
    this.renderAll();
    this.conn.connect();
  }

  private resyncTimers = new Map<string, number>();

  /** The engines' events say what happened, not what each viewer now sees: after a burst of them, fetch this
   * viewer's new projection once. */
  private scheduleResync(room: string): void {
    if (this.resyncTimers.has(room)) return;
    this.resyncTimers.set(room, window.setTimeout(() => {
      this.resyncTimers.delete(room);
      void this.conn.resync(room).catch(() => {});
    }, 120));
  }

  destroy(): void {
    window.clearInterval(this.timer);
    this.conn.close();
  }

  private send(cmd: Command): Promise<unknown> {
    this.errorLine.textContent = "";
    return this.conn.send(cmd).catch((exc: unknown) => {
      if (exc instanceof CommandError) this.showError(exc.code, exc.message, exc.rule);
      throw exc;
    });
  }

  private showError(code: string, message: string, rule: string | null): void {
    this.errorLine.textContent = rule ? t("game.error.rule", { code, rule, message }) : t("game.error", { code, message });
  }

  /** A player sent to the secret module mid-session enters its room (D-N-14); the server lets them in. */
  private followSecretModule(): void {
    const w = this.session.welcome;
    if (!w || w.role !== "player" || !this.locked) return;
    const room = `s-${w.campaign}`;
    if (!w.rooms.includes(room)) {
      w.rooms.push(room);
      void this.conn.join(room).catch(() => {});
    }
  }

  private get locked(): boolean {
    const w = this.session.welcome;
    return !!(w?.player && this.session.activeLockouts(this.conn.serverNow()).some((l) => l.player === w.player));
  }

  /** Language switch: views are rebuilt so that every label is in the new language. */
  private rebuild(): void {
    this.views.clear();
    this.channels.clear();
    this.desk = null;
    this.renderAll();
  }

  private tick(): void {
    this.renderClocks();
    this.renderBanners();
  }

  private renderAll(): void {
    this.renderHeader();
    this.renderBanners();
    this.renderRoomTabs();
    this.renderStage();
    this.renderSide();
  }

  private renderHeader(): void {
    const w = this.session.welcome;
    const room = this.current ? this.session.room(this.current) : null;
    const turn = room ? readCampaign(room.state).turn : null;
    clear(this.header);
    append(this.header,
      h("a", { href: "#", class: "brand", onclick: (e: globalThis.Event) => { e.preventDefault(); this.back(); } }, t("app.title")),
      w ? h("span", { class: "who", "data-testid": "who" },
        `${t(`role.${w.role}`)}${w.team ? ` · ${w.team}` : ""}${w.player ? ` · ${w.player}` : ""}`) : null,
      turn !== null ? h("span", { class: "turn" }, t("game.turn", { n: turn })) : null,
      this.clocks.root,
      w?.role === "player" && room?.active.includes(w.team ?? "") && !this.locked
        ? h("button", { class: "end-turn", "data-testid": "end-turn", onclick: () => void this.send({ t: "end_turn", room: room.id }).catch(() => {}) }, t("game.end_turn"))
        : null,
      h("button", { class: "lang", "data-testid": "lang", onclick: () => setLang(lang() === "en" ? "ru" : "en") }, t("lang.switch")),
    );
    this.renderClocks();
  }

  private renderClocks(): void {
    const room = this.current ? this.session.room(this.current) : null;
    if (!room) return;
    this.clocks.render(room.clocks, room.clocksAt, this.conn.serverNow(), room.active, this.session.welcome?.team ?? null);
  }

  private renderBanners(): void {
    clear(this.banners);
    if (this.connState === "reconnecting") {
      const s = this.retryAt !== null ? Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000)) : 0;
      this.banners.append(h("div", { class: "banner warn", "data-testid": "conn-banner" },
        this.retryAt !== null && s > 0 ? t("conn.reconnecting", { s, n: this.attempt }) : t("conn.reconnecting.now")));
    } else if (this.connState === "connecting") {
      this.banners.append(h("div", { class: "banner info", "data-testid": "conn-banner" }, t("conn.connecting")));
    } else if (this.connState === "failed") {
      this.banners.append(h("div", { class: "banner error", "data-testid": "conn-banner" }, t("conn.failed", { reason: this.failure })));
    }
    const now = this.conn.serverNow();
    const me = this.session.welcome?.player;
    for (const l of this.session.activeLockouts(now)) {
      const time = formatMs(l.untilMs - now);
      this.banners.append(l.player === me
        ? h("div", { class: "banner secret mine", "data-testid": "secret-banner" }, t("secret.you", { time }), l.reason ? ` (${l.reason})` : "")
        : h("div", { class: "banner secret", "data-testid": "secret-banner" }, t("secret.other", { player: l.player, time })));
    }
  }

  private renderRoomTabs(): void {
    clear(this.roomTabs);
    const rooms = this.session.welcome?.rooms ?? [];
    if (rooms.length < 2) return;
    for (const id of rooms) {
      const r = this.session.room(id);
      const unread = [...r.unread.values()].reduce((a, b) => a + b, 0);
      this.roomTabs.append(h("button", { class: `tab${id === this.current ? " active" : ""}`, "data-testid": `room-${id}`,
        onclick: () => { this.current = id; this.renderAll(); } }, id, unread ? h("span", { class: "unread" }, String(unread)) : null));
    }
  }

  private renderStage(): void {
    const id = this.current;
    if (!id) {
      clear(this.stage);
      this.stage.append(h("p", { class: "muted" }, t("game.waiting")));
      return;
    }
    const room = this.session.room(id);
    const w = this.session.welcome;
    const canOrder = w?.role === "player" || w?.role === "moderator";
    let view = this.views.get(id);
    const wantBattle = room.kind === "battle";
    if (!view || (wantBattle !== view instanceof BattleView)) {
      const order = (o: Record<string, unknown>) => this.send({ t: "order", room: id, order: o });
      view = wantBattle ? new BattleView({ order }, canOrder && !this.locked) : new CampaignView({ order }, canOrder && !this.locked);
      this.views.set(id, view);
    }
    if (this.stage.firstChild !== view.root) {
      clear(this.stage);
      this.stage.append(view.root);
    }
    if (room.kind === "secret_module") {
      clear(this.stage);
      this.stage.append(h("div", { class: "secret-room" }, h("h2", {}, t("chan.secret"))));
      return;
    }
    view.setState(room.state, w?.role === "player" ? w.team ?? null : null);
  }

  private renderSide(): void {
    clear(this.side);
    const id = this.current;
    if (!id) return;
    const room = this.session.room(id);
    const w = this.session.welcome;
    let chan = this.channels.get(id);
    if (!chan) {
      chan = new ChannelsPanel(this.session, id, (channel, text) => this.send({ t: "chat", room: id, channel, text }),
        () => this.locked && !id.startsWith("s-"));
      this.channels.set(id, chan);
    }
    chan.render();
    this.side.append(chan.root);
    if (room.kind === "campaign") {
      const model = readCampaign(room.state);
      if (model.recon.left !== null || model.recon.answers.length) {
        const q = h("input", { type: "text", placeholder: t("recon.placeholder") });
        this.side.append(h("section", { class: "recon", "data-testid": "recon" }, h("h3", {}, t("recon.title")),
          h("p", {}, t("recon.budget", { n: model.recon.left ?? "—" })),
          h("ul", {}, ...model.recon.answers.map((a) => h("li", { class: a.falseAnswer ? "false-answer" : "" }, `${a.question} → ${a.answer}`))),
          w?.role === "player" ? h("form", { onsubmit: (e: globalThis.Event) => {
            e.preventDefault();
            if (q.value.trim()) void this.send({ t: "order", room: id, order: { type: "question", text: q.value.trim() } }).catch(() => {});
          } }, q, h("button", { type: "submit" }, t("recon.ask"))) : null));
      }
      if (model.houseRules.length) this.side.append(h("section", {}, h("h3", {}, "C-0.3"), h("ul", {}, ...model.houseRules.map((r) => h("li", {}, r)))));
    }
    if (w?.role === "moderator") {
      if (!this.desk) {
        this.desk = moderatorDesk({
          room: id,
          teams: () => Object.keys((this.session.room(id).clocks.teams as Record<string, unknown> | undefined) ?? {}).concat(
            Array.isArray(this.session.room(id).state.teams) ? (this.session.room(id).state.teams as string[]) : []).filter((x, i, a) => a.indexOf(x) === i),
          players: () => [...new Set(this.session.room(id).log.flatMap((e) => (typeof e.data.from === "string" ? [e.data.from] : [])))],
          falseAnswers: () => readCampaign(this.session.room(id).state).recon.answers.filter((a) => a.falseAnswer),
          send: (cmd) => this.send(cmd),
        });
      }
      this.desk.refresh?.();
      this.side.append(this.desk);
    }
    clear(this.logList);
    const shown = room.log.filter((e) => e.kind !== "chat" && (room.kind !== "battle" || BATTLE_LOG_KINDS.has(e.kind)));
    for (const ev of shown.slice(-80).reverse()) this.logList.append(h("li", { "data-kind": ev.kind }, describeEvent(ev)));
    this.side.append(h("section", {}, h("h3", {}, room.kind === "battle" ? t("battle.dice") : t("game.log")), this.logList));
  }
}
