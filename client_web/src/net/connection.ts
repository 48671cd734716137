/**
 * One websocket session with the server: hello with the token (never in the URL), joins, commands answered by
 * ack/error (matched by `cid`), ping/pong, and — when the socket drops — reconnection with back-off that re-joins
 * every followed room with `since` = the last sequence number seen, so the server sends exactly what was missed.
 */
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from "./backoff";
import { decode, encode, FrameError } from "./codec";
import type { ClientMessage, Error as ServerError, Event, Joined, ServerMessage, Snapshot, View, Welcome } from "./protocol";

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

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed" | "failed";

export interface ConnectionOptions {
  url: string;
  token: string;
  name?: string;
  socket?: (url: string) => SocketLike;
  timers?: Timers;
  random?: () => number;
  backoff?: BackoffOptions;
}

export class CommandError extends globalThis.Error {
  constructor(
    readonly code: ServerError["code"] | "disconnected",
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

type Pending = { resolve: (ack: { seq: number | null }) => void; reject: (err: CommandError) => void };

const OPEN = 1;
/** Errors that mean this token will never work: reconnecting would only repeat them. */
const FATAL_HELLO: ReadonlySet<string> = new Set(["bad_token", "forbidden"]);

const browserTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export class Connection {
  private socket: SocketLike | null = null;
  private nextCid = 1;
  private helloCid = -1;
  private attempt = 0;
  private closedByClient = false;
  private retryHandle: unknown = null;
  private readonly pending = new Map<number, Pending & { msg: Command }>();
  private readonly queue: { msg: Command; pending: Pending }[] = [];
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
    ws.onclose = (ev) => this.dropped(ws, ev.reason || `closed (${ev.code})`);
  }

  /** Stop for good (leaving the page, logging out). */
  close(): void {
    this.closedByClient = true;
    this.state = "closed";
    if (this.retryHandle !== null) this.timers.clearTimeout(this.retryHandle);
    this.retryHandle = null;
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
  send(msg: Command): Promise<{ seq: number | null }> {
    return new Promise((resolve, reject) => {
      const pending = { resolve, reject };
      if (this.state === "open" && this.socket) this.transmit(msg, pending);
      else if (this.state === "failed" || this.closedByClient)
        reject(new CommandError("disconnected", "not connected"));
      else this.queue.push({ msg, pending });
    });
  }

  private transmit(msg: Command, pending: Pending | null): number {
    const cid = this.nextCid++;
    if (msg.t === "join") this.joinsSent.add(msg.room);
    if (pending) this.pending.set(cid, { ...pending, msg });
    this.socket?.send(encode({ ...msg, cid } as ClientMessage));
    return cid;
  }

  private receive(data: unknown): void {
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
      case "joined": {
        const p = this.pending.get(msg.cid);
        this.pending.delete(msg.cid);
        const last = this.rooms.get(msg.room);
        if (last === null || last === undefined || msg.seq > last) this.rooms.set(msg.room, msg.seq);
        this.emit("joined", msg);
        p?.resolve({ seq: msg.seq });
        return;
      }
      case "ping":
        this.serverOffsetMs = msg.server_ms - this.timers.now();
        this.transmit({ t: "pong", nonce: msg.nonce }, null);
        return;
    }
  }

  private onWelcome(msg: Welcome): void {
    this.joinsSent.clear();
    this.welcome = msg;
    this.serverOffsetMs = msg.server_ms - this.timers.now();
    this.attempt = 0;
    this.setState("open", "welcome");
    this.emit("welcome", msg);
    const queued = this.queue.splice(0);
    const queuedJoins = new Set(queued.flatMap((q) => (q.msg.t === "join" ? [q.msg.room] : [])));
    for (const room of this.rooms.keys()) {
      // A welcome listener may have joined already (the game joins every room the welcome lists): once is enough.
      if (!queuedJoins.has(room) && !this.joinsSent.has(room)) this.transmit({ t: "join", room, ...this.sinceFor(room), ...this.viewAsFor(room) }, null);
    }
    for (const { msg: m, pending } of queued) {
      // Joins resume from the position reached by now, not the one known when they were queued.
      this.transmit(m.t === "join" ? { t: "join", room: m.room, ...this.sinceFor(m.room), ...this.viewAsFor(m.room) } : m, pending);
    }
  }

  private onError(msg: ServerError): void {
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
      if (p) {
        p.reject(new CommandError(msg.code, msg.message, msg.rule, msg.details));
        this.emit("error", msg);
        return;
      }
    }
    this.emit("error", msg);
  }

  private failPending(reason: string): void {
    const err = new CommandError("disconnected", reason);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (this.state === "closed" || this.state === "failed") {
      for (const q of this.queue.splice(0)) q.pending.reject(err);
    }
  }

  private dropped(ws: SocketLike, reason: string): void {
    if (this.socket !== ws) return; // an old socket we already gave up on
    this.socket = null;
    // Joins in flight are simply repeated after the next welcome; other commands in flight have an unknown
    // outcome (the resumed event stream shows whether they took effect), so they fail.
    for (const [cid, p] of this.pending) {
      if (p.msg.t === "join") {
        this.queue.push({ msg: p.msg, pending: p });
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
