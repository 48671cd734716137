/** Names for what events and views carry by id: units by their name (or ordinal, arm and army), armies, places
 * by the city on the cell, battles by where they are fought, rooms by what they are. Read from the states this
 * client holds (the campaign room's map, armies and battles; the battle room's units). */
import { battleOf, isStormKind, ordinal, proper, t, has } from "../i18n";
import { armWord } from "../i18n/words";
import { isObj, listOf, str, type Obj } from "../read";
import type { Session } from "../net/session";
import { campaignRoom, parseRoom } from "../net/room-id";

export interface Names {
  unit(id: unknown): string;
  /** a battle unit's short name for the field's labels ("3rd inf."), else its name */
  short?(id: unknown): string;
  army(id: unknown): string;
  place(cell: unknown): string;
  battle(id: unknown): string;
  room(id: string): string;
}

function cellKey(v: unknown): string | null {
  if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number") return `${v[0]},${v[1]}`;
  if (isObj(v) && typeof v.x === "number" && typeof v.y === "number") return `${v.x},${v.y}`;
  return null;
}

/** Names as seen from `roomId` (a battle room borrows its campaign's armies and map). `campaignName`: what the
 * lobby calls the campaign, when known. */
export function namesFor(session: Session, roomId: string, campaignName: string | null = null): Names {
  const parsed = parseRoom(roomId);
  const campaign = parsed ? session.rooms.get(campaignRoom(parsed.campaign))?.state ?? {} : {};
  const here = session.rooms.get(roomId)?.state ?? {};
  const map = isObj(campaign.map) ? campaign.map : {};
  const places = new Map(listOf(map.places).flatMap((p) => { const k = cellKey(p.cell); return k ? [[k, str(p.name)] as const] : []; }));
  const armies = new Map(listOf(campaign.armies).map((a) => [str(a.id), a]));
  const battles = new Map(listOf(campaign.battles).map((b) => [str(b.id), b]));
  const kinds = new Map<string, string>();
  for (const a of armies.values()) for (const u of listOf(a.units)) kinds.set(str(u.id), str(u.type));
  const unitsHere = new Map([...listOf(here.units), ...listOf(here.counters), ...listOf(here.forces)].map((u) => [str(u.id), u]));

  const place = (cell: unknown): string => {
    const k = cellKey(cell);
    if (!k) return str(cell);
    const name = places.get(k);
    return name ? proper(name) : k;
  };
  const army = (id: unknown): string => {
    const a = armies.get(str(id));
    return a ? proper(str(a.name ?? a.id)) : str(id);
  };
  const unit = (id: unknown): string => {
    const key = str(id);
    const u: Obj | undefined = unitsHere.get(key);
    if (u && typeof u.name === "string" && u.name && u.name !== key) return proper(u.name);
    const m = /^(.+)-(\d+)$/.exec(key);
    const type = str(u?.type ?? kinds.get(key) ?? "");
    if (m && armies.has(m[1]!)) {
      const n = Number(m[2]);
      const tpl = has(`unit.named.${type}`) ? `unit.named.${type}` : "unit.named.other";
      return t(tpl as never, { ord: ordinal(n), n, army: army(m[1]) });
    }
    if (armies.has(key)) return army(key);
    // a unit of no army, numbered by the engine ("fortress-gun-3", N-SIEGE-11): its kind and number, not its id
    if (m && has(`unit.numbered.${type}`)) return t(`unit.numbered.${type}` as never, { n: Number(m[2]) });
    // an army this viewer does not see (the public view of a battle): the unit's short name, never the army's id
    if (m && has(`unit.short.${type}`)) return t(`unit.short.${type}` as never, { ord: ordinal(Number(m[2])), n: Number(m[2]) });
    return type ? `${armWord(type)} ${key}` : key;
  };
  const short = (id: unknown): string => {
    const key = str(id);
    const m = /^(.+)-(\d+)$/.exec(key);
    const type = str(unitsHere.get(key)?.type ?? kinds.get(key) ?? "");
    if (!m || !has(`unit.short.${type}`)) return unit(id);
    const n = Number(m[2]);
    return t(`unit.short.${type}` as never, { ord: ordinal(n), n });
  };
  const battle = (id: unknown): string => {
    const b = battles.get(str(id));
    if (!b) {
      // a storm this client knows only from its own room (its campaign's map not joined): by its fortress (N-SIEGE-5)
      const fortress = parsed?.kind === "battle" && parsed.battle === str(id) && isObj(here.siege) ? str(here.siege.fortress) : "";
      return fortress ? battleOf(fortress, true) : t("room.battle.n", { n: str(id) });
    }
    const k = cellKey(b.cell);
    const raw = k ? places.get(k) : undefined;
    const storm = isStormKind(str(b.kind));
    return raw ? battleOf(raw, storm) : t(storm ? "room.storm.of" : "room.battle.of", { place: place(b.cell) });
  };
  const room = (id: string): string => {
    const r = parseRoom(id);
    if (!r) return id;
    if (r.kind === "secret") return t("room.secret");
    if (r.kind === "battle") return r.campaign === parsed?.campaign || !parsed ? battle(r.battle) : t("room.battle.n", { n: r.battle ?? "" });
    // a campaign room plays a campaign or a skirmish (S-1): each titled by what it is
    const skirmish = session.rooms.get(id)?.state.kind === "skirmish";
    const title = campaignName ?? str(campaign.title ?? campaign.scenario ?? "");
    if (skirmish) return title ? t("room.skirmish.of", { name: proper(title) }) : t("room.skirmish");
    return title ? t("room.campaign.of", { name: proper(title) }) : t("room.campaign");
  };
  return { unit, short, army, place, battle, room };
}

