import { describe, expect, it } from "vitest";
import { OrderGate } from "./lockout";
import type { Command } from "./connection";
import type { Event } from "./protocol";
import { Session } from "./session";

const ev = (seq: number, kind: string, data: Record<string, unknown>): Event => ({ t: "ev", room: "c-1", seq, at_ms: 1000 + seq, kind, data });

function setup(locked_until_ms: number | null = null) {
  const s = new Session();
  const clock = { now: 2000 };
  const flips: boolean[] = [];
  const gate = new OrderGate(s, () => clock.now, (locked) => flips.push(locked));
  s.onWelcome({ t: "welcome", cid: 0, campaign: "1", session: "x", role: "player", player: "red-1", team: "red", seat: 1,
    rooms: ["c-1"], server_ms: 0, locked_until_ms });
  const sent: Command[] = [];
  const send = (cmd: Command) => gate.send(cmd, async (c) => sent.push(c));
  return { s, clock, flips, gate, sent, send };
}

describe("OrderGate", () => {
  it("says at once when the moderator sends this player to the secret module and brings them back (D-N-14)", () => {
    const { s, flips, gate } = setup();
    expect(gate.locked).toBe(false);
    s.onEvent(ev(1, "secret_module", { action: "sent", player: "red-2", team: "red", since_ms: 1000, until_ms: 9000, reason: "" }));
    expect(flips).toEqual([]);
    s.onEvent(ev(2, "secret_module", { action: "sent", player: "red-1", team: "red", since_ms: 1000, until_ms: 9000, reason: "killed" }));
    expect(flips).toEqual([true]);
    s.onEvent(ev(3, "chat", { channel: "players", from: "blue-1", text: "condolences" }));
    expect(flips).toEqual([true]);
    s.onEvent(ev(4, "secret_module", { action: "returned", player: "red-1", team: "red", early: true, at_ms: 3000 }));
    expect(flips).toEqual([true, false]);
  });

  it("notices the end of the time on a tick, with no event", () => {
    const { clock, flips, gate } = setup(5000);
    expect(gate.locked).toBe(true);
    gate.check();
    expect(flips).toEqual([true]);
    clock.now = 5001;
    gate.check();
    expect(flips).toEqual([true, false]);
  });

  it("gives the controls back when the campaign room's snapshot no longer lists this player (a missed return)", async () => {
    const { s, flips, gate, sent, send } = setup(9000);
    const snap = { t: "snapshot" as const, chat: [], active: [], server_ms: 2000, clocks: {}, state: {}, away: [] };
    s.onSnapshot({ ...snap, room: "b-1-b7", seq: 3, kind: "battle" });
    s.onSnapshot({ ...snap, room: "s-1", seq: 2, kind: "secret_module" });
    expect(gate.locked).toBe(true);
    s.onSnapshot({ ...snap, room: "c-1", seq: 12, kind: "campaign" });
    expect(flips).toEqual([true, false]);
    await send({ t: "order", room: "c-1", order: { type: "move" } });
    expect(sent.map((c) => c.t)).toEqual(["order"]);
  });

  it("refuses orders and the end of turn from controls drawn before the lockout, but not chat", async () => {
    const { s, sent, send } = setup();
    await send({ t: "order", room: "c-1", order: { type: "move" } });
    s.onEvent(ev(1, "secret_module", { action: "sent", player: "red-1", team: "red", since_ms: 1000, until_ms: 9000, reason: "" }));
    await expect(send({ t: "order", room: "c-1", order: { type: "attack" } })).rejects.toMatchObject({ code: "locked_out", rule: "D-N-14" });
    await expect(send({ t: "order", room: "b-1-x", order: { type: "fire" } })).rejects.toMatchObject({ code: "locked_out" });
    await expect(send({ t: "end_turn", room: "c-1" })).rejects.toMatchObject({ code: "locked_out" });
    await send({ t: "chat", room: "s-1", channel: "secret", text: "hello" });
    s.onEvent(ev(2, "secret_module", { action: "returned", player: "red-1", team: "red", early: true, at_ms: 3000 }));
    await send({ t: "end_turn", room: "c-1" });
    expect(sent.map((c) => c.t)).toEqual(["order", "chat", "end_turn"]);
  });
});
