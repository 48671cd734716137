/** One line per room event for the turn log, the dice and the losses: short, in the game's words, with the rule
 * the engine cited. Unknown kinds fall back to their plain fields. */
import type { Event } from "../net/protocol";
import { formatMs } from "./dom";

type D = Record<string, unknown>;
const s = (v: unknown): string => (Array.isArray(v) ? v.join(",") : v === null || v === undefined ? "" : String(v));

const FORMATS: Record<string, (d: D) => string> = {
  roll: (d) => `⚄ ${s(d.purpose)}${d.unit ? ` ${s(d.unit)}` : ""}: ${s(d.face)}${d.need !== undefined ? ` (≤${s(d.need)})` : ""} ${d.success ? "✓" : "✗"}`,
  fire: (d) => `✷ ${s(d.unit)} → ${s(d.target)} ${s(d.weapon)}${d.distance !== undefined ? ` @${s(d.distance)}` : ""}${d.hit === false ? " miss" : ""} −${s(d.losses ?? 0)}`,
  losses: (d) => `✚ ${s(d.unit)} −${s(d.losses ?? d.amount)}${d.left !== undefined ? ` (${s(d.left)} left)` : ""}`,
  melee: (d) => `⚔ ${s(d.a ?? d.unit)} × ${s(d.b ?? d.target)}${d.losses !== undefined ? ` −${s(d.losses)}` : ""}`,
  morale: (d) => `☰ ${s(d.unit)} morale ${s(d.morale ?? d.delta)}${d.reason ? ` (${s(d.reason)})` : ""}`,
  fallen: (d) => `✝ ${s(d.unit)} ${s(d.status ?? d.how)}`,
  dispersal: (d) => `✝ ${s(d.unit)} dispersed`,
  wheeled: (d) => `↻ ${s(d.unit)} ${Number(d.degrees) > 0 ? "+" : ""}${s(d.degrees)}°`,
  formation: (d) => `▦ ${s(d.unit)} ${s(d.formation)}`,
  moved: (d) => `→ ${s(d.unit)} ${d.to ? s(d.to) : Array.isArray(d.path) ? s((d.path as unknown[])[(d.path as unknown[]).length - 1]) : ""}${d.used !== undefined ? ` (used ${s(d.used)})` : ""}`,
  counter_moved: (d) => `→ ${s(d.id)} ${s(d.x)},${s(d.y)}`,
  counter_spotted: (d) => `◉ ${s(d.team)} ${s(d.id)} at ${s(d.x)},${s(d.y)}`,
  sighting: (d) => {
    const seen = Array.isArray(d.units) ? (d.units as D[]).map((u) => `${s(u.name ?? u.id)} ${s(u.cell)}`) : [];
    const lost = Array.isArray(d.lost) ? (d.lost as unknown[]).map(s) : [];
    return `◉ ${seen.join("; ")}${lost.length ? `${seen.length ? "; " : ""}lost sight of ${lost.join(", ")}` : ""}`;
  },
  turn: (d) => `▶ ${d.turn !== undefined ? `turn ${s(d.turn)} ` : ""}${Array.isArray(d.active) ? `to move: ${s(d.active)}` : Array.isArray(d.order) ? `order: ${s(d.order)}` : ""}${d.ended ? ` (${s(d.ended)} ended)` : ""}`,
  turn_ended: (d) => `■ ${s(d.team)} ended turn ${s(d.turn)}${d.flagged ? " (flag fell)" : ""}`,
  phase_over: (d) => `■ ${s(d.side)} phase over${d.flagged ? " (flag fell)" : ""}`,
  secret_module: (d) => d.action === "returned" ? `⌂ ${s(d.player)} back from the secret module` : `⌂ ${s(d.player)} to the secret module${d.reason ? `: ${s(d.reason)}` : ""}`,
  answer: (d) => `? ${s((d.question as D | undefined)?.kind)} → ${s(d.answer)} (left ${s(d.left)})`,
  ruling: (d) => `⚖ ${s(d.text ?? d.type)}`,
  clock_adjusted: (d) => `◷ ${s(d.team)} ${Number(d.delta_ms) >= 0 ? "+" : ""}${formatMs(Number(d.delta_ms ?? 0))}`,
  clock_flagged: (d) => `◷ ${s(d.team)} flag fell`,
  battle_over: (d) => `⚑ ${s(d.winner)} ${s(d.reason)}`,
};

export function describeEvent(ev: Event): string {
  const d = ev.data;
  const f = FORMATS[ev.kind];
  const rule = typeof d.rule === "string" ? ` [${d.rule}]` : "";
  if (f) return `#${ev.seq} ${f(d)}${rule}`;
  const parts = Object.entries(d)
    .filter(([k, v]) => !["clocks", "state", "view", "rule"].includes(k) && (typeof v !== "object" || v === null || Array.isArray(v)))
    .slice(0, 5)
    .map(([k, v]) => `${k}=${s(v)}`);
  return `#${ev.seq} ${ev.kind}${parts.length ? `: ${parts.join(" ")}` : ""}${rule}`;
}

/** The battle's dice, fire, melee, morale and losses, as they happen. */
export const BATTLE_LOG_KINDS = new Set([
  "roll", "fire", "losses", "melee", "morale", "fallen", "dispersal", "charge", "contact", "overrun", "arrived",
  "battle_over", "resolution", "turn", "phase_over", "moved", "wheeled", "about_face", "formation", "targets",
  "barrage", "retreat_ordered", "left_melee", "order_carried", "order_failed",
]);
