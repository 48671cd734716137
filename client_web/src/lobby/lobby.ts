/** The lobby: public campaigns, live battles with player and spectator counts, finished battles to replay, the form that creates a
 * campaign and shows its invite links, and joining by a pasted link. */
import { battleOf, has, isStormKind, proper, t, tn, type MessageKey } from "../i18n";
import { teamWord } from "../i18n/words";
import { clear, h } from "../ui/dom";
import { teamMark } from "../ui/colours";
import { clockSpec, createCampaign, fetchEngines, fetchLobby, hasLevels, tokenFromLink, type CampaignCreated, type CreateCampaign, type LobbyRoom } from "./api";

const COLOURS = ["red", "blue", "green", "black"] as const;

/** A scenario in plain words ("1813: the Napoleonic campaign …"), else its name. */
function scenarioName(id: string): string {
  const key = `lobby.scenario.${id}`;
  return has(key) ? t(key) : id;
}

/** A live battle in the lobby: "1813: battle at Leipzig" as the server names it, the place in this language. */
function battleName(r: LobbyRoom): string {
  const m = /^(.*): (\w+) at (.+)$/.exec(r.name);
  if (!m) return proper(r.name || r.id);
  return `${proper(m[1]!)}: ${battleOf(m[3]!, isStormKind(m[2]!))}`;
}

/** A team in a lobby row: its mark and, for a campaign, how many of its seats are taken ("■ 1/2"). */
function seatsOf(tm: Record<string, unknown>): HTMLElement {
  const colour = String(tm.colour ?? "");
  const seats = Number(tm.seats ?? 0), online = Number(tm.online ?? NaN);
  if (!seats || Number.isNaN(online)) return teamMark(colour, teamWord(colour));
  const ai = Number(tm.ai ?? 0);
  const label = t("lobby.seats_taken", { team: teamWord(colour), n: online, of: seats }) + (ai ? `; ${t("lobby.ai_seats", { n: ai })}` : "");
  return h("span", { class: "seats", title: label, "aria-label": label, "data-testid": `seats-${colour}` }, teamMark(colour), ` ${online}/${seats}`,
    ...(ai ? [h("span", { class: "ai-mark", "data-testid": `ai-${colour}` }, ` ${t("lobby.ai_short")}`)] : []));
}

