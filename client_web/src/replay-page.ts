/** `#replay=<room>[&as=…][&report=1]`: a finished battle (or campaign, or skirmish) replayed event by event without a seat —
 * what the lobby's Replay and Report buttons open, for a spectator arriving after the battle. The server's replay is
 * public once a room is over; the tab's token, if it has one, goes along in a header. */
import { BattleView } from "./battle/view";
import { CampaignView } from "./campaign/view";
import { SkirmishView } from "./skirmish/view";
import { afterAction } from "./battle/report";
import { lang, ordinal, setLang, t, tn, has } from "./i18n";
import { armWord, teamWord } from "./i18n/words";
import { fetchSteps, ReplayRefused, Timeline, type ReplayAs, type ReplayEvent } from "./net/replay";
import { parseRoom } from "./net/room-id";
import { h } from "./ui/dom";
import { describeEvent } from "./ui/log";
import type { Names } from "./ui/names";
import { ReplayPlayer } from "./ui/replay-player";
import { reportView } from "./ui/report";
import { viewKind } from "./ui/view-kind";

/** Names from the replay's own views: a battle unit `army-3` by its ordinal and arm ("3rd inf."), as nothing here
 * knows the campaign's armies. */
function replayNames(room: string, state: Record<string, unknown>): Names {
  const types = new Map(((state.units as { id: string; type: string }[] | undefined) ?? []).map((u) => [u.id, u.type]));
  const unit = (id: unknown): string => {
    const m = /^(.+)-(\d+)$/.exec(String(id));
    const type = types.get(String(id)) ?? "";
    if (m && has(`unit.short.${type}`)) return t(`unit.short.${type}` as never, { ord: ordinal(Number(m[2])), n: Number(m[2]) });
    return type ? `${armWord(type)} ${String(id)}` : String(id);
  };
  const parsed = parseRoom(room);
  return {
    unit, short: unit, army: (id) => String(id), place: (c) => String(c),
    battle: (id) => t("room.battle.n", { n: String(id) }),
    room: () => (parsed?.kind === "battle" ? t("room.battle.n", { n: parsed.battle ?? "" }) : state.kind === "skirmish" ? t("room.skirmish") : t("room.campaign")),
  };
}

const asWord = (as: ReplayAs): string => (as === "full" ? t("replay.full") : as === "spectator" ? t("mod.view.spectator")
  : as === "public" ? t("mod.view.public") : teamWord(as.slice(5)));

/** `title`: what the lobby calls the battle ("1813: Battle of Leipzig"), when it says. */
export function replayPage(room: string, wanted: ReplayAs | null, report: boolean, title: string | null = null): HTMLElement {
  const body = h("div", { class: "game-body replay-page" });
  const note = h("p", { class: "muted", "data-testid": "replay-note" }, t("replay.loading"));
  const dialog = h("dialog", { class: "report-dialog", "data-testid": "report-dialog" });
  const as = h("select", { "data-testid": "replay-as", "aria-label": t("replay.view") });
  const root = h("div", { class: "game replay", "data-testid": "replay-page" },
    h("header", { class: "game-header" }, h("a", { href: "#", class: "brand" }, t("app.title")), h("span", {}, t("replay.title")),
      h("span", { class: "header-tools" }, t("replay.view"), " ", as,
        h("button", { class: "lang", "data-testid": "lang", onclick: () => setLang(lang() === "en" ? "ru" : "en") }, t("lang.switch")))),
    note, body, dialog);
  let player: ReplayPlayer | null = null;
  const load = async (viewer: ReplayAs) => {
    player?.destroy();
    note.textContent = t("replay.loading");
    try {
      const { steps, teams } = await fetchSteps(room, viewer, sessionStorage.getItem("token"));
      if (as.options.length === 0) {
        as.replaceChildren(...(["full", "spectator", ...teams.map((tm) => `team:${tm}`)] as ReplayAs[]).map((c) =>
          h("option", { value: c, ...(c === viewer ? { selected: "" } : {}) }, asWord(c))));
      }
      const timeline = new Timeline(steps);
      const last = steps[steps.length - 1]?.state ?? {};
      const names = replayNames(room, last);
      const kind = viewKind(parseRoom(room)?.kind === "battle", last);
      const battle = kind === "battle";
      const idle = { order: async () => null };
      const view = kind === "skirmish" ? new SkirmishView(idle, false) : battle ? new BattleView(idle, false) : new CampaignView(idle, false);
      if (view instanceof BattleView) view.names = names;
      const side = viewer.startsWith("team:") ? viewer.slice(5) : null;
      const describe = (e: ReplayEvent) => (e.kind === "chat" ? `${String(e.data.name ?? e.data.from ?? "")}: ${String(e.data.text ?? "")}`
        : describeEvent({ t: "ev", room, ...e } as never, names).text);
      const heading = title ?? names.room(room);
      body.replaceChildren(view.root);
      player = new ReplayPlayer(timeline, view, side, describe, () => { location.hash = ""; }, t("replay.as", { room: heading, as: asWord(viewer) }));
      body.prepend(player.root);
      note.textContent = t("replay.loaded_events", { n: tn("n.events", timeline.length), as: asWord(viewer) });
      const openReport = () => {
        dialog.replaceChildren(h("button", { type: "button", class: "close no-print", "data-testid": "report-close", onclick: () => dialog.close() }, t("report.close")),
          reportView(afterAction(timeline.events(), steps[0]?.state ?? {}, last), heading, names.unit, `report-${room}`));
        if (!dialog.open) dialog.showModal?.();
        dialog.scrollTop = 0;
        dialog.querySelector<HTMLElement>("h2")?.focus();
      };
      if (battle) player.root.querySelector(".replay-controls")?.append(h("button", { type: "button", "data-testid": "report-load", onclick: openReport }, t("report.open")));
      if (report && battle) openReport();
    } catch (exc) {
      note.textContent = exc instanceof ReplayRefused && exc.status === 409 ? t("replay.running") : String((exc as Error).message);
    }
  };
  void load(wanted ?? "full");
  as.addEventListener("change", () => void load(as.value as ReplayAs));
  return root;
}
