/** The tab follows the state line: its title ("▶ Your turn — 4:12 left · Kriegsspiel"), a favicon that blinks
 * while it is the viewer's turn and the tab is not looked at (as lichess does), and an optional short sound when
 * the turn comes to the viewer. */
import type { StateLine } from "./status";

const ICON = (fill: string) => `data:image/svg+xml,${encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="${fill}"/><path d="M8 24 24 8M8 8l16 16" stroke="#2b2a26" stroke-width="4" stroke-linecap="round"/></svg>`)}`;
const NORMAL = ICON("#f3d37a");
const CALL = ICON("#ff5a4f");

let soundOn = (() => {
  try {
    return globalThis.localStorage?.getItem("sound") === "on";
  } catch {
    return false;
  }
})();

export const sound = {
  get on(): boolean {
    return soundOn;
  },
  toggle(): void {
    soundOn = !soundOn;
    try {
      globalThis.localStorage?.setItem("sound", soundOn ? "on" : "off");
    } catch {}
    if (soundOn) chime();
  },
};

function chime(): void {
  try {
    const ctx = new AudioContext();
    for (const [i, f] of [660, 880].entries()) {
      const o = ctx.createOscillator();
      const g = ctx.createGain();
      o.frequency.value = f;
      g.gain.setValueAtTime(0.12, ctx.currentTime + i * 0.16);
      g.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + i * 0.16 + 0.15);
      o.connect(g).connect(ctx.destination);
      o.start(ctx.currentTime + i * 0.16);
      o.stop(ctx.currentTime + i * 0.16 + 0.16);
    }
    setTimeout(() => void ctx.close(), 600);
  } catch {
    // no audio here: the title and the favicon still say it
  }
}

export class Attention {
  private wasMine = false;
  private link: HTMLLinkElement;

  constructor(private readonly base: string) {
    this.link = document.querySelector<HTMLLinkElement>("link[rel=icon]") ?? document.head.appendChild(Object.assign(document.createElement("link"), { rel: "icon" }));
  }

  /** Called on every tick (4 a second) and change. */
  show(line: StateLine | null): void {
    const text = line ? `${line.mine ? "▶ " : ""}${line.text} · ${this.base}` : this.base;
    if (document.title !== text) document.title = text;
    const mine = !!line?.mine;
    if (mine && !this.wasMine && soundOn) chime();
    this.wasMine = mine;
    const blink = mine && !document.hasFocus() && Math.floor(Date.now() / 1000) % 2 === 0;
    const href = blink ? CALL : NORMAL;
    if (this.link.href !== href) this.link.href = href;
  }

  reset(): void {
    document.title = this.base;
    this.link.href = NORMAL;
  }
}
