/** The moderator's desk: pause/resume and adjust clocks, send a player to the secret module or bring them back,
 * rule on disputes or impose a quick resolution, and see which reconnaissance answers were false. */
import { t } from "../i18n";
import type { Command } from "../net/connection";
import { h } from "./dom";

export interface DeskContext {
  room: string;
  teams: () => string[];
  players: () => string[];
  /** the false reconnaissance answers (C-8.3, D-GEN-1): who asked, what, what they were told, and the truth */
  falseAnswers: () => { team: string; question: string; answer: string; truth: string | null }[];
  send: (cmd: Command) => Promise<unknown>;
  /** the viewer class the desk shows the room as (`team:red`, `spectator`, `public`), null for the full view */
  viewing: () => string | null;
  setViewing: (viewAs: string | null) => void;
}

export function moderatorDesk(ctx: DeskContext): HTMLElement {
  const team = h("select", { "data-testid": "mod-team" });
  const minutes = h("input", { type: "number", value: "1", step: "0.5", "data-testid": "mod-minutes", style: "width:5em" });
  const player = h("input", { type: "text", list: "mod-players", placeholder: t("mod.player"), "data-testid": "mod-player" });
  const players = h("datalist", { id: "mod-players" });
  const lockMinutes = h("input", { type: "number", value: "20", min: "1", step: "1", style: "width:4em", "data-testid": "mod-lock-minutes" });
  const reason = h("input", { type: "text", placeholder: t("mod.reason"), "data-testid": "mod-reason" });
  const ruling = h("textarea", { rows: 2, placeholder: '{"type": "note", "text": "…"}', "data-testid": "mod-ruling" });
  const answers = h("ul", { class: "false-answers", "data-testid": "mod-false-answers" });
  const seeAs = h("select", { "data-testid": "mod-view-as", onchange: () => ctx.setViewing(seeAs.value || null) });
  const refresh = () => {
    const viewing = ctx.viewing() ?? "";
    const classes = ["", ...ctx.teams().map((x) => `team:${x}`), "spectator", "public"];
    if (!classes.includes(viewing)) classes.push(viewing);
    const key = `${classes.join(" ")}|${viewing}`;
    if (seeAs.dataset.key !== key) seeAs.replaceChildren(...classes.map((v) => h("option", { value: v },
      v === "" ? t("mod.view.full") : v.startsWith("team:") ? t("mod.view.team", { team: v.slice(5) }) : t(`mod.view.${v === "spectator" ? "spectator" : "public"}`))));
    if (seeAs.dataset.key !== key) seeAs.value = viewing;
    seeAs.dataset.key = key;
    const cur = team.value;
    team.replaceChildren(...ctx.teams().map((x) => h("option", { value: x }, x)));
    if (cur) team.value = cur;
    players.replaceChildren(...ctx.players().map((p) => h("option", { value: p })));
    const lies = ctx.falseAnswers();
    answers.replaceChildren(...(lies.length ? lies.map((a) => h("li", {},
      a.team ? `${a.team}: ` : "", `${a.question} → `, h("s", {}, a.answer), a.truth !== null ? ` (${t("mod.truth")}: ${a.truth})` : ""))
      : [h("li", { class: "muted" }, t("mod.false_none"))]));
  };
  const run = (cmd: Command) => () => void ctx.send(cmd).catch(() => {});
  const root = h("details", { class: "desk", open: true, "data-testid": "moderator-desk", ontoggle: refresh },
    h("summary", {}, t("mod.desk")),
    h("div", { class: "row" }, t("mod.view"), " ", seeAs),
    h("div", { class: "buttons" },
      h("button", { "data-testid": "mod-pause", onclick: run({ t: "mod_clock", room: ctx.room, action: "pause" }) }, t("mod.pause")),
      h("button", { "data-testid": "mod-resume", onclick: run({ t: "mod_clock", room: ctx.room, action: "resume" }) }, t("mod.resume"))),
    h("div", { class: "row" }, t("mod.adjust"), " ", team, " ", minutes, " ", t("mod.minutes"), " ",
      h("button", { "data-testid": "mod-adjust", onclick: () => void ctx.send({
        t: "mod_clock", room: ctx.room, action: "adjust", team: team.value, delta_ms: Math.round(Number(minutes.value) * 60_000),
      }).catch(() => {}) }, t("mod.apply"))),
    h("div", { class: "row" }, t("mod.secret"), " ", player, players, " ", lockMinutes, " ", reason, " ",
      h("button", { "data-testid": "mod-lock", onclick: () => {
        if (player.value) void ctx.send({ t: "mod_secret_module", player: player.value, minutes: Number(lockMinutes.value) || 20, reason: reason.value }).catch(() => {});
      } }, t("mod.send")),
      h("button", { "data-testid": "mod-release", onclick: () => {
        if (player.value) void ctx.send({ t: "mod_release", player: player.value }).catch(() => {});
      } }, t("mod.release"))),
    h("div", { class: "row" }, t("mod.ruling"), ruling,
      h("button", { "data-testid": "mod-rule", onclick: () => {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(ruling.value || "{}") as Record<string, unknown>;
        } catch {
          body = { type: "note", text: ruling.value };
        }
        void ctx.send({ t: "mod_ruling", room: ctx.room, ruling: body }).catch(() => {});
      } }, t("mod.ruling.submit")),
      h("button", { onclick: run({ t: "mod_ruling", room: ctx.room, ruling: { type: "quick_resolution" } }) }, t("mod.quick"))),
    h("div", { class: "row" }, h("b", {}, t("mod.false_answers")), answers),
  );
  refresh();
  (root as HTMLElement & { refresh?: () => void }).refresh = refresh;
  return root;
}
