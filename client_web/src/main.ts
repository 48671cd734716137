/** Routes (all under `/`, which the server serves): `#token=…` joins with a link's token, which is then kept in
 * sessionStorage and taken out of the address bar (`&room=…` names the room to show first); `#play` resumes that session; `#preview=…` draws sample data;
 * anything else is the lobby. */
import { GamePage } from "./game";
import { lang, onLangChange, setLang, t } from "./i18n";
import { h } from "./ui/dom";
import { lobbyPage } from "./lobby/lobby";
import "./style.css";

const app = document.querySelector<HTMLDivElement>("#app")!;
let game: GamePage | null = null;
document.documentElement.lang = lang();

function route(): void {
  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get("token");
  const focus = hash.get("room");
  if (token) {
    sessionStorage.setItem("token", token);
    if (focus) sessionStorage.setItem("room", focus);
    else sessionStorage.removeItem("room");
    history.replaceState(null, "", "#play");
  }
  game?.destroy();
  game = null;
  app.replaceChildren();
  const saved = sessionStorage.getItem("token");
  if ((token || location.hash === "#play") && saved) {
    game = new GamePage(saved, () => {
      sessionStorage.removeItem("token");
      sessionStorage.removeItem("room");
      location.hash = "";
    }, sessionStorage.getItem("room"));
    app.append(game.root);
  } else if (hash.get("replay")) {
    // a finished room replayed from the lobby, without a seat
    const room = hash.get("replay")!;
    void import("./replay-page").then(({ replayPage }) => app.append(replayPage(room, (hash.get("as") as never) ?? null, hash.get("report") === "1", hash.get("title"))));
  } else if (hash.get("preview")) {
    // the preview carries captured engine views: loaded only when asked for, never in the game's bundle
    const which = hash.get("preview")!;
    void import("./preview/preview").then(({ previewPage }) => app.append(previewPage(which)));
  } else {
    app.append(
      h("header", { class: "game-header" }, h("span", { class: "brand" }, t("app.title")), h("span", { class: "muted" }, t("lobby.tagline")),
        h("button", { class: "lang", "data-testid": "lang", onclick: () => setLang(lang() === "en" ? "ru" : "en") }, t("lang.switch"))),
      lobbyPage((tok, room) => (location.hash = `token=${tok}${room ? `&room=${encodeURIComponent(room)}` : ""}`)),
    );
  }
}

window.addEventListener("hashchange", route);
onLangChange(() => {
  if (!game) route();
});
route();
