/** Every side's chess clock, ticking locally from the server's figures (server/clock.py `view()`): remaining time
 * at `now_ms`, minus what has elapsed since on the server's clock for the teams that tick. */
import { t } from "../i18n";
import { teamColour } from "./colours";
import { teamWord } from "../i18n/words";
import { clear, formatMs, h } from "./dom";

export interface TeamClock {
  team: string;
  remainingMs: number;
  ticking: boolean;
  flagged: boolean;
}

export const LOW_MS = 60_000;
export const CRITICAL_MS = 20_000;

type Obj = Record<string, unknown>;

/** Clocks as they stand at server time `now`, from a view taken at `viewAt`. */
export function clocksAt(view: Obj, viewAt: number, now: number): { paused: boolean; teams: TeamClock[] } {
  const paused = view.paused === true;
  const teams = (typeof view.teams === "object" && view.teams !== null ? view.teams : {}) as Record<string, Obj>;
  const base = typeof view.now_ms === "number" ? view.now_ms : viewAt;
  const elapsed = Math.max(0, now - base);
  return {
    paused,
    teams: Object.entries(teams).map(([team, c]) => {
      const ticking = !paused && (c.ticking === true || (c.ticking === undefined && c.running === true)) && c.flagged !== true;
      const rem = typeof c.remaining_ms === "number" ? c.remaining_ms : 0;
      return { team, remainingMs: ticking ? Math.max(0, rem - elapsed) : rem, ticking, flagged: c.flagged === true };
    }),
  };
}

export function clockLevel(c: TeamClock): "ok" | "low" | "critical" {
  return c.remainingMs <= CRITICAL_MS ? "critical" : c.remainingMs <= LOW_MS ? "low" : "ok";
}

export class ClocksPanel {
  readonly root = h("div", { class: "clocks", "data-testid": "clocks", role: "group" });

  render(view: Obj, viewAt: number, now: number, active: string[], myTeam: string | null): void {
    const { paused, teams } = clocksAt(view, viewAt, now);
    clear(this.root);
    this.root.setAttribute("aria-label", t("clock.label"));
    const names = teams.length ? teams.map((c) => c.team) : active;
    for (const team of names) {
      const c = teams.find((x) => x.team === team);
      const col = teamColour(team);
      const level = c ? clockLevel(c) : "ok";
      const moving = active.includes(team);
      const cls = ["clock", level, c?.ticking ? "ticking" : "", moving ? "to-move" : "idle", team === myTeam ? "mine" : ""].join(" ");
      this.root.append(h("div", { class: cls, "data-team": team, "data-testid": `clock-${team}`, "aria-current": moving ? "true" : null,
        style: moving ? `--team:${col.fill}` : null },
        moving ? h("span", { class: "arrow", "aria-hidden": "true" }, "▶") : null,
        h("span", { class: "team-mark", style: `color:${col.fill}`, "aria-hidden": "true" }, col.glyph),
        h("span", { class: "team" }, teamWord(team)),
        h("span", { class: "time" }, c ? formatMs(c.remainingMs) : "—"),
        c?.flagged ? h("span", { class: "flag" }, t("clock.flagged")) : null,
      ));
    }
    if (paused) this.root.append(h("span", { class: "paused" }, t("clock.paused")));
  }
}
