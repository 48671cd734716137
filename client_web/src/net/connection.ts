/**
 * One websocket session with the server: hello with the token (never in the URL), joins, commands answered by
 * ack/error (matched by `cid`), ping/pong, and — when the socket drops — reconnection with back-off that re-joins
 * every followed room with `since` = the last sequence number seen, so the server sends exactly what was missed.
 */
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from "./backoff";
import { decode, encode, FrameError } from "./codec";
import type { ClientMessage, Error as ServerError, Event, Joined, Options, ServerMessage, Snapshot, View, Welcome } from "./protocol";

/** A client message without its `cid`: the connection numbers what it sends. */
export type Command = ClientMessage extends infer M ? (M extends ClientMessage ? Omit<M, "cid"> : never) : never;

/** The socket surface used here (the browser's WebSocket satisfies it; tests pass their own). */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

/** `replaced`: the same seat signed in from another window or device (close 4009); final until `takeOver()`. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed" | "failed" | "replaced";

export interface ConnectionOptions {
  url: string;
  token: string;
  name?: string;
  socket?: (url: string) => SocketLike;
  timers?: Timers;
  random?: () => number;
  backoff?: BackoffOptions;
  /** Watch for a dead socket (nothing heard for about two of the server's ping intervals) and drop it. */
  heartbeat?: boolean;
  /** The first cid (default: from the clock, so that a seat's cids do not repeat across page loads). */
  firstCid?: number;
}

/** Close codes after which reconnecting would only repeat the close (docs/protocol.md). */
export const CLOSE_REPLACED = 4009;
export const CLOSE_REVOKED = 4010;
/** Before the server's ping interval is known, a socket this long silent is taken for dead. */
const SILENCE_DEFAULT_MS = 15_000;

export class CommandError extends globalThis.Error {
  constructor(
    readonly code: ServerError["code"] | "disconnected" | "locked_out",
    message: string,
    readonly rule: string | null = null,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "CommandError";
  }
}

export interface ConnectionListeners {
  state: (state: ConnectionState, detail: { attempt: number; retryInMs: number | null; reason: string }) => void;
  welcome: (welcome: Welcome) => void;
  snapshot: (snapshot: Snapshot) => void;
  view: (view: View) => void;
  event: (event: Event) => void;
  joined: (joined: Joined) => void;
  error: (error: ServerError) => void;
}

/** What answers a message: an ack's (or joined's) seq, or the `options` answer (issue 14). */
export type Answer = { seq: number | null; options?: Options };
type Pending = { resolve: (ack: Answer) => void; reject: (err: CommandError) => void };

const OPEN = 1;
/** Errors the server marks retryable (docs/protocol.md, Exactly once): the command is sent again with the same cid
 * after `retry_after_ms` — the server answers a retry of a command it already applied with its first answer — so
 * the player sees them only when they persist. `rate_limited` is one: the server refused the message unread. */
const RETRYABLE: ReadonlySet<string> = new Set(["unavailable", "outcome_unknown", "rate_limited"]);
/** How many times a command is retried on a retryable error before the error is shown. */
export const MAX_RETRIES = 20;
/** Errors that mean this token will never work: reconnecting would only repeat them. */
const FATAL_HELLO: ReadonlySet<string> = new Set(["bad_token", "forbidden"]);

const browserTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export class Connection {
  private socket: SocketLike | null = null;
  /** A seat's cids must not repeat across its connections and page loads (the server keeps each seat's recent
   * answers by cid): the first is drawn from the clock, in thousandths of a millisecond, with a random offset. */
  private nextCid: number;
  private helloCid = -1;
  private attempt = 0;
  private closedByClient = false;
  private retryHandle: unknown = null;
  private watchdog: unknown = null;
  /** when the last message of the current socket arrived, and the shortest gap seen between the server's pings */
  private heardAt = 0;
  private lastPingAt: number | null = null;
  /** the last few gaps between the server's pings (bunched pings after a stall read as short gaps: the largest counts) */
  private pingGaps: number[] = [];
  private readonly pending = new Map<number, Pending & { msg: Command; retries?: number }>();
  private readonly queue: { msg: Command; pending: Pending; cid?: number; retries?: number }[] = [];
  private readonly listeners: { [K in keyof ConnectionListeners]: Set<ConnectionListeners[K]> } = {
    state: new Set(), welcome: new Set(), snapshot: new Set(), view: new Set(), event: new Set(), joined: new Set(), error: new Set(),
  };
  /** Rooms followed, with the last sequence number seen in each (null before the first snapshot). */
  readonly rooms = new Map<string, number | null>();
  /** Rooms joined since the last welcome. */
  private readonly joinsSent = new Set<string>();
  /** The moderator's chosen viewer class per room (`view_as`), repeated on every re-join. */
  readonly viewing = new Map<string, string>();
  state: ConnectionState = "closed";
  welcome: Welcome | null = null;
  /** server clock minus local clock, from the last message that carried `server_ms`. */
  serverOffsetMs = 0;

  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly backoff: BackoffOptions;
  private readonly makeSocket: (url: string) => SocketLike;

  constructor(private readonly opts: ConnectionOptions) {
    this.timers = opts.timers ?? browserTimers;
    this.random = opts.random ?? Math.random;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.makeSocket = opts.socket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
    this.nextCid = opts.firstCid ?? Math.floor(this.timers.now()) * 1000 + Math.floor(this.random() * 1000) + 1;
  }

  on<K extends keyof ConnectionListeners>(kind: K, fn: ConnectionListeners[K]): () => void {
    this.listeners[kind].add(fn);
    return () => this.listeners[kind].delete(fn);
  }

  private emit<K extends keyof ConnectionListeners>(kind: K, ...args: Parameters<ConnectionListeners[K]>): void {
    for (const fn of this.listeners[kind]) (fn as (...a: Parameters<ConnectionListeners[K]>) => void)(...args);
  }

  private setState(state: ConnectionState, reason = "", retryInMs: number | null = null): void {
    this.state = state;
    this.emit("state", state, { attempt: this.attempt, retryInMs, reason });
  }

  /** Server time now, as far as this client can tell. */
  serverNow(): number {
    return this.timers.now() + this.serverOffsetMs;
  }

  connect(): void {
    if (this.socket || this.state === "failed") return;
    this.setState(this.attempt === 0 ? "connecting" : "reconnecting", "connecting");
    const ws = this.makeSocket(this.opts.url);
    ws.binaryType = "arraybuffer";
    this.socket = ws;
    ws.onopen = () => {
      this.helloCid = this.nextCid++;
      const hello: ClientMessage = { t: "hello", cid: this.helloCid, token: this.opts.token };
      if (this.opts.name) hello.name = this.opts.name;
      ws.send(encode(hello));
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onerror = () => {};
    ws.onclose = (ev) => {
      if (ev.code === CLOSE_REPLACED) this.replaced(ws);
      else if (ev.code === CLOSE_REVOKED) this.revoked(ws, ev.reason);
      else this.dropped(ws, ev.reason || `closed (${ev.code})`);
    };
  }

  /** How long a socket may stay silent before it is taken for dead: two of the server's pings and a margin. */
  get silenceLimitMs(): number {
    if (!this.pingGaps.length) return SILENCE_DEFAULT_MS;
    return Math.min(30_000, Math.max(2_500, 2 * Math.max(...this.pingGaps) + 2_000));
  }

  /** Commands waiting for the connection (given while it was down), not counting re-joins nor commands sent
   * before that go again with their cid (in flight when the socket went, or retried after a retryable error). */
  get waiting(): number {
    return this.queue.filter((q) => q.msg.t !== "join" && !q.retries).length;
  }

  private watch(): void {
    if (!this.opts.heartbeat) return;
    if (this.watchdog !== null) this.timers.clearTimeout(this.watchdog);
    this.watchdog = this.timers.setTimeout(() => {
      this.watchdog = null;
      if (this.state !== "open" || !this.socket) return;
      const silent = this.timers.now() - this.heardAt;
      if (silent > this.silenceLimitMs) this.abandon(`no word from the server for ${Math.round(silent / 1000)} s`);
      else this.watch();
    }, 1_000);
  }

  /** Give up on the current socket at once (it is dead, or the browser went offline) and reconnect. */
  private abandon(reason: string): void {
    const ws = this.socket;
    if (!ws) return;
    ws.onclose = null;
    ws.onmessage = null;
    try {
      ws.close(4000, reason);
    } catch {
      // a socket that cannot even close is no less dead
    }
    this.dropped(ws, reason);
  }

  /** The browser says the network is gone: drop the socket now instead of waiting for the heartbeat. */
  offline(): void {
    if (this.socket && (this.state === "open" || this.state === "connecting" || this.state === "reconnecting")) this.abandon("offline");
  }

  /** The network is back: try at once rather than at the end of the back-off. */
  online(): void {
    if (this.state !== "reconnecting" || this.socket) return;
    if (this.retryHandle !== null) this.timers.clearTimeout(this.retryHandle);
    this.retryHandle = null;
    this.connect();
  }

  /** After 4009 (the seat signed in elsewhere): sign in here again, which closes the other window's connection. */
  takeOver(): void {
    if (this.state !== "replaced") return;
    this.attempt = 0;
    this.state = "closed";
    this.connect();
  }

  private replaced(ws: SocketLike): void {
    if (this.socket !== ws) return;
    this.socket = null;
    this.stopWatching();
    this.failPending("the seat is open in another window");
    this.setState("replaced", "signed in elsewhere");
  }

  private revoked(ws: SocketLike, reason: string): void {
    if (this.socket !== ws) return;
    this.socket = null;
    this.stopWatching();
    this.state = "failed";
    this.failPending(reason || "token re-issued");
    this.setState("failed", reason || "token re-issued");
  }

  private stopWatching(): void {
    if (this.watchdog !== null) this.timers.clearTimeout(this.watchdog);
    this.watchdog = null;
  }

  /** Stop for good (leaving the page, logging out). */
  close(): void {
    this.closedByClient = true;
    this.state = "closed";
    if (this.retryHandle !== null) this.timers.clearTimeout(this.retryHandle);
    this.retryHandle = null;
    this.stopWatching();
    const ws = this.socket;
    this.socket = null;
    ws?.close(1000, "bye");
    this.failPending("closed by the client");
    this.setState("closed", "closed by the client");
  }

  /** Follow a room; on every (re)connection it is re-joined from the last sequence number seen. */
  join(room: string): Promise<{ seq: number | null }> {
    if (!this.rooms.has(room)) this.rooms.set(room, null);
    return this.send({ t: "join", room, ...this.sinceFor(room), ...this.viewAsFor(room) });
  }

  /** Ask for a fresh snapshot of a followed room (a join without `since`); later events continue from it. */
  resync(room: string): Promise<{ seq: number | null }> {
    if (!this.rooms.has(room)) return this.join(room);
    return this.send({ t: "join", room, ...this.viewAsFor(room) });
  }

  /** The moderator follows `room` as `viewAs` sees it (a team, the spectators, the public) or, with null, in full:
   * a fresh snapshot in that view, kept on re-joins. */
  viewAs(room: string, viewAs: string | null): Promise<{ seq: number | null }> {
    if (viewAs === null) this.viewing.delete(room);
    else this.viewing.set(room, viewAs);
    if (!this.rooms.has(room)) return this.join(room);
    return this.send({ t: "join", room, ...this.viewAsFor(room) });
  }

  private viewAsFor(room: string): { view_as?: string } {
    const v = this.viewing.get(room);
    return v === undefined ? {} : { view_as: v };
  }

  /** Stop following a room without a word to the server (after a welcome, when the room is no longer ours). */
  forget(room: string): void {
    this.rooms.delete(room);
    this.viewing.delete(room);
  }

  leave(room: string): Promise<{ seq: number | null }> {
    this.rooms.delete(room);
    return this.send({ t: "leave", room });
  }

  private sinceFor(room: string): { since?: number } {
    const seq = this.rooms.get(room);
    return seq === null || seq === undefined ? {} : { since: seq };
  }

  /** Send a command; resolves on `ack`, rejects with the server's typed error. While the session is not ready the
   * command waits and goes out after the rooms are re-joined. */
  send(msg: Command): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const pending = { resolve, reject };
      if (this.state === "open" && this.socket) this.transmit(msg, pending);
      else if (this.state === "failed" || this.closedByClient)
        reject(new CommandError("disconnected", "not connected"));
      else this.queue.push({ msg, pending });
    });
  }

  /** Ask what a unit (null: the team as a whole) may do now in `room` (issue 14): the server's `options` answer.
   * A refusal rejects the promise without showing on the error line: the asker says what it means. */
  options(room: string, unit: string | null): Promise<Options> {
    return this.send({ t: "options", room, ...(unit ? { unit } : {}) }).then((a) => {
      if (!a.options) throw new CommandError("internal", "no options answer");
      return a.options;
    });
  }

  private transmit(msg: Command, pending: Pending | null, cid = this.nextCid++, retries = 0): number {
    if (msg.t === "join") this.joinsSent.add(msg.room);
    if (pending) this.pending.set(cid, { ...pending, msg, retries });
    this.socket?.send(encode({ ...msg, cid } as ClientMessage));
    return cid;
  }

  private receive(data: unknown): void {
    this.heardAt = this.timers.now();
    let msg: ServerMessage;
    try {
      msg = decode(typeof data === "string" ? data : (data as ArrayBuffer));
    } catch (exc) {
      if (exc instanceof FrameError) return;
      throw exc;
    }
    switch (msg.t) {
      case "welcome":
        this.onWelcome(msg);
        return;
      case "ack": {
        const p = this.pending.get(msg.cid);
        this.pending.delete(msg.cid);
        p?.resolve({ seq: msg.seq });
        return;
      }
      case "error":
        this.onError(msg);
        return;
      case "ev": {
        if (!this.rooms.has(msg.room)) return;
        const last = this.rooms.get(msg.room);
        if (last !== null && last !== undefined && msg.seq <= last) return; // already seen: no duplicates
        this.rooms.set(msg.room, msg.seq);
        this.emit("event", msg);
        return;
      }
      case "snapshot":
        this.serverOffsetMs = msg.server_ms - this.timers.now();
        this.rooms.set(msg.room, msg.seq);
        this.emit("snapshot", msg);
        return;
      case "view":
        // The room as this viewer now sees it; it does not move the resume position (events do).
        if (!this.rooms.has(msg.room)) return;
        this.serverOffsetMs = msg.server_ms - this.timers.now();
        this.emit("view", msg);
        return;
      case "options": {
        const p = this.pending.get(msg.cid);
        this.pending.delete(msg.cid);
        p?.resolve({ seq: null, options: msg });
        return;
      }
      case "joined": {
        const p = this.pending.get(msg.cid);
        this.pending.delete(msg.cid);
        const last = this.rooms.get(msg.room);
        if (last === null || last === undefined || msg.seq > last) this.rooms.set(msg.room, msg.seq);
        this.emit("joined", msg);
        p?.resolve({ seq: msg.seq });
        return;
      }
      case "ping": {
        const now = this.timers.now();
        if (this.lastPingAt !== null) this.pingGaps = [...this.pingGaps.slice(-2), now - this.lastPingAt];
        this.lastPingAt = now;
        this.serverOffsetMs = msg.server_ms - now;
        this.transmit({ t: "pong", nonce: msg.nonce }, null);
        return;
      }
    }
  }

  private onWelcome(msg: Welcome): void {
    this.joinsSent.clear();
    this.welcome = msg;
    this.serverOffsetMs = msg.server_ms - this.timers.now();
    this.attempt = 0;
    this.lastPingAt = null;
    this.setState("open", "welcome");
    this.watch();
    this.emit("welcome", msg);
    const queued = this.queue.splice(0);
    const queuedJoins = new Set(queued.flatMap((q) => (q.msg.t === "join" ? [q.msg.room] : [])));
    for (const room of this.rooms.keys()) {
      // A welcome listener may have joined already (the game joins every room the welcome lists): once is enough.
      if (!queuedJoins.has(room) && !this.joinsSent.has(room)) this.transmit({ t: "join", room, ...this.sinceFor(room), ...this.viewAsFor(room) }, null);
    }
    for (const { msg: m, pending, cid, retries } of queued) {
      // Joins resume from the position reached by now, not the one known when they were queued; a retried command
      // keeps its cid.
      if (m.t === "join") this.transmit({ t: "join", room: m.room, ...this.sinceFor(m.room), ...this.viewAsFor(m.room) }, pending);
      else this.transmit(m, pending, cid ?? this.nextCid++, retries ?? 0);
    }
  }

  private onError(msg: ServerError): void {
    if (msg.cid === this.helloCid && this.state !== "open" && RETRYABLE.has(msg.code)) {
      // the server cannot check the token just now (its store is out of reach): sign in again after the back-off
      this.abandon(msg.message);
      return;
    }
    if (msg.cid === this.helloCid && this.state !== "open") {
      if (FATAL_HELLO.has(msg.code)) {
        this.state = "failed";
        this.failPending(msg.message);
        this.emit("error", msg);
        this.setState("failed", msg.message);
        const ws = this.socket;
        this.socket = null;
        ws?.close(1000, "bad token");
        return;
      }
    }
    if (msg.cid !== null) {
      const p = this.pending.get(msg.cid);
      this.pending.delete(msg.cid);
      if (p && RETRYABLE.has(msg.code) && (p.retries ?? 0) < MAX_RETRIES) {
        this.retry(msg.cid, p, msg.retry_after_ms ?? 500);
        return;
      }
      if (p) {
        p.reject(new CommandError(msg.code, msg.message, msg.rule, msg.details));
        if (p.msg.t !== "options") this.emit("error", msg);
        return;
      }
    }
    this.emit("error", msg);
  }

  /** Send a command again with the same cid after `afterMs` (queued if the socket is down by then). */
  private retry(cid: number, p: Pending & { msg: Command; retries?: number }, afterMs: number): void {
    const retries = (p.retries ?? 0) + 1;
    const entry = { msg: p.msg, pending: { resolve: p.resolve, reject: p.reject }, cid, retries };
    this.queue.push(entry); // counted as waiting meanwhile; a welcome before the timer sends it at once
    this.timers.setTimeout(() => {
      const at = this.queue.indexOf(entry);
      if (at < 0) return; // sent or failed meanwhile
      if (this.state === "open" && this.socket) {
        this.queue.splice(at, 1);
        this.transmit(entry.msg, entry.pending, cid, retries);
      }
    }, Math.max(50, Math.min(afterMs, 10_000)));
  }

  private failPending(reason: string): void {
    // In flight when the socket went: sent, perhaps carried out, never confirmed.
    const err = new CommandError("disconnected", reason, null, { inFlight: true });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (this.state === "closed" || this.state === "failed") {
      const unsent = new CommandError("disconnected", reason);
      for (const q of this.queue.splice(0)) q.pending.reject(unsent);
    }
  }

  private dropped(ws: SocketLike, reason: string): void {
    if (this.socket !== ws) return; // an old socket we already gave up on
    this.socket = null;
    this.stopWatching();
    // Joins in flight are simply repeated after the next welcome. Other commands in flight have an unknown outcome:
    // a seat's (a player's, the moderator's) are sent again after the welcome with the same cid — the server
    // answers one it applied already with its first answer and never applies it twice (docs/protocol.md, Exactly
    // once). Spectators share one token, so the server does not deduplicate theirs: those fail, unconfirmed.
    const resend = this.welcome !== null && this.welcome.role !== "spectator";
    for (const [cid, p] of this.pending) {
      if (p.msg.t === "join") {
        this.queue.push({ msg: p.msg, pending: p });
        this.pending.delete(cid);
      } else if (resend && (p.retries ?? 0) < MAX_RETRIES && this.state !== "closed" && this.state !== "failed") {
        this.queue.push({ msg: p.msg, pending: { resolve: p.resolve, reject: p.reject }, cid, retries: (p.retries ?? 0) + 1 });
        this.pending.delete(cid);
      }
    }
    this.failPending(`connection lost: ${reason}`);
    if (this.state === "closed" || this.state === "failed") return;
    const delay = backoffDelay(this.attempt, this.random, this.backoff);
    this.attempt += 1;
    this.setState("reconnecting", reason, delay);
    this.retryHandle = this.timers.setTimeout(() => {
      this.retryHandle = null;
      this.connect();
    }, delay);
  }
}

export function websocketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

export { OPEN as SOCKET_OPEN };
