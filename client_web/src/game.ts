/** The game page: one websocket session (token from the join link), the rooms it may follow, and around the map or
 * field the clocks, channels, turn log, reconnaissance, banners and — for the umpire — the moderator's desk. */
import { BattleView } from "./battle/view";
import { CampaignView } from "./campaign/view";
import { formatCoord } from "./campaign/geometry";
import { readCampaign } from "./campaign/model";
import { GARRISON_TERMS, GENERAL_TERMS, imposeTermsRuling, interceptOffers, readNapoleon, reinforceOffers, siegeOffers, termsOrder, type Offer, type Siege } from "./campaign/napoleon";
import { lang, onLangChange, setLang, t, type MessageKey } from "./i18n";
import { fetchLobby } from "./lobby/api";
import { CommandError, Connection, websocketUrl, type Command, type ConnectionState } from "./net/connection";
import { OrderGate } from "./net/lockout";
import { battleRoom, isBattleRoom, isSecretRoom, secretRoom } from "./net/room-id";
import { fetchReplay, ReplayUnavailable, type Frame, type ReplayAs } from "./net/replay";
import { Session, type RoomView } from "./net/session";
import { readBattle } from "./battle/model";
import { ChannelsPanel } from "./ui/channels";
import { ClocksPanel } from "./ui/clocks";
import { append, clear, formatMs, h } from "./ui/dom";
import { BATTLE_LOG_KINDS, describeEvent } from "./ui/log";
import { moderatorDesk } from "./ui/moderator";

/** Question kinds of the campaign engine (C-8.3). */
const RECON_KINDS = ["presence", "count", "arm", "locate", "feature", "mobilization"] as const;

export class GamePage {
  readonly root: HTMLElement;
  readonly conn: Connection;
  readonly session = new Session();
  /** D-N-14: whether this player may give orders, told at once when that changes */
  private readonly gate: OrderGate;
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
  /** the moderator's desk of each room (clocks, rulings and lockouts act on that room) */
  private readonly desks = new Map<string, HTMLElement & { refresh?: () => void }>();
  /** Stepping through the turns this client saw of the current room (null: live). */
  private replayAt: number | null = null;
  /** A replay fetched from the server (a finished room's per-turn views as `as` saw them); null: our own frames. */
  private serverReplay: { room: string; as: ReplayAs; frames: Frame[] } | null = null;
  private replayNote = "";
  private replayChoice: ReplayAs | null = null;
  /** the moderator's last full view of each room's false reconnaissance answers */
  private readonly falseAnswers = new Map<string, ReturnType<typeof readCampaign>["recon"]["answers"]>();
  private timer = 0;
  private presenceTimer = 0;
  /** players and spectators online per room, from the lobby (public campaigns and battles) */
  private presence = new Map<string, { players: number; spectators: number }>();
  private readonly resyncTimers = new Map<string, number>();
  /** battle rooms announced but perhaps not open yet */
  private readonly spawning = new Set<string>();
  private readonly unsubscribe: (() => void)[] = [];

