/** The rulings each room's engine accepts, as forms: a field per part of the ruling, with pickers for teams,
 * units, battles and players (server/napoleonic/battle/engine.py, server/napoleonic/siege/engine.py, server/napoleonic/campaign/engine.py,
 * server/continental/moderation.py, server/rooms/drill.py, server/skirmish/engine.py; the room itself takes `spectator_delay`). */
/** A field's kind: a picker (team, unit, several units, battle), text, a whole or any number, or cells typed as
 * "45-22 46-22". */
export type FieldKind = "team" | "unit" | "units" | "battle" | "text" | "int" | "number" | "cells";

export interface RulingField {
  name: string;
  kind: FieldKind;
  optional?: boolean;
  min?: number;
  max?: number;
}

export interface RulingForm {
  type: string;
  rule: string | null;
  fields: RulingField[];
}

const BATTLE: RulingForm[] = [
  { type: "end_battle", rule: "N-VICTORY-1", fields: [{ name: "winner", kind: "team" }, { name: "reason", kind: "text", optional: true }] },
  { type: "adjust", rule: "N-FIRE-4", fields: [{ name: "unit", kind: "unit" }, { name: "morale", kind: "int", optional: true, min: 0, max: 10 },
    { name: "loss_tolerance", kind: "int", optional: true, min: 0, max: 20 }, { name: "guns", kind: "int", optional: true, min: 0, max: 12 }] },
  { type: "assign_fire", rule: "N-FIRE-4", fields: [{ name: "shooter", kind: "unit" }, { name: "targets", kind: "units" },
    { name: "turns", kind: "int", optional: true, min: 1, max: 40 }] },
];

export const RULINGS: Record<string, RulingForm[]> = {
  battle: BATTLE,
  siege: [...BATTLE, { type: "capitulation", rule: "N-SIEGE-8", fields: [] }],
  napoleonic: [{ type: "impose_quick", rule: "D-L-2", fields: [{ name: "battle", kind: "battle" }] }],
  continental: [
    { type: "inform", rule: "C-9.4", fields: [{ name: "team", kind: "team" }, { name: "text", kind: "text" }] },
    { type: "adjust_rating", rule: "C-9.4", fields: [{ name: "unit", kind: "unit" }, { name: "rating", kind: "number", min: 0 }] },
    { type: "penalty", rule: "C-9.3", fields: [{ name: "team", kind: "team" }, { name: "points", kind: "int" }, { name: "reason", kind: "text", optional: true }] },
    { type: "limit_interventions", rule: "C-9.4", fields: [] },
    { type: "end_campaign", rule: "C-10.1", fields: [{ name: "winner", kind: "team", optional: true }] },
    { type: "close_road", rule: "C-9.4", fields: [{ name: "cells", kind: "cells" }, { name: "turns", kind: "int", optional: true, min: 1, max: 100 }] },
    { type: "open_road", rule: "C-9.4", fields: [{ name: "cells", kind: "cells" }] },
  ],
  drill: [{ type: "note", rule: null, fields: [{ name: "text", kind: "text" }] }],
  // server/skirmish/engine.py `moderate` (docs/skirmish.md); `morale` takes a yes/no the forms have no field for
  skirmish: [
    { type: "note", rule: null, fields: [{ name: "text", kind: "text" }] },
    { type: "set_orders", rule: "S-5.2", fields: [{ name: "side", kind: "team" }, { name: "left", kind: "int", min: 0, max: 12 }] },
    { type: "set_status", rule: "D-S-9", fields: [{ name: "figure", kind: "text" }, { name: "status", kind: "text" }] },
    { type: "resolve_hits", rule: "D-S-9", fields: [] },
    { type: "end_game", rule: "D-S-15", fields: [{ name: "winner", kind: "team" }, { name: "reason", kind: "text", optional: true }] },
  ],
};

/** Which engine a room's state comes from, by what its view carries. */
export function engineOf(kind: string, state: Record<string, unknown>): string {
  if (state.kind === "skirmish") return "skirmish";
  if (kind === "battle") return state.siege ? "siege" : "battle";
  if (Array.isArray(state.armies)) return "napoleonic";
  if (Array.isArray(state.counters)) return "drill";
  return "continental";
}

/** The ruling a filled form makes: empty optional fields are left out, numbers are numbers, several units a list,
 * cells a list of [x, y]. */
export function buildRuling(form: RulingForm, values: Record<string, string | string[]>): Record<string, unknown> {
  const ruling: Record<string, unknown> = { type: form.type };
  for (const f of form.fields) {
    const raw = values[f.name] ?? "";
    if (Array.isArray(raw)) {
      if (raw.length) ruling[f.name] = raw;
      continue;
    }
    const v = raw.trim();
    if (!v) continue;
    ruling[f.name] = f.kind === "int" ? Math.round(Number(v)) : f.kind === "number" ? Number(v) : f.kind === "cells" ? readCells(v) : v;
  }
  return ruling;
}

/** "45-22 46,22" → [[45, 22], [46, 22]]. */
export function readCells(text: string): number[][] {
  return [...text.matchAll(/(-?\d+)\s*[-,]\s*(-?\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** Whether a form can be sent: every field that is not optional has a value. */
export function complete(form: RulingForm, values: Record<string, string | string[]>): boolean {
  return form.fields.every((f) => f.optional || (Array.isArray(values[f.name]) ? values[f.name]!.length > 0 : String(values[f.name] ?? "").trim() !== ""));
}
