/** `/#preview=campaign|battle|siege`: the canvases on built-in sample data, for design work and the README's pictures. */
import { BattleView } from "../battle/view";
import { CampaignView } from "../campaign/view";
import { t } from "../i18n";
import { h } from "../ui/dom";
import redView from "../../test/fixtures/campaign-view-red.json";
import engaged from "../../test/fixtures/battle-engaged.json";
import { has, ordinal, proper, t as tr } from "../i18n";
import type { Names } from "../ui/names";
import { describeEvent } from "../ui/log";
import siegeView from "../../test/fixtures/siege-view-spectator.json";

export function previewPage(which: string): HTMLElement {
  const order = async (o: Record<string, unknown>) => o;
  const root = h("div", { class: "game preview", "data-testid": "preview" }, h("header", { class: "game-header" }, h("a", { href: "#", class: "brand" }, t("app.title")), h("span", { class: "muted" }, t("preview.note"))));
  const body = h("div", { class: "game-body" });
  root.append(body);
  if (which === "siege") {
    const v = new BattleView({ order }, false);
    body.append(v.root);
    // The siege engine's storm of Dresden (map seed 7) as a spectator sees it: walls, forts, ditch, breaches, parallels.
    requestAnimationFrame(() => v.setState(siegeView as Record<string, unknown>, null));
  } else if (which === "battle") {
    const v = new BattleView({ order }, true);
    v.names = previewNames(engaged.before as Record<string, unknown>);
    // for bench/client_frames.py: the field and the resolution it replays
    Object.assign(globalThis, { __field: v, __engaged: engaged });
    body.append(v.root);
    // An engaged 25-against-25 battle from the engine (tests/webclient/fixtures.py) as a spectator sees it before a
    // resolution, then the resolution's events as they arrive, then the view after it — every few seconds again.
    const play = () => {
      v.setState(engaged.before as Record<string, unknown>, "red", true);
      engaged.events.forEach((e) => v.play(e.kind, e.data as Record<string, unknown>,
        describeEvent({ t: "ev", room: "preview", seq: 0, at_ms: 0, kind: e.kind, data: e.data as Record<string, unknown> }, v.names).text));
      setTimeout(() => v.setState(engaged.after as Record<string, unknown>, "red"), 9000);
    };
    requestAnimationFrame(play);
    if (!new URLSearchParams(location.hash.slice(1)).has("still")) setInterval(play, 12_000);
  } else {
    const v = new CampaignView({ order }, true);
    body.append(v.root);
    // The campaign engine's own view for team red (continental scenario, level 2, first turn of operations).
    requestAnimationFrame(() => v.setState(redView as Record<string, unknown>, "red"));
  }
  return root;
}

/** Names for the fixture's units (`bulow-3` is Bülow's third regiment of its arm), as a campaign would give them. */
function previewNames(state: Record<string, unknown>): Names {
  const armies: Record<string, string> = { bulow: "III Prussian Corps", ney: "III Corps" };
  const types = new Map(((state.units as { id: string; type: string }[]) ?? []).map((u) => [u.id, u.type]));
  const parts = (id: unknown) => /^(\w+)-(\d+)$/.exec(String(id));
  return {
    unit: (id) => {
      const m = parts(id);
      const type = types.get(String(id)) ?? "";
      if (!m) return String(id);
      const key = has(`unit.named.${type}`) ? `unit.named.${type}` : "unit.named.other";
      return tr(key as never, { ord: ordinal(Number(m[2])), n: Number(m[2]), army: proper(armies[m[1]!] ?? m[1]!) });
    },
    short: (id) => {
      const m = parts(id);
      const type = types.get(String(id)) ?? "";
      return m && has(`unit.short.${type}`) ? tr(`unit.short.${type}` as never, { ord: ordinal(Number(m[2])), n: Number(m[2]) }) : String(id);
    },
    army: (id) => proper(armies[String(id)] ?? String(id)), place: (c) => String(c), battle: (id) => String(id), room: (id) => id,
  };
}
