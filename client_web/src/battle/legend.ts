/** The field's legend: the ground (as the field paints it), the units' marks and formations, the marks of a fight. */
import { t } from "../i18n";
import { armWord, formationWord, terrainWord } from "../i18n/words";
import { icon, legendBox, lineIcon, type LegendItem } from "../ui/legend";
import { drawFormationGlyph, drawPiece, drawSabres, type Piece } from "./pieces";
import { paintSwatch, SIEGE_KINDS, TERRAIN_KINDS } from "./terrain";
import { footprint } from "./geometry";
import { h } from "../ui/dom";

function swatch(kind: string): HTMLElement {
  const c = h("canvas", { class: "legend-icon", "aria-hidden": "true" });
  paintSwatch(c, kind, 12, 3, 2);
  return c;
}

function unitIcon(type: string, formation: string, width: number, depth: number, side = "blue"): HTMLElement {
  const anchor = { x: 0, y: 1 };
  const cells = footprint(anchor, 0, width, depth).map((c) => ({ x: c.x, y: c.y }));
  const piece: Piece = { id: type, side, type, formation, facing: 0, anchor, cells, width };
  return icon(40, 26, (ctx) => drawPiece(ctx, piece, { scale: 36 / Math.max(width, 3), offsetX: 2, offsetY: 26 - (depth + 1) * (36 / Math.max(width, 3)) + 2 }));
}

export function battleLegend(siege: boolean): HTMLDetailsElement {
  const ground: LegendItem[] = TERRAIN_KINDS.map((k) => ({ icon: swatch(k), label: terrainWord(k) }));
  ground.splice(1, 0, { icon: swatch("hill"), label: t("legend.hill") });
  if (siege) for (const k of SIEGE_KINDS) ground.push({ icon: swatch(k), label: terrainWord(k) });
  const arms: LegendItem[] = [
    { icon: unitIcon("infantry", "line", 4, 1), label: armWord("infantry") },
    { icon: unitIcon("light_cavalry", "attack_column", 3, 2), label: armWord("light_cavalry") },
    { icon: unitIcon("heavy_cavalry", "attack_column", 3, 2), label: armWord("heavy_cavalry") },
    { icon: unitIcon("foot_artillery", "deployed", 4, 2), label: armWord("foot_artillery") },
    { icon: unitIcon("horse_artillery", "deployed", 4, 2), label: armWord("horse_artillery") },
    { icon: icon(40, 16, (ctx) => { ctx.fillStyle = "#fff7dc"; ctx.strokeStyle = "#15120d"; ctx.fillRect(4, 6, 32, 5); ctx.strokeRect(4, 6, 32, 5); }), label: t("legend.front") },
  ];
  const forms: LegendItem[] = ["line", "attack_column", "square", "march_column", "deployed", "limbered"].map((f) => ({
    icon: icon(26, 18, (ctx) => drawFormationGlyph(ctx, f, 3, 2, 14, "#1d1b16")), label: formationWord(f),
  }));
  const fight: LegendItem[] = [
    { icon: icon(40, 22, (ctx) => drawSabres(ctx, 20, 11, 8)), label: t("legend.melee") },
    { icon: lineIcon("#d66e00", 3, [6, 4], 40), label: t("legend.volley") },
    { icon: icon(40, 18, (ctx) => { ctx.fillStyle = "rgba(205,28,18,0.38)"; ctx.strokeStyle = "rgba(150,10,5,0.8)"; ctx.beginPath(); ctx.moveTo(3, 7); ctx.lineTo(37, 1); ctx.lineTo(37, 17); ctx.lineTo(3, 11); ctx.closePath(); ctx.fill(); ctx.stroke(); }), label: t("legend.canister") },
    { icon: icon(40, 18, (ctx) => { ctx.strokeStyle = "#555"; ctx.setLineDash([2, 3]); ctx.beginPath(); ctx.moveTo(3, 15); ctx.quadraticCurveTo(20, -6, 30, 13); ctx.stroke(); ctx.fillStyle = "#1a1a1a"; ctx.beginPath(); ctx.arc(31, 13, 3.5, 0, Math.PI * 2); ctx.fill(); }), label: t("legend.round_shot") },
    { icon: icon(40, 18, (ctx) => { ctx.font = "700 14px system-ui, sans-serif"; ctx.fillStyle = "#b3140c"; ctx.fillText("−2", 6, 14); }), label: t("legend.losses") },
    { icon: icon(40, 18, (ctx) => { ctx.fillStyle = "rgba(255,140,0,0.3)"; ctx.fillRect(3, 3, 16, 12); ctx.fillStyle = "rgba(220,0,0,0.38)"; ctx.fillRect(21, 3, 16, 12); }), label: t("legend.zones") },
  ];
  return legendBox(t("legend.title"), [
    { heading: t("legend.ground"), items: ground },
    { heading: t("legend.units"), items: arms },
    { heading: t("unit.formation"), items: forms },
    { heading: t("legend.fight"), items: fight },
  ], "battle-legend");
}
