/** A resolution as a spectator can follow it: every shot, melee and fall is drawn in turn at the units it concerns —
 * smoke along a firing line with its tracers, a battery's canister cone, round shot flying and falling (with its
 * bounce when it hits), crossed sabres at a melee, losses and morale changes floating up from the unit, a dispersed
 * unit scattering, a surrendered one under a white flag. Events are paced in beats (one shot or melee after
 * another); losses and morale land within the beat of the shot or melee they follow. */
import { t } from "../i18n";
import { statusWord } from "../i18n/words";
import { centroid, contactPoint, drawPiece, drawSabres, outline, type Frame, type Piece } from "./pieces";
import { facingVector, frontRank, lateralVector } from "./geometry";

export type EffectKind = "volley" | "canister" | "round_shot" | "melee" | "loss" | "morale" | "fall" | "contact" | "note";

export interface Effect {
  kind: EffectKind;
  /** ms after its beat begins */
  delay: number;
  duration: number;
  /** the acting unit (the shooter; the unit that fell) and the one acted on, as they stood */
  from?: Piece;
  to?: Piece;
  text?: string;
  colour?: string;
  /** round shot: whether it hit */
  hit?: boolean;
  status?: string;
}

export type Lookup = (id: unknown) => Piece | undefined;

/** Events that begin a beat of their own, and how long that beat lasts (ms). */
export const BEATS: Record<string, number> = {
  fire: 650, melee: 800, contact: 350, fallen: 900, overrun: 600, roll: 650, arrived: 500,
};

const LOSS = "#b3140c";

/** The effects one event makes (none for the rest); `at` finds a unit as it stands or last stood. Pure. */
export function effectsFor(kind: string, d: Record<string, unknown>, at: Lookup): Effect[] {
  const unit = at(d.unit ?? d.a);
  const target = at(d.target ?? d.b);
  switch (kind) {
    case "fire": {
      if (!unit || !target) return [];
      const w = String(d.weapon ?? "musket");
      if (w === "canister") return [{ kind: "canister", delay: 0, duration: 1300, from: unit, to: target }];
      if (w === "round_shot") return [{ kind: "round_shot", delay: 0, duration: 1500, from: unit, to: target, hit: d.hit !== false && Number(d.losses ?? 1) > 0 }];
      return [{ kind: "volley", delay: 0, duration: 1400, from: unit, to: target }];
    }
    case "roll":
      // a round shot that misses has no fire event: its roll shows the ball falling short
      if (d.purpose === "round_shot" && d.success === false && unit && target) {
        return [{ kind: "round_shot", delay: 0, duration: 1500, from: unit, to: target, hit: false, text: t("effect.miss") }];
      }
      return [];
    case "melee": {
      if (!unit || !target) return [];
      return [{ kind: "melee", delay: 0, duration: 1500, from: unit, to: target }];
    }
    case "contact":
      return unit && at(d.enemy) ? [{ kind: "contact", delay: 0, duration: 900, from: unit, to: at(d.enemy) }] : [];
    case "losses": {
      const amount = Number(d.amount ?? d.losses ?? 0);
      if (!unit || !amount) return [];
      return [{ kind: "loss", delay: 380, duration: 1900, to: unit, text: `−${amount}`, colour: LOSS }];
    }
    case "morale": {
      const delta = Number(d.delta ?? 0);
      if (!unit || !delta) return [];
      return [{ kind: "morale", delay: 700, duration: 1900, to: unit, colour: delta < 0 ? "#3b2a8c" : "#1d6b2c",
        text: t("effect.morale", { delta: delta > 0 ? `+${delta}` : `−${-delta}`, n: String(d.morale ?? "") }) }];
    }
    case "fallen":
      return unit ? [{ kind: "fall", delay: 0, duration: 2200, from: unit, status: String(d.status ?? "destroyed"), text: statusWord(String(d.status ?? "destroyed")) }] : [];
    case "overrun":
      return unit ? [{ kind: "note", delay: 0, duration: 1800, to: unit, text: t("effect.guns_taken"), colour: LOSS }] : [];
    case "arrived":
      return unit ? [{ kind: "note", delay: 0, duration: 1600, to: unit, text: t("effect.arrived"), colour: "#1d4f91" }] : [];
    default:
      return [];
  }
}

