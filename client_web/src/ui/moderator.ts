/** The moderator's desk: see the room as any side sees it; pause, resume and adjust the clocks; send a player to
 * the secret module (for how long, why) or bring them back; delay what spectators see; give any ruling the room's
 * engine accepts through its own form (./rulings.ts: pickers for teams, units and battles); read the false
 * reconnaissance answers; and read or download the room's audit trail. */
import { has, t } from "../i18n";
import { playerWord, teamWord } from "../i18n/words";
import type { Command } from "../net/connection";
import { h } from "./dom";
import { buildRuling, complete, RULINGS, type RulingForm } from "./rulings";

export interface DeskContext {
  room: string;
  teams: () => string[];
  players: () => string[];
  /** units (id → name) and battles (id → name) the pickers offer */
  units: () => [string, string][];
  battles: () => [string, string][];
  /** the room's engine, for its rulings (./rulings.ts) */
  engine: () => string;
  /** the room's clocks (C-1.9): none (the desk offers no clock controls the server would refuse), running or paused */
  clocks: () => "none" | "running" | "paused";
  /** the false reconnaissance answers (C-8.3, D-GEN-1): who asked, what, what they were told, and the truth */
  falseAnswers: () => { team: string; question: string; answer: string; truth: string | null }[];
  send: (cmd: Command) => Promise<unknown>;
  /** the viewer class the desk shows the room as (`team:red`, `spectator`, `public`), null for the full view */
  viewing: () => string | null;
  setViewing: (viewAs: string | null) => void;
  /** the room's log as lines for the audit trail, and as data for the download */
  audit: () => { lines: string[]; data: unknown };
}

const options = (el: HTMLSelectElement, items: [string, string][], keep = true) => {
  const cur = el.value;
  const key = items.map(([v, l]) => `${v}=${l}`).join("|");
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  el.replaceChildren(...items.map(([v, l]) => h("option", { value: v }, l)));
  if (keep && items.some(([v]) => v === cur)) el.value = cur;
};

