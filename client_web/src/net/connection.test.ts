import { decode as unpack, encode as pack } from "@msgpack/msgpack";
import { beforeEach, describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff";
import { CommandError, Connection, MAX_RETRIES, type ConnectionState, type SocketLike, type Timers } from "./connection";
import type { ServerMessage } from "./protocol";

/** A scripted server end of one socket: records what the client sent, lets the test answer. */
class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  sent: Record<string, unknown>[] = [];
  closed = false;
  constructor(readonly url: string) {}
  send(data: Uint8Array | string): void {
    this.sent.push((typeof data === "string" ? JSON.parse(data) : unpack(data)) as Record<string, unknown>);
  }
  close(): void {
    this.closed = true;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  deliver(msg: ServerMessage): void {
    const buf = pack(msg);
    this.onmessage?.({ data: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) });
  }
  drop(reason = "network", code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  last(): Record<string, unknown> {
    return this.sent[this.sent.length - 1]!;
  }
}

class FakeTimers implements Timers {
  t = 1_000;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.queue.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.queue = this.queue.filter((q) => q.id !== h);
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.queue.filter((q) => q.at <= this.t);
    this.queue = this.queue.filter((q) => q.at > this.t);
    for (const q of due) q.fn();
  }
  get waiting(): number[] {
    return this.queue.map((q) => q.at - this.t);
  }
}

const TOKEN = "seat-token-0123456789";

function welcome(cid: number): ServerMessage {
  return {
    t: "welcome", cid, session: "s1", player: "p1", role: "player", team: "red", seat: 0,
    campaign: "c1", rooms: ["campaign:c1"], server_ms: 50_000, locked_until_ms: null,
  };
}

