/**
 * What this client knows of each room it follows, built from the server's snapshots and events: the projected
 * state, the clocks, the turn log, chat per channel with unread counts, and who is in the secret module. The
 * client never infers hidden information: it shows exactly what the server sent.
 */
import type { Event, Joined, Snapshot, View, Welcome } from "./protocol";
import { campaignOf } from "./room-id";

export interface ChatLine {
  seq: number;
  at: number;
  channel: string;
  from: string;
  text: string;
}

/** A line this client said that the server has not confirmed yet: `sending` (or waiting for the connection),
 * `unconfirmed` (the socket went while it was on its way: the resumed events tell), `unsent` (it did not arrive,
 * or the server refused it: `error` says why). Nothing typed is lost without a word. */
export interface PendingLine {
  id: number;
  room: string;
  channel: string;
  text: string;
  state: "sending" | "unconfirmed" | "unsent";
  error: string;
}

export interface Lockout {
  player: string;
  untilMs: number;
  reason: string;
  /** the campaign whose room decides it (null: a room id that names none) */
  campaign: string | null;
}

export interface RoomView {
  id: string;
  kind: Snapshot["kind"] | "unknown";
  seq: number;
  state: Record<string, unknown>;
  clocks: Record<string, unknown>;
  /** server_ms when `clocks` was current */
  clocksAt: number;
  log: Event[];
  /** the seq up to which `log` came with a snapshot (a page reloaded): the past, not read out as news */
  pastSeq: number;
  channels: string[];
  chat: Map<string, ChatLine[]>;
  unread: Map<string, number>;
  /** teams whose turn it is */
  active: string[];
  /** the seats the computer plays that this viewer is told of (issue 18: the moderator all, a team its own) */
  ai: string[];
  /** the seq of the last event `state` reflects (from a snapshot, a view, or an event that carried state) */
  stateSeq: number;
  /** the seq of the last event that changed the game without carrying what the viewer now sees */
  staleSeq: number;
  /** The last projection this client saw of each turn, oldest first: what a replay steps through. */
  frames: { turn: number; seq: number; state: Record<string, unknown> }[];
}

const FRAME_LIMIT = 400;

/** Keep the newest view of each turn; a new turn number starts a new frame. */
export function recordFrame(r: RoomView): void {
  const t = r.state.turn;
  const turn = typeof t === "number" ? t : typeof t === "object" && t !== null && typeof (t as { number?: unknown }).number === "number" ? (t as { number: number }).number : null;
  if (turn === null) return;
  const last = r.frames[r.frames.length - 1];
  if (last && last.turn === turn) {
    last.seq = r.seq;
    last.state = r.state;
  } else {
    r.frames.push({ turn, seq: r.seq, state: r.state });
    if (r.frames.length > FRAME_LIMIT) r.frames.shift();
  }
}

const LOG_LIMIT = 500;
/** Events that carry all they change (chat, clocks, lockouts, the room's own bookkeeping). */
const SELF_CONTAINED = new Set(["chat", "message", "announcement", "secret_module", "player_released", "room_opened", "seed_revealed", "spectating", "downtime", "ai_seat"]);
const CHAT_KINDS = new Set(["chat", "message", "announcement"]);
const LOCK_KINDS = new Set(["secret_module", "player_locked", "secret_module_entered", "locked_out"]);
const RELEASE_KINDS = new Set(["player_released", "secret_module_left", "released"]);

function str(v: unknown, fallback = ""): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : fallback;
}


/** The channel a chat event belongs to; events without one are announcements. */
export function chatChannel(ev: Event): string {
  return str(ev.data.channel, ev.kind === "announcement" ? "announce" : "players");
}

export class Session {
  welcome: Welcome | null = null;
  /** true once the server has sent a `view`: it sends one after every command that changed what a viewer sees */
  sendsViews = false;
  readonly rooms = new Map<string, RoomView>();
  readonly lockouts = new Map<string, Lockout>();
  /** The channel each room's chat panel shows; reading it clears its unread marker. */
  readonly reading = new Map<string, string>();
  /** Chat lines said here and not yet seen come back from the server. */
  pending: PendingLine[] = [];
  private nextLine = 1;
  private readonly listeners = new Set<(room: string | null) => void>();

