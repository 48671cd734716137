/** Playing a finished room back: step event by event or turn by turn, play and pause at a chosen speed, seek
 * anywhere; every event is drawn on the field as it was played live (./battle/effects.ts) and said in words under
 * the controls. Keys on the bar: ← → an event, Shift+← → a turn, space to play or pause. */
import { t, tn } from "../i18n";
import { BEATS } from "../battle/effects";
import type { ReplayEvent, Timeline } from "../net/replay";
import { h } from "./dom";

export interface ReplayTarget {
  setState(state: Record<string, unknown>, side: string | null, instant?: boolean): void;
  play?(kind: string, data: Record<string, unknown>, caption?: string): void;
  stopEffects?(): void;
}

const SPEEDS = [0.5, 1, 2, 4, 8];

export class ReplayPlayer {
  readonly root: HTMLElement;
  private readonly position: HTMLElement;
  private readonly sentence: HTMLElement;
  private readonly seek: HTMLInputElement;
  private readonly playButton: HTMLButtonElement;
  at = 0;
  private playing = false;
  private speed = 1;
  private timer = 0;
  private shown: unknown = null;

  /** `describe`: an event in words; `side`: whose units are "own" on the field (a side's replay), or null. */
  constructor(readonly timeline: Timeline, private readonly target: ReplayTarget, private readonly side: string | null,
              private readonly describe: (e: ReplayEvent) => string, private readonly exit: () => void, title: string) {
    const n = timeline.length;
    const button = (label: string, testid: string, hint: string, go: () => void) =>
      h("button", { type: "button", "data-testid": testid, title: hint, "aria-label": hint, onclick: go }, label);
    this.playButton = button("▶", "replay-play", t("replay.play"), () => this.toggle());
    this.seek = h("input", { type: "range", min: 0, max: Math.max(0, n - 1), value: 0, step: 1, "data-testid": "replay-seek", "aria-label": t("replay.seek"),
      oninput: () => this.go(Number(this.seek.value), false) });
    const speed = h("select", { "data-testid": "replay-speed", "aria-label": t("replay.speed"), onchange: () => { this.speed = Number(speed.value); } },
      ...SPEEDS.map((s) => h("option", { value: s, ...(s === 1 ? { selected: "" } : {}) }, `${s}×`)));
    this.position = h("span", { class: "replay-position", "data-testid": "replay-position", "aria-live": "polite" });
    this.sentence = h("p", { class: "replay-sentence", "data-testid": "replay-event" });
    this.root = h("div", { class: "replay-bar", "data-testid": "replay-bar", tabindex: 0, role: "group", "aria-label": title },
      h("div", { class: "replay-controls" },
        h("strong", { class: "replay-title" }, title),
        button("«", "replay-prev-turn", t("replay.prev_turn"), () => this.go(this.timeline.previousTurn(this.at), false)),
        button("‹", "replay-prev", t("replay.prev_event"), () => this.go(this.at - 1, false)),
        this.playButton,
        button("›", "replay-next", t("replay.next_event"), () => this.go(this.at + 1, true)),
        button("»", "replay-next-turn", t("replay.next_turn"), () => this.go(this.timeline.nextTurn(this.at), false)),
        speed, this.position,
        button(t("replay.live"), "replay-live", t("replay.back"), () => { this.pause(); this.exit(); })),
      this.seek, this.sentence);
    this.root.dataset.events = String(timeline.events().length);
    this.root.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowRight") this.go(e.shiftKey ? this.timeline.nextTurn(this.at) : this.at + 1, !e.shiftKey);
      else if (e.key === "ArrowLeft") this.go(e.shiftKey ? this.timeline.previousTurn(this.at) : this.at - 1, false);
      else if (e.key === " ") this.toggle();
      else return;
      e.preventDefault();
    });
    this.go(0, false);
  }

  /** Show mark `i`; `animate` (one step forward) plays its event on the field, anything else jumps there. */
  go(i: number, animate: boolean): void {
    const n = this.timeline.length;
    if (!n) return;
    const next = Math.max(0, Math.min(n - 1, i));
    const forward = animate && next === this.at + 1;
    this.at = next;
    const state = this.timeline.view(next);
    if (!forward) this.target.stopEffects?.();
    if (state !== this.shown) {
      this.target.setState(state, this.side, !forward);
      this.shown = state;
    }
    const ev = this.timeline.event(next);
    if (ev && forward) this.target.play?.(ev.kind, ev.data, this.describe(ev));
    this.seek.value = String(next);
    // where the replay stands, for tests and tools: the mark, the event's number in the room and its kind
    this.root.dataset.at = String(next);
    this.root.dataset.seq = ev ? String(ev.seq) : "";
    this.root.dataset.kind = ev?.kind ?? "";
    const turn = this.timeline.turn(next);
    this.position.textContent = `${turn !== null ? `${t("game.turn", { n: turn })} · ` : ""}${t("replay.position", { n: next + 1, of: tn("n.events", n) })}`;
    this.sentence.textContent = ev ? this.describe(ev) : t("replay.no_event");
    if (next >= n - 1) this.pause();
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.playOn();
  }

  private playOn(): void {
    if (this.at >= this.timeline.length - 1) this.go(0, false);
    this.playing = true;
    this.playButton.textContent = "❚❚";
    this.playButton.title = t("replay.pause");
    this.playButton.setAttribute("aria-label", t("replay.pause"));
    const tick = () => {
      if (!this.playing) return;
      this.go(this.at + 1, true);
      const ev = this.timeline.event(this.at);
      this.timer = window.setTimeout(tick, ((ev ? BEATS[ev.kind] ?? 160 : 120) / this.speed));
    };
    this.timer = window.setTimeout(tick, 200 / this.speed);
  }

  pause(): void {
    this.playing = false;
    window.clearTimeout(this.timer);
    this.playButton.textContent = "▶";
    this.playButton.title = t("replay.play");
    this.playButton.setAttribute("aria-label", t("replay.play"));
  }

  destroy(): void {
    this.pause();
  }
}
