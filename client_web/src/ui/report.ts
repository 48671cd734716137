/** The after-action report on screen: the outcome, each side's losses and fallen units, the general's fate, the
 * turning points, losses turn by turn, the dice against their odds and every unit's account; printable (print CSS
 * shows the report alone) and downloadable as JSON and CSV. */
import { formatNumber, proper, t, tn } from "../i18n";
import { armWord, statusWord, teamWord, weaponWord } from "../i18n/words";
import { reportCsv, type AfterAction } from "../battle/report";
import { teamColour, teamMark } from "./colours";
import { h } from "./dom";

function download(name: string, type: string, text: string, label: string, testid: string): HTMLAnchorElement {
  return h("a", { class: "button", download: name, "data-testid": testid, href: URL.createObjectURL(new Blob([text], { type })) }, label);
}

function cause(c: string): string {
  return c === "melee" ? t("report.cause.melee") : weaponWord(c);
}

/** The luck of a side's dice in words: what went its way against what the odds promised. */
export function luckWords(good: number, expected: number): string {
  const diff = good - expected;
  const key = Math.abs(diff) < 0.5 ? "report.luck.even" : diff > 0 ? "report.luck.good" : "report.luck.bad";
  return t(key, { diff: formatNumber(Math.abs(diff)) });
}

export function reportView(r: AfterAction, title: string, unitName: (id: string) => string, fileStem: string): HTMLElement {
  const winner = r.winner ? teamWord(r.winner) : null;
  const maxTurn = Math.max(1, ...r.byTurn.flatMap((b) => Object.values(b.losses)));
  const general = r.general;
  const json = JSON.stringify({ title, ...r }, null, 2);
  const csv = reportCsv(r, unitName);
  return h("article", { class: "report", "data-testid": "report" },
    h("header", {},
      h("h2", { tabindex: -1 }, t("report.title", { battle: title })),
      h("p", { class: "outcome", "data-testid": "report-outcome" },
        winner ? t("report.outcome", { winner, turns: tn("n.turns", r.turns) }) : t("report.unfinished", { turns: tn("n.turns", r.turns) }),
        r.reason ? ` — ${r.reason}` : "")),
    h("section", {}, h("h3", {}, t("report.sides")),
      h("div", { class: "table-scroll" }, h("table", { class: "report-table", "data-testid": "report-sides" },
        h("tr", {}, ...["report.side", "report.general", "report.units", "report.losses", "report.inflicted", "report.dispersed", "report.taken", "report.destroyed"].map((k) => h("th", {}, t(k as never)))),
        ...r.sides.map((s) => h("tr", { "data-side": s.side, "data-losses": s.losses, "data-dispersed": s.dispersed, "data-taken": s.taken, "data-destroyed": s.destroyed },
          h("td", {}, teamMark(s.side), ` ${teamWord(s.side)}`), h("td", {}, s.general ? proper(s.general) : "—"), h("td", {}, s.units),
          h("td", { class: "num" }, s.losses), h("td", { class: "num" }, s.inflicted), h("td", { class: "num" }, s.dispersed),
          h("td", { class: "num" }, s.taken), h("td", { class: "num" }, s.destroyed)))))),
    h("section", { "data-testid": "report-general" }, h("h3", {}, t("report.general_fate")),
      h("p", {}, !general ? t("report.general.none")
        : t(`report.general.${general.fate}` as never, { side: teamWord(general.side), general: general.general ? proper(general.general) : t("report.general.unnamed"),
          face: general.face ?? "—", need: general.need ?? "—" }))),
    h("section", {}, h("h3", {}, t("report.turning")),
      r.turningPoints.length ? h("ol", { class: "turning", "data-testid": "report-turning" }, ...r.turningPoints.map((p) => h("li", { "data-amount": p.amount },
        t(p.by ? "report.blow.by" : "report.blow", { turn: p.turn, cause: cause(p.cause), by: p.by ? unitName(p.by) : "",
          amount: tn("n.losses", p.amount), units: p.units.map(unitName).join(", ") }))))
        : h("p", { class: "muted" }, t("report.no_losses"))),
    r.byTurn.length ? h("section", {}, h("h3", {}, t("report.by_turn")),
      h("div", { class: "turn-bars", role: "img", "aria-label": t("report.by_turn"), style: `--sides:${Math.max(1, r.sides.length)}` }, ...r.byTurn.map((b) => h("div", { class: "turn-bar" },
        h("span", { class: "turn-no" }, String(b.turn)),
        ...r.sides.map((s) => h("span", { class: "bar", title: `${teamWord(s.side)}: ${b.losses[s.side] ?? 0}`,
          style: `width:${Math.round(((b.losses[s.side] ?? 0) / maxTurn) * 100)}%;background:${teamColour(s.side).fill}` }, b.losses[s.side] ? String(b.losses[s.side]) : "")))))) : null,
    h("section", {}, h("h3", {}, t("report.dice")),
      h("ul", { "data-testid": "report-dice" }, ...r.sides.map((s) => h("li", { "data-side": s.side },
        teamMark(s.side), ` ${teamWord(s.side)}: `,
        s.dice.rolls ? t("report.dice.line", { rolls: tn("n.rolls", s.dice.rolls), good: s.dice.good, expected: formatNumber(s.dice.expected) }) : t("report.dice.none"),
        s.dice.rolls ? ` — ${luckWords(s.dice.good, s.dice.expected)}` : "",
        s.dice.initiative.of ? `; ${t("report.initiative", { won: s.dice.initiative.won, of: tn("n.turns", s.dice.initiative.of) })}` : "")))),
    h("section", {}, h("h3", {}, t("report.units_title")),
      h("div", { class: "table-scroll" }, h("table", { class: "report-table units-report", "data-testid": "report-units" },
        h("tr", {}, ...["report.side", "report.unit", "unit.arm", "report.start", "report.losses", "report.inflicted", "report.fate"].map((k) => h("th", {}, t(k as never)))),
        ...r.units.map((u) => h("tr", { "data-unit": u.id, "data-side": u.side, "data-losses": u.losses, "data-fate": u.final ?? u.fell ?? "" },
          h("td", {}, teamMark(u.side)), h("td", {}, unitName(u.id)), h("td", {}, armWord(u.type)),
          h("td", { class: "num" }, u.start ?? "—"), h("td", { class: "num" }, u.losses), h("td", { class: "num" }, u.inflicted),
          h("td", {}, [u.fell ? statusWord(u.fell) : "", u.final && u.final !== u.fell ? statusWord(u.final) : "", u.takenBy ? t("report.taken_by", { side: teamWord(u.takenBy) }) : ""].filter(Boolean).join(" → ") || "—")))))),
    h("footer", { class: "buttons no-print" },
      h("button", { type: "button", "data-testid": "report-print", onclick: () => globalThis.print() }, t("report.print")),
      download(`${fileStem}.json`, "application/json", json, t("report.json"), "report-json"),
      download(`${fileStem}.csv`, "text/csv", csv, t("report.csv"), "report-csv")));
}