/** `open(token, room)`: enter the game with a link's token, showing `room` first (a battle watched from the lobby). */
export function lobbyPage(open: (token: string, room?: string) => void): HTMLElement {
  const lists = h("div", { class: "lobby-lists" });
  const created = h("div", { class: "created", "data-testid": "created" });

  // Join asks for the seat's own link (the lobby never hands out seats); Watch opens the spectators' link.
  const joinRow = (r: LobbyRoom, row: HTMLElement) => {
    row.querySelector(".join-row")?.remove();
    const input = h("input", { type: "text", placeholder: t("lobby.join.placeholder"), "data-testid": "row-link", "aria-label": t("lobby.join.placeholder") });
    const err = h("span", { class: "error" });
    const form = h("form", { class: "join-row" }, h("p", { class: "help" }, t("lobby.join_row.hint", { name: proper(r.name || r.id) })), input, " ",
      h("button", { type: "submit", "data-testid": "row-join-go" }, t("lobby.join.go")), " ", err);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const token = tokenFromLink(input.value.trim());
      if (token) open(token);
      else err.textContent = t("lobby.join.bad");
    });
    row.append(form);
    input.focus();
  };
  const roomList = (title: MessageKey, rooms: LobbyRoom[], testid: string, battles: boolean) =>
    h("section", { class: "card", "data-testid": testid }, h("h2", {}, t(title)),
      rooms.length ? h("ul", { class: "rooms" }, ...rooms.map((r) => {
        const spectate = r.spectator_token ?? (r.spectator_link ? tokenFromLink(r.spectator_link) : null);
        const row: HTMLElement = h("li", { "data-room": r.room },
          h("div", { class: "room-main" },
            h("b", {}, battles ? battleName(r) : proper(r.name || r.id)),
            // a live battle is its campaign's (named in its title), not "a single battle": its level only
            h("div", { class: "muted" }, battles ? `${t("lobby.level")} ${r.level}`
              : `${scenarioName(r.scenario)}${hasLevels(r.scenario) ? ` · ${t("lobby.level")} ${r.level}` : ""}`),
            h("div", { class: "room-meta" }, ...r.teams.flatMap((tm) => [seatsOf(tm), " "]),
              h("span", { class: "counts" }, `${tn("n.players", r.players_online)} · ${tn("n.spectators", r.spectators_online)}`))),
          h("span", { class: "buttons" },
            battles ? null : h("button", { "data-testid": "join", onclick: () => joinRow(r, row) }, t("lobby.join_row")),
            spectate ? h("button", { "data-testid": "watch", onclick: () => open(spectate, r.room) }, t("lobby.spectate")) : null));
        return row;
      })) : h("p", { class: "muted" }, t("lobby.none")));

  // Battles fought to their end: anyone may replay them event by event or read their report (issue 17).
  const finishedList = (rooms: LobbyRoom[]) => h("section", { class: "card", "data-testid": "lobby-finished" }, h("h2", {}, t("lobby.finished")),
    h("ul", { class: "rooms" }, ...rooms.map((r) => h("li", { "data-room": r.room },
      h("b", {}, battleName(r)), " ", ...r.teams.map((tm) => teamMark(String(tm.colour ?? ""), teamWord(String(tm.colour ?? "")))),
      h("span", { class: "counts" }, r.winner ? ` ${t("battle.won", { winner: teamWord(r.winner) })}` : ""),
      h("span", { class: "buttons" },
        h("a", { class: "button", "data-testid": "replay", href: `#replay=${encodeURIComponent(r.room)}&title=${encodeURIComponent(battleName(r))}` }, t("lobby.replay")),
        h("a", { class: "button", "data-testid": "report", href: `#replay=${encodeURIComponent(r.room)}&title=${encodeURIComponent(battleName(r))}&report=1` }, t("report.open")))))));

  const load = async () => {
    clear(lists);
    try {
      const lobby = await fetchLobby();
      const campaigns = roomList("lobby.campaigns", lobby.campaigns, "lobby-campaigns", false);
      campaigns.querySelector("h2")?.append(" ", h("button", { class: "refresh", "data-testid": "lobby-refresh", title: t("lobby.refresh"), onclick: () => void load() }, `↻ ${t("lobby.refresh")}`));
      lists.append(campaigns, roomList("lobby.battles", lobby.battles, "lobby-battles", true));
      if (lobby.finished?.length) lists.append(finishedList(lobby.finished));
    } catch (exc) {
      lists.append(h("p", { class: "error" }, t("lobby.unavailable", { error: String(exc) })));
    }
  };

  // --- create a campaign -------------------------------------------------------------------------------------------
  const name = h("input", { type: "text", maxlength: 80, value: "", "data-testid": "create-name" });
  const scenario = h("select", { "data-testid": "create-scenario" }, h("option", { value: "napoleonic" }, scenarioName("napoleonic")));
  void fetchEngines().then((names) => {
    // the Napoleonic campaign first (the game most groups come for), then the others
    const order = [...names].sort((a, b) => Number(b === "napoleonic") - Number(a === "napoleonic"));
    if (order.length) scenario.replaceChildren(...order.map((n) => h("option", { value: n }, scenarioName(n))));
    scenario.value = order.includes("napoleonic") ? "napoleonic" : order[0] ?? "";
    showLevel();
  }).catch(() => {});
  const level = h("select", { "data-testid": "create-level" }, ...[1, 2, 3].map((l) => h("option", { value: String(l), ...(l === 2 ? { selected: "" } : {}) }, t(`lobby.level.${l}` as MessageKey))));
  const levelRow = h("label", {}, t("lobby.level"), level, h("p", { class: "help" }, t("lobby.level.help")));
  const showLevel = () => { levelRow.style.display = hasLevels(scenario.value) ? "" : "none"; }; // the squad game has none
  scenario.addEventListener("change", showLevel);
  const mode = h("select", { "data-testid": "create-clock" },
    h("option", { value: "" }, t("lobby.clock.default")),
    ...(["per_turn", "fischer", "per_turn_reserve"] as const).map((m) => h("option", { value: m }, t(`lobby.clock.${m}`))),
    h("option", { value: "none" }, t("lobby.clock.none")));
  const turnMin = h("input", { type: "number", min: "0.5", step: "0.5", value: "5", style: "width:5em", "data-testid": "create-minutes" });
  const extraS = h("input", { type: "number", min: "0", step: "5", value: "0", style: "width:5em" });
  // C-1.9, CLK-6: the clocks wait for the umpire, who starts the game from the desk once the players are in
  const startPaused = h("input", { type: "checkbox", "data-testid": "create-paused" });
  const pausedRow = h("label", { class: "check" }, startPaused, t("lobby.clock.paused"));
  const showPaused = () => { pausedRow.style.display = mode.value === "none" ? "none" : ""; };
  mode.addEventListener("change", showPaused);
  const seats = COLOURS.map((c, i) => h("input", { type: "number", min: "0", max: "3", value: i < 2 ? "1" : "0", style: "width:3em", "data-testid": `create-seats-${c}` }));
  // issue 18: a team the computer plays from the start ("play against the computer"), and its stand-in for the absent
  const computer = COLOURS.map((c, i) => h("input", { type: "checkbox", "data-testid": `create-ai-${c}` }));
  const standIn = h("input", { type: "number", min: "0", step: "1", value: "", style: "width:5em", "data-testid": "create-ai-stand-in" });
  const house = h("textarea", { rows: 2, "data-testid": "create-house-rules" });
  const pub = h("input", { type: "checkbox", checked: true });
  const openSpectating = h("input", { type: "checkbox", checked: false, "data-testid": "create-open-spectating" });
  const error = h("p", { class: "error" });

  const showCreated = (made: CampaignCreated) => {
    clear(created);
    const link = (label: string, url: string, testid: string) => {
      const input = h("input", { type: "text", readonly: true, value: url, class: "link" });
      // Copied, it says so; where the page may not write the clipboard (plain http off this machine) the link is
      // selected for the player to copy by hand
      const copy = h("button", { type: "button", "data-testid": "copy", onclick: () => {
        (navigator.clipboard?.writeText(url) ?? Promise.reject(new Error("no clipboard")))
          .then(() => { copy.textContent = t("lobby.copied"); }, () => { input.focus(); input.select(); });
      } }, t("lobby.copy"));
      return h("li", { "data-testid": testid }, h("span", { class: "label" }, label), " ", input, " ", copy, " ",
        h("a", { href: url, target: "_blank", rel: "noopener" }, t("lobby.open")));
    };
    created.append(h("p", {}, t("lobby.created")), h("ul", { class: "links" },
      ...made.seats.map((s) => link(t("lobby.link.seat", { team: teamWord(s.team), seat: s.seat }), s.link, `link-${s.team}-${s.seat}`)),
      link(t("lobby.link.moderator"), made.moderator_link, "link-moderator"),
      link(t("lobby.link.spectators"), made.spectator_link, "link-spectators")));
  };

  name.setAttribute("placeholder", t("lobby.name.placeholder"));
  const form = h("form", { class: "card create", "data-testid": "create-form" },
    h("h2", {}, t("lobby.create")),
    h("label", {}, t("lobby.name"), name),
    h("label", {}, t("lobby.scenario"), scenario),
    levelRow,
    h("div", { class: "row" },
      h("label", {}, t("lobby.clock"), mode),
      h("label", {}, t("lobby.turn_minutes"), turnMin),
      h("label", {}, t("lobby.increment"), extraS)),
    pausedRow,
    h("p", { class: "help" }, t("lobby.clock.help")),
    h("fieldset", {}, h("legend", {}, t("lobby.teams")),
      h("p", { class: "help" }, t("lobby.teams.help")),
      ...COLOURS.map((c, i) => h("div", { class: "team-seats" },
        h("label", {}, teamMark(c), ` ${teamWord(c)}, ${t("lobby.seats")}: `, seats[i]!), " ",
        h("label", { class: "check" }, computer[i]!, t("lobby.ai.team"))))),
    h("label", {}, t("lobby.ai.stand_in"), standIn, h("p", { class: "help" }, t("lobby.ai.help"))),
    h("label", {}, t("lobby.house_rules"), house, h("p", { class: "help" }, t("lobby.house.help"))),
    h("label", { class: "check" }, pub, t("lobby.public")),
    h("label", { class: "check" }, openSpectating, t("lobby.open_spectating")),
    error,
    h("button", { type: "submit", "data-testid": "create-submit" }, t("lobby.submit")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    error.textContent = "";
    const spec: CreateCampaign = {
      name: name.value.trim(), scenario: scenario.value, level: Number(level.value) as 1 | 2 | 3,
      teams: COLOURS.map((c, i) => ({ colour: c, seats: Number(seats[i]!.value), ...(computer[i]!.checked ? { ai: true } : {}) }))
        .filter((x) => x.seats > 0),
      ...(standIn.value.trim() !== "" ? { ai_stand_in: Number(standIn.value) } : {}),
      clock: clockSpec(mode.value as Parameters<typeof clockSpec>[0], Number(turnMin.value), Number(extraS.value)),
      ...(startPaused.checked && mode.value !== "none" ? { clocks_paused: true } : {}),
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
    h("div", { class: "lobby-left" }, lists, join),
    h("div", { class: "lobby-right" }, form, created));
}