describe("Connection", () => {
  let sockets: FakeSocket[];
  let timers: FakeTimers;
  let states: ConnectionState[];
  let conn: Connection;

  beforeEach(() => {
    sockets = [];
    timers = new FakeTimers();
    states = [];
    conn = new Connection({
      url: "ws://127.0.0.1:1/ws", token: TOKEN, name: "Kutuzov", timers, random: () => 0,
      socket: (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
    });
    conn.on("state", (s) => states.push(s));
  });

  function openSession(): FakeSocket {
    conn.connect();
    const s = sockets[sockets.length - 1]!;
    s.open();
    s.deliver(welcome(s.sent[0]!.cid as number));
    return s;
  }

  it("sends the token in the first hello message, never in the URL", () => {
    conn.connect();
    const s = sockets[0]!;
    expect(s.url).not.toContain(TOKEN);
    s.open();
    expect(s.sent[0]).toMatchObject({ t: "hello", token: TOKEN, name: "Kutuzov" });
    expect(s.binaryType).toBe("arraybuffer");
  });

  it("learns the server clock offset from the welcome", () => {
    openSession();
    expect(conn.state).toBe("open");
    expect(conn.serverNow()).toBe(50_000);
    timers.advance(250);
    expect(conn.serverNow()).toBe(50_250);
  });

  it("resolves a command on its ack and rejects it with the server's typed error", async () => {
    const s = openSession();
    const ok = conn.send({ t: "end_turn", room: "campaign:c1" });
    const okCid = s.last().cid as number;
    const bad = conn.send({ t: "order", room: "campaign:c1", order: { kind: "move" } });
    const badCid = s.last().cid as number;
    expect(okCid).not.toBe(badCid);
    s.deliver({ t: "ack", cid: okCid, seq: 9 });
    s.deliver({
      t: "error", cid: badCid, code: "illegal_order", message: "no road", rule: "C-4.3", details: {}, retry_after_ms: null,
    });
    await expect(ok).resolves.toEqual({ seq: 9 });
    const err = await bad.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect(err).toMatchObject({ code: "illegal_order", rule: "C-4.3" });
  });

  it("asks a unit's options and resolves with the server's answer; a refusal rejects without the error line (issue 14)", async () => {
    const s = openSession();
    const errors: unknown[] = [];
    conn.on("error", (e) => errors.push(e));
    const asked = conn.options("battle:c1:1", "r1");
    expect(s.last()).toMatchObject({ t: "options", room: "battle:c1:1", unit: "r1" });
    const answer = { t: "options" as const, cid: s.last().cid as number, room: "battle:c1:1", unit: "r1", options: null };
    s.deliver(answer);
    await expect(asked).resolves.toEqual(answer);
    const army = conn.options("battle:c1:1", null);
    expect(s.last()).not.toHaveProperty("unit");
    s.deliver({ t: "error", cid: s.last().cid as number, code: "forbidden", message: "spectators watch", rule: null, details: {}, retry_after_ms: null });
    await expect(army).rejects.toMatchObject({ code: "forbidden" });
    expect(errors).toEqual([]);
  });

  it("retries a retryable error with the same cid after the server's hint, and shows it only when it persists", async () => {
    // issue 12 §9, issue 19 §4: `unavailable` (not applied) and `outcome_unknown` (perhaps applied) are retried with
    // the same cid: the server answers a retry of an applied command with its first answer
    const s = openSession();
    const order = conn.send({ t: "end_turn", room: "campaign:c1" });
    const cid = s.last().cid as number;
    s.deliver({ t: "error", cid, code: "outcome_unknown", message: "lost", rule: null, details: {}, retry_after_ms: 300 });
    expect(s.sent.filter((m) => m.t === "end_turn")).toHaveLength(1);
    timers.advance(300);
    const retried = s.sent.filter((m) => m.t === "end_turn");
    expect(retried).toHaveLength(2);
    expect(retried[1]!.cid).toBe(cid);
    s.deliver({ t: "ack", cid, seq: 12 });
    await expect(order).resolves.toEqual({ seq: 12 });

    const stuck = conn.send({ t: "chat", room: "campaign:c1", channel: "team", text: "hold" });
    const stuckCid = s.last().cid as number;
    for (let i = 0; i <= MAX_RETRIES; i++) {
      s.deliver({ t: "error", cid: stuckCid, code: "unavailable", message: "no store", rule: null, details: {}, retry_after_ms: 100 });
      timers.advance(100);
    }
    expect(s.sent.filter((m) => m.t === "chat" && m.cid === stuckCid)).toHaveLength(MAX_RETRIES + 1);
    await expect(stuck).rejects.toMatchObject({ code: "unavailable" });
  });

  it("sends a message refused as rate_limited again, with its cid, once the server says a token is back", async () => {
    const s = openSession();
    const line = conn.send({ t: "chat", room: "campaign:c1", channel: "team", text: "again" });
    const cid = s.last().cid as number;
    s.deliver({ t: "error", cid, code: "rate_limited", message: "more than 20 messages a second", rule: null, details: {}, retry_after_ms: 50 });
    timers.advance(49);
    expect(s.sent.filter((m) => m.t === "chat")).toHaveLength(1);
    timers.advance(1);
    const sent = s.sent.filter((m) => m.t === "chat");
    expect(sent).toHaveLength(2);
    expect(sent[1]!.cid).toBe(cid);
    s.deliver({ t: "ack", cid, seq: 3 });
    await expect(line).resolves.toEqual({ seq: 3 });
  });

  it("signs in again after the back-off when the server cannot check the token just now", () => {
    conn.connect();
    const s1 = sockets[0]!;
    s1.open();
    s1.deliver({ t: "error", cid: s1.sent[0]!.cid as number, code: "unavailable", message: "no store", rule: null, details: {}, retry_after_ms: 1000 });
    expect(s1.closed).toBe(true);
    expect(conn.state).toBe("reconnecting");
    timers.advance(DEFAULT_BACKOFF.baseMs);
    const s2 = sockets[1]!;
    s2.open();
    expect(s2.sent[0]).toMatchObject({ t: "hello", token: TOKEN });
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    expect(conn.state).toBe("open");
  });

  it("numbers its commands from the clock, so that a reloaded page does not repeat a cid", () => {
    const s = openSession();
    expect(s.sent[0]!.cid as number).toBeGreaterThanOrEqual(timers.now() * 1000);
  });

  it("answers the server's ping with its nonce", () => {
    const s = openSession();
    s.deliver({ t: "ping", nonce: 77, server_ms: 60_000 });
    expect(s.last()).toMatchObject({ t: "pong", nonce: 77 });
    expect(conn.serverNow()).toBe(60_000);
  });

  it("drops events already seen and remembers the last sequence per room", async () => {
    const s = openSession();
    const seen: number[] = [];
    conn.on("event", (e) => seen.push(e.seq));
    const joined = conn.join("campaign:c1");
    const joinCid = s.last().cid as number;
    expect(s.last()).toEqual({ t: "join", room: "campaign:c1", cid: joinCid });
    s.deliver({ t: "snapshot", chat: [], away: [], active: [], room: "campaign:c1", seq: 10, kind: "campaign", state: {}, clocks: {}, server_ms: 50_100 });
    for (const seq of [11, 12, 12, 11, 14]) {
      s.deliver({ t: "ev", room: "campaign:c1", seq, at_ms: 0, kind: "moved", data: {} });
    }
    s.deliver({ t: "joined", cid: joinCid, room: "campaign:c1", seq: 14, channels: ["team", "players"] });
    await expect(joined).resolves.toEqual({ seq: 14 });
    expect(seen).toEqual([11, 12, 14]);
    expect(conn.rooms.get("campaign:c1")).toBe(14);
  });

  it("ignores events of rooms it does not follow", () => {
    const s = openSession();
    const seen: number[] = [];
    conn.on("event", (e) => seen.push(e.seq));
    s.deliver({ t: "ev", room: "battle:b9", seq: 1, at_ms: 0, kind: "fired", data: {} });
    expect(seen).toEqual([]);
  });

  it("reconnects with growing back-off and resumes every room from the last sequence seen", () => {
    const s1 = openSession();
    void conn.join("campaign:c1");
    s1.deliver({ t: "snapshot", chat: [], away: [], active: [], room: "campaign:c1", seq: 20, kind: "campaign", state: {}, clocks: {}, server_ms: 1 });
    s1.deliver({ t: "ev", room: "campaign:c1", seq: 21, at_ms: 0, kind: "moved", data: {} });

    s1.drop();
    expect(conn.state).toBe("reconnecting");
    expect(timers.waiting).toEqual([DEFAULT_BACKOFF.baseMs]);
    timers.advance(DEFAULT_BACKOFF.baseMs);
    expect(sockets.length).toBe(2);
    sockets[1]!.drop(); // the server is still down
    expect(timers.waiting).toEqual([DEFAULT_BACKOFF.baseMs * 2]);
    timers.advance(DEFAULT_BACKOFF.baseMs * 2);
    const s3 = sockets[2]!;
    s3.open();
    expect(s3.sent[0]).toMatchObject({ t: "hello", token: TOKEN });
    s3.deliver(welcome(s3.sent[0]!.cid as number));
    expect(conn.state).toBe("open");
    expect(s3.sent[1]).toMatchObject({ t: "join", room: "campaign:c1", since: 21 });
    expect(states).toEqual(["connecting", "open", "reconnecting", "reconnecting", "reconnecting", "reconnecting", "open"]);

    // Back-off starts afresh after a good session.
    s3.drop();
    expect(timers.waiting).toEqual([DEFAULT_BACKOFF.baseMs]);
  });

  it("passes views of followed rooms on without moving the resume position", () => {
    const s = openSession();
    void conn.join("campaign:c1");
    s.deliver({ t: "ev", room: "campaign:c1", seq: 3, at_ms: 0, kind: "moved", data: {} });
    const views: number[] = [];
    conn.on("view", (v) => views.push(v.seq));
    s.deliver({ t: "view", room: "campaign:c1", seq: 3, state: { turn: 1 }, clocks: {}, server_ms: 1, active: [] });
    s.deliver({ t: "view", room: "battle:b9", seq: 7, state: {}, clocks: {}, server_ms: 1, active: [] });
    expect(views).toEqual([3]);
    expect(conn.rooms.get("campaign:c1")).toBe(3);
  });

  it("joins a room once when a welcome listener joins it too (first session and after a reconnection)", () => {
    conn.on("welcome", (w) => { for (const room of w.rooms) void conn.join(room); });
    const s1 = openSession();
    const joins = (s: FakeSocket) => s.sent.filter((m) => m.t === "join").map((m) => [m.room, m.since]);
    expect(joins(s1)).toEqual([["campaign:c1", undefined]]);
    s1.deliver({ t: "joined", cid: s1.last().cid as number, room: "campaign:c1", seq: 3, channels: [] });
    s1.deliver({ t: "ev", room: "campaign:c1", seq: 4, at_ms: 0, kind: "moved", data: {} });
    s1.drop();
    timers.advance(DEFAULT_BACKOFF.baseMs);
    const s2 = sockets[1]!;
    s2.open();
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    expect(joins(s2)).toEqual([["campaign:c1", 4]]);
  });

  it("keeps the moderator's view_as on the re-join after a reconnection", () => {
    const s1 = openSession();
    void conn.join("campaign:c1");
    void conn.viewAs("campaign:c1", "team:blue");
    expect(s1.last()).toMatchObject({ t: "join", room: "campaign:c1", view_as: "team:blue" });
    expect(s1.last().since).toBeUndefined();
    s1.deliver({ t: "ev", room: "campaign:c1", seq: 4, at_ms: 0, kind: "moved", data: {} });
    s1.drop();
    timers.advance(DEFAULT_BACKOFF.baseMs);
    const s2 = sockets[1]!;
    s2.open();
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    expect(s2.sent[1]).toMatchObject({ t: "join", room: "campaign:c1", since: 4, view_as: "team:blue" });
    void conn.viewAs("campaign:c1", null);
    expect(s2.last().view_as).toBeUndefined();
  });

  it("holds commands given while disconnected and sends them after re-joining", async () => {
    const s1 = openSession();
    void conn.join("campaign:c1");
    s1.deliver({ t: "snapshot", chat: [], away: [], active: [], room: "campaign:c1", seq: 5, kind: "campaign", state: {}, clocks: {}, server_ms: 1 });
    s1.drop();
    const chat = conn.send({ t: "chat", room: "campaign:c1", channel: "team", text: "hold the bridge" });
    timers.advance(DEFAULT_BACKOFF.baseMs);
    const s2 = sockets[1]!;
    s2.open();
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    expect(s2.sent.map((m) => m.t)).toEqual(["hello", "join", "chat"]);
    expect(s2.sent[1]).toMatchObject({ since: 5 });
    s2.deliver({ t: "ack", cid: s2.sent[2]!.cid as number, seq: 6 });
    await expect(chat).resolves.toEqual({ seq: 6 });
  });

  it("sends a command in flight again with the same cid after reconnecting (the server applies it once)", async () => {
    const s1 = openSession();
    const order = conn.send({ t: "end_turn", room: "campaign:c1" });
    const cid = s1.last().cid as number;
    s1.drop();
    timers.advance(DEFAULT_BACKOFF.baseMs);
    const s2 = sockets[1]!;
    s2.open();
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    const again = s2.sent.filter((m) => m.t === "end_turn");
    expect(again).toHaveLength(1);
    expect(again[0]!.cid).toBe(cid);
    s2.deliver({ t: "ack", cid, seq: 8 });
    await expect(order).resolves.toEqual({ seq: 8 });
  });

  it("fails a spectator's command in flight when the socket drops (its outcome shows in the resumed events)", async () => {
    conn.connect();
    const s1 = sockets[0]!;
    s1.open();
    s1.deliver({ ...welcome(s1.sent[0]!.cid as number), role: "spectator", team: null, seat: null } as ServerMessage);
    const chat = conn.send({ t: "chat", room: "campaign:c1", channel: "spectators", text: "hurrah" });
    s1.drop();
    await expect(chat).rejects.toMatchObject({ code: "disconnected", details: { inFlight: true } });
  });

  it("gives up on a bad token instead of retrying forever", () => {
    conn.connect();
    const s = sockets[0]!;
    s.open();
    s.deliver({ t: "error", cid: s.sent[0]!.cid as number, code: "bad_token", message: "unknown token", rule: null, details: {}, retry_after_ms: null });
    expect(conn.state).toBe("failed");
    s.drop();
    expect(timers.waiting).toEqual([]);
    expect(sockets.length).toBe(1);
  });

  it("stops reconnecting once closed by the client", () => {
    const s = openSession();
    conn.close();
    s.drop();
    timers.advance(60_000);
    expect(sockets.length).toBe(1);
    expect(conn.state).toBe("closed");
  });
});

describe("Connection that recovers (issue 16 §2)", () => {
  let sockets: FakeSocket[];
  let timers: FakeTimers;
  let conn: Connection;

  beforeEach(() => {
    sockets = [];
    timers = new FakeTimers();
    conn = new Connection({
      url: "ws://127.0.0.1:1/ws", token: TOKEN, timers, random: () => 0, heartbeat: true,
      socket: (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
    });
  });

  function openSession(): FakeSocket {
    conn.connect();
    const s = sockets[sockets.length - 1]!;
    s.open();
    s.deliver(welcome(s.sent[0]!.cid as number));
    return s;
  }

  it("takes 4009 (the seat opened elsewhere) as final: no reconnect loop until asked to take the seat back", () => {
    const s = openSession();
    s.drop("signed in elsewhere", 4009);
    expect(conn.state).toBe("replaced");
    timers.advance(120_000);
    expect(sockets.length).toBe(1);
    conn.takeOver();
    expect(sockets.length).toBe(2);
    expect(conn.state).toBe("connecting");
  });

  it("takes 4010 (the token was re-issued) as a failure", () => {
    const s = openSession();
    s.drop("token re-issued", 4010);
    expect(conn.state).toBe("failed");
    timers.advance(120_000);
    expect(sockets.length).toBe(1);
  });

  it("notices a silent socket within a few of the server's ping intervals and reconnects", () => {
    const s = openSession();
    for (let i = 0; i < 4; i++) {
      timers.advance(1_000);
      s.deliver({ t: "ping", nonce: i, server_ms: 50_000 + i });
    }
    expect(conn.silenceLimitMs).toBe(4_000);
    timers.advance(3_000);
    expect(conn.state).toBe("open"); // quiet, but not yet past the limit
    timers.advance(2_000);
    expect(conn.state).toBe("reconnecting");
    expect(s.closed).toBe(true);
    timers.advance(DEFAULT_BACKOFF.baseMs);
    expect(sockets.length).toBe(2);
  });

  it("drops the socket when the browser goes offline and tries again at once when it is back", () => {
    const s = openSession();
    const inFlight = conn.send({ t: "chat", room: "c-c1", channel: "players", text: "hold" });
    conn.offline();
    expect(conn.state).toBe("reconnecting");
    expect(s.closed).toBe(true);
    const queued = conn.send({ t: "chat", room: "c-c1", channel: "players", text: "typed offline" });
    expect(conn.waiting).toBe(1);
    conn.online();
    expect(sockets.length).toBe(2);
    const s2 = sockets[1]!;
    s2.open();
    s2.deliver(welcome(s2.sent[0]!.cid as number));
    expect(s2.sent.some((m) => m.t === "chat" && m.text === "typed offline")).toBe(true);
    expect(conn.waiting).toBe(0);
    void queued.catch(() => {});
    // the line on its way when the socket went goes again with its cid: answered once, whether it had arrived or not
    const resent = s2.sent.find((m) => m.t === "chat" && m.text === "hold")!;
    expect(resent.cid).toBe(s.sent.find((m) => m.t === "chat" && m.text === "hold")!.cid);
    s2.deliver({ t: "ack", cid: resent.cid as number, seq: 3 });
    return expect(inFlight).resolves.toEqual({ seq: 3 });
  });
});

describe("backoffDelay", () => {
  it("doubles from the base up to the cap", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 10].map((a) => backoffDelay(a, () => 0));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
  });

  it("jitters down by at most the jitter fraction", () => {
    expect(backoffDelay(3, () => 1)).toBe(2000);
    expect(backoffDelay(3, () => 0.5)).toBe(3000);
  });
});
