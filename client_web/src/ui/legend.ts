/** A map's legend over its canvas: a folding box of groups, each a list of small pictures drawn by the same code
 * that draws the map, with their names. Closed until asked for, so that it hides nothing. */
import { h } from "./dom";

export interface LegendItem {
  icon: HTMLElement;
  label: string;
}

/** A small canvas `w`×`hgt` CSS pixels for a legend, painted by `paint` in CSS pixels. */
export function icon(w: number, hgt: number, paint: (ctx: CanvasRenderingContext2D) => void): HTMLCanvasElement {
  const c = h("canvas", { class: "legend-icon", "aria-hidden": "true" });
  const dpr = globalThis.devicePixelRatio || 1;
  c.width = Math.round(w * dpr);
  c.height = Math.round(hgt * dpr);
  c.style.width = `${w}px`;
  c.style.height = `${hgt}px`;
  const ctx = c.getContext("2d");
  if (ctx) {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(ctx);
  }
  return c;
}

/** A stroke across a small canvas: a road, a river, a border, a volley's tracer. */
export function lineIcon(colour: string, width: number, dash: number[], w = 30, hgt = 14): HTMLCanvasElement {
  return icon(w, hgt, (ctx) => {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(2, hgt / 2);
    ctx.lineTo(w - 2, hgt / 2);
    ctx.stroke();
  });
}

export function legendBox(title: string, groups: { heading: string; items: LegendItem[] }[], testid: string): HTMLDetailsElement {
  const box = h("details", { class: "legend", "data-testid": testid },
    h("summary", {}, title),
    ...groups.filter((g) => g.items.length).map((g) => h("div", { class: "legend-group" },
      h("h4", {}, g.heading),
      h("ul", {}, ...g.items.map((it) => h("li", {}, it.icon, h("span", {}, it.label)))))));
  return box;
}
