/** The game page: one websocket session (token from the join link), the rooms it may follow, and around the map or
 * field the state line, clocks, channels, turn log, reconnaissance, banners and — for the umpire — the moderator's
 * desk. On every welcome it rebuilds the rooms it belongs to (the campaign, its running battles, the secret module),
 * so that nothing needs a reload after a restart, a blip or a return from the secret module. */
import { BattleView } from "./battle/view";
import { CampaignView } from "./campaign/view";
import { SkirmishView } from "./skirmish/view";
import { viewKind } from "./ui/view-kind";
import { readSkirmish } from "./skirmish/model";
import { formatCoord } from "./campaign/geometry";
import { readCampaign } from "./campaign/model";
import { GARRISON_TERMS, GENERAL_TERMS, howitzerChoice, imposeTermsRuling, interceptOffers, napoleonicView, readNapoleon, reinforceOffers, retreatOf, retreatOrder, siegeOffers, stormOrder, termsOrder, type NapView, type Offer, type Siege } from "./campaign/napoleon";
import { has, lang, onLangChange, proper, properArgs, setLang, t, tn, type MessageKey } from "./i18n";
import { kindWord, lockoutReason, phaseWord, playerWord, statusWord, teamWord } from "./i18n/words";
import { fetchLobby } from "./lobby/api";
import { CommandError, Connection, websocketUrl, type Command, type ConnectionState } from "./net/connection";
import { OrderGate } from "./net/lockout";
import { fetchSteps, replayChoices, ReplayRefused, ReplayUnavailable, Timeline, type Frame, type ReplayAs, type ReplayEvent } from "./net/replay";
import { battleRoom, campaignRoom, compareRooms, isBattleRoom, isSecretRoom, parseRoom, secretRoom } from "./net/room-id";
import { Session, type RoomView } from "./net/session";
import { readBattle } from "./battle/model";
import { readOptions } from "./battle/options";
import { ruleLinks } from "./ui/rule-links";
import { loadRuleTitles, ruleTitle } from "./rules/titles";
import { Attention, sound } from "./ui/attention";
import { ChannelsPanel } from "./ui/channels";
import { clocksAt, ClocksPanel } from "./ui/clocks";
import { teamColour } from "./ui/colours";
import { append, clear, formatMs, h } from "./ui/dom";
import { describeEvent, worthTelling } from "./ui/log";
import { moderatorDesk } from "./ui/moderator";
import { engineOf } from "./ui/rulings";
import { namesFor, type Names } from "./ui/names";
import { stateLine, type StateLine } from "./ui/status";
import { ReplayPlayer } from "./ui/replay-player";
import { afterAction } from "./battle/report";
import { reportView } from "./ui/report";

/** Question kinds of the campaign engine (C-8.3). */
const RECON_KINDS = ["presence", "count", "arm", "locate", "feature", "mobilization"] as const;
/** How long "you are back from the secret module" stays up. */
const BACK_NOTICE_MS = 15_000;

export { ruleLinks };

export class GamePage {
  readonly root: HTMLElement;
  readonly conn: Connection;
  readonly session = new Session();
  /** D-N-14: whether this player may give orders, told at once when that changes */
  private readonly gate: OrderGate;
  private readonly header = h("header", { class: "game-header" });
  private readonly stateText = h("span", { class: "state-text", "data-testid": "state-text" });
  private readonly stateActions = h("span", { class: "state-actions buttons inline", "data-testid": "state-actions" });
  private readonly stateBar = h("div", { class: "state-line", "data-testid": "state-line" }, h("span", { role: "status" }, this.stateText), this.stateActions);
  private readonly banners = h("div", { class: "banners" });
  private readonly roomTabs = h("nav", { class: "room-tabs", "data-testid": "room-tabs" });
  private readonly stage = h("div", { class: "stage" });
  private readonly side = h("aside", { class: "sidebar" });
  /** N-SIEGE-9: the companies the besieger has ticked as howitzers, by campaign room and fortress, kept while the
   * sieges list is rebuilt under the player (a chat line, a clock tick). */
  private readonly howitzerPicks = new Map<string, Set<string>>();
  private readonly errorLine = h("div", { class: "error-line", "data-testid": "error-line", role: "alert" });
  /** New log lines read out by screen readers (the visible log is re-rendered, this only grows by what is new). */
  private readonly live = h("div", { class: "visually-hidden", "aria-live": "polite", "data-testid": "log-live" });
  private readonly clocks = new ClocksPanel();
  private readonly logList = h("ol", { class: "log", "data-testid": "turn-log", role: "log" });
  private readonly attention = new Attention(t("app.title"));
  private connState: ConnectionState = "connecting";
  private retryAt: number | null = null;
  private attempt = 0;
  private failure = "";
  private offline = globalThis.navigator?.onLine === false;
  private current: string | null = null;
  /** The rooms this session belongs to, in tab order: rebuilt from every welcome, grown by battles that start. */
  private rooms: string[] = [];
  private views = new Map<string, CampaignView | BattleView | SkirmishView>();
  private channels = new Map<string, ChannelsPanel>();
  /** the moderator's desk of each room (clocks, rulings and lockouts act on that room) */
  private readonly desks = new Map<string, HTMLElement & { refresh?: () => void }>();
  /** Stepping through the turns this client saw of the current room (null: live). */
  private replayAt: number | null = null;
  /** A replay fetched from the server (a finished room, event by event, as `as` saw it) and its player; null: live. */
  private serverReplay: { room: string; as: ReplayAs; player: ReplayPlayer } | null = null;
  /** the after-action report's dialog */
  private readonly reportDialog = h("dialog", { class: "report-dialog", "data-testid": "report-dialog" });
  private replayNote = "";
  private replayChoice: ReplayAs | null = null;
  /** the moderator's last full view of each room's false reconnaissance answers */
  private readonly falseAnswers = new Map<string, ReturnType<typeof readCampaign>["recon"]["answers"]>();
  private timer = 0;
  private presenceTimer = 0;
  /** players and spectators online per room, and the campaigns' names, from the lobby (public campaigns) */
  private presence = new Map<string, { players: number; spectators: number }>();
  private campaignNames = new Map<string, string>();
  private campaignTeams = new Map<string, [string, number][]>();
  private readonly resyncTimers = new Map<string, number>();
  /** battle rooms announced but perhaps not open yet */
  private readonly spawning = new Set<string>();
  private readonly unsubscribe: (() => void)[] = [];
  /** until when "you are back from the secret module" shows */
  private backUntil = 0;
  private wasLocked = false;
  /** the last log line read out per room */
  private announced = new Map<string, number>();
  private lastLine: StateLine | null = null;

