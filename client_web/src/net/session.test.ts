import { describe, expect, it } from "vitest";
import type { Event } from "./protocol";
import { Session } from "./session";

const ev = (seq: number, kind: string, data: Record<string, unknown>): Event => ({ t: "ev", room: "c-1", seq, at_ms: 1000 + seq, kind, data });

describe("Session", () => {
  it("counts unread lines on channels not being read, and clears them when read", () => {
    const s = new Session();
    s.onJoined({ t: "joined", cid: 1, room: "c-1", seq: 0, channels: ["team", "players"] });
    s.read("c-1", "team");
    s.onEvent(ev(1, "chat", { channel: "team", from: "Bagration", text: "hold" }));
    s.onEvent(ev(2, "chat", { channel: "players", from: "Ney", text: "peace?" }));
    s.onEvent(ev(3, "chat", { channel: "players", from: "Ney", text: "well?" }));
    const r = s.room("c-1");
    expect(r.unread.get("team")).toBe(0);
    expect(r.unread.get("players")).toBe(2);
    expect(r.chat.get("players")?.map((l) => l.text)).toEqual(["peace?", "well?"]);
    s.read("c-1", "players");
    expect(r.unread.get("players")).toBe(0);
  });

  it("takes clocks and a new projection from events that carry them", () => {
    const s = new Session();
    s.onSnapshot({ t: "snapshot", chat: [], away: [], active: [], room: "c-1", seq: 4, kind: "campaign", state: { turn: 1 }, clocks: { paused: false }, server_ms: 10 });
    s.onEvent(ev(5, "turn_ended", { clocks: { paused: true }, state: { turn: 2 } }));
    const r = s.room("c-1");
    expect(r.state).toEqual({ turn: 2 });
    expect(r.clocks).toEqual({ paused: true });
    expect(r.clocksAt).toBe(1005);
    expect(r.log.map((e) => e.seq)).toEqual([5]);
  });

  it("tracks secret-module lockouts until they expire or the player is released", () => {
    const s = new Session();
    s.onEvent(ev(1, "secret_module", { player: "p2", until_ms: 5000, reason: "general killed" }));
    s.onEvent(ev(2, "secret_module", { player: "p3", until_ms: 9000 }));
    expect(s.activeLockouts(4000).map((l) => l.player)).toEqual(["p2", "p3"]);
    expect(s.activeLockouts(6000).map((l) => l.player)).toEqual(["p3"]);
    s.onEvent(ev(3, "player_released", { player: "p3" }));
    expect(s.activeLockouts(6000)).toEqual([]);
  });
});

describe("Session and the foundation's room", () => {
  it("reads chat history, who is away and who is to act from the snapshot", () => {
    const s = new Session();
    s.onSnapshot({
      t: "snapshot", room: "c-1", seq: 9, kind: "campaign", state: {}, clocks: {}, server_ms: 100,
      chat: [{ channel: "team:red", from: "p1", role: "player", team: "red", name: "Kutuzov", text: "hi", at_ms: 50 }],
      away: [{ player: "p2", team: "red", since_ms: 0, until_ms: 5000, reason: "general killed" }],
      active: ["red"],
    });
    const r = s.room("c-1");
    expect(r.chat.get("team:red")?.[0]).toMatchObject({ from: "Kutuzov", text: "hi" });
    expect(r.active).toEqual(["red"]);
    expect(s.activeLockouts(100).map((l) => l.player)).toEqual(["p2"]);
  });

  it("moves a unit the viewer may see when an event carries it, and adds one newly spotted", () => {
    const s = new Session();
    s.onSnapshot({ t: "snapshot", chat: [], away: [], active: [], room: "c-1", seq: 1, kind: "campaign", server_ms: 0, clocks: {},
      state: { counters: [{ id: "r1", team: "red", x: 1, y: 0 }] } });
    s.onEvent(ev(2, "counter_moved", { id: "r1", team: "red", x: 2, y: 1 }));
    s.onEvent(ev(3, "counter_spotted", { id: "b1", team: "blue", x: 3, y: 2 }));
    expect(s.room("c-1").state.counters).toEqual([{ id: "r1", team: "red", x: 2, y: 1 }, { id: "b1", team: "blue", x: 3, y: 2 }]);
  });

  it("follows secret-module events sent and returned", () => {
    const s = new Session();
    s.onEvent(ev(1, "secret_module", { action: "sent", player: "p2", team: "red", since_ms: 0, until_ms: 9000, reason: "" }));
    expect(s.activeLockouts(10).map((l) => l.player)).toEqual(["p2"]);
    s.onEvent(ev(2, "secret_module", { action: "returned", player: "p2", early: true }));
    expect(s.activeLockouts(10)).toEqual([]);
  });

  it("drops the campaign's lockouts its room's snapshot no longer lists (a `returned` missed in a gap)", () => {
    const s = new Session();
    const away = (player: string) => ({ player, team: "red", since_ms: 0, until_ms: 9000, reason: "" });
    const snap = { t: "snapshot" as const, chat: [], active: [], server_ms: 100, clocks: {}, state: {} };
    s.onWelcome({ t: "welcome", cid: 0, campaign: "1", session: "x", role: "player", player: "p1", team: "red", seat: 1,
      rooms: ["c-1", "s-1"], server_ms: 0, locked_until_ms: 9000 });
    s.onEvent(ev(1, "secret_module", { action: "sent", ...away("p2") }));
    s.onEvent(ev(2, "secret_module", { action: "sent", ...away("p3") }));
    s.onEvent({ ...ev(1, "secret_module", { action: "sent", ...away("p9") }), room: "c-2" });
    expect(s.activeLockouts(100).map((l) => l.player)).toEqual(["p1", "p2", "p3", "p9"]);
    // Battle and secret-module rooms keep their own (here empty) lists: they say nothing of the campaign's.
    s.onSnapshot({ ...snap, room: "b-1-b7", seq: 3, kind: "battle", away: [] });
    s.onSnapshot({ ...snap, room: "s-1", seq: 5, kind: "secret_module", away: [] });
    expect(s.activeLockouts(100).map((l) => l.player)).toEqual(["p1", "p2", "p3", "p9"]);
    // The campaign room's snapshot after a reconnect: p1 and p3 were released meanwhile; another campaign's stay.
    s.onSnapshot({ ...snap, room: "c-1", seq: 8, kind: "campaign", away: [away("p2")] });
    expect(s.activeLockouts(100).map((l) => l.player)).toEqual(["p2", "p9"]);
  });
});

