/** The rulings each room's engine accepts, as forms: a field per part of the ruling, with pickers for teams,
 * units, battles and players (server/napoleonic/battle/engine.py, server/napoleonic/siege/engine.py, server/napoleonic/campaign/engine.py,
 * server/continental/moderation.py, server/rooms/drill.py; the room itself takes `spectator_delay`). */
export type FieldKind = "team" | "unit" | "battle" | "text" | "int" | "number";

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
  { type: "end_battle", rule: "N-VICTORY-1", fields: [{ name: "winner", kind: "team" }, { name: "reason", kind: "text" }] },
  { type: "adjust", rule: "N-FIRE-4", fields: [{ name: "unit", kind: "unit" }, { name: "morale", kind: "int", optional: true, min: 0, max: 10 },
    { name: "loss_tolerance", kind: "int", optional: true, min: 0, max: 20 }, { name: "guns", kind: "int", optional: true, min: 0, max: 12 }] },
];

export const RULINGS: Record<string, RulingForm[]> = {
  battle: BATTLE,
  siege: [...BATTLE, { type: "capitulation", rule: "N-SIEGE-8", fields: [] }],
  napoleonic: [{ type: "impose_quick", rule: "D-L-2", fields: [{ name: "battle", kind: "battle" }] }],
  continental: [
    { type: "inform", rule: "C-9.4", fields: [{ name: "team", kind: "team" }, { name: "text", kind: "text" }] },
    { type: "adjust_rating", rule: "C-9.4", fields: [{ name: "unit", kind: "unit" }, { name: "rating", kind: "number", min: 0 }] },
    { type: "penalty", rule: "C-9.3", fields: [{ name: "team", kind: "team" }, { name: "points", kind: "int" }, { name: "reason", kind: "text" }] },
    { type: "limit_interventions", rule: "C-9.4", fields: [] },
    { type: "end_campaign", rule: "C-10.1", fields: [{ name: "winner", kind: "team", optional: true }] },
  ],
  drill: [{ type: "note", rule: null, fields: [{ name: "text", kind: "text" }] }],
};

/** Which engine a room's state comes from, by what its view carries. */
export function engineOf(kind: string, state: Record<string, unknown>): string {
  if (kind === "battle") return state.siege ? "siege" : "battle";
  if (Array.isArray(state.armies)) return "napoleonic";
  if (Array.isArray(state.counters)) return "drill";
  return "continental";
}

/** The ruling a filled form makes: empty optional fields are left out, numbers are numbers. */
export function buildRuling(form: RulingForm, values: Record<string, string>): Record<string, unknown> {
  const ruling: Record<string, unknown> = { type: form.type };
  for (const f of form.fields) {
    const v = (values[f.name] ?? "").trim();
    if (!v) continue;
    ruling[f.name] = f.kind === "int" ? Math.round(Number(v)) : f.kind === "number" ? Number(v) : v;
  }
  return ruling;
}