  /** `focus`: the room to show once it is followed (a battle opened from the lobby's Watch button). */
  constructor(token: string, private readonly back: () => void, private readonly focus: string | null = null) {
    this.conn = new Connection({ url: websocketUrl(location), token });
    this.root = h("div", { class: "game", "data-testid": "game" }, this.header, this.banners, this.roomTabs,
      h("div", { class: "game-body" }, this.stage, this.side), this.errorLine);
    this.gate = new OrderGate(this.session, () => this.conn.serverNow(), () => this.renderAll());
    this.conn.on("state", (state, detail) => {
      this.connState = state;
      this.attempt = detail.attempt;
      this.retryAt = detail.retryInMs !== null ? Date.now() + detail.retryInMs : null;
      if (state === "failed") this.failure = detail.reason;
      this.renderBanners();
    });
    this.conn.on("welcome", (w) => {
      this.session.onWelcome(w);
      for (const room of w.rooms) void this.conn.join(room).then(() => this.pollPresence()).catch(() => {});
      this.current ??= (this.focus && w.rooms.includes(this.focus) ? this.focus : null) ?? w.rooms.find((r) => !isSecretRoom(r)) ?? w.rooms[0] ?? null;
      this.renderAll();
    });
    this.conn.on("snapshot", (s) => {
      this.session.onSnapshot(s);
      // Battles already running when this client came in (or came back).
      if (s.kind === "campaign") for (const b of readCampaign(s.state).battles) {
        if (!["over", "ended", "done"].includes(b.status)) this.followBattle({ battle: b.id }, "battle_started");
      }
    });
    this.conn.on("view", (v) => this.session.onView(v));
    this.conn.on("event", (e) => {
      if (this.session.onEvent(e)) this.scheduleResync(e.room);
      const view = this.views.get(e.room);
      if (view instanceof BattleView) view.play(e.kind, e.data);
      this.followBattle(e.data, e.kind);
    });
    this.conn.on("joined", (j) => this.session.onJoined(j));
    this.conn.on("error", (e) => {
      if (e.code === "no_such_room" && [...this.spawning].some((r) => e.message.includes(r))) return;
      this.showError(e.code, e.message, e.rule);
    });
    this.session.subscribe((room) => {
      this.followSecretModule();
      if (room === null || room === this.current) this.renderAll();
      else this.renderRoomTabs();
    });
    this.unsubscribe.push(onLangChange(() => this.rebuild()));
    this.timer = window.setInterval(() => this.tick(), 250);
    this.presenceTimer = window.setInterval(() => void this.pollPresence(), 15_000);
    this.renderAll();
    this.conn.connect();
  }

  /** The engines' events say what happened, not what each viewer now sees. The server follows them with a `view`;
   * a server that does not (or a view that never comes) gets one re-join per burst of events, after 120 ms — or,
   * once views have been seen, after 2 s and only if the view has not come by then. */
  private scheduleResync(room: string): void {
    if (this.resyncTimers.has(room)) return;
    this.resyncTimers.set(room, window.setTimeout(() => {
      this.resyncTimers.delete(room);
      if (this.session.stale(room)) void this.conn.resync(room).catch(() => {});
    }, this.session.sendsViews ? 2000 : 120));
  }

  private async pollPresence(): Promise<void> {
    try {
      const lobby = await fetchLobby();
      this.presence = new Map([...lobby.campaigns, ...lobby.battles].map((r) => [r.room, { players: r.players_online, spectators: r.spectators_online }]));
      this.renderHeader();
    } catch {
      // the lobby is a nicety here; the game goes on without it
    }
  }

  destroy(): void {
    for (const off of this.unsubscribe) off();
    for (const timer of this.resyncTimers.values()) window.clearTimeout(timer);
    window.clearInterval(this.timer);
    window.clearInterval(this.presenceTimer);
    this.conn.close();
  }

  private send(cmd: Command): Promise<unknown> {
    this.errorLine.textContent = "";
    return this.gate.send(cmd, (c) => this.conn.send(c)).catch((exc: unknown) => {
      // the connection shows the server's refusals; the gate's own are shown here
      if (exc instanceof CommandError && exc.details.local) this.showError(exc.code, exc.message, exc.rule);
      throw exc;
    });
  }

  private showError(code: string, message: string, rule: string | null): void {
    this.errorLine.textContent = rule ? t("game.error.rule", { code, rule, message }) : t("game.error", { code, message });
  }

  /** A battle room announced in the campaign (armies met) becomes a tab; the server decides whether we may join. */
  private followBattle(data: Record<string, unknown>, kind = ""): void {
    const w = this.session.welcome;
    if (!w) return;
    // The Napoleonic campaign announces `battle_started {battle}`; its room is b-<campaign>-<battle>.
    const room = data.battle_room ?? data.room ?? (kind === "battle_started" && typeof data.battle === "string" ? battleRoom(w.campaign, data.battle) : null);
    if (typeof room !== "string" || !isBattleRoom(room) || w.rooms.includes(room)) return;
    w.rooms.push(room);
    this.spawning.add(room);
    this.renderRoomTabs();
    // The server opens the battle room right after it commits `battle_started`: retry a moment until it exists.
    const attempt = (n: number): void => {
      this.conn.join(room).then(() => {
        this.spawning.delete(room);
        if (room === this.focus) {
          this.current = room;
          this.renderAll();
        }
        void this.pollPresence();
      }).catch((exc: unknown) => {
        if (exc instanceof CommandError && exc.code === "no_such_room" && n < 40) {
          window.setTimeout(() => attempt(n + 1), 250);
          return;
        }
        this.spawning.delete(room);
        this.conn.rooms.delete(room);
        w.rooms.splice(w.rooms.indexOf(room), 1);
        this.renderRoomTabs();
      });
    };
    attempt(0);
  }