  /** `focus`: the room to show once it is followed (a battle opened from the lobby's Watch button). */
  constructor(token: string, private readonly back: () => void, private readonly focus: string | null = null) {
    this.conn = new Connection({ url: websocketUrl(location), token, heartbeat: true });
    this.root = h("div", { class: "game", "data-testid": "game" }, this.header, this.stateBar, this.banners, this.roomTabs,
      h("div", { class: "game-body" }, this.stage, this.side), this.errorLine, this.live, this.reportDialog);
    this.gate = new OrderGate(this.session, () => this.conn.serverNow(), (locked) => this.lockChanged(locked));
    this.conn.on("state", (state, detail) => {
      this.connState = state;
      this.attempt = detail.attempt;
      this.retryAt = detail.retryInMs !== null ? Date.now() + detail.retryInMs : null;
      if (state === "failed") this.failure = detail.reason;
      this.renderBanners();
    });
    this.conn.on("welcome", (w) => {
      this.session.onWelcome(w);
      this.rebuildRooms(w.rooms);
      for (const room of w.rooms) this.joinRoom(room);
      this.renderAll();
    });
    this.conn.on("snapshot", (s) => {
      this.session.onSnapshot(s);
      // Battles already running when this client came in (or came back).
      if (s.kind === "campaign") for (const b of readCampaign(s.state).battles) {
        if (b.status === "running") this.followBattle({ battle: b.id }, "battle_started");
      }
    });
    this.conn.on("view", (v) => this.session.onView(v));
    this.conn.on("event", (e) => {
      if (this.session.onEvent(e)) this.scheduleResync(e.room);
      const view = this.views.get(e.room);
      if (view instanceof BattleView && this.serverReplay?.room !== e.room) view.play(e.kind, e.data, describeEvent(e, this.names(e.room)).text);
      this.followBattle(e.data, e.kind);
    });
    this.conn.on("joined", (j) => {
      this.session.onJoined(j);
      this.session.settleUnconfirmed(j.room);
    });
    this.conn.on("error", (e) => {
      if (e.code === "no_such_room" && [...this.spawning].some((r) => e.message.includes(r))) return;
      this.showError(e.code, e.message, e.rule);
    });
    this.session.subscribe((room) => {
      this.followSecretModule();
      // the secret module's page lists the lockouts, which the campaign room's events change
      if (room === null || room === this.current || (this.current !== null && isSecretRoom(this.current))) this.renderAll();
      else this.renderRoomTabs();
    });
    const offline = () => { this.offline = true; this.conn.offline(); this.renderBanners(); };
    const online = () => { this.offline = false; this.conn.online(); this.renderBanners(); };
    window.addEventListener("offline", offline);
    window.addEventListener("online", online);
    // Ctrl+Enter (⌘+Enter) ends the turn from anywhere on the page, as its button says; before the map's own Enter
    const endTurnKey = (e: KeyboardEvent) => {
      if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
      e.preventDefault();
      e.stopPropagation();
      const w = this.session.welcome;
      const room = this.current ? this.session.room(this.current) : null;
      if (w?.role === "player" && room?.active.includes(w.team ?? "") && !this.locked) this.endTurn();
    };
    window.addEventListener("keydown", endTurnKey, true);
    this.unsubscribe.push(() => window.removeEventListener("keydown", endTurnKey, true));
    this.unsubscribe.push(() => window.removeEventListener("offline", offline), () => window.removeEventListener("online", online));
    // The rules by name, for refusals in a language the server's reasons are not in (rules/titles.ts): fetched at
    // the start without a redraw (nothing is refused before the first order), and on a switch of language, after
    // which the page is drawn again with them.
    if (lang() !== "en") void loadRuleTitles(lang());
    this.unsubscribe.push(onLangChange(() => {
      this.rebuild();
      if (lang() !== "en") void loadRuleTitles(lang()).then((fresh) => { if (fresh) this.rebuild(); });
    }));
    this.timer = window.setInterval(() => this.tick(), 250);
    this.presenceTimer = window.setInterval(() => void this.pollPresence(), 15_000);
    this.renderAll();
    this.conn.connect();
  }

  /** The rooms of this session after a welcome: what it lists (the campaign, the battles being fought, the secret
   * module), plus battle rooms this client follows already (finished ones stay readable); a secret module it no
   * longer lists is over and is left. */
  private rebuildRooms(listed: readonly string[]): void {
    const keep = this.rooms.filter((r) => isBattleRoom(r) && !listed.includes(r));
    for (const r of this.conn.rooms.keys()) if (!listed.includes(r) && !keep.includes(r)) this.conn.forget(r);
    this.rooms = [...new Set([...listed, ...keep])].sort(compareRooms);
    const w = this.session.welcome;
    const home = w ? campaignRoom(w.campaign) : this.rooms[0] ?? null;
    if (this.current && !this.rooms.includes(this.current)) this.current = null;
    this.current ??= (this.focus && this.rooms.includes(this.focus) ? this.focus : null) ?? (this.rooms.includes(home ?? "") ? home : this.rooms[0] ?? null);
  }

  private joinRoom(room: string): void {
    void this.conn.join(room).then(() => this.pollPresence()).catch((exc: unknown) => {
      // a battle room that went away, a secret module the player left meanwhile: drop its tab
      if (exc instanceof CommandError && ["no_such_room", "forbidden"].includes(exc.code)) this.dropRoom(room);
    });
  }

  private dropRoom(room: string): void {
    this.conn.forget(room);
    this.rooms = this.rooms.filter((r) => r !== room);
    if (this.current === room) this.current = this.home();
    this.renderAll();
  }

