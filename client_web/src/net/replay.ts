/**
 * Replays of finished rooms from the server (`GET /api/rooms/{room}/replay?as=full|spectator|team:<colour>`): one
 * view per turn as that viewer class saw it, or (`&by=event`) every command's events with the view patched after
 * it — a timeline that steps event by event. A browser cannot play the engine's command log, so the server builds
 * the views; a server without the endpoint answers 404 and the client steps through the views it kept itself.
 */
import { isObj, listOf, num, str, type Obj } from "../read";

export interface Frame {
  turn: number;
  seq: number;
  state: Obj;
}

/** `full` (the moderator's view), the spectators', the public's or one side's. */
export type ReplayAs = "full" | "spectator" | "public" | `team:${string}`;

export class ReplayUnavailable extends Error {}

/** The viewer classes a replay may be asked for while the campaign is played (docs/protocol.md, replays): the
 * moderator any; anyone else the class it sees the room as (`own`: a player its side, the spectators' link
 * `public`, a named spectator `spectator`) or the public's — the server refuses the others (403). */
export function replayChoices(role: string | undefined, own: ReplayAs, teams: string[]): ReplayAs[] {
  if (role === "moderator") return ["full", "spectator", ...teams.map((s): ReplayAs => `team:${s}`), "public"];
  return own === "public" ? ["public"] : [own, "public"];
}

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

async function getReplay(room: string, query: string, token: string | null): Promise<unknown> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`/api/rooms/${encodeURIComponent(room)}/replay?${query}`, { headers });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    if (res.status === 404 && !(isObj(body) && (body.error ?? body.message))) throw new ReplayUnavailable(`no replay endpoint`);
    const message = isObj(body) ? String(body.message ?? body.error ?? res.statusText) : res.statusText;
    throw new ReplayRefused(res.status, message);
  }
  return body;
}

/** The server said no: 409 while the room is still being played, 400 for a viewer the room has not. */
export class ReplayRefused extends Error {
  constructor(readonly status: number, message: string) {
    super(`${status} ${message}`);
  }
}

/** Fetch a finished room's replay; the session's token goes in a header, never in the URL. Throws
 * `ReplayUnavailable` when the server has no such endpoint (404 without a JSON body) and `ReplayRefused` with the
 * server's message otherwise. */
export async function fetchReplay(room: string, as: ReplayAs, token: string | null): Promise<Frame[]> {
  return readReplay(await getReplay(room, `as=${encodeURIComponent(as)}`, token));
}

/** One event of a replay, as the viewer class received it. */
export interface ReplayEvent {
  seq: number;
  at_ms: number;
  kind: string;
  data: Obj;
}

/** A step: one command's events and the view after it. */
export interface Step {
  seq: number;
  turn: number | null;
  events: ReplayEvent[];
  state: Obj;
}

/** The view after a patch of the server's (server/rooms/replay.py `view_patch`): changed keys replaced, lists of
 * things with ids rebuilt from their ids (what did not change is the same object as before), keys dropped. */
export function applyPatch(view: Obj, patch: Obj): Obj {
  const drop = Array.isArray(patch.$drop) ? patch.$drop.map(String) : [];
  const out: Obj = {};
  for (const [k, v] of Object.entries(view)) if (!drop.includes(k)) out[k] = v;
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$drop") continue;
    const old = out[k];
    if (isObj(v) && Array.isArray(v.$ids) && Array.isArray(old)) {
      const byId = new Map<string, unknown>(old.filter(isObj).map((x) => [String(x.id), x]));
      for (const x of listOf(v.$set)) byId.set(String(x.id), x);
      out[k] = v.$ids.map((id) => byId.get(String(id))).filter((x) => x !== undefined);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** The steps of an event replay answer, each with its whole view (patches applied in turn). */
export function readSteps(body: unknown): Step[] {
  const raw = isObj(body) ? listOf(body.steps) : [];
  const steps: Step[] = [];
  let view: Obj | null = null;
  for (const s of raw) {
    if (isObj(s.state)) view = s.state;
    else if (view && isObj(s.patch)) view = applyPatch(view, s.patch);
    if (!view) continue;
    const events = listOf(s.events).map((e) => ({ seq: num(e.seq) ?? 0, at_ms: num(e.at_ms) ?? 0, kind: str(e.kind), data: isObj(e.data) ? e.data : {} }));
    steps.push({ seq: num(s.seq) ?? 0, turn: num(s.turn), events, state: view });
  }
  return steps;
}

/** A finished room event by event as `as` saw it, and the room's teams (the sides a replay may be seen as). */
export async function fetchSteps(room: string, as: ReplayAs, token: string | null): Promise<{ steps: Step[]; teams: string[] }> {
  const body = await getReplay(room, `as=${encodeURIComponent(as)}&by=event`, token);
  return { steps: readSteps(body), teams: isObj(body) && Array.isArray(body.teams) ? body.teams.map((x) => str(x)) : [] };
}

/** A position in a replay: an event of a step, or a step that changed the view without an event for this viewer. */
export interface Mark {
  step: number;
  /** index of the event in its step; -1 for a step without events */
  event: number;
}

/** The replay as a line of marks to step along — event by event, or turn by turn — and the view at each mark: the
 * view before its step while that step's events play, the view after it at the step's last event (so that shots
 * land on the units as they stood and a fallen unit is there until it falls). */
export class Timeline {
  readonly marks: Mark[] = [];

  constructor(readonly steps: readonly Step[]) {
    steps.forEach((s, i) => {
      if (!s.events.length) this.marks.push({ step: i, event: -1 });
      s.events.forEach((_, j) => this.marks.push({ step: i, event: j }));
    });
  }

  get length(): number {
    return this.marks.length;
  }

  event(at: number): ReplayEvent | null {
    const m = this.marks[at];
    return m && m.event >= 0 ? this.steps[m.step]!.events[m.event]! : null;
  }

  view(at: number): Obj {
    const m = this.marks[Math.max(0, Math.min(this.marks.length - 1, at))];
    if (!m) return {};
    const step = this.steps[m.step]!;
    const last = m.event < 0 || m.event === step.events.length - 1;
    return last || m.step === 0 ? step.state : this.steps[m.step - 1]!.state;
  }

  turn(at: number): number | null {
    const m = this.marks[at];
    if (!m) return null;
    const v = this.view(at);
    return num(v.turn) ?? (isObj(v.turn) ? num(v.turn.number) : null) ?? this.steps[m.step]!.turn;
  }

  /** The first mark of the next turn after `at` (or the last mark), and of the turn before (or the first). */
  nextTurn(at: number): number {
    const now = this.turn(at);
    for (let i = at + 1; i < this.length; i++) if (this.turn(i) !== now) return i;
    return this.length - 1;
  }

  previousTurn(at: number): number {
    const now = this.turn(at);
    let i = at - 1;
    while (i > 0 && this.turn(i) === now) i--;
    const before = this.turn(i);
    while (i > 0 && this.turn(i - 1) === before) i--;
    return Math.max(0, i);
  }

  /** Every event the viewer got, in order (the after-action report is computed from them). */
  events(): ReplayEvent[] {
    return this.steps.flatMap((s) => s.events);
  }
}
