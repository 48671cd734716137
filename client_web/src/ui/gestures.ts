/** Pan and zoom on a canvas, by mouse (drag, wheel), touch (drag, pinch) and pen alike, plus tap and long-press
 * (touch has no hover: holding a finger shows what hovering shows). Both canvases use it; issue 17 extends it.
 * The viewport is `scale` pixels per cell and the pixel offset of cell (0, 0); the canvas carries it in
 * `data-scale` / `data-offset` for tests and tools. */
import { zoomAt, type Viewport } from "../campaign/geometry";

export interface GestureTarget {
  viewport(): Viewport | null;
  setViewport(v: Viewport): void;
  tap(x: number, y: number): void;
  hover(x: number, y: number): void;
  longPress(x: number, y: number): void;
  leave(): void;
}

const MOVE_PX = 6;
const LONG_MS = 550;

export function bindGestures(canvas: HTMLCanvasElement, target: GestureTarget): void {
  const pointers = new Map<number, { x: number; y: number }>();
  let moved = false;
  let longTimer = 0;
  let longFired = false;
  let start = { x: 0, y: 0 };
  let pinch: { d: number; mx: number; my: number } | null = null;
  const at = (e: { clientX: number; clientY: number }) => {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const spread = () => {
    const [a, b] = [...pointers.values()];
    return { d: Math.hypot(a!.x - b!.x, a!.y - b!.y) || 1, mx: (a!.x + b!.x) / 2, my: (a!.y + b!.y) / 2 };
  };
  canvas.style.touchAction = "none";
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture?.(e.pointerId);
    const p = at(e);
    pointers.set(e.pointerId, p);
    if (pointers.size === 1) {
      start = p;
      moved = false;
      longFired = false;
      window.clearTimeout(longTimer);
      longTimer = window.setTimeout(() => {
        if (!moved && pointers.size === 1) {
          longFired = true;
          target.longPress(start.x, start.y);
        }
      }, LONG_MS);
    } else if (pointers.size === 2) {
      moved = true;
      window.clearTimeout(longTimer);
      pinch = spread();
    }
  });
  canvas.addEventListener("pointermove", (e) => {
    const p = at(e);
    if (!pointers.has(e.pointerId)) {
      if (e.pointerType === "mouse") target.hover(p.x, p.y);
      return;
    }
    const last = pointers.get(e.pointerId)!;
    pointers.set(e.pointerId, p);
    const v = target.viewport();
    if (!v) return;
    if (pointers.size >= 2 && pinch) {
      const now = spread();
      let next = zoomAt(v, now.mx, now.my, now.d / pinch.d);
      next = { ...next, offsetX: next.offsetX + now.mx - pinch.mx, offsetY: next.offsetY + now.my - pinch.my };
      pinch = now;
      target.setViewport(next);
      return;
    }
    if (!moved && Math.hypot(p.x - start.x, p.y - start.y) > MOVE_PX) {
      moved = true;
      window.clearTimeout(longTimer);
    }
    if (moved) target.setViewport({ ...v, offsetX: v.offsetX + p.x - last.x, offsetY: v.offsetY + p.y - last.y });
    else if (e.pointerType === "mouse") target.hover(p.x, p.y);
  });
  const end = (e: PointerEvent, cancelled: boolean) => {
    if (!pointers.has(e.pointerId)) return;
    const p = at(e);
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (pointers.size === 0) {
      window.clearTimeout(longTimer);
      if (!moved && !longFired && !cancelled) target.tap(p.x, p.y);
    }
  };
  canvas.addEventListener("pointerup", (e) => end(e, false));
  canvas.addEventListener("pointercancel", (e) => end(e, true));
  canvas.addEventListener("pointerleave", (e) => { if (e.pointerType === "mouse" && !pointers.size) target.leave(); });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const v = target.viewport();
    if (!v) return;
    const p = at(e);
    target.setViewport(zoomAt(v, p.x, p.y, e.deltaY < 0 ? 1.15 : 1 / 1.15));
  }, { passive: false });
  canvas.addEventListener("contextmenu", (e) => e.preventDefault());
}

/** Keyboard zoom and pan: + and − about the centre, 0 to fit, Shift+arrows to pan. True when the key was one. */
export function zoomKey(e: KeyboardEvent, canvas: HTMLCanvasElement, target: Pick<GestureTarget, "viewport" | "setViewport">, fit: () => void): boolean {
  const v = target.viewport();
  if (!v) return false;
  const cx = canvas.clientWidth / 2;
  const cy = canvas.clientHeight / 2;
  const step = 40;
  const pans: Record<string, [number, number]> = { ArrowUp: [0, step], ArrowDown: [0, -step], ArrowLeft: [step, 0], ArrowRight: [-step, 0] };
  if (e.key === "+" || e.key === "=") target.setViewport(zoomAt(v, cx, cy, 1.25));
  else if (e.key === "-" || e.key === "_") target.setViewport(zoomAt(v, cx, cy, 0.8));
  else if (e.key === "0") fit();
  else if (e.shiftKey && pans[e.key]) target.setViewport({ ...v, offsetX: v.offsetX + pans[e.key]![0], offsetY: v.offsetY + pans[e.key]![1] });
  else return false;
  e.preventDefault();
  return true;
}

export function markViewport(canvas: HTMLCanvasElement, v: Viewport): void {
  canvas.dataset.scale = v.scale.toFixed(2);
  canvas.dataset.offset = `${Math.round(v.offsetX)},${Math.round(v.offsetY)}`;
}