  subscribe(fn: (room: string | null) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(room: string | null): void {
    for (const fn of this.listeners) fn(room);
  }

  room(id: string): RoomView {
    let r = this.rooms.get(id);
    if (!r) {
      r = {
        id, kind: "unknown", seq: 0, stateSeq: 0, staleSeq: 0, state: {}, clocks: {}, clocksAt: 0, log: [], pastSeq: 0, channels: [],
        chat: new Map(), unread: new Map(), active: [], ai: [], frames: [],
      };
      this.rooms.set(id, r);
    }
    return r;
  }

  onWelcome(w: Welcome): void {
    this.welcome = w;
    if (w.player && w.locked_until_ms) {
      this.lockouts.set(w.player, { player: w.player, untilMs: w.locked_until_ms, reason: "", campaign: w.campaign });
    }
    this.changed(null);
  }

  onSnapshot(s: Snapshot): void {
    const r = this.room(s.room);
    r.kind = s.kind;
    r.seq = s.seq;
    r.stateSeq = s.seq;
    r.staleSeq = Math.min(r.staleSeq, s.seq);
    r.state = s.state;
    r.clocks = s.clocks;
    r.clocksAt = s.server_ms;
    recordFrame(r);
    // the room's teams to act, which may differ from the engine's turn order in the state (a campaign waiting for
    // its battles has none; a defender deciding under its clock is one)
    r.active = [...s.active];
    r.ai = [...(s.ai ?? [])];
    // The campaign room's `away` is every lockout of its campaign: one it no longer lists is over, its `returned`
    // missed (a gap, a reconnect). Battle and secret-module rooms list only their own, so they remove none.
    const campaign = campaignOf(s.room);
    if (s.kind === "campaign") {
      const listed = new Set(s.away.map((a) => a.player));
      for (const [p, l] of this.lockouts) if (l.campaign === campaign && !listed.has(p)) this.lockouts.delete(p);
    }
    for (const l of s.away) this.applyLock({ ...l }, campaign);
    r.chat.clear();
    for (const line of s.chat) this.addChat(r, this.chatLine({ ...line }, 0, 0), false);
    if (s.log?.length) this.restoreLog(r, s.log, s.seq);
    this.changed(s.room);
  }

  /** A snapshot's `log`: the room's recent events up to its seq that this viewer may see (a page reloaded
   * mid-game). They fill the turn log and nothing else — already in the snapshot's state, chat and lockouts,
   * and not news: no animation plays them (only live events are played). Events held from before that the log
   * does not reach back to are kept before it. */
  private restoreLog(r: RoomView, log: readonly Event[], seq: number): void {
    const first = log[0]?.seq ?? seq + 1;
    const kept = r.log.filter((e) => e.seq < first);
    r.log = [...kept, ...log.filter((e) => e.room === r.id && e.seq <= seq)];
    if (r.log.length > LOG_LIMIT) r.log.splice(0, r.log.length - LOG_LIMIT);
    r.pastSeq = Math.max(r.pastSeq, seq);
  }

  /** What this viewer now sees of the room after the events up to `v.seq`. A view older than the state held (a
   * snapshot taken later) is dropped. */
  onView(v: View): void {
    this.sendsViews = true;
    const r = this.room(v.room);
    if (v.seq < r.stateSeq) return;
    r.stateSeq = v.seq;
    r.seq = Math.max(r.seq, v.seq);
    r.state = v.state;
    r.clocks = v.clocks;
    r.clocksAt = v.server_ms;
    if (Array.isArray(v.active)) r.active = [...v.active];
    else if (Array.isArray(v.state.active)) r.active = v.state.active.map(String); // a server without `active` in views
    recordFrame(r);
    this.changed(v.room);
  }

  /** True when the room's state is older than an event that changed it: with a server that sends views, the
   * view is still on its way; with one that does not, the caller fetches a fresh snapshot. */
  stale(room: string): boolean {
    const r = this.rooms.get(room);
    return r !== undefined && r.staleSeq > r.stateSeq;
  }

  onJoined(j: Joined): void {
    const r = this.room(j.room);
    r.channels = j.channels;
    for (const c of j.channels) if (!r.unread.has(c)) r.unread.set(c, 0);
    this.changed(j.room);
  }

  /** Apply an event; true when it changed the game in a way only a new projection shows (the event carries no
   * state): a `view` follows from servers that send them (see `stale`), otherwise the caller re-joins. */
  onEvent(ev: Event): boolean {
    const r = this.room(ev.room);
    r.seq = ev.seq;
    r.log.push(ev);
    if (r.log.length > LOG_LIMIT) r.log.splice(0, r.log.length - LOG_LIMIT);
    const d = ev.data;
    if (CHAT_KINDS.has(ev.kind)) {
      this.addChat(r, this.chatLine({ ...d, channel: chatChannel(ev) }, ev.seq, ev.at_ms), true);
    }
    if (d.clocks && typeof d.clocks === "object") {
      r.clocks = d.clocks as Record<string, unknown>;
      r.clocksAt = typeof d.server_ms === "number" ? d.server_ms : ev.at_ms;
    }
    // An event may carry this viewer's new projection of the room (after a turn resolves).
    const next = d.state ?? d.view;
    if (next && typeof next === "object") r.state = next as Record<string, unknown>;
    if (Array.isArray(d.active)) r.active = d.active.map(String);
    if (ev.kind === "ai_seat") {  // a seat handed to the computer or back (issue 18)
      r.ai = r.ai.filter((p) => p !== str(d.player));
      if (d.on === true) r.ai = [...r.ai, str(d.player)].sort();
    }
    if (LOCK_KINDS.has(ev.kind) && d.action !== "returned") this.applyLock(d, campaignOf(ev.room));
    if (RELEASE_KINDS.has(ev.kind) || (ev.kind === "secret_module" && d.action === "returned")) this.lockouts.delete(str(d.player));
    const carried = !!next && typeof next === "object";
    if (carried) r.stateSeq = ev.seq;
    const applied = this.applyUnitEvent(r, ev);
    if (carried || applied) recordFrame(r);
    const stale = !carried && !applied && !SELF_CONTAINED.has(ev.kind) && !ev.kind.startsWith("clock_");
    if (stale) r.staleSeq = ev.seq;
    this.changed(ev.room);
    return stale;
  }

  /** Keep the projection current between snapshots: an event that carries a unit the viewer may see (`id` and a
   * position) replaces that unit in the state's unit list. The server filtered it for this viewer already. */
  private applyUnitEvent(r: RoomView, ev: Event): boolean {
    const d = ev.data;
    if (typeof d.id !== "string" || !("x" in d || "cell" in d || "anchor" in d)) return false;
    for (const key of ["counters", "forces", "units"]) {
      const list = r.state[key];
      if (!Array.isArray(list)) continue;
      const i = list.findIndex((u) => (u as Record<string, unknown>).id === d.id);
      const next = [...list];
      if (i >= 0) next[i] = { ...(list[i] as Record<string, unknown>), ...d };
      else next.push({ ...d });
      r.state = { ...r.state, [key]: next };
      return true;
    }
    return false;
  }

  private applyLock(d: Record<string, unknown>, campaign: string | null): void {
    const player = str(d.player);
    const until = Number(d.until_ms ?? d.locked_until_ms ?? 0);
    if (player && until) this.lockouts.set(player, { player, untilMs: until, reason: str(d.reason), campaign });
  }

  private chatLine(d: Record<string, unknown>, seq: number, at: number): ChatLine {
    return {
      seq, at: Number(d.at_ms ?? at),
      channel: str(d.channel, "players"),
      from: str(d.name ?? d.from ?? d.sender ?? d.player, "?"),
      text: str(d.text),
    };
  }

  /** A line about to be sent; `chatSent` / `chatFailed` settle it. */
  sayPending(room: string, channel: string, text: string): PendingLine {
    const line: PendingLine = { id: this.nextLine++, room, channel, text, state: "sending", error: "" };
    this.pending.push(line);
    this.changed(room);
    return line;
  }

  chatSent(line: PendingLine): void {
    this.dropPending(line);
  }

  /** `inFlight`: it went out on a socket that then dropped, so it may have arrived. */
  chatFailed(line: PendingLine, inFlight: boolean, error: string): void {
    if (!this.pending.includes(line)) return;
    line.state = inFlight ? "unconfirmed" : "unsent";
    line.error = error;
    this.changed(line.room);
  }

  /** The room was joined again after a drop: what did not come back in the resumed events did not arrive. */
  settleUnconfirmed(room: string): void {
    let any = false;
    for (const line of this.pending) {
      if (line.room === room && line.state === "unconfirmed") {
        line.state = "unsent";
        any = true;
      }
    }
    if (any) this.changed(room);
  }

  dropPending(line: PendingLine): void {
    const before = this.pending.length;
    this.pending = this.pending.filter((l) => l !== line);
    if (this.pending.length !== before) this.changed(line.room);
  }

  private addChat(r: RoomView, line: ChatLine, live: boolean): void {
    // One of ours came back: it arrived, whatever the ack said (or did not say, the socket having gone).
    const me = this.welcome?.player;
    const mine = me ? this.pending.find((p) => p.room === r.id && p.text === line.text && line.from === me) : undefined;
    if (mine) this.pending = this.pending.filter((p) => p !== mine);
    const list = r.chat.get(line.channel) ?? [];
    list.push(line);
    r.chat.set(line.channel, list);
    if (!r.channels.includes(line.channel)) r.channels.push(line.channel);
    if (live && this.reading.get(r.id) !== line.channel) r.unread.set(line.channel, (r.unread.get(line.channel) ?? 0) + 1);
  }

  read(room: string, channel: string): void {
    this.reading.set(room, channel);
    this.room(room).unread.set(channel, 0);
    this.changed(room);
  }

  /** Active lockouts at server time `now` (expired ones are dropped: the server returns the player by itself). */
  activeLockouts(now: number): Lockout[] {
    for (const [p, l] of this.lockouts) if (l.untilMs <= now) this.lockouts.delete(p);
    return [...this.lockouts.values()];
  }
}