describe("Session and a snapshot's log (a page reloaded mid-game)", () => {
  const snap = (seq: number, log: Event[]) => ({ t: "snapshot" as const, chat: [], away: [], active: [], room: "c-1", seq,
    kind: "campaign" as const, state: { turn: 3 }, clocks: {}, server_ms: 0, log });

  it("fills the turn log from it and nothing else: state, chat and lockouts are the snapshot's own", () => {
    const s = new Session();
    s.onJoined({ t: "joined", cid: 1, room: "c-1", seq: 0, channels: ["players"] });
    s.onSnapshot(snap(7, [ev(2, "fired", { hits: 1 }), ev(4, "turn_ended", { state: { turn: 1 } }),
      ev(5, "chat", { channel: "players", from: "Ney", text: "old" }), ev(6, "secret_module", { player: "p2", until_ms: 9e15 })]));
    const r = s.room("c-1");
    expect(r.log.map((e) => e.seq)).toEqual([2, 4, 5, 6]);
    expect(r.pastSeq).toBe(7); // the page does not read them out as news
    expect(r.state).toEqual({ turn: 3 });
    expect(r.chat.get("players") ?? []).toEqual([]);
    expect(r.unread.get("players")).toBe(0);
    expect(s.activeLockouts(0)).toEqual([]);
    s.onEvent(ev(8, "fired", { hits: 2 }));
    expect(r.log.map((e) => e.seq)).toEqual([2, 4, 5, 6, 8]);
  });

  it("a later snapshot's log replaces what it reaches back to, without duplicates; a snapshot without one keeps the log", () => {
    const s = new Session();
    s.onEvent(ev(1, "fired", {}));
    s.onEvent(ev(2, "fired", {}));
    s.onEvent(ev(3, "fired", {}));
    s.onSnapshot(snap(9, [ev(3, "fired", {}), ev(9, "moved", {}), ev(10, "moved", {})]));
    expect(s.room("c-1").log.map((e) => e.seq)).toEqual([1, 2, 3, 9]);
    s.onSnapshot({ ...snap(12, []), log: undefined });
    expect(s.room("c-1").log.map((e) => e.seq)).toEqual([1, 2, 3, 9]);
  });
});

describe("Session asks for a new projection", () => {
  it("after engine events that carry no state, not after chat or clocks", () => {
    const s = new Session();
    expect(s.onEvent(ev(1, "moved", { unit: "b7", to: [64, 23] }))).toBe(true);
    expect(s.onEvent(ev(2, "chat", { channel: "players", from: "x", text: "y" }))).toBe(false);
    expect(s.onEvent(ev(3, "clock_paused", { at_ms: 1 }))).toBe(false);
    expect(s.onEvent(ev(4, "turn_ended", { state: { turn: 2 } }))).toBe(false);
  });
});

describe("replay frames", () => {
  it("keep the last view of every turn this client saw", () => {
    const s = new Session();
    const snap = (seq: number, turn: number, x: number) => s.onSnapshot({
      t: "snapshot", chat: [], away: [], active: [], room: "b-1", seq, kind: "battle", server_ms: 0, clocks: {},
      state: { turn, units: [{ id: "u", x }] },
    });
    snap(1, 1, 0);
    snap(2, 1, 1);
    snap(3, 2, 2);
    snap(4, 3, 3);
    const frames = s.room("b-1").frames;
    expect(frames.map((f) => [f.turn, f.seq])).toEqual([[1, 2], [2, 3], [3, 4]]);
    expect((frames[0]!.state.units as { x: number }[])[0]!.x).toBe(1);
  });
});

