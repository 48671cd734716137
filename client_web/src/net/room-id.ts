/** Room ids as a type (issue 13 item 5): the one place in the client that knows the grammar the server's
 * server/bus/names.py writes — `c-<campaign>` the campaign room, `b-<campaign>-<battle>` a battle or storm spawned
 * from it, `s-<campaign>` the campaign's secret module (D-N-14). Everything else asks this module. */
export type RoomKind = "campaign" | "battle" | "secret";

export interface RoomId {
  id: string;
  kind: RoomKind;
  campaign: string;
  /** the campaign's battle id, for a battle room */
  battle: string | null;
}

const PREFIX: Record<string, RoomKind> = { c: "campaign", b: "battle", s: "secret" };

/** The room an id names, or null for an id that follows no known grammar. */
export function parseRoom(id: string): RoomId | null {
  const m = /^([cbs])-([^-]+)(?:-(.+))?$/.exec(id);
  if (!m) return null;
  const kind = PREFIX[m[1]!]!;
  if ((kind === "battle") !== (m[3] !== undefined)) return null;
  return { id, kind, campaign: m[2]!, battle: m[3] ?? null };
}

export const campaignRoom = (campaign: string): string => `c-${campaign}`;
export const battleRoom = (campaign: string, battle: string): string => `b-${campaign}-${battle}`;
export const secretRoom = (campaign: string): string => `s-${campaign}`;

/** The campaign a room belongs to (null: an id that names none). */
export function campaignOf(id: string): string | null {
  return parseRoom(id)?.campaign ?? null;
}

export function roomKind(id: string): RoomKind | null {
  return parseRoom(id)?.kind ?? null;
}

export const isSecretRoom = (id: string): boolean => roomKind(id) === "secret";
export const isBattleRoom = (id: string): boolean => roomKind(id) === "battle";
export const isCampaignRoom = (id: string): boolean => roomKind(id) === "campaign";

/** The order rooms are listed in: the campaign, its battles by number, the secret module. */
export function compareRooms(a: string, b: string): number {
  const rank = (id: string) => ({ campaign: 0, battle: 1, secret: 2 })[roomKind(id) ?? "secret"];
  const pa = parseRoom(a);
  const pb = parseRoom(b);
  return rank(a) - rank(b) || (Number(pa?.battle) || 0) - (Number(pb?.battle) || 0) || a.localeCompare(b);
}
