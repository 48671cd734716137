/**
 * Replays of finished battles from the server (`GET /api/rooms/{room}/replay?as=full|team:<colour>`): one view
 * per turn as that viewer class saw it. A browser cannot play the engine's command log, so the server builds the
 * views; a server without the endpoint answers 404 and the client steps through the views it kept itself.
 */
import { isObj, listOf, num, type Obj } from "../read";

export interface Frame {
  turn: number;
  seq: number;
  state: Obj;
}

/** `full` (the moderator's view), the spectators' or one side's. */
export type ReplayAs = "full" | "spectator" | `team:${string}`;

export class ReplayUnavailable extends Error {}

/** The frames of a replay answer, oldest first: the server's `{turns: [{turn, seq, at_ms, state}], final}` (the
 * view after each completed turn, then at the end; docs/protocol.md), also `frames`/`views` or a bare list;
 * entries without a view are skipped. */
export function readReplay(body: unknown): Frame[] {
  const list = Array.isArray(body) ? body.filter(isObj) : isObj(body) ? listOf(body.turns ?? body.frames ?? body.views) : [];
  if (isObj(body) && isObj(body.final)) list.push(body.final);
  const frames: Frame[] = [];
  list.forEach((f, i) => {
    const state = f.state ?? f.view;
    if (!isObj(state)) return;
    const t = num(f.turn) ?? num(state.turn) ?? (isObj(state.turn) ? num(state.turn.number) : null) ?? i + 1;
    frames.push({ turn: t, seq: num(f.seq) ?? i, state });
  });
  return frames.sort((a, b) => a.seq - b.seq || a.turn - b.turn);
}

/** Fetch a finished room's replay; the session's token goes in a header, never in the URL. Throws
 * `ReplayUnavailable` when the server has no such endpoint (404 without a JSON body) and Error with the
 * server's message otherwise. */
export async function fetchReplay(room: string, as: ReplayAs, token: string | null): Promise<Frame[]> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`/api/rooms/${encodeURIComponent(room)}/replay?as=${encodeURIComponent(as)}`, { headers });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    if (res.status === 404 && !(isObj(body) && (body.error ?? body.message))) throw new ReplayUnavailable(`no replay endpoint`);
    const message = isObj(body) ? String(body.message ?? body.error ?? res.statusText) : res.statusText;
    throw new Error(`${res.status} ${message}`);
  }
  return readReplay(body);
}
