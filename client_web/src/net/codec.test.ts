import { execFileSync } from "node:child_process";
import { decode as unpack, encode as pack } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { decode, encode, encodeJson, FrameError } from "./codec";
import type { Event, Snapshot } from "./protocol";

describe("codec", () => {
  it("packs a hello as a msgpack map the server's codec reads", () => {
    const frame = encode({ t: "hello", cid: 1, token: "abcdefgh12345678", name: "Kutuzov" });
    expect(unpack(frame)).toEqual({ t: "hello", cid: 1, token: "abcdefgh12345678", name: "Kutuzov" });
  });

  it("writes JSON text frames for debugging", () => {
    expect(JSON.parse(encodeJson({ t: "end_turn", cid: 7, room: "c1" }))).toEqual({ t: "end_turn", cid: 7, room: "c1" });
  });

  it("reads msgpack and JSON server frames alike, with epoch milliseconds intact", () => {
    const ev: Event = { t: "ev", room: "c1", seq: 42, at_ms: 1_764_500_000_123, kind: "moved", data: { unit: "17RD" } };
    expect(decode(pack(ev))).toEqual(ev);
    expect(decode(JSON.stringify(ev))).toEqual(ev);
    const buf = pack(ev);
    expect(decode(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength))).toEqual(ev);
  });

  it("keeps nested state maps of a snapshot", () => {
    const snap: Snapshot = {
      t: "snapshot", chat: [], away: [], active: [], room: "c1", seq: 3, kind: "campaign", server_ms: 5,
      state: { units: [{ id: "u1", cell: [45, 22] }] }, clocks: { paused: false },
    };
    expect(decode(pack(snap))).toEqual(snap);
  });

  it.each([
    ["not msgpack", new Uint8Array([0xc1])],
    ["not JSON", "{nope"],
    ["not a map", pack([1, 2, 3])],
    ["unknown type", pack({ t: "teleport" })],
    ["no type", JSON.stringify({ cid: 1 })],
  ])("rejects a frame that is %s", (_name, frame) => {
    expect(() => decode(frame as Uint8Array | string)).toThrow(FrameError);
  });
});

describe("generated protocol types", () => {
  it("are current with shared/protocol/schema.json", () => {
    // Exits non-zero (and the call throws) when src/net/protocol.ts is stale.
    const out = execFileSync(process.execPath, ["scripts/gen-protocol.mjs", "--check"], { encoding: "utf8" });
    expect(out).toContain("current");
  });
});