interface Running extends Effect {
  start: number;
}

const ease = (k: number) => (k < 0.5 ? 4 * k * k * k : 1 - (-2 * k + 2) ** 3 / 2);

export class EffectQueue {
  private running: Running[] = [];
  private beatStart = -Infinity;
  private beatLength = 0;
  /** the text of the beat shown now (what a spectator reads under the field) */
  captions: { start: number; end: number; text: string }[] = [];

  /** When each shot and melee of the resolution is shown, so that its losses land with it: the engine reports the
   * shots first and their losses after them, all at once (D-N-1). */
  private readonly blows = new Map<string, number>();
  /** when each unit's last loss lands (its morale changes after it) */
  private readonly hurt = new Map<string, number>();

  /** Schedule an event's effects at `now`; `caption` is its sentence. Returns how many effects it made. */
  push(kind: string, data: Record<string, unknown>, at: Lookup, now: number, caption?: string): number {
    const effects = effectsFor(kind, data, at);
    if (!effects.length) return 0;
    const beat = BEATS[kind];
    if (beat !== undefined || now > this.beatStart + this.beatLength) {
      this.beatStart = Math.max(now, this.beatStart + this.beatLength);
      this.beatLength = beat ?? 400;
    }
    let start = this.beatStart;
    const unit = String(data.unit ?? "");
    if (kind === "fire") this.blows.set(`${String(data.unit)}>${String(data.target)}`, start);
    else if (kind === "melee") this.blows.set(`${String(data.a)}|${String(data.b)}`, start).set(`${String(data.b)}|${String(data.a)}`, start);
    else if (kind === "losses") {
      const blow = this.blows.get(data.cause === "melee" ? `${String(data.by)}|${unit}` : `${String(data.by)}>${unit}`);
      if (blow !== undefined) start = blow;
      this.hurt.set(unit, start);
    } else if (kind === "morale" && this.hurt.has(unit)) start = this.hurt.get(unit)!;
    for (const e of effects) this.running.push({ ...e, start: start + e.delay });
    if (caption && beat !== undefined) this.captions.push({ start: this.beatStart, end: this.beatStart + Math.max(1600, this.beatLength), text: caption });
    return effects.length;
  }

  clear(): void {
    this.running = [];
    this.blows.clear();
    this.hurt.clear();
    this.captions = [];
    this.beatStart = -Infinity;
    this.beatLength = 0;
  }

  /** Whether anything is still to be drawn after `now`. */
  active(now: number): boolean {
    return this.running.some((e) => e.start + e.duration > now);
  }

  caption(now: number): string {
    this.captions = this.captions.filter((c) => c.end > now);
    return this.captions.filter((c) => c.start <= now).pop()?.text ?? "";
  }

  /** Units fading out as they fall are drawn by the queue; the view leaves them out. */
  falling(now: number): Set<string> {
    return new Set(this.running.filter((e) => e.kind === "fall" && e.from && now < e.start + e.duration).map((e) => e.from!.id));
  }

  draw(ctx: CanvasRenderingContext2D, f: Frame, now: number): void {
    this.running = this.running.filter((e) => now < e.start + e.duration);
    // shapes first, floating words on top
    for (const e of this.running) if (now >= e.start && e.kind !== "loss" && e.kind !== "morale" && e.kind !== "note") drawEffect(ctx, f, e, (now - e.start) / e.duration);
    for (const e of this.running) if (now >= e.start && (e.kind === "loss" || e.kind === "morale" || e.kind === "note")) drawEffect(ctx, f, e, (now - e.start) / e.duration);
  }
}

function px(f: Frame, c: { x: number; y: number }): { x: number; y: number } {
  return { x: f.offsetX + c.x * f.scale, y: f.offsetY + c.y * f.scale };
}

