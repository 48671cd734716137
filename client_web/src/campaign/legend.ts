/** The strategic map's legend: ground, lines, places and counters, each drawn by the map's own painter. */
import { t } from "../i18n";
import { terrainWord } from "../i18n/words";
import { TERRAIN_FILL } from "../ui/colours";
import { icon, legendBox, lineIcon, type LegendItem } from "../ui/legend";
import { drawSabres } from "../battle/pieces";
import { paintCounter, paintMark, paintPlace } from "./paint";

const GROUND = ["plain", "hills", "forest", "swamp", "mountains", "sea"] as const;

function ground(kind: string): HTMLElement {
  return icon(30, 20, (ctx) => {
    ctx.fillStyle = TERRAIN_FILL[kind] ?? "#e9e4c9";
    ctx.fillRect(0, 0, 30, 20);
    paintMark(ctx, kind, 15, 10, 20);
  });
}

export function campaignLegend(): HTMLDetailsElement {
  const terrain: LegendItem[] = GROUND.map((k) => ({ icon: ground(k), label: terrainWord(k) }));
  const lines: LegendItem[] = [
    { icon: lineIcon("#3b7dc4", 3, []), label: t("legend.river") },
    { icon: lineIcon("#7a4f24", 2.5, []), label: t("legend.road") },
    { icon: lineIcon("#333", 2, [6, 3]), label: t("legend.railway") },
    { icon: lineIcon("#5b2a86", 2.5, [7, 3]), label: t("legend.border") },
  ];
  const places: LegendItem[] = [
    { icon: icon(30, 22, (ctx) => paintPlace(ctx, { capital: true, fortress: false, owner: null }, 15, 11, 6)), label: t("legend.capital") },
    { icon: icon(30, 22, (ctx) => paintPlace(ctx, { capital: false, fortress: false, owner: null }, 15, 11, 6)), label: t("legend.city") },
    { icon: icon(30, 22, (ctx) => paintPlace(ctx, { capital: false, fortress: true, owner: null }, 15, 11, 6)), label: t("legend.fortress") },
  ];
  const counter = (strength: number | null, morale: number | null, reported = false) =>
    icon(52, 38, (ctx) => paintCounter(ctx, { team: "blue", reported, strength, morale, facing: null }, { x: 2, y: 2, w: 46, h: 33 }, false, "army"));
  const forces: LegendItem[] = [
    { icon: counter(13, 6), label: t("legend.counter.own") },
    { icon: counter(13, null), label: t("legend.counter.seen") },
    { icon: counter(null, null, true), label: t("legend.counter.reported") },
    { icon: icon(30, 26, (ctx) => drawSabres(ctx, 15, 13, 9)), label: t("legend.battle") },
  ];
  return legendBox(t("legend.title"), [
    { heading: t("legend.ground"), items: terrain },
    { heading: t("legend.lines"), items: lines },
    { heading: t("legend.places"), items: places },
    { heading: t("legend.forces"), items: forces },
  ], "map-legend");
}
