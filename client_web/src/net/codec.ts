/** The client's half of the one codec (shared/protocol/codec.py): msgpack binary frames, JSON text frames read too. */
import { decode as unpack, encode as pack } from "@msgpack/msgpack";
import { SERVER_MESSAGE_TYPES, type ClientMessage, type ServerMessage } from "./protocol";

export class FrameError extends globalThis.Error {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

export function encode(message: ClientMessage): Uint8Array {
  return pack(message);
}

export function encodeJson(message: ClientMessage): string {
  return JSON.stringify(message);
}

const serverTypes: ReadonlySet<string> = new Set(SERVER_MESSAGE_TYPES);

/** Parse one server frame. The server is trusted for field shapes; the envelope is checked so that a stray frame
 * cannot be mistaken for a message. */
export function decode(frame: ArrayBuffer | Uint8Array | string): ServerMessage {
  let obj: unknown;
  try {
    obj = typeof frame === "string" ? JSON.parse(frame) : unpack(frame instanceof Uint8Array ? frame : new Uint8Array(frame));
  } catch (exc) {
    throw new FrameError(`frame is not valid ${typeof frame === "string" ? "JSON" : "msgpack"}: ${String(exc)}`);
  }
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
    throw new FrameError("a message is a map with a 't' field");
  }
  const t = (obj as { t?: unknown }).t;
  if (typeof t !== "string" || !serverTypes.has(t)) {
    throw new FrameError(`unknown server message type ${JSON.stringify(t)}`);
  }
  return obj as ServerMessage;
}
