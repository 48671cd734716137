/** The lobby: public campaigns and live battles with player and spectator counts, the form that creates a
 * campaign and shows its invite links, and joining by a pasted link. */
import { t, type MessageKey } from "../i18n";
import { clear, h } from "../ui/dom";
import { teamColour } from "../ui/colours";
import { createCampaign, fetchEngines, fetchLobby, tokenFromLink, type CampaignCreated, type CreateCampaign, type LobbyRoom } from "./api";

const COLOURS = ["red", "blue", "green", "black"] as const;

/** `open(token, room)`: enter the game with a link's token, showing `room` first (a battle watched from the lobby). */
export function lobbyPage(open: (token: string, room?: string) => void): HTMLElement {
  const lists = h("div", { class: "lobby-lists" });
  const created = h("div", { class: "created", "data-testid": "created" });

  const roomList = (title: MessageKey, rooms: LobbyRoom[], testid: string) =>
    h("section", { class: "card", "data-testid": testid }, h("h2", {}, t(title)),
      rooms.length ? h("ul", { class: "rooms" }, ...rooms.map((r) => {
        const spectate = r.spectator_token ?? (r.spectator_link ? tokenFromLink(r.spectator_link) : null);
        return h("li", { "data-room": r.room },
          h("b", {}, r.name || r.id), " ",
          h("span", { class: "muted" }, `${r.scenario} · L${r.level}`), " ",
          ...r.teams.map((tm) => h("span", { class: "swatch", title: String(tm.colour ?? ""), style: `background:${teamColour(String(tm.colour ?? "")).fill}` })),
          h("span", { class: "counts" }, ` ${r.players_online} ${t("lobby.players")} · ${r.spectators_online} ${t("lobby.spectators")}`),
          spectate ? h("button", { "data-testid": "watch", onclick: () => open(spectate, r.room) }, t("lobby.spectate")) : null);
      })) : h("p", { class: "muted" }, t("lobby.none")));

  const load = async () => {
    clear(lists);
    try {
      const lobby = await fetchLobby();
      lists.append(roomList("lobby.campaigns", lobby.campaigns, "lobby-campaigns"), roomList("lobby.battles", lobby.battles, "lobby-battles"));
    } catch (exc) {
      lists.append(h("p", { class: "error" }, t("lobby.unavailable", { error: String(exc) })));
    }
  };

  // --- create a campaign -------------------------------------------------------------------------------------------
  const name = h("input", { type: "text", maxlength: 80, value: "", "data-testid": "create-name" });
  const scenario = h("select", { "data-testid": "create-scenario" }, h("option", { value: "drill" }, "drill"));
  void fetchEngines().then((names) => {
    const was = scenario.value;
    if (names.length) scenario.replaceChildren(...names.map((n) => h("option", { value: n }, n)));
    if (names.includes(was)) scenario.value = was;
  }).catch(() => {});
  const level = h("select", { "data-testid": "create-level" }, ...[1, 2, 3].map((l) => h("option", { value: String(l) }, String(l))));
  const mode = h("select", { "data-testid": "create-clock" },
    h("option", { value: "" }, "—"),
    ...(["per_turn", "fischer", "per_turn_reserve"] as const).map((m) => h("option", { value: m }, t(`lobby.clock.${m}`))));
  const turnMin = h("input", { type: "number", min: "0.5", step: "0.5", value: "5", style: "width:5em", "data-testid": "create-minutes" });
  const extraS = h("input", { type: "number", min: "0", step: "5", value: "0", style: "width:5em" });
  const seats = COLOURS.map((c, i) => h("input", { type: "number", min: "0", max: "3", value: i < 2 ? "1" : "0", style: "width:3em", "data-testid": `create-seats-${c}` }));
  const house = h("textarea", { rows: 2, "data-testid": "create-house-rules" });
  const pub = h("input", { type: "checkbox", checked: true });
  const openSpectating = h("input", { type: "checkbox", checked: false, "data-testid": "create-open-spectating" });
  const error = h("p", { class: "error" });

  const showCreated = (made: CampaignCreated) => {
    clear(created);
    const link = (label: string, url: string, testid: string) => h("li", { "data-testid": testid },
      h("span", { class: "label" }, label), " ",
      h("input", { type: "text", readonly: true, value: url, class: "link" }), " ",
      h("button", { onclick: () => void navigator.clipboard?.writeText(url).catch(() => {}) }, t("lobby.copy")), " ",
      h("a", { href: url, target: "_blank", rel: "noopener" }, t("lobby.open")));
    created.append(h("p", {}, t("lobby.created")), h("ul", { class: "links" },
      ...made.seats.map((s) => link(t("lobby.link.seat", { team: s.team, seat: s.seat }), s.link, `link-${s.team}-${s.seat}`)),
      link(t("lobby.link.moderator"), made.moderator_link, "link-moderator"),
      link(t("lobby.link.spectators"), made.spectator_link, "link-spectators")));
  };

  const form = h("form", { class: "card create", "data-testid": "create-form" },
    h("h2", {}, t("lobby.create")),
    h("label", {}, t("lobby.name"), name),
    h("label", {}, t("lobby.scenario"), scenario),
    h("label", {}, t("lobby.level"), level),
    h("label", {}, t("lobby.clock"), mode, " ", t("lobby.turn_minutes"), turnMin, " ", t("lobby.increment"), extraS),
    h("fieldset", {}, h("legend", {}, `${t("lobby.teams")} (${t("lobby.seats")})`),
      ...COLOURS.map((c, i) => h("label", { class: "team-seats" }, h("span", { class: "swatch", style: `background:${teamColour(c).fill}` }), ` ${c} `, seats[i]!))),
    h("label", {}, t("lobby.house_rules"), house),
    h("label", { class: "check" }, pub, t("lobby.public")),
    h("label", { class: "check" }, openSpectating, t("lobby.open_spectating")),
    error,
    h("button", { type: "submit", "data-testid": "create-submit" }, t("lobby.submit")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    error.textContent = "";
    const m = mode.value as "" | "per_turn" | "fischer" | "per_turn_reserve";
    const minutes = Math.round(Number(turnMin.value) * 60_000);
    const extra = Math.round(Number(extraS.value) * 1000);
    const spec: CreateCampaign = {
      name: name.value.trim(), scenario: scenario.value, level: Number(level.value) as 1 | 2 | 3,
      teams: COLOURS.map((c, i) => ({ colour: c, seats: Number(seats[i]!.value) })).filter((x) => x.seats > 0),
      clock: m === "" ? null
        : m === "fischer" ? { mode: m, initial_ms: minutes, increment_ms: extra }
        : m === "per_turn_reserve" ? { mode: m, turn_ms: minutes, reserve_ms: extra }
        : { mode: m, turn_ms: minutes },
      house_rules: house.value.split("\n").map((s) => s.trim()).filter(Boolean),
      public: pub.checked,
      open_spectating: openSpectating.checked,
    };
    createCampaign(spec).then((made) => {
      showCreated(made);
      void load();
    }).catch((exc: unknown) => {
      error.textContent = String(exc instanceof Error ? exc.message : exc);
    });
  });

  // --- join by link --------------------------------------------------------------------------------------------------
  const linkInput = h("input", { type: "text", placeholder: t("lobby.join.placeholder"), "data-testid": "join-link" });
  const joinError = h("span", { class: "error" });
  const join = h("form", { class: "card join" }, h("h2", {}, t("lobby.join")), linkInput, " ",
    h("button", { type: "submit", "data-testid": "join-go" }, t("lobby.join.go")), " ", joinError);
  join.addEventListener("submit", (e) => {
    e.preventDefault();
    const token = tokenFromLink(linkInput.value.trim());
    if (token) open(token);
    else joinError.textContent = t("lobby.join.bad");
  });

  void load();
  return h("main", { class: "lobby", "data-testid": "lobby" },
    h("div", { class: "lobby-left" }, h("div", { class: "buttons" }, h("button", { onclick: () => void load() }, t("lobby.refresh"))), lists, join),
    h("div", { class: "lobby-right" }, form, created));
}