describe("Session and the server's views", () => {
  const snap = { t: "snapshot" as const, chat: [], away: [], active: [], room: "c-1", kind: "campaign" as const, clocks: {}, server_ms: 10 };
  const view = (seq: number, state: Record<string, unknown>, active = Array.isArray(state.active) ? state.active.map(String) : []) => (
    { t: "view" as const, room: "c-1", seq, state, clocks: { paused: false }, server_ms: 500 + seq, active });

  it("takes the viewer's new state from a view, so that the events before it need no re-join", () => {
    const s = new Session();
    s.onSnapshot({ ...snap, seq: 4, state: { turn: 1, units: [] } });
    expect(s.onEvent(ev(5, "moved", { unit: "r1" }))).toBe(true);
    expect(s.stale("c-1")).toBe(true);
    s.onView(view(5, { turn: 1, units: [{ id: "r1" }], active: ["blue"] }));
    expect(s.sendsViews).toBe(true);
    expect(s.stale("c-1")).toBe(false);
    const r = s.room("c-1");
    expect(r.state).toEqual({ turn: 1, units: [{ id: "r1" }], active: ["blue"] });
    expect(r.active).toEqual(["blue"]);
    expect(r.clocks).toEqual({ paused: false });
    expect(r.clocksAt).toBe(505);
    expect(r.frames.map((f) => [f.turn, f.seq])).toEqual([[1, 5]]);
  });

  it("stays stale when events outrun the last view (the fallback re-joins), and a snapshot settles it", () => {
    const s = new Session();
    s.onSnapshot({ ...snap, seq: 4, state: { turn: 1 } });
    s.onEvent(ev(5, "moved", {}));
    s.onView(view(5, { turn: 1 }));
    s.onEvent(ev(6, "attacked", {}));
    expect(s.stale("c-1")).toBe(true);
    s.onSnapshot({ ...snap, seq: 6, state: { turn: 2 } });
    expect(s.stale("c-1")).toBe(false);
  });

  it("takes the teams to act from the room, not from the engine's turn order in the state (D-L-1, D-NAP-5)", () => {
    const s = new Session();
    s.onSnapshot({ ...snap, seq: 4, state: { turn: 1, active: ["red"] }, active: [] }); // the campaign waits for its battle
    expect(s.room("c-1").active).toEqual([]);
    s.onView(view(5, { turn: 1, active: ["red"] }, ["blue", "red"])); // blue decides under its clock (N-START-3)
    expect(s.room("c-1").active).toEqual(["blue", "red"]);
  });

  it("drops a view older than the snapshot it would overwrite", () => {
    const s = new Session();
    s.onSnapshot({ ...snap, seq: 8, state: { turn: 3 } });
    s.onView(view(7, { turn: 2 }));
    expect(s.room("c-1").state).toEqual({ turn: 3 });
  });

  it("does not count chat, clock or lockout events as changing the view", () => {
    const s = new Session();
    s.onSnapshot({ ...snap, seq: 1, state: {} });
    s.onEvent(ev(2, "chat", { channel: "players", text: "hi" }));
    s.onEvent(ev(3, "clock_paused", {}));
    s.onEvent(ev(4, "secret_module", { player: "p2", until_ms: 9 }));
    expect(s.stale("c-1")).toBe(false);
  });
});

describe("Session: nothing typed is lost without a word (issue 16 §2)", () => {
  const hello = { t: "welcome" as const, cid: 1, session: "s", player: "red-1", role: "player" as const, team: "red", seat: 1, campaign: "1", rooms: ["c-1"], server_ms: 0, locked_until_ms: null };

  it("keeps a line until it comes back from the server, even when its ack was lost", () => {
    const s = new Session();
    s.onWelcome(hello);
    const line = s.sayPending("c-1", "players", "hold the bridge");
    s.chatFailed(line, true, "connection lost");
    expect(s.pending.map((l) => l.state)).toEqual(["unconfirmed"]);
    s.onEvent(ev(4, "chat", { channel: "players", from: "red-1", text: "hold the bridge" })); // in the resumed events
    s.settleUnconfirmed("c-1");
    expect(s.pending).toEqual([]);
  });

  it("marks a line unsent when the resumed room does not have it", () => {
    const s = new Session();
    s.onWelcome(hello);
    const line = s.sayPending("c-1", "players", "lost on the way");
    s.chatFailed(line, true, "connection lost");
    s.onEvent(ev(4, "chat", { channel: "players", from: "blue-1", text: "lost on the way" })); // someone else's
    s.settleUnconfirmed("c-1");
    expect(s.pending.map((l) => [l.text, l.state])).toEqual([["lost on the way", "unsent"]]);
  });
});
