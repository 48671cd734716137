// Baseline: a Node `ws` broadcast server speaking the benchmarks' part of the protocol (see bench/loadgen.py).
// /ws: hello -> welcome, join -> joined, mod_ruling {room, ruling: {kind, data}} -> one `ev` message packed once
// and sent to every socket in the room with ws.send (no permessage-deflate), then ack. A socket whose
// bufferedAmount passes --cap bytes is terminated.
//   node bench/node/broadcast.js --port N [--cap BYTES]
"use strict";
const http = require("http");
const { WebSocketServer } = require("ws");
const { encode, decode } = require("@msgpack/msgpack");

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(opt("--port", "0"));
const host = opt("--host", "127.0.0.1");
const cap = Number(opt("--cap", String(1 << 20)));

const rooms = new Map();
const seqs = new Map();
const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

function broadcast(room, frame) {
  const members = rooms.get(room);
  if (!members) return;
  for (const ws of members) {
    if (ws.bufferedAmount > cap) { members.delete(ws); ws.terminate(); }
    else ws.send(frame, { binary: true });
  }
}

server.on("upgrade", (req, socket, head) => {
  if (new URL(req.url, "http://x").pathname !== "/ws") { socket.destroy(); return; }
  wss.handleUpgrade(req, socket, head, (ws) => {
    let joined = null;
    ws.on("message", (data) => {
      const m = decode(data);
      if (m.t === "mod_ruling") {
        const room = String(m.room);
        const seq = (seqs.get(room) || 0) + 1;
        seqs.set(room, seq);
        broadcast(room, encode({ t: "ev", room, seq, at_ms: Date.now(), kind: m.ruling.kind, data: m.ruling.data }));
        ws.send(encode({ t: "ack", cid: m.cid || 0, seq }));
      } else if (m.t === "hello") ws.send(encode({ t: "welcome", cid: m.cid || 0, role: "spectator" }));
      else if (m.t === "join") {
        joined = String(m.room);
        if (!rooms.has(joined)) rooms.set(joined, new Set());
        rooms.get(joined).add(ws);
        ws.send(encode({ t: "joined", cid: m.cid || 0, room: joined }));
      }
    });
    ws.on("close", () => { if (joined) rooms.get(joined).delete(ws); });
  });
});

server.listen(port, host);
process.on("SIGTERM", () => process.exit(0));
