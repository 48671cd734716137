/** The whole field (or map) in a corner while the view is zoomed in: the ground, every unit in its side's colour
 * and the part on screen as a frame; a tap or a drag on it moves the view there. Both canvases use it. */
import { t } from "../i18n";
import { h } from "../ui/dom";
import { teamColour } from "../ui/colours";
import type { Viewport } from "../campaign/geometry";
import type { Cell } from "./geometry";

export class Minimap {
  readonly canvas: HTMLCanvasElement;

  /** `centre(x, y)`: put field cell position (x, y) in the middle of the view. */
  constructor(private readonly centre: (x: number, y: number) => void) {
    this.canvas = h("canvas", { class: "minimap", "data-testid": "minimap", role: "img", "aria-label": t("minimap.label") });
    let dragging = false;
    const go = (e: PointerEvent) => {
      const r = this.canvas.getBoundingClientRect();
      const k = r.width / (this.cols || 1);
      this.centre((e.clientX - r.left) / k, (e.clientY - r.top) / k);
    };
    this.canvas.addEventListener("pointerdown", (e) => { dragging = true; this.canvas.setPointerCapture?.(e.pointerId); go(e); e.stopPropagation(); });
    this.canvas.addEventListener("pointermove", (e) => { if (dragging) go(e); });
    this.canvas.addEventListener("pointerup", () => { dragging = false; });
    this.canvas.addEventListener("pointercancel", () => { dragging = false; });
  }

  private cols = 0;

  /** Draw it `size` CSS pixels wide from the ground's picture, the units and the view `v` of a `w`×`hgt` canvas;
   * hidden while the whole field is on screen. */
  draw(ground: CanvasImageSource | null, cols: number, rows: number, units: readonly { side: string; cells: readonly Cell[] }[], v: Viewport, w: number, hgt: number, size: number): void {
    this.cols = cols;
    const x0 = -v.offsetX / v.scale, y0 = -v.offsetY / v.scale;
    const vw = w / v.scale, vh = hgt / v.scale;
    const whole = x0 <= 0.5 && y0 <= 0.5 && x0 + vw >= cols - 0.5 && y0 + vh >= rows - 0.5;
    this.canvas.hidden = whole;
    if (whole) return;
    const dpr = globalThis.devicePixelRatio || 1;
    const k = size / cols;
    const cw = Math.round(size * dpr), ch = Math.round(rows * k * dpr);
    if (this.canvas.width !== cw || this.canvas.height !== ch) {
      this.canvas.width = cw;
      this.canvas.height = ch;
      this.canvas.style.width = `${size}px`;
      this.canvas.style.height = `${rows * k}px`;
    }
    const ctx = this.canvas.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (ground) ctx.drawImage(ground, 0, 0, cols * k, rows * k);
    else { ctx.fillStyle = "#f1e9d2"; ctx.fillRect(0, 0, cols * k, rows * k); }
    for (const u of units) {
      ctx.fillStyle = teamColour(u.side).fill;
      for (const c of u.cells) ctx.fillRect(c.x * k, c.y * k, Math.max(1.5, k), Math.max(1.5, k));
    }
    ctx.strokeStyle = "#111";
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 * k, y0 * k, vw * k, vh * k);
    ctx.strokeStyle = "#ffcf1f";
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 * k, y0 * k, vw * k, vh * k);
  }
}
