/** Reading the engines' views, which arrive as plain JSON: tolerant accessors that never throw. */
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export const str = (v: unknown, d = ""): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : d);

/** A list of objects, or a map of id → object read as a list with the ids filled in. */
export function listOf(v: unknown): Obj[] {
  if (Array.isArray(v)) return v.filter(isObj);
  if (isObj(v)) return Object.entries(v).filter(([, u]) => isObj(u)).map(([id, u]) => ({ id, ...(u as Obj) }));
  return [];
}