  private home(): string | null {
    const w = this.session.welcome;
    return w ? campaignRoom(w.campaign) : this.rooms[0] ?? null;
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
      for (const c of lobby.campaigns) {
        this.campaignNames.set(c.id, c.name);
        this.campaignTeams.set(c.id, c.teams.map((tm) => [String(tm.colour ?? ""), Number(tm.seats ?? 0)]));
      }
      this.renderHeader();
      this.renderRoomTabs();
      this.desks.forEach((desk) => desk.refresh?.());
    } catch {
      // the lobby is a nicety here; the game goes on without it
    }
  }

  destroy(): void {
    for (const off of this.unsubscribe) off();
    for (const timer of this.resyncTimers.values()) window.clearTimeout(timer);
    window.clearInterval(this.timer);
    window.clearInterval(this.presenceTimer);
    this.attention.reset();
    this.conn.close();
  }

  private send(cmd: Command): Promise<unknown> {
    this.errorLine.replaceChildren();
    return this.gate.send(cmd, (c) => this.conn.send(c)).catch((exc: unknown) => {
      // the connection shows the server's refusals; the gate's own, and orders lost with a socket, are shown here
      if (exc instanceof CommandError && exc.details.local) this.showError(exc.code, exc.message, exc.rule);
      else if (exc instanceof CommandError && exc.code === "disconnected" && cmd.t !== "chat") {
        this.showError("disconnected", exc.message, null, exc.details.inFlight ? t("err.unconfirmed") : undefined);
      }
      throw exc;
    });
  }

  /** A chat line: shown at once as on its way, kept until the server has it (or marked unsent, with a retry). */
  private say(room: string, channel: string, text: string): Promise<unknown> {
    const line = this.session.sayPending(room, channel, text);
    return this.send({ t: "chat", room, channel, text }).then(() => this.session.chatSent(line)).catch((exc: unknown) => {
      const e = exc instanceof CommandError ? exc : null;
      this.session.chatFailed(line, e?.code === "disconnected" && e.details.inFlight === true, e ? this.errorText(e.code, e.message) : String(exc));
    });
  }

  /** An error in the viewer's words: in English with the server's reason; in another language (the server's
   * reasons are English) with the name of the rule that refused it, when the rulebook has it. */
  private errorText(code: string, message: string, rule: string | null = null): string {
    const key = has(`err.${code}`) ? `err.${code}` : "err.other";
    if (lang() === "en" && message && code !== "disconnected") return `${t(key as MessageKey)}: ${message}`;
    const named = ruleTitle(rule, lang());
    return named ? t("err.by_rule", { reason: t(key as MessageKey), rule: named }) : t(key as MessageKey);
  }

  /** An error in words in the viewer's language, with its rule linked to the rulebook; the server's own words
   * (English) follow in the English interface and are the tooltip in the others. */
  private showError(code: string, message: string, rule: string | null, text?: string): void {
    const rules = rule ? rule.split(/[,\s]+/).filter(Boolean) : [];
    this.errorLine.replaceChildren(h("span", { title: message, "data-code": code }, text ?? this.errorText(code, message, rule)),
      ...(rules.length ? [" (", t("err.rule", { rule: "" }).trim(), " ", ...ruleLinks(rules), ")"] : []));
  }

  /** A battle room announced in the campaign (armies met) becomes a tab; the server decides whether we may join. */
  private followBattle(data: Record<string, unknown>, kind = ""): void {
    const w = this.session.welcome;
    if (!w) return;
    // The Napoleonic campaign announces `battle_started {battle}`.
    const room = data.battle_room ?? data.room ?? (kind === "battle_started" && typeof data.battle === "string" ? battleRoom(w.campaign, data.battle) : null);
    if (typeof room !== "string" || !isBattleRoom(room) || this.rooms.includes(room)) return;
    this.rooms = [...this.rooms, room].sort(compareRooms);
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
        if (exc instanceof CommandError && exc.code === "disconnected") return; // re-joined after the next welcome
        this.spawning.delete(room);
        this.dropRoom(room);
      });
    };
    attempt(0);
  }

  /** A player sent to the secret module mid-session enters its room (D-N-14); the server lets them in. */
  private followSecretModule(): void {
    const w = this.session.welcome;
    if (!w || w.role !== "player" || !this.locked) return;
    const room = secretRoom(w.campaign);
    if (!this.rooms.includes(room)) {
      this.rooms = [...this.rooms, room].sort(compareRooms);
      void this.conn.join(room).catch(() => {});
    }
  }

  /** Sent to the secret module or back (by time or by the umpire): back, the player leaves its room and returns to
   * the army — its tab goes, the campaign shows, and a line says so. */
  private lockChanged(locked: boolean): void {
    const w = this.session.welcome;
    if (locked && !this.wasLocked && w?.role === "player") this.followSecretModule();
    if (!locked && this.wasLocked && w?.role === "player") {
      const room = secretRoom(w.campaign);
      if (this.rooms.includes(room)) {
        void this.conn.leave(room).catch(() => {});
        this.rooms = this.rooms.filter((r) => r !== room);
      }
      if (!this.current || isSecretRoom(this.current)) this.current = this.home();
      this.backUntil = Date.now() + BACK_NOTICE_MS;
    }
    this.wasLocked = locked;
    this.renderAll();
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
    this.battlesShown = "";
    this.attention.reset();
    this.live.textContent = "";
    this.renderAll();
  }

  private tick(): void {
    this.gate.check();
    const now = this.conn.serverNow();
    for (const el of this.stage.querySelectorAll<HTMLElement>(".countdown[data-until]")) el.textContent = formatMs(Math.max(0, Number(el.dataset.until) - now));
    this.renderClocks();
    this.renderBanners();
    this.renderState();
  }

  private renderAll(): void {
    this.renderHeader();
    this.renderBanners();
    this.renderRoomTabs();
    this.renderStage();
    this.renderSide();
    this.renderState();
  }

  /** Why a player is in the secret module, in words, with the place a general fell at named from the map (D-N-14). */
  private reasonWords(reason: string): string {
    const w = this.session.welcome;
    const names = this.names(this.current ?? (w ? campaignRoom(w.campaign) : ""));
    return lockoutReason(reason, (c) => names.place(c));
  }

  private names(room: string): Names {
    const w = this.session.welcome;
    return namesFor(this.session, room, w ? this.campaignNames.get(w.campaign) ?? null : null);
  }

  /** The state line of the current room (and the tab title, favicon and sound that follow it). */
  private renderState(): void {
    const id = this.current;
    const w = this.session.welcome;
    if (!id || !w) {
      this.stateText.textContent = "";
      this.stateActions.replaceChildren();
      this.stateBar.dataset.asks = "";
      this.attention.show(null);
      return;
    }
    const room = this.session.room(id);
    const now = this.conn.serverNow();
    const mine = w.player ? this.session.activeLockouts(now).find((l) => l.player === w.player) : undefined;
    const names = this.names(id);
    const campaign = this.session.rooms.get(campaignRoom(w.campaign));
    const cmodel = campaign ? readCampaign(campaign.state) : null;
    const myTeam = w.role === "player" ? w.team ?? null : null;
    const contacts = room.kind === "campaign" ? cmodel?.battles.filter((b) => b.status === "contact") ?? [] : [];
    const contact = contacts.find((b) => b.defender === myTeam) ?? contacts[0];
    const bmodel = room.kind === "battle" ? readBattle(room.state) : null;
    const battleId = parseRoom(id)?.battle ?? null;
    const nap = room.kind === "campaign" && cmodel?.napoleonic ? readNapoleon(napoleonicView(room.state)) : null;
    // a beaten army to lead away (N-VICTORY-4): the viewer's own first, else any the viewer can see
    const beaten = nap?.armies.filter((a) => a.status === "retreating") ?? [];
    const retreat = beaten.find((a) => a.team === myTeam) ?? beaten[0];
    const fighting = myTeam ? cmodel?.battles.find((b) => b.status === "running" && (b.attacker === myTeam || b.defender === myTeam)) : undefined;
    const computer = room.ai.length ? ` · ${t("game.ai_seats", { players: room.ai.map((p) => playerWord(p)).join(", ") })}` : "";
    const plain = stateLine({
      kind: room.kind, myTeam: w.role === "player" ? w.team ?? null : null, active: room.active,
      clocks: clocksAt(room.clocks, room.clocksAt, now), lockedMs: mine ? Math.max(0, mine.untilMs - now) : null,
      battle: bmodel ? { name: battleId ? names.battle(battleId) : names.room(id), turn: bmodel.turn, winner: bmodel.result ? String(bmodel.result.winner ?? "") || null : null } : undefined,
      decision: contact ? { team: contact.defender, place: names.place(contact.raw.cell) } : null,
      retreat: retreat ? { team: String(retreat.team), army: proper(String(retreat.name ?? retreat.id)), cells: Number((retreat.retreat as { cells?: unknown } | undefined)?.cells ?? 7) } : null,
      runningBattles: cmodel?.battles.filter((b) => b.status === "running").length ?? 0,
      myBattle: fighting ? names.battle(fighting.id) : null,
      secret: room.kind === "secret_module" ? {
        players: this.session.activeLockouts(now).map((l) => playerWord(l.player)),
        leftMs: Math.max(0, (this.session.activeLockouts(now)[0]?.untilMs ?? now) - now),
      } : null,
      over: room.kind === "campaign" && (room.state.phase === "over" || !!room.state.winner || (room.state.kind === "skirmish" && !!room.state.result)),
    });
    // issue 18: the moderator and a team's players see which seats the computer plays
    const line = computer ? { ...plain, text: plain.text + computer } : plain;
    if (this.lastLine?.text !== line.text || this.stateBar.dataset.mine !== String(line.mine)) {
      const asks = line.asks ?? "";
      const key = `${id} ${asks} ${contact?.id ?? ""} ${String(retreat?.id ?? "")} ${fighting?.id ?? ""} ${lang()}`;
      if (this.stateBar.dataset.asks !== key) {
        this.stateBar.dataset.asks = key;
        this.stateActions.replaceChildren(...this.stateButtons(id, line, contact?.id ?? null, retreat ? String(retreat.id) : null, fighting?.id ?? null));
      }
      this.stateText.textContent = line.text;
      this.stateBar.dataset.mine = String(line.mine);
      this.stateBar.classList.toggle("mine", line.mine);
    }
    this.lastLine = line;
    this.attention.show(line);
  }

  /** What the state line asks the viewer to decide, as buttons beside it: the defender's answer to a contact
   * (N-START-3, D-N-13), the beaten army's retreat (N-VICTORY-4), the way to the battle the campaign waits for. */
  private stateButtons(room: string, line: StateLine, battle: string | null, army: string | null, fighting: string | null): HTMLElement[] {
    const send = (o: Record<string, unknown>) => () => void this.send({ t: "order", room, order: o }).catch(() => {});
    if (line.asks === "battle" && battle) {
      return (["accept", "withdraw", "retreat_with_battle"] as const).map((choice) =>
        h("button", { "data-testid": `state-${choice}`, onclick: send({ type: "answer", battle, choice }) }, t(`battle.answer.${choice}`)));
    }
    if (line.asks === "retreat" && army) {
      const view = this.views.get(room);
      const raw = readNapoleon(napoleonicView(this.session.room(room).state)).armies.find((a) => a.id === army);
      const suggested = raw ? retreatOf(raw)?.suggested ?? [] : [];
      return [
        h("button", { "data-testid": "state-retreat-show", onclick: () => { if (view instanceof CampaignView) view.show(army); } }, t("status.retreat.show")),
        suggested.length ? h("button", { "data-testid": "state-retreat-suggested", onclick: send(retreatOrder(army, suggested)) }, t("status.retreat.suggested")) : null,
      ].filter((b): b is HTMLButtonElement => b !== null);
    }
    if (line.asks === "go_to_battle" && fighting) {
      const target = this.session.welcome ? battleRoom(this.session.welcome.campaign, fighting) : null;
      if (target && this.rooms.includes(target)) {
        return [h("button", { "data-testid": "state-go-battle", onclick: () => { this.current = target; this.replayAt = null; this.renderAll(); } }, t("status.go_to_battle"))];
      }
    }
    return [];
  }

  private renderHeader(): void {
    const w = this.session.welcome;
    const room = this.current ? this.session.room(this.current) : null;
    const turn = room ? readCampaign(room.state).turn : null;
    const here = room ? this.presence.get(room.id) : undefined;
    clear(this.header);
    append(this.header,
      h("a", { href: "#", class: "brand", onclick: (e: globalThis.Event) => { e.preventDefault(); this.back(); } }, t("app.title")),
      w ? h("span", { class: "who", "data-testid": "who" },
        w.team ? h("span", { class: "team-mark", style: `color:${teamColour(w.team).fill}`, "aria-hidden": "true" }, `${teamColour(w.team).glyph} `) : null,
        `${t(`role.${w.role}`)} · ${w.role === "player" && w.player ? playerWord(w.player) : w.team ? teamWord(w.team) : ""}`.replace(/ · $/, "")) : null,
      turn !== null ? h("span", { class: "turn" }, t("game.turn", { n: turn })) : null,
      here ? h("span", { class: "presence", "data-testid": "presence" }, `${tn("n.players", here.players)} · ${tn("n.spectators", here.spectators)}`) : null,
      this.clocks.root,
      w?.role === "player" && room?.active.includes(w.team ?? "") && !this.locked
        ? h("button", { class: "end-turn", "data-testid": "end-turn", "aria-keyshortcuts": "Control+Enter", title: t("key.hint", { key: "Ctrl+Enter" }),
          onclick: () => this.endTurn() }, t("game.end_turn"), h("kbd", {}, "Ctrl+↵"))
        : null,
      h("span", { class: "header-tools" },
        h("button", { class: "sound", "data-testid": "sound", "aria-pressed": String(sound.on), title: t("sound.label"),
          onclick: () => { sound.toggle(); this.renderHeader(); } }, sound.on ? `♪ ${t("sound.on")}` : `♪ ${t("sound.off")}`),
        h("button", { class: "lang", "data-testid": "lang", onclick: () => setLang(lang() === "en" ? "ru" : "en") }, t("lang.switch"))),
    );
    this.renderClocks();
  }

  private endTurn(): void {
    const room = this.current;
    if (room) void this.send({ t: "end_turn", room }).catch(() => {});
  }

  private renderClocks(): void {
    const room = this.current ? this.session.room(this.current) : null;
    if (!room) return;
    this.clocks.render(room.clocks, room.clocksAt, this.conn.serverNow(), room.active, this.session.welcome?.team ?? null);
  }

  private renderBanners(): void {
    clear(this.banners);
    const waiting = this.conn.waiting;
    if (this.connState === "replaced") {
      this.banners.append(h("div", { class: "banner error", "data-testid": "conn-banner" }, t("conn.replaced"), " ",
        h("button", { "data-testid": "use-here", onclick: () => this.conn.takeOver() }, t("conn.use_here"))));
    } else if (this.offline && this.connState !== "failed") {
      this.banners.append(h("div", { class: "banner warn", "data-testid": "conn-banner" }, t("conn.offline"), waiting ? ` · ${tn("n.waiting", waiting)}` : ""));
    } else if (this.connState === "reconnecting") {
      const s = this.retryAt !== null ? Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000)) : 0;
      this.banners.append(h("div", { class: "banner warn", "data-testid": "conn-banner" },
        this.retryAt !== null && s > 0 ? t("conn.reconnecting", { s, n: this.attempt }) : t("conn.reconnecting.now"), waiting ? ` · ${tn("n.waiting", waiting)}` : ""));
    } else if (this.connState === "connecting") {
      this.banners.append(h("div", { class: "banner info", "data-testid": "conn-banner" }, t("conn.connecting")));
    } else if (this.connState === "failed") {
      const revoked = /re-issued/.test(this.failure);
      this.banners.append(h("div", { class: "banner error", "data-testid": "conn-banner" }, revoked ? t("conn.revoked") : t("conn.failed", { reason: this.errorText("bad_token", "") })));
    }
    const seenAs = this.current ? this.conn.viewing.get(this.current) : undefined;
    if (seenAs) this.banners.append(h("div", { class: "banner info", "data-testid": "view-as-banner" }, t("mod.view.banner", {
      who: seenAs.startsWith("team:") ? t("mod.view.team", { team: teamWord(seenAs.slice(5)) }) : t(seenAs === "spectator" ? "mod.view.spectator" : "mod.view.public") })));
    const now = this.conn.serverNow();
    const me = this.session.welcome?.player;
    for (const l of this.session.activeLockouts(now)) {
      const time = formatMs(l.untilMs - now);
      this.banners.append(l.player === me
        ? h("div", { class: "banner secret mine", "data-testid": "secret-banner" }, t("secret.you", { time }), l.reason ? ` (${this.reasonWords(l.reason)})` : "",
          // the room where the umpire talks with the player: one click away from wherever the player is
          this.current && isSecretRoom(this.current) ? null : h("button", { class: "banner-action", "data-testid": "open-secret", onclick: () => {
            const w = this.session.welcome;
            if (!w) return;
            this.followSecretModule();
            this.current = secretRoom(w.campaign);
            this.renderAll();
          } }, t("secret.open")))
        : h("div", { class: "banner secret", "data-testid": "secret-banner" }, t("secret.other", { player: playerWord(l.player), time })));
    }
    if (Date.now() < this.backUntil) {
      const home = this.home();
      this.banners.append(h("div", { class: "banner info", "data-testid": "back-banner" }, t("conn.back"), " ",
        home && this.current !== home ? h("button", { onclick: () => { this.current = home; this.renderAll(); } }, t("conn.back.go")) : null));
    }
  }

  private renderRoomTabs(): void {
    clear(this.roomTabs);
    const rooms = this.rooms;
    if (rooms.length < 2) return;
    for (const id of rooms) {
      const r = this.session.room(id);
      const unread = [...r.unread.values()].reduce((a, b) => a + b, 0);
      this.roomTabs.append(h("button", { class: `tab${id === this.current ? " active" : ""}`, "data-testid": `room-${id}`, "data-room": id,
        "aria-pressed": String(id === this.current),
        onclick: () => { this.current = id; this.replayAt = null; this.renderAll(); } }, this.names(id).room(id), unread ? h("span", { class: "unread" }, String(unread)) : null));
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
    const want = viewKind(room.kind === "battle", room.state);
    const shown = view instanceof SkirmishView ? "skirmish" : view instanceof BattleView ? "battle" : view ? "campaign" : null;
    if (!view || shown !== want) {
      const order = (o: Record<string, unknown>) => this.send({ t: "order", room: id, order: o });
      // a refused order in words, said at the unit as well as on the error line
      const refusalText = (exc: unknown) => {
        const e = exc as { code?: unknown; message?: unknown; rule?: unknown };
        const code = typeof e?.code === "string" ? e.code : "other";
        const rule = typeof e?.rule === "string" ? e.rule : null;
        return { text: this.errorText(code, lang() === "en" ? String(e?.message ?? "") : "", rule), rule };
      };
      // issue 14: the unit's legal options from the server, which the previews and the order buttons follow
      const options = (unit: string | null) => this.conn.options(id, unit).then(readOptions);
      const may = canOrder && !this.locked;
      view = want === "skirmish" ? new SkirmishView({ order }, may) : want === "battle" ? new BattleView({ order, refusalText, options }, may)
        : new CampaignView({ order }, may, () => (this.session.welcome?.role === "player" && !this.locked ? this.session.welcome.team ?? null : null));
      this.views.set(id, view);
    }
    view.setCanOrder(canOrder && !this.locked);
    if (this.stage.firstChild !== view.root) {
      clear(this.stage);
      this.stage.append(view.root);
    }
    if (room.kind === "secret_module") {
      clear(this.stage);
      this.stage.append(this.secretRoom());
      return;
    }
    if (view instanceof BattleView) {
      view.names = this.names(id);
      const over = !!readBattle(room.state).result;
      view.onReport = over ? () => void this.openReport(id) : null;
      view.onReplay = over ? () => void this.loadReplay(id, this.defaultReplayAs()) : null;
    }
    const replay = this.serverReplay?.room === id ? this.serverReplay.player : null;
    if (replay) {
      // the replay's player drives the view; the live room goes on underneath
      if (this.stage.firstChild !== replay.root) this.stage.replaceChildren(replay.root, view.root);
      this.stage.classList.add("replaying");
      return;
    }
    this.stage.classList.remove("replaying");
    if (this.stage.childNodes.length !== 1 || this.stage.firstChild !== view.root) this.stage.replaceChildren(view.root);
    const frame = this.replayAt !== null ? room.frames[this.replayAt] : undefined;
    const seenAs = this.conn.viewing.get(id);
    const deskTeam = seenAs?.startsWith("team:") ? seenAs.slice(5) : null;
    view.setState(frame ? frame.state : room.state, deskTeam ?? (w?.role === "player" ? w.team ?? null : null));
    if (view instanceof SkirmishView) view.setEvents(room.log);
  }

  /** The secret module (D-N-14): what it is, for the player held there; for the umpire, who is held and until
   * when, each with a button that brings them back. The talk itself is the room's channel beside it. */
  private secretRoom(): HTMLElement {
    const w = this.session.welcome;
    const now = this.conn.serverNow();
    const held = this.session.activeLockouts(now);
    const mine = held.find((l) => l.player === w?.player);
    // a sentence with a countdown in it: the tick keeps the countdown going without redrawing the buttons
    const timed = (key: MessageKey, untilMs: number): (string | HTMLElement)[] => {
      const [before, after] = t(key, { time: "\u0000" }).split("\u0000");
      return [before ?? "", h("span", { class: "countdown", "data-until": String(untilMs) }, formatMs(untilMs - now)), after ?? ""];
    };
    return h("div", { class: "secret-room", "data-testid": "secret-room" }, h("h2", {}, t("chan.secret")),
      mine ? h("p", {}, ...timed("secret.room.you", mine.untilMs)) : h("p", {}, t("secret.room.help")),
      mine?.reason ? h("p", { class: "muted" }, t("secret.room.reason", { reason: this.reasonWords(mine.reason) })) : null,
      w?.role === "moderator" ? (held.length
        ? h("ul", { class: "held", "data-testid": "secret-held" }, ...held.map((l) => h("li", {},
          `${playerWord(l.player)} · `, ...timed("secret.room.until", l.untilMs), l.reason ? ` · ${this.reasonWords(l.reason)} ` : " ",
          h("button", { "data-testid": `release-${l.player}`, onclick: () => void this.send({ t: "mod_release", player: l.player }).catch(() => {}) }, t("mod.release")))))
        : h("p", { class: "muted" }, t("status.secret.empty"))) : null);
  }

  /** C-8.3: questions by kind (yes/no ½, numeric 1, arm of service 2 from the quota), the answers so far. */
  private reconPanel(id: string, model: ReturnType<typeof readCampaign>): HTMLElement {
    const w = this.session.welcome;
    const kind = h("select", { "data-testid": "recon-kind" }, ...RECON_KINDS.map((k) => h("option", { value: k }, t(`recon.kind.${k}`))));
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
    // C-8.3: questions are asked once at war, from a quota that grows each turn of it: before the war, or with the
    // quota spent, the form says why instead of offering a question the engine refuses
    const war = this.session.room(id).state.war === true;
    const why = !war ? t("recon.before_war") : model.recon.left !== null && model.recon.left <= 0 ? t("recon.none_left") : null;
    return h("section", { class: "recon", "data-testid": "recon" }, h("h3", {}, t("recon.title")),
      h("p", {}, t("recon.budget", { n: model.recon.left ?? "—" })),
      why ? h("p", { class: "muted", "data-testid": "recon-why" }, why, " (", ...ruleLinks(["C-8.3"]), ")") : null,
      h("ul", {}, ...model.recon.answers.map((a) => h("li", { class: a.falseAnswer ? "false-answer" : "" },
        `${w?.role === "moderator" && a.team ? `${teamWord(a.team)}: ` : ""}${a.question} → ${a.answer}${a.falseAnswer && a.truth !== null ? ` (${a.truth})` : ""}`))),
      w?.role === "player" && !this.locked ? h("form", { onsubmit: ask }, kind, " ", cell, " ", what, " ",
        h("button", { type: "submit", "data-testid": "recon-ask", ...(why ? { disabled: true } : {}) }, t("recon.ask"))) : null);
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
    const nap = readNapoleon(napoleonicView(this.session.room(id).state));
    const send = (o: Record<string, unknown>) => () => void this.send({ t: "order", room: id, order: o }).catch(() => {});
    const button = (o: Offer, testid: string) => h("button", { "data-testid": testid, onclick: send(o.order) }, t(`nap.${o.key}` as MessageKey, properArgs(o.args)));
    const reinforce = reinforceOffers(nap, team);
    const intercepts = interceptOffers(nap, team);
    return h("section", { class: "battles", "data-testid": "battles" }, model.battles.length ? h("h3", {}, t("battle.list")) : null,
      !model.battles.length ? null : h("ul", {}, ...model.battles.map((b) => {
        const room = battleRoom(w?.campaign ?? "", b.id);
        const mine = team !== null && (team === b.attacker || team === b.defender);
        const contact = b.status === "contact";
        const quick = b.raw.quick;
        const quickBy = b.status === "running" && quick ? quick.offered_by : null;
        return h("li", {},
          `${this.names(id).place(b.raw.cell ?? [b.cell.x, b.cell.y])} · ${teamWord(b.attacker)} × ${teamWord(b.defender)} · ${kindWord(b.kind)} · ${statusWord(b.status)} `,
          this.rooms.includes(room) ? h("button", { onclick: () => { this.current = room; this.replayAt = null; this.renderAll(); } }, t("lobby.open")) : null,
          // a battle fought to its end: its replay and report (issue 17), in a tab of their own when not followed here
          b.status === "over" && !this.rooms.includes(room) ? h("span", { class: "buttons inline" },
            h("a", { class: "button", href: `#replay=${encodeURIComponent(room)}&as=${encodeURIComponent(this.defaultReplayAs())}&title=${encodeURIComponent(this.names(id).battle(b.id))}`, target: "_blank", "data-testid": "battle-replay" }, t("lobby.replay")),
            h("a", { class: "button", href: `#replay=${encodeURIComponent(room)}&as=${encodeURIComponent(this.defaultReplayAs())}&title=${encodeURIComponent(this.names(id).battle(b.id))}&report=1`, target: "_blank", "data-testid": "battle-report" }, t("report.open"))) : null,
          mine && contact && team === b.defender ? h("span", { class: "buttons" },
            ...(["accept", "withdraw", "retreat_with_battle"] as const).map((choice) =>
              h("button", { onclick: send({ type: "answer", battle: b.id, choice }) }, t(`battle.answer.${choice}`)))) : null,
          mine && b.status === "running" && !quickBy ? h("button", { onclick: send({ type: "offer_quick", battle: b.id }) }, t("battle.quick")) : null,
          quickBy ? ` ${t("nap.quick.offered", { by: teamWord(quickBy) })} ` : null,
          mine && quickBy && quickBy !== team ? h("span", { class: "buttons" },
            h("button", { "data-testid": "quick-accept", onclick: send({ type: "answer_quick", battle: b.id, accept: true }) }, t("nap.quick.accept")),
            h("button", { "data-testid": "quick-refuse", onclick: send({ type: "answer_quick", battle: b.id, accept: false }) }, t("nap.quick.refuse"))) : null,
          w?.role === "moderator" && b.status === "running" ? h("button", { "data-testid": "quick-impose",
            onclick: () => void this.send({ t: "mod_ruling", room: id, ruling: { type: "impose_quick", battle: b.id } }).catch(() => {}) }, t("nap.quick.impose")) : null,
          ...reinforce.filter((o) => o.order.battle === b.id).map((o) => button(o, "reinforce")));
      })),
      intercepts.length ? h("div", { class: "buttons", "data-testid": "interceptions" }, ...intercepts.map((o) => button(o, "intercept"))) : null,
      nap.sieges.length ? h("h3", {}, t("nap.sieges")) : null,
      nap.sieges.length ? h("ul", { "data-testid": "sieges" }, ...nap.sieges.map((s) => this.siegeItem(id, s, team, nap))) : null);
  }

  /** One siege: who besieges whom, the phase, the decisions the viewer's team may take, the terms on the table. */
  private siegeItem(id: string, s: Siege, team: string | null, nap: NapView): HTMLElement {
    const w = this.session.welcome;
    const send = (o: Record<string, unknown>) => () => void this.send({ t: "order", room: id, order: o }).catch(() => {});
    const offers = siegeOffers(s, team, nap.turn);
    const guns = offers.some((o) => o.key === "siege.storm") ? howitzerChoice(nap, s, team) : null;
    const pickKey = `${id}\n${s.fortress}`;
    const picked = this.howitzerPicks.get(pickKey) ?? new Set<string>();
    for (const uid of picked) if (!guns?.companies.some((u) => u.id === uid)) picked.delete(uid); // a company since lost
    const orderOf = (o: Offer) => (o.key === "siege.storm" ? stormOrder(s.fortress, guns ? [...picked] : []) : o.order);
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
      t("nap.siege", { fortress: proper(s.fortress), besieger: teamWord(s.besieger), garrison: teamWord(s.garrison), phase: phaseWord(s.phase) }),
      s.phase === "invested" && s.stormFrom !== null ? ` · ${t("nap.storm_from", { turn: s.stormFrom })}` : "",
      s.proposal ? h("div", { "data-testid": "terms-on-table" }, t("nap.terms.table", {
        by: teamWord(s.proposer), garrison: t(`nap.terms.${s.proposal.garrison}` as MessageKey), general: t(`nap.terms.${s.proposal.general}` as MessageKey) })) : null,
      guns ? this.howitzerPicker(id, guns, picked, pickKey) : null,
      h("div", { class: "buttons" }, ...offers.map((o) => h("button", {
        "data-testid": o.key.replace(/\./g, "-"), onclick: () => send(orderOf(o))() },
      t(`nap.${o.key}` as MessageKey, o.args ? { garrison: t(`nap.terms.${o.args.garrison}` as MessageKey), general: t(`nap.terms.${o.args.general}` as MessageKey) } : undefined)))),
      inTerms && team !== null && (team === s.besieger || team === s.garrison) ? terms("terms-propose", (g, gen) => termsOrder(s.fortress, g, gen), false) : null,
      inTerms && w?.role === "moderator" ? terms("terms-impose", (g, gen) => imposeTermsRuling(s.fortress, g, gen), true) : null);
  }

  /** N-SIEGE-9, D-N-15: the besieger ticks which field companies become howitzers for its storm; once half of its
   * companies (rounded up) are ticked the others are closed, and the line under them says why. */
  private howitzerPicker(id: string, guns: NonNullable<ReturnType<typeof howitzerChoice>>, picked: Set<string>, key: string): HTMLElement {
    const names = this.names(id);
    const full = picked.size >= guns.limit;
    const toggle = (uid: string) => () => {
      if (picked.has(uid)) picked.delete(uid);
      else if (picked.size < guns.limit) picked.add(uid);
      this.howitzerPicks.set(key, picked);
      this.renderSide();
    };
    return h("fieldset", { class: "howitzers", "data-testid": "howitzers" },
      h("legend", {}, t("nap.howitzers", { limit: guns.limit, of: guns.of }), " ", ...ruleLinks(["N-SIEGE-9", "D-N-15"])),
      ...guns.companies.map((u) => h("label", { class: "check" },
        h("input", { type: "checkbox", "data-testid": `howitzer-${u.id}`, ...(picked.has(u.id) ? { checked: true } : {}),
          ...(full && !picked.has(u.id) ? { disabled: true } : {}), onchange: toggle(u.id) }),
        ` ${names.unit(u.id)}`)),
      full ? h("p", { class: "muted", "data-testid": "howitzers-full" }, t("nap.howitzers.full", { limit: guns.limit, of: guns.of })) : null);
  }

  /** The campaign's players: each team's seats as the lobby lists them, else the seats its armies name, else who
   * spoke. */
  private playersOf(id: string): string[] {
    const w = this.session.welcome;
    const teams = this.teamsOf(this.session.room(id));
    const seats = new Map<string, number>(w ? this.campaignTeams.get(w.campaign) ?? [] : []);
    const campaign = w ? this.session.rooms.get(campaignRoom(w.campaign))?.state : undefined;
    for (const a of Array.isArray(campaign?.armies) ? campaign.armies as Record<string, unknown>[] : []) {
      if (typeof a.team === "string" && typeof a.seat === "number") seats.set(a.team, Math.max(seats.get(a.team) ?? 0, a.seat));
    }
    const out = teams.flatMap((tm) => Array.from({ length: seats.get(tm) ?? 0 }, (_, i) => `${tm}-${i + 1}`));
    const spoke = this.session.room(id).log.flatMap((e) => (typeof e.data.from === "string" && /^[a-z]+-\d+$/.test(e.data.from) ? [e.data.from] : []));
    return [...new Set([...out, ...spoke])];
  }

  /** The teams (sides) of a room, from its clocks and its view. */
  private teamsOf(room: RoomView): string[] {
    const fromClocks = Object.keys((room.clocks.teams as Record<string, unknown> | undefined) ?? {});
    const fromView = room.kind === "battle" ? readBattle(room.state).sides
      : room.state.kind === "skirmish" ? readSkirmish(room.state).sides.map((s) => s.team) : Object.keys(readCampaign(room.state).teams);
    return [...fromClocks, ...fromView].filter((x, i, a) => x && a.indexOf(x) === i);
  }

  /** The viewer class a replay or report is for by default: a player its own side, anyone else everything. */
  private defaultReplayAs(): ReplayAs {
    const w = this.session.welcome;
    // issue 12: a named spectator (`spectator:<name>`) replays in full; the spectators' link as the public sees it
    if (w?.role === "spectator") return w.player?.startsWith("spectator:") ? "spectator" : "public";
    return w?.role === "player" ? `team:${w.team ?? ""}` : "full";
  }

  private describe(room: string): (e: ReplayEvent) => string {
    const names = this.names(room);
    return (e) => (e.kind === "chat" ? `${String(e.data.name ?? e.data.from ?? "")}: ${String(e.data.text ?? "")}`
      : describeEvent({ t: "ev", room, ...e } as never, names).text);
  }

  /** Load a finished room's replay from the server, event by event, as `as` saw it (issue 17 item 4); while it is
   * still played (409), or on a server without replays, step through the turns this client saw. */
  private async loadReplay(room: string, as: ReplayAs): Promise<void> {
    this.replayNote = t("replay.loading");
    this.renderSide();
    try {
      const { steps } = await fetchSteps(room, as, sessionStorage.getItem("token"));
      const timeline = new Timeline(steps);
      this.closeReplay();
      const view = this.views.get(room);
      if (!view || !timeline.length) throw new ReplayRefused(404, t("replay.empty"));
      const side = as.startsWith("team:") ? as.slice(5) : null;
      const title = t("replay.as", { room: this.names(room).room(room), as: this.asWord(as) });
      const player = new ReplayPlayer(timeline, view, side, this.describe(room), () => { this.closeReplay(); this.renderAll(); }, title);
      this.serverReplay = { room, as, player };
      this.replayAt = null;
      this.replayNote = t("replay.loaded_events", { n: tn("n.events", timeline.length), as: this.asWord(as) });
      this.current = room;
    } catch (exc) {
      this.replayNote = exc instanceof ReplayUnavailable ? t("replay.unavailable")
        : exc instanceof ReplayRefused && exc.status === 409 ? t("replay.running")
        : exc instanceof ReplayRefused && exc.status === 403 ? t("replay.forbidden") : String((exc as Error).message);
    }
    this.renderAll();
  }

  private closeReplay(): void {
    this.serverReplay?.player.destroy();
    this.serverReplay = null;
  }

  private asWord(as: ReplayAs): string {
    return as === "full" ? t("replay.full") : as === "spectator" ? t("mod.view.spectator") : as === "public" ? t("mod.view.public") : teamWord(as.slice(5));
  }

  /** The after-action report of a battle room (issue 17 item 5), from the events this viewer may see: the server's
   * event replay once the battle is over, else the events this client received. */
  private async openReport(room: string): Promise<void> {
    const dialog = this.reportDialog;
    dialog.replaceChildren(h("p", {}, t("report.loading")));
    if (!dialog.open) dialog.showModal?.();
    const as = this.serverReplay?.room === room ? this.serverReplay.as : this.defaultReplayAs();
    let events: ReplayEvent[];
    let first: Record<string, unknown>;
    let last: Record<string, unknown>;
    try {
      const { steps } = await fetchSteps(room, as, sessionStorage.getItem("token"));
      events = steps.flatMap((s) => s.events);
      first = steps[0]?.state ?? {};
      last = steps[steps.length - 1]?.state ?? {};
    } catch {
      const r = this.session.room(room);
      events = r.log.map((e) => ({ seq: e.seq, at_ms: e.at_ms, kind: e.kind, data: e.data }));
      first = r.frames[0]?.state ?? r.state;
      last = r.state;
    }
    const names = this.names(room);
    const title = names.room(room);
    const report = afterAction(events, first, last);
    dialog.replaceChildren(h("button", { type: "button", class: "close no-print", "data-testid": "report-close", onclick: () => dialog.close() }, t("report.close")),
      reportView(report, title, (id) => names.unit(id), `report-${room}`));
    dialog.scrollTop = 0;
    dialog.querySelector<HTMLElement>("h2")?.focus();
  }

  private replayPanel(room: RoomView): HTMLElement | null {
    const frames: Frame[] = room.frames;
    const n = frames.length;
    const w = this.session.welcome;
    const canLoad = room.kind === "battle" || (room.kind === "campaign" && (room.state.phase === "over" || !!room.state.winner || (room.state.kind === "skirmish" && !!room.state.result)));
    if (n < 2 && this.replayAt === null && !canLoad) return null;
    const at = this.replayAt;
    const go = (i: number | null) => {
      this.replayAt = i === null || n === 0 ? null : Math.max(0, Math.min(n - 1, i));
      this.renderStage();
      this.renderSide();
    };
    // The moderator replays any view; a player its own side's, a spectator what it sees (or, either, the public's).
    const options = replayChoices(w?.role, this.defaultReplayAs(), this.teamsOf(room));
    const chosen = this.replayChoice && options.includes(this.replayChoice) ? this.replayChoice : null;
    const loaded = chosen ?? (this.serverReplay?.room === room.id ? this.serverReplay.as : this.defaultReplayAs());
    const as = h("select", { "data-testid": "replay-as", onchange: () => { this.replayChoice = as.value as ReplayAs; } }, ...options.map((o) => h("option", { value: o, ...(o === loaded ? { selected: "" } : {}) }, this.asWord(o))));
    const replaying = this.serverReplay?.room === room.id;
    return h("section", { class: "replay", "data-testid": "replay" }, h("h3", {}, t("replay.title")),
      // the turns this client saw, while the room is still played
      !replaying && n > 1 ? h("div", { class: "buttons" },
        h("button", { "data-testid": "replay-seen-prev", onclick: () => go((at ?? n - 1) - 1) }, t("replay.prev")),
        h("span", { "data-testid": "replay-turn" }, at === null || !frames[at] ? t("replay.live") : t("replay.turn", { n: frames[at].turn, of: frames[n - 1]!.turn })),
        h("button", { "data-testid": "replay-seen-next", onclick: () => go(at === null ? null : at + 1 < n - 1 ? at + 1 : null) }, t("replay.next")),
        at !== null ? h("button", { "data-testid": "replay-seen-live", onclick: () => go(null) }, t("replay.live")) : null) : null,
      canLoad ? h("div", { class: "buttons" }, t("replay.view"), " ", as, " ",
        h("button", { "data-testid": "replay-load", onclick: () => void this.loadReplay(room.id, as.value as ReplayAs) }, t("replay.load"))) : null,
      room.kind === "battle" ? h("div", { class: "buttons" }, h("button", { "data-testid": "report-load", onclick: () => void this.openReport(room.id) }, t("report.open"))) : null,
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
      // the umpire talks in the secret module with each player held there, on that player's channel (D-N-14)
      const secretTalk = w?.role === "moderator" && isSecretRoom(id);
      chan = new ChannelsPanel(this.session, id, (channel, text) => this.say(id, channel, text),
        () => this.locked && !isSecretRoom(id), secretTalk ? (listed) => [...new Set([
          ...this.session.activeLockouts(this.conn.serverNow()).map((l) => `secret:${l.player}`),
          ...listed.filter((c) => c.startsWith("secret:")), ...this.session.room(id).chat.keys()])] : undefined);
      this.channels.set(id, chan);
    }
    chan.render();
    this.place(this.slots.chan, chan.root);
    const model = room.kind === "campaign" ? readCampaign(room.state) : null;
    const recon = model && (model.recon.left !== null || model.recon.answers.length) ? model.recon : null;
    const reconKey = recon ? `${id} ${lang()} ${this.locked} ${room.state.war === true} ${JSON.stringify(recon)}` : "";
    if (reconKey !== this.reconShown) {
      this.reconShown = reconKey;
      this.place(this.slots.recon, model && recon ? this.reconPanel(id, model) : null);
    }
    const nap = model?.napoleonic ? readNapoleon(napoleonicView(room.state)) : null;
    const battlesKey = model && (model.battles.length || nap?.sieges.length || nap?.interceptions.length)
      ? `${id} ${lang()} ${JSON.stringify([model.battles.map((b) => b.raw), nap && [nap.sieges, nap.interceptions, nap.turn, nap.active,
        nap.armies.map((a) => [a.id, a.status, a.cell, typeof a.units === "number" ? a.units : a.units.length])], w?.rooms, this.locked,
        [...this.howitzerPicks].map(([k, v]) => [k, [...v]])])}` : "";
    if (battlesKey !== this.battlesShown) {
      this.battlesShown = battlesKey;
      this.place(this.slots.battles, model && battlesKey ? this.battlesPanel(id, model) : null);
    }
    this.place(this.slots.rules, model?.houseRules.length
      ? h("section", {}, h("h3", {}, t("game.house_rules"), " (", ...ruleLinks(["C-0.3"]), ")"), h("ul", {}, ...model.houseRules.map((r) => h("li", {}, r)))) : null);
    if (w?.role === "moderator" && room.kind === "secret_module") {
      this.place(this.slots.desk, null); // the room's own page holds what the umpire does here
    } else if (w?.role === "moderator") {
      // Only the full view marks false answers (server/continental/fog.py): keep them while the desk shows a team's.
      if (model && !this.conn.viewing.has(id)) this.falseAnswers.set(id, model.recon.answers.filter((a) => a.falseAnswer));
      let desk = this.desks.get(id);
      if (!desk) {
        desk = moderatorDesk({
          room: id,
          teams: () => this.teamsOf(this.session.room(id)),
          players: () => this.playersOf(id),
          units: () => {
            const r = this.session.room(id);
            const names = this.names(id);
            if (r.state.kind === "skirmish") return readSkirmish(r.state).units.map((u): [string, string] => [u.id, `${u.id} ${u.name}`]);
            return r.kind === "battle" ? readBattle(r.state).units.map((u): [string, string] => [u.id, names.unit(u.id)])
              : readCampaign(r.state).forces.map((f): [string, string] => [f.id, proper(f.name)]);
          },
          battles: () => readCampaign(this.session.room(id).state).battles.filter((b) => b.status === "running")
            .map((b): [string, string] => [b.id, this.names(id).battle(b.id)]),
          engine: () => engineOf(this.session.room(id).kind, this.session.room(id).state),
          clocks: () => {
            const c = this.session.room(id).clocks;
            return !Object.keys(c).length ? "none" : c.paused === true ? "paused" : "running";
          },
          audit: () => {
            const log = this.session.room(id).log;
            const names = this.names(id);
            return {
              lines: log.map((e) => t("mod.audit.by", { at: new Date(e.at_ms).toLocaleTimeString(lang()), who: `#${e.seq}`, what: describeEvent(e, names).text })),
              data: { room: id, events: log.map((e) => ({ seq: e.seq, at_ms: e.at_ms, kind: e.kind, data: e.data })) },
            };
          },
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
    const names = this.names(id);
    const shown = worthTelling(room.log);
    const lines = shown.slice(-80).reverse().map((ev) => ({ ev, line: describeEvent(ev, names) }));
    for (const { ev, line } of lines) {
      this.logList.append(h("li", { "data-kind": ev.kind, "data-seq": ev.seq }, line.text, ...(line.rules.length ? [" [", ...ruleLinks(line.rules), "]"] : [])));
    }
    // Read out what is new since the last look at this room (not the whole list again).
    // (a room first looked at reads out nothing of its past, even when it has none yet)
    const seen = this.announced.get(id);
    // (nor what a snapshot brought back of the room's past: a page reloaded mid-game lists it, quietly)
    const fresh = lines.filter(({ ev }) => ev.seq > Math.max(seen ?? 0, room.pastSeq)).reverse();
    if (fresh.length && seen !== undefined) this.live.textContent = fresh.slice(-3).map(({ line }) => line.text).join(". ");
    this.announced.set(id, Math.max(seen ?? 0, lines[0]?.ev.seq ?? room.seq));
    this.place(this.slots.log, h("section", {}, h("h3", {}, room.kind === "battle" ? t("battle.dice") : t("game.log")), this.logList));
    this.place(this.slots.replay, this.replayPanel(room));
  }
}