  /** A player sent to the secret module mid-session enters its room (D-N-14); the server lets them in. */
  private followSecretModule(): void {
    const w = this.session.welcome;
    if (!w || w.role !== "player" || !this.locked) return;
    const room = secretRoom(w.campaign);
    if (!w.rooms.includes(room)) {
      w.rooms.push(room);
      void this.conn.join(room).catch(() => {});
    }
  }

  private get locked(): boolean {
    return this.gate.locked;
  }

  /** Language switch: views are rebuilt so that every label is in the new language. */
  private rebuild(): void {
    this.views.clear();
    this.channels.clear();
    this.desks.clear();
    this.reconShown = "";
    this.renderAll();
  }

  private tick(): void {
    this.gate.check();
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
      room && this.presence.has(room.id) ? h("span", { class: "presence", "data-testid": "presence" },
        `${this.presence.get(room.id)!.players} ${t("lobby.players")} · ${this.presence.get(room.id)!.spectators} ${t("lobby.spectators")}`) : null,
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
    const seenAs = this.current ? this.conn.viewing.get(this.current) : undefined;
    if (seenAs) this.banners.append(h("div", { class: "banner info", "data-testid": "view-as-banner" }, t("mod.view.banner", {
      who: seenAs.startsWith("team:") ? t("mod.view.team", { team: seenAs.slice(5) }) : t(seenAs === "spectator" ? "mod.view.spectator" : "mod.view.public") })));
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
        onclick: () => { this.current = id; this.replayAt = null; this.renderAll(); } }, id, unread ? h("span", { class: "unread" }, String(unread)) : null));
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
      view = wantBattle ? new BattleView({ order }, canOrder && !this.locked) : new CampaignView({ order }, canOrder && !this.locked,
        () => (this.session.welcome?.role === "player" && !this.locked ? this.session.welcome.team ?? null : null));
      this.views.set(id, view);
    }
    view.setCanOrder(canOrder && !this.locked);
    if (this.stage.firstChild !== view.root) {
      clear(this.stage);
      this.stage.append(view.root);
    }
    if (room.kind === "secret_module") {
      clear(this.stage);
      this.stage.append(h("div", { class: "secret-room" }, h("h2", {}, t("chan.secret"))));
      return;
    }
    const frame = this.replayAt !== null ? this.framesOf(room)[this.replayAt] : undefined;
    const replayTeam = frame && this.serverReplay?.as.startsWith("team:") ? this.serverReplay.as.slice(5) : null;
    const seenAs = this.conn.viewing.get(id);
    const deskTeam = seenAs?.startsWith("team:") ? seenAs.slice(5) : null;
    view.setState(frame ? frame.state : room.state, replayTeam ?? deskTeam ?? (w?.role === "player" ? w.team ?? null : null));
  }

  /** C-8.3: questions by kind (yes/no ½, numeric 1, arm of service 2 from the quota), the answers so far. */
  private reconPanel(id: string, model: ReturnType<typeof readCampaign>): HTMLElement {
    const w = this.session.welcome;
    const kind = h("select", { "data-testid": "recon-kind" }, ...RECON_KINDS.map((k) => h("option", { value: k }, k)));
    const cell = h("input", { type: "text", placeholder: "45-22", size: 6, "data-testid": "recon-cell" });
    const what = h("input", { type: "text", placeholder: t("recon.placeholder"), size: 10 });
    const ask = (e: globalThis.Event) => {
      e.preventDefault();
      const order: Record<string, unknown> = { type: "question", kind: kind.value };
      const c = cell.value.trim().split(/[-,\s]+/).map(Number);
      if (c.length === 2 && c.every(Number.isFinite)) order.cell = c;
      if (kind.value === "locate") order.unit = what.value.trim();
      if (kind.value === "feature") order.feature = what.value.trim();
      void this.send({ t: "order", room: id, order }).catch(() => {});
    };
    return h("section", { class: "recon", "data-testid": "recon" }, h("h3", {}, t("recon.title")),
      h("p", {}, t("recon.budget", { n: model.recon.left ?? "—" })),
      h("ul", {}, ...model.recon.answers.map((a) => h("li", { class: a.falseAnswer ? "false-answer" : "" },
        `${w?.role === "moderator" && a.team ? `${a.team}: ` : ""}${a.question} → ${a.answer}${a.falseAnswer && a.truth !== null ? ` (${a.truth})` : ""}`))),
      w?.role === "player" && !this.locked ? h("form", { onsubmit: ask }, kind, " ", cell, " ", what, " ", h("button", { type: "submit" }, t("recon.ask"))) : null);
  }

  /** Battles and sieges of the campaign (N-START, D-L-1/2, N-SIEGE): open a battle's room; the sides answer a
   * challenge (accept, withdraw, retreat with battle, N-START-3, D-N-13), order armies to it as reinforcements
   * (D-N-12) or offer a quick resolution; interceptions the team may make (N-START-2); siege decisions and
   * capitulation terms (N-SIEGE-2…5, N-SIEGE-8), imposed by the moderator. Only what the viewer's team may do now
   * is offered (./campaign/napoleon.ts). */
  private battlesPanel(id: string, model: ReturnType<typeof readCampaign>): HTMLElement {
    const w = this.session.welcome;
    // A player in the secret module reads but gives no orders (D-N-14).
    const team = w?.role === "player" && !this.locked ? w.team ?? null : null;
    const nap = readNapoleon(this.session.room(id).state);
    const send = (o: Record<string, unknown>) => () => void this.send({ t: "order", room: id, order: o }).catch(() => {});
    const button = (o: Offer, testid: string) => h("button", { "data-testid": testid, onclick: send(o.order) }, t(`nap.${o.key}` as MessageKey, o.args));
    const reinforce = reinforceOffers(nap, team);
    const intercepts = interceptOffers(nap, team);
    return h("section", { class: "battles", "data-testid": "battles" }, model.battles.length ? h("h3", {}, t("battle.list")) : null,
      !model.battles.length ? null : h("ul", {}, ...model.battles.map((b) => {
        const room = battleRoom(w?.campaign ?? "", b.id);
        const mine = team !== null && (team === b.attacker || team === b.defender);
        const contact = b.status === "contact";
        const quick = b.raw.quick;
        const quickBy = b.status === "running" && quick && typeof quick === "object" && "offered_by" in quick ? String(quick.offered_by) : null;
        return h("li", {},
          `${formatCoord(model.metric, b.cell)} · ${b.attacker} × ${b.defender} · ${b.kind} · ${b.status} `,
          w?.rooms.includes(room) ? h("button", { onclick: () => { this.current = room; this.replayAt = null; this.renderAll(); } }, t("lobby.open")) : null,
          mine && contact && team === b.defender ? h("span", { class: "buttons" },
            ...(["accept", "withdraw", "retreat_with_battle"] as const).map((choice) =>
              h("button", { onclick: send({ type: "answer", battle: b.id, choice }) }, t(`battle.answer.${choice}`)))) : null,
          mine && b.status === "running" && !quickBy ? h("button", { onclick: send({ type: "offer_quick", battle: b.id }) }, t("battle.quick")) : null,
          quickBy ? ` ${t("nap.quick.offered", { by: quickBy })} ` : null,
          mine && quickBy && quickBy !== team ? h("span", { class: "buttons" },
            h("button", { "data-testid": "quick-accept", onclick: send({ type: "answer_quick", battle: b.id, accept: true }) }, t("nap.quick.accept")),
            h("button", { "data-testid": "quick-refuse", onclick: send({ type: "answer_quick", battle: b.id, accept: false }) }, t("nap.quick.refuse"))) : null,
          w?.role === "moderator" && b.status === "running" ? h("button", { "data-testid": "quick-impose",
            onclick: () => void this.send({ t: "mod_ruling", room: id, ruling: { type: "impose_quick", battle: b.id } }).catch(() => {}) }, t("nap.quick.impose")) : null,
          ...reinforce.filter((o) => o.order.battle === b.id).map((o) => button(o, "reinforce")));
      })),
      intercepts.length ? h("div", { class: "buttons", "data-testid": "interceptions" }, ...intercepts.map((o) => button(o, "intercept"))) : null,
      nap.sieges.length ? h("h3", {}, t("nap.sieges")) : null,
      nap.sieges.length ? h("ul", { "data-testid": "sieges" }, ...nap.sieges.map((s) => this.siegeItem(id, s, team, nap.turn))) : null);
  }

  /** One siege: who besieges whom, the phase, the decisions the viewer's team may take, the terms on the table. */
  private siegeItem(id: string, s: Siege, team: string | null, turn: number): HTMLElement {
    const w = this.session.welcome;
    const send = (o: Record<string, unknown>) => () => void this.send({ t: "order", room: id, order: o }).catch(() => {});
    const terms = (testid: string, build: (garrison: string, general: string) => Record<string, unknown>, moderator: boolean) => {
      const garrison = h("select", { "data-testid": `${testid}-garrison` }, ...GARRISON_TERMS.map((g) => h("option", { value: g }, t(`nap.terms.${g}` as MessageKey))));
      const general = h("select", { "data-testid": `${testid}-general` }, ...GENERAL_TERMS.map((g) => h("option", { value: g }, t(`nap.terms.${g}` as MessageKey))));
      const go = () => {
        const cmd = build(garrison.value, general.value);
        void (moderator ? this.send({ t: "mod_ruling", room: id, ruling: cmd }) : this.send({ t: "order", room: id, order: cmd })).catch(() => {});
      };
      return h("span", { class: "buttons" }, garrison, " ", general, " ",
        h("button", { "data-testid": testid, onclick: go }, t(moderator ? "nap.terms.impose" : "nap.terms.propose")));
    };
    const inTerms = s.phase === "terms";
    return h("li", { "data-fortress": s.fortress },
      t("nap.siege", { fortress: s.fortress, besieger: s.besieger, garrison: s.garrison, phase: t(`nap.phase.${s.phase}` as MessageKey) }),
      s.phase === "invested" && s.stormFrom !== null ? ` · ${t("nap.storm_from", { turn: s.stormFrom })}` : "",
      s.proposal ? h("div", { "data-testid": "terms-on-table" }, t("nap.terms.table", {
        by: s.proposer ?? "", garrison: t(`nap.terms.${s.proposal.garrison}` as MessageKey), general: t(`nap.terms.${s.proposal.general}` as MessageKey) })) : null,
      h("div", { class: "buttons" }, ...siegeOffers(s, team, turn).map((o) => h("button", {
        "data-testid": o.key.replace(/\./g, "-"), onclick: send(o.order) },
      t(`nap.${o.key}` as MessageKey, o.args ? { garrison: t(`nap.terms.${o.args.garrison}` as MessageKey), general: t(`nap.terms.${o.args.general}` as MessageKey) } : undefined)))),
      inTerms && team !== null && (team === s.besieger || team === s.garrison) ? terms("terms-propose", (g, gen) => termsOrder(s.fortress, g, gen), false) : null,
      inTerms && w?.role === "moderator" ? terms("terms-impose", (g, gen) => imposeTermsRuling(s.fortress, g, gen), true) : null);
  }

  /** The teams (sides) of a room, from its clocks and its view. */
  private teamsOf(room: RoomView): string[] {
    const fromClocks = Object.keys((room.clocks.teams as Record<string, unknown> | undefined) ?? {});
    const fromView = room.kind === "battle" ? readBattle(room.state).sides : Object.keys(readCampaign(room.state).teams);
    return [...fromClocks, ...fromView].filter((x, i, a) => x && a.indexOf(x) === i);
  }

  /** What the replay steps through: the server's replay of this room when one was loaded, else our own frames. */
  private framesOf(room: RoomView): Frame[] {
    return this.serverReplay?.room === room.id ? this.serverReplay.frames : room.frames;
  }

  /** Load a room's replay from the server as `as` saw it (issue 7 "Replays"); a server without the endpoint
   * leaves the frames this client kept. */
  private async loadReplay(room: string, as: ReplayAs): Promise<void> {
    this.replayNote = t("replay.loading");
    this.renderSide();
    try {
      const frames = await fetchReplay(room, as, sessionStorage.getItem("token"));
      this.serverReplay = { room, as, frames };
      this.replayAt = frames.length ? 0 : null;
      this.replayNote = t("replay.loaded", { n: frames.length, as: as === "full" ? t("replay.full") : as === "spectator" ? t("mod.view.spectator") : as.slice(5) });
    } catch (exc) {
      this.replayNote = exc instanceof ReplayUnavailable ? t("replay.unavailable") : String((exc as Error).message);
    }
    this.renderStage();
    this.renderSide();
  }

  private replayPanel(room: RoomView): HTMLElement | null {
    const frames = this.framesOf(room);
    const n = frames.length;
    const w = this.session.welcome;
    const canLoad = room.kind === "battle";
    if (n < 2 && this.replayAt === null && !canLoad) return null;
    const at = this.replayAt;
    const go = (i: number | null) => {
      this.replayAt = i === null || n === 0 ? null : Math.max(0, Math.min(n - 1, i));
      if (this.replayAt === null && this.serverReplay?.room === room.id) this.serverReplay = null;
      this.renderStage();
      this.renderSide();
    };
    // A player replays its own side; spectators and the moderator the full view or any side's.
    const options: ReplayAs[] = w?.role === "player" ? [`team:${w.team ?? ""}`] : ["full", "spectator", ...this.teamsOf(room).map((s): ReplayAs => `team:${s}`)];
    // Our own frames end with the live state (the step past the last is "live"); a server replay ends on its last turn.
    const fromServer = this.serverReplay?.room === room.id;
    const chosen = this.replayChoice && options.includes(this.replayChoice) ? this.replayChoice : null;
    const loaded = chosen ?? (this.serverReplay?.room === room.id ? this.serverReplay.as : null);
    const as = h("select", { "data-testid": "replay-as", onchange: () => { this.replayChoice = as.value as ReplayAs; } }, ...options.map((o) => h("option", { value: o, ...(o === loaded ? { selected: "" } : {}) },
      o === "full" ? t("replay.full") : o === "spectator" ? t("mod.view.spectator") : o.slice(5))));
    return h("section", { class: "replay", "data-testid": "replay" }, h("h3", {}, t("replay.title")),
      h("div", { class: "buttons" },
        h("button", { "data-testid": "replay-prev", disabled: n === 0 ? "" : null, onclick: () => go((at ?? n - 1) - 1) }, t("replay.prev")),
        h("span", { "data-testid": "replay-turn" }, at === null || !frames[at] ? t("replay.live") : t("replay.turn", { n: frames[at].turn, of: frames[n - 1]!.turn })),
        h("button", { "data-testid": "replay-next", disabled: n === 0 ? "" : null, onclick: () => go(at === null ? null : at + 1 < n - 1 ? at + 1 : fromServer ? n - 1 : null) }, t("replay.next")),
        at !== null ? h("button", { "data-testid": "replay-live", onclick: () => go(null) }, t("replay.live")) : null),
      canLoad ? h("div", { class: "buttons" }, t("replay.view"), " ", as, " ",
        h("button", { "data-testid": "replay-load", onclick: () => void this.loadReplay(room.id, as.value as ReplayAs) }, t("replay.load"))) : null,
      this.replayNote ? h("p", { class: "muted", "data-testid": "replay-note" }, this.replayNote) : null);
  }

  /** The sidebar keeps its panels in fixed slots: a panel with an input is re-inserted only when it changes, so
   * that events arriving while someone types do not take the focus away. */
  private readonly slots = {
    chan: h("div", { class: "slot" }), recon: h("div", { class: "slot" }), rules: h("div", { class: "slot" }),
    desk: h("div", { class: "slot" }), battles: h("div", { class: "slot" }), log: h("div", { class: "slot" }), replay: h("div", { class: "slot" }),
  };
  private reconShown = "";
  private battlesShown = "";

  private place(slot: HTMLElement, node: HTMLElement | null): void {
    if (slot.firstChild === node && slot.childNodes.length === (node ? 1 : 0)) return;
    slot.replaceChildren(...(node ? [node] : []));
  }

  private renderSide(): void {
    if (this.side.firstChild !== this.slots.chan) this.side.replaceChildren(...Object.values(this.slots));
    const id = this.current;
    if (!id) {
      for (const slot of Object.values(this.slots)) this.place(slot, null);
      return;
    }
    const room = this.session.room(id);
    const w = this.session.welcome;
    let chan = this.channels.get(id);
    if (!chan) {
      chan = new ChannelsPanel(this.session, id, (channel, text) => this.send({ t: "chat", room: id, channel, text }),
        () => this.locked && !isSecretRoom(id));
      this.channels.set(id, chan);
    }
    chan.render();
    this.place(this.slots.chan, chan.root);
    const model = room.kind === "campaign" ? readCampaign(room.state) : null;
    const recon = model && (model.recon.left !== null || model.recon.answers.length) ? model.recon : null;
    const reconKey = recon ? `${id} ${lang()} ${this.locked} ${JSON.stringify(recon)}` : "";
    if (reconKey !== this.reconShown) {
      this.reconShown = reconKey;
      this.place(this.slots.recon, model && recon ? this.reconPanel(id, model) : null);
    }
    const nap = model?.napoleonic ? readNapoleon(room.state) : null;
    const battlesKey = model && (model.battles.length || nap?.sieges.length || nap?.interceptions.length)
      ? `${id} ${lang()} ${JSON.stringify([model.battles.map((b) => b.raw), nap && [nap.sieges, nap.interceptions, nap.turn, nap.active,
        nap.armies.map((a) => [a.id, a.status, a.cell])], w?.rooms, this.locked])}` : "";
    if (battlesKey !== this.battlesShown) {
      this.battlesShown = battlesKey;
      this.place(this.slots.battles, model && battlesKey ? this.battlesPanel(id, model) : null);
    }
    this.place(this.slots.rules, model?.houseRules.length
      ? h("section", {}, h("h3", {}, "C-0.3"), h("ul", {}, ...model.houseRules.map((r) => h("li", {}, r)))) : null);
    if (w?.role === "moderator") {
      // Only the full view marks false answers (server/campaign/fog.py): keep them while the desk shows a team's.
      if (model && !this.conn.viewing.has(id)) this.falseAnswers.set(id, model.recon.answers.filter((a) => a.falseAnswer));
      let desk = this.desks.get(id);
      if (!desk) {
        desk = moderatorDesk({
          room: id,
          teams: () => this.teamsOf(this.session.room(id)),
          players: () => [...new Set(this.session.room(id).log.flatMap((e) => (typeof e.data.from === "string" ? [e.data.from] : [])))],
          falseAnswers: () => this.falseAnswers.get(id) ?? [],
          send: (cmd) => this.send(cmd),
          viewing: () => this.conn.viewing.get(id) ?? null,
          setViewing: (v) => {
            this.replayAt = null;
            void this.conn.viewAs(id, v).catch(() => {});
            this.renderAll();
          },
        });
      }
      this.desks.set(id, desk);
      desk.refresh?.();
      this.place(this.slots.desk, desk);
    }
    clear(this.logList);
    const shown = room.log.filter((e) => e.kind !== "chat" && (room.kind !== "battle" || BATTLE_LOG_KINDS.has(e.kind)));
    for (const ev of shown.slice(-80).reverse()) this.logList.append(h("li", { "data-kind": ev.kind }, describeEvent(ev)));
    this.place(this.slots.log, h("section", {}, h("h3", {}, room.kind === "battle" ? t("battle.dice") : t("game.log")), this.logList));
    this.place(this.slots.replay, this.replayPanel(room));
  }
}
