/** `/#preview=campaign|battle|siege`: the canvases on built-in sample data, for design work and the README's pictures. */
import { BattleView } from "../battle/view";
import { CampaignView } from "../campaign/view";
import { t } from "../i18n";
import { h } from "../ui/dom";
import redView from "../../test/fixtures/campaign-view-red.json";
import battleEvents from "../../test/fixtures/battle-events.json";
import battleView from "../../test/fixtures/battle-view-spectator.json";
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
    body.append(v.root);
    // The battle engine's own spectator view after a few turns of a random battle.
    requestAnimationFrame(() => v.setState(battleView as Record<string, unknown>, "red"));
    // ...and the shots of its last resolution, as a spectator sees them arrive.
    setTimeout(() => {
      for (const e of battleEvents as { kind: string; data: Record<string, unknown> }[]) v.play(e.kind, e.data);
    }, 300);
  } else {
    const v = new CampaignView({ order }, true);
    body.append(v.root);
    // The campaign engine's own view for team red (continental scenario, level 2, first turn of operations).
    requestAnimationFrame(() => v.setState(redView as Record<string, unknown>, "red"));
  }
  return root;
}