export function moderatorDesk(ctx: DeskContext): HTMLElement {
  const team = h("select", { "data-testid": "mod-team", "aria-label": t("mod.field.team") });
  const minutes = h("input", { type: "number", value: "1", step: "0.5", "data-testid": "mod-minutes", style: "width:5em", "aria-label": t("mod.minutes") });
  const player = h("select", { "data-testid": "mod-player", "aria-label": t("mod.player") });
  const lockMinutes = h("input", { type: "number", value: "20", min: "1", step: "1", style: "width:4em", "data-testid": "mod-lock-minutes", "aria-label": t("mod.lock.minutes") });
  const reason = h("input", { type: "text", placeholder: t("mod.reason"), "data-testid": "mod-reason" });
  const muteWho = h("input", { type: "text", placeholder: t("mod.mute.who"), style: "width:10em", "data-testid": "mod-mute-who", "aria-label": t("mod.mute.who") });
  const mute = (muted: boolean, who?: string) => () => {
    const name = who ?? muteWho.value.trim();
    if (name) void ctx.send({ t: "mod_mute", room: ctx.room, who: name, muted }).catch(() => {});
  };
  const delay = h("input", { type: "number", value: "0", min: "0", max: "60", step: "1", style: "width:4em", "data-testid": "mod-delay", "aria-label": t("mod.delay") });
  const ruling = h("textarea", { rows: 2, placeholder: '{"type": "…"}', "data-testid": "mod-ruling" });
  const answers = h("ul", { class: "false-answers", "data-testid": "mod-false-answers" });
  // C-8.3: reconnaissance, and so its false answers, is the Continental campaign's only: no empty row elsewhere
  const liesRow = h("div", { class: "row" }, h("b", {}, t("mod.false_answers")), answers);
  const seeAs = h("select", { "data-testid": "mod-view-as", onchange: () => ctx.setViewing(seeAs.value || null) });
  const kind = h("select", { "data-testid": "mod-ruling-type", "aria-label": t("mod.ruling.pick") });
  const fields = h("div", { class: "ruling-fields", "data-testid": "mod-ruling-fields" });
  const auditList = h("ol", { class: "audit log", "data-testid": "mod-audit" });
  const formNote = h("span", { class: "help", "data-testid": "mod-ruling-note" });
  const jsonError = h("span", { class: "error", "data-testid": "mod-ruling-error" });
  const ruleButton = h("button", { "data-testid": "mod-rule-form" }, t("mod.ruling.submit"));
  let forms: RulingForm[] = [];
  let drawnFor = "";
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();

  const values = () => Object.fromEntries([...inputs].map(([k, el]) => [k,
    el instanceof HTMLSelectElement && el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.value]));
  /** A form with a required picker that has nothing to pick (no battle running, no unit) cannot be sent: it says so. */
  const check = () => {
    const form = forms.find((f) => f.type === kind.value);
    const empty = form?.fields.find((f) => !f.optional && ["team", "unit", "units", "battle"].includes(f.kind) && !(inputs.get(f.name) as HTMLSelectElement | undefined)?.options.length);
    formNote.textContent = empty ? t("mod.ruling.nothing", { what: fieldLabel(empty.name) }) : "";
    ruleButton.disabled = !form || !!empty || !complete(form, values());
  };
  const drawFields = () => {
    const form = forms.find((f) => f.type === kind.value);
    inputs.clear();
    fields.replaceChildren(...(form?.fields ?? []).map((f) => {
      let input: HTMLInputElement | HTMLSelectElement;
      const pick = (items: [string, string][], multiple = false) => h("select", { "data-field": f.name, ...(multiple ? { multiple: true, size: Math.min(6, Math.max(2, items.length)) } : {}) },
        ...(f.optional ? [h("option", { value: "" }, t("mod.none"))] : []), ...items.map(([v, l]) => h("option", { value: v }, l)));
      if (f.kind === "team") input = pick(ctx.teams().map((x) => [x, teamWord(x)]));
      else if (f.kind === "unit") input = pick(ctx.units());
      else if (f.kind === "units") input = pick(ctx.units(), true);
      else if (f.kind === "battle") input = pick(ctx.battles());
      else input = h("input", { "data-field": f.name, type: f.kind === "text" || f.kind === "cells" ? "text" : "number",
        ...(f.kind === "cells" ? { placeholder: "45-22 46-22" } : {}),
        ...(f.min !== undefined ? { min: String(f.min) } : {}), ...(f.max !== undefined ? { max: String(f.max) } : {}) });
      input.addEventListener("input", check);
      input.addEventListener("change", check);
      inputs.set(f.name, input);
      return h("label", { class: "field" }, `${fieldLabel(f.name)} `, input);
    }));
    check();
  };

  const refresh = () => {
    const viewing = ctx.viewing() ?? "";
    const classes = ["", ...ctx.teams().map((x) => `team:${x}`), "spectator", "public"];
    if (!classes.includes(viewing)) classes.push(viewing);
    options(seeAs, classes.map((v) => [v, v === "" ? t("mod.view.full") : v.startsWith("team:") ? t("mod.view.team", { team: teamWord(v.slice(5)) }) : t(`mod.view.${v === "spectator" ? "spectator" : "public"}`)]), false);
    seeAs.value = viewing;
    options(team, ctx.teams().map((x) => [x, teamWord(x)]));
    options(player, ctx.players().map((p) => [p, playerWord(p)]));
    const next = RULINGS[ctx.engine()] ?? [];
    const pickers = JSON.stringify([ctx.teams(), ctx.units(), ctx.battles()]);
    if (next !== forms || pickers !== drawnFor) {
      // new units or battles to pick from: the form again, keeping the ruling chosen
      forms = next;
      drawnFor = pickers;
      options(kind, forms.map((f) => [f.type, rulingLabel(f.type)]));
      drawFields();
    }
    liesRow.hidden = ctx.engine() !== "continental";
    const clocks = ctx.clocks();
    clockButtons.style.display = clockRow.style.display = clocks === "none" ? "none" : "";
    pause.disabled = clocks === "paused"; // the other press is refused: "already paused", "not paused"
    resume.disabled = clocks === "running";
    const lies = ctx.falseAnswers();
    answers.replaceChildren(...(lies.length ? lies.map((a) => h("li", {},
      a.team ? `${teamWord(a.team)}: ` : "", `${a.question} → `, h("s", {}, a.answer), a.truth !== null ? ` (${t("mod.truth")}: ${a.truth})` : ""))
      : [h("li", { class: "muted" }, t("mod.false_none"))]));
  };
  kind.addEventListener("change", drawFields);
  const run = (cmd: Command) => () => void ctx.send(cmd).catch(() => {});
  const rule = () => {
    const form = forms.find((f) => f.type === kind.value);
    if (!form) return;
    void ctx.send({ t: "mod_ruling", room: ctx.room, ruling: buildRuling(form, values()) }).catch(() => {});
  };
  ruleButton.addEventListener("click", rule);
  const showAudit = () => {
    const { lines } = ctx.audit();
    auditList.replaceChildren(...(lines.length ? lines.map((l) => h("li", {}, l)) : [h("li", { class: "muted" }, t("mod.audit.empty"))]));
  };
  const download = () => {
    const blob = new Blob([JSON.stringify(ctx.audit().data, null, 2)], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `${ctx.room}-audit.json` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const pause = h("button", { "data-testid": "mod-pause", onclick: run({ t: "mod_clock", room: ctx.room, action: "pause" }) }, t("mod.pause"));
  const resume = h("button", { "data-testid": "mod-resume", onclick: run({ t: "mod_clock", room: ctx.room, action: "resume" }) }, t("mod.resume"));
  const clockButtons = h("div", { class: "buttons" }, pause, resume);
  const clockRow = h("div", { class: "row" }, t("mod.adjust"), " ", team, " ", minutes, " ", t("mod.minutes"), " ",
    h("button", { "data-testid": "mod-adjust", onclick: () => void ctx.send({
      t: "mod_clock", room: ctx.room, action: "adjust", team: team.value, delta_ms: Math.round(Number(minutes.value) * 60_000),
    }).catch(() => {}) }, t("mod.apply")));
  const root = h("details", { class: "desk", open: true, "data-testid": "moderator-desk", ontoggle: refresh },
    h("summary", {}, t("mod.desk")),
    h("div", { class: "row" }, t("mod.view"), " ", seeAs),
    clockButtons,
    clockRow,
    h("div", { class: "row" }, h("b", {}, t("mod.secret")), h("div", {}, player, " ", lockMinutes, " ", t("mod.lock.minutes")), reason, " ",
      h("button", { "data-testid": "mod-lock", onclick: () => {
        if (player.value) void ctx.send({ t: "mod_secret_module", player: player.value, minutes: Number(lockMinutes.value) || 20, reason: reason.value }).catch(() => {});
      } }, t("mod.send")),
      h("button", { "data-testid": "mod-release", onclick: () => {
        if (player.value) void ctx.send({ t: "mod_release", player: player.value }).catch(() => {});
      } }, t("mod.release"))),
    h("div", { class: "row" }, h("b", {}, t("mod.delay")), h("p", { class: "help" }, t("mod.delay.help")), delay, " ", t("mod.lock.minutes"), " ",
      h("button", { "data-testid": "mod-delay-set", onclick: () => void ctx.send({ t: "mod_ruling", room: ctx.room,
        ruling: { type: "spectator_delay", ms: Math.max(0, Math.round(Number(delay.value) * 60_000)) } }).catch(() => {}) }, t("mod.delay.set"))),
    h("div", { class: "row" }, h("b", {}, t("mod.mute")), h("p", { class: "help" }, t("mod.mute.help")),
      h("button", { "data-testid": "mod-mute-all", onclick: mute(true, "spectators") }, t("mod.mute.all")), " ",
      h("button", { "data-testid": "mod-unmute-all", onclick: mute(false, "spectators") }, t("mod.unmute.all")), " ",
      muteWho, " ",
      h("button", { "data-testid": "mod-mute-one", onclick: mute(true) }, t("mod.mute.one")), " ",
      h("button", { "data-testid": "mod-unmute-one", onclick: mute(false) }, t("mod.unmute.one"))),
    h("div", { class: "row" }, h("b", {}, t("mod.rulings")), " ", kind, fields, ruleButton, " ", formNote),
    h("details", { class: "row" }, h("summary", { "data-testid": "mod-ruling-advanced" }, t("mod.ruling.advanced")), ruling,
      h("button", { "data-testid": "mod-rule", onclick: () => {
        let body: unknown;
        jsonError.textContent = "";
        try {
          body = JSON.parse(ruling.value || "{}");
        } catch (exc) {
          jsonError.textContent = t("mod.ruling.bad_json", { error: (exc as Error).message });
          return;
        }
        if (typeof body !== "object" || body === null || Array.isArray(body) || typeof (body as Record<string, unknown>).type !== "string") {
          jsonError.textContent = t("mod.ruling.no_type");
          return;
        }
        void ctx.send({ t: "mod_ruling", room: ctx.room, ruling: body as Record<string, unknown> }).catch(() => {});
      } }, t("mod.ruling.submit")), " ", jsonError),
    liesRow,
    h("div", { class: "row" }, h("b", {}, t("mod.audit")), " ",
      h("button", { "data-testid": "mod-audit-show", onclick: showAudit }, t("mod.audit.load")), " ",
      h("button", { "data-testid": "mod-audit-download", onclick: download }, t("mod.audit.download")), auditList),
  );
  refresh();
  (root as HTMLElement & { refresh?: () => void }).refresh = refresh;
  return root;
}

function fieldLabel(name: string): string {
  const key = `mod.field.${name}`;
  return has(key) ? t(key) : name.replace(/_/g, " ");
}

function rulingLabel(type: string): string {
  const key = `mod.ruling.${type}`;
  return has(key) ? t(key) : type.replace(/_/g, " ");
}