/** The front cells' centres of a unit, pushed to its front edge (in cells). */
function muzzles(u: Piece): { x: number; y: number }[] {
  const fwd = facingVector(u.facing);
  const n = Math.hypot(fwd.x, fwd.y);
  return frontRank(u.anchor, u.facing, Math.min(u.width, u.cells.length)).map((c) => ({ x: c.x + 0.5 + (fwd.x / n) * 0.5, y: c.y + 0.5 + (fwd.y / n) * 0.5 }));
}

function smoke(ctx: CanvasRenderingContext2D, p: { x: number; y: number }, s: number, k: number): void {
  const r = Math.max(3, s * (0.3 + 0.6 * k));
  ctx.globalAlpha = 0.92 * (1 - k);
  ctx.fillStyle = "#f7f4ec";
  ctx.beginPath();
  ctx.arc(p.x, p.y - k * s * 0.5, r, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = "rgba(90,80,70,0.75)";
  ctx.lineWidth = 1.5;
  ctx.stroke();
  ctx.globalAlpha = 1;
}

function flash(ctx: CanvasRenderingContext2D, p: { x: number; y: number }, s: number, k: number): void {
  if (k > 0.12) return;
  ctx.fillStyle = "#ffb21f";
  ctx.beginPath();
  ctx.arc(p.x, p.y, Math.max(2.5, s * 0.22) * (1 - k / 0.12 * 0.5), 0, Math.PI * 2);
  ctx.fill();
}

function floatText(ctx: CanvasRenderingContext2D, x: number, y: number, text: string, colour: string, size: number, k: number): void {
  ctx.save();
  ctx.globalAlpha = k < 0.7 ? 1 : 1 - (k - 0.7) / 0.3;
  ctx.font = `700 ${size}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  const yy = y - 6 - k * 26;
  ctx.lineWidth = 4;
  ctx.strokeStyle = "rgba(255,253,245,0.95)";
  ctx.strokeText(text, x, yy);
  ctx.fillStyle = colour;
  ctx.fillText(text, x, yy);
  ctx.restore();
}

function drawEffect(ctx: CanvasRenderingContext2D, f: Frame, e: Running, k: number): void {
  const s = f.scale;
  ctx.save();
  switch (e.kind) {
    case "volley": {
      const guns = muzzles(e.from!);
      const aim = px(f, centroid(e.to!.cells));
      // tracers from a few muzzles to the target while the volley cracks
      if (k < 0.5) {
        ctx.strokeStyle = `rgba(214,90,0,${0.95 * (1 - k / 0.5)})`;
        ctx.lineWidth = Math.max(2, s * 0.12);
        ctx.setLineDash([Math.max(3, s * 0.4), Math.max(3, s * 0.3)]);
        ctx.beginPath();
        const step = Math.max(1, Math.floor(guns.length / 3));
        for (let i = 0; i < guns.length; i += step) {
          const g = px(f, guns[i]!);
          const reach = Math.min(1, k / 0.25);
          ctx.moveTo(g.x, g.y);
          ctx.lineTo(g.x + (aim.x - g.x) * reach, g.y + (aim.y - g.y) * reach);
        }
        ctx.stroke();
        ctx.setLineDash([]);
      }
      for (const g of guns) { const p = px(f, g); flash(ctx, p, s, k); smoke(ctx, p, s, k); }
      break;
    }
    case "canister": {
      const u = e.from!;
      const guns = muzzles(u);
      const lat = lateralVector(u.facing);
      const ln = Math.hypot(lat.x, lat.y);
      const along = (c: { x: number; y: number }) => (c.x * lat.x + c.y * lat.y) / ln;
      const tc = e.to!.cells.map((c) => ({ x: c.x + 0.5, y: c.y + 0.5 }));
      const lo = tc.reduce((a, b) => (along(b) < along(a) ? b : a));
      const hi = tc.reduce((a, b) => (along(b) > along(a) ? b : a));
      const a0 = px(f, guns[0]!), a1 = px(f, guns[guns.length - 1]!);
      const b0 = px(f, { x: lo.x - (lat.x / ln) * 0.8, y: lo.y - (lat.y / ln) * 0.8 });
      const b1 = px(f, { x: hi.x + (lat.x / ln) * 0.8, y: hi.y + (lat.y / ln) * 0.8 });
      const grow = Math.min(1, k / 0.2);
      const mix = (p: { x: number; y: number }, q: { x: number; y: number }) => ({ x: p.x + (q.x - p.x) * grow, y: p.y + (q.y - p.y) * grow });
      const c0 = mix(a0, b0), c1 = mix(a1, b1);
      ctx.globalAlpha = Math.max(0, 1 - k * 1.1);
      ctx.fillStyle = "rgba(205,28,18,0.38)";
      ctx.strokeStyle = "rgba(150,10,5,0.8)";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(a0.x, a0.y); ctx.lineTo(c0.x, c0.y); ctx.lineTo(c1.x, c1.y); ctx.lineTo(a1.x, a1.y); ctx.closePath();
      ctx.fill();
      ctx.stroke();
      // the balls of the charge, scattered over the cone
      ctx.fillStyle = "#3a0a06";
      for (let i = 0; i < 14; i++) {
        const u1 = (i * 0.61803) % 1, v1 = ((i * 0.3819 + 0.2) % 1) * grow;
        const l = { x: a0.x + (c0.x - a0.x) * v1, y: a0.y + (c0.y - a0.y) * v1 };
        const r = { x: a1.x + (c1.x - a1.x) * v1, y: a1.y + (c1.y - a1.y) * v1 };
        ctx.fillRect(l.x + (r.x - l.x) * u1 - 1, l.y + (r.y - l.y) * u1 - 1, 2.5, 2.5);
      }
      ctx.globalAlpha = 1;
      for (const g of guns) { const p = px(f, g); flash(ctx, p, s, k); smoke(ctx, p, s * 1.3, k); }
      break;
    }
    case "round_shot": {
      const from = centroid(e.from!.cells);
      const to = centroid(e.to!.cells);
      const dx = to.x - from.x, dy = to.y - from.y;
      const dist = Math.hypot(dx, dy) || 1;
      // a miss falls short of the target; a hit lands on it and bounces on beyond (its fall)
      const land = e.hit ? to : { x: from.x + dx * (1 - 1.8 / dist), y: from.y + dy * (1 - 1.8 / dist) };
      const flight = 0.5;
      const gun = px(f, from);
      flash(ctx, gun, s * 1.4, k);
      smoke(ctx, gun, s * 1.5, Math.min(1, k * 1.4));
      let ball: { x: number; y: number };
      let height = 0;
      if (k < flight) {
        const q = k / flight;
        ball = { x: from.x + (land.x - from.x) * q, y: from.y + (land.y - from.y) * q };
        height = Math.sin(Math.PI * q) * Math.min(6, dist * 0.22);
      } else {
        // after the fall: a hop and a roll on in the same direction, two cells on
        const q = (k - flight) / (1 - flight);
        const on = e.hit ? 2.2 : 1.2;
        ball = { x: land.x + (dx / dist) * on * ease(q), y: land.y + (dy / dist) * on * ease(q) };
        height = Math.sin(Math.PI * Math.min(1, q * 1.6)) * 0.7 * (1 - q);
        const dust = px(f, land);
        ctx.globalAlpha = Math.max(0, 1 - q);
        ctx.fillStyle = "rgba(130,100,60,0.5)";
        ctx.beginPath();
        ctx.ellipse(dust.x, dust.y, s * (0.4 + q), s * (0.25 + q * 0.5), 0, 0, Math.PI * 2);
        ctx.fill();
        ctx.globalAlpha = 1;
      }
      const shadow = px(f, ball);
      ctx.fillStyle = "rgba(0,0,0,0.25)";
      ctx.beginPath();
      ctx.ellipse(shadow.x, shadow.y, Math.max(2, s * 0.18), Math.max(1, s * 0.09), 0, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = "#1a1a1a";
      ctx.beginPath();
      ctx.arc(shadow.x, shadow.y - height * s, Math.max(2.5, s * 0.17), 0, Math.PI * 2);
      ctx.fill();
      if (!e.hit && e.text && k > flight) { const p = px(f, land); floatText(ctx, p.x, p.y, e.text, "#4a4233", 14, (k - flight) / (1 - flight)); }
      break;
    }
    case "melee":
    case "contact": {
      const at = contactPoint(e.from!.cells, e.to!.cells);
      if (!at) break;
      const p = px(f, at);
      const r = Math.max(7, Math.min(18, s * 0.9));
      ctx.globalAlpha = e.kind === "contact" ? 1 - k : k > 0.8 ? (1 - k) / 0.2 : 1;
      drawSabres(ctx, p.x, p.y, r * (e.kind === "melee" ? 1.25 : 1), Math.sin(k * Math.PI * 6));
      if (e.kind === "melee") {
        // sparks of the fight
        ctx.strokeStyle = "#ffb21f";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        for (let i = 0; i < 6; i++) {
          const a = i * 1.047 + k * 9;
          const r0 = r * (1.2 + 0.4 * Math.sin(k * 20 + i)), r1 = r0 + r * 0.4;
          ctx.moveTo(p.x + Math.cos(a) * r0, p.y + Math.sin(a) * r0);
          ctx.lineTo(p.x + Math.cos(a) * r1, p.y + Math.sin(a) * r1);
        }
        ctx.stroke();
      }
      break;
    }
    case "fall": {
      const u = e.from!;
      const c = centroid(u.cells);
      const spread = e.status === "dispersed" ? ease(k) * 1.6 : 0;
      // the block breaking up (dispersed), or fading where it stood (destroyed, surrendered)
      const pieces = u.cells.map((cell, i) => ({ ...u, cells: [cell], anchor: cell, width: 1,
        dx: (cell.x + 0.5 - c.x) * spread * s + Math.sin(i * 2.3) * spread * s * 0.4,
        dy: (cell.y + 0.5 - c.y) * spread * s + Math.cos(i * 1.7) * spread * s * 0.4 }));
      if (spread) for (const p of pieces) drawPiece(ctx, p, f, { alpha: 1 - k, dx: p.dx, dy: p.dy });
      else drawPiece(ctx, u, f, { alpha: 1 - k * 0.85 });
      const p = px(f, c);
      if (e.status === "surrendered") {
        // a white flag over it
        ctx.strokeStyle = "#222";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(p.x, p.y); ctx.lineTo(p.x, p.y - 26);
        ctx.stroke();
        ctx.fillStyle = "#fff";
        ctx.fillRect(p.x, p.y - 26, 16, 11);
        ctx.strokeRect(p.x, p.y - 26, 16, 11);
      }
      if (e.text) floatText(ctx, p.x, p.y - (e.status === "surrendered" ? 26 : 0), e.text, "#1d1b16", 15, k);
      break;
    }
    case "loss":
    case "morale":
    case "note": {
      if (e.kind === "loss" && k < 0.3) {
        // the hit: the target's outline flashes red as its losses land
        ctx.globalAlpha = 1 - k / 0.3;
        ctx.strokeStyle = "#d0140a";
        ctx.lineWidth = Math.max(3, s * 0.3);
        ctx.beginPath();
        for (const [ax, ay, bx, by] of outline(e.to!.cells)) { ctx.moveTo(f.offsetX + ax * s, f.offsetY + ay * s); ctx.lineTo(f.offsetX + bx * s, f.offsetY + by * s); }
        ctx.stroke();
        ctx.globalAlpha = 1;
      }
      const c = px(f, centroid(e.to!.cells));
      const lift = e.kind === "morale" ? 18 : e.kind === "note" ? 34 : 0;
      floatText(ctx, c.x + (e.kind === "morale" ? 10 : 0), c.y - lift, e.text ?? "", e.colour ?? LOSS, e.kind === "loss" ? 20 : 15, k);
      break;
    }
  }
  ctx.restore();
}
