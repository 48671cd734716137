/** The Napoleonic campaign's decisions beyond the march (server/napoleonic/campaign/engine.py): siege decisions and terms
 * (N-SIEGE-2…5, N-SIEGE-8), reinforcements (D-N-12), interception and posture (N-START-2, D-N-13), fortifying a city
 * (D-N-16), a replacement general (D-N-14). Each function reads the engine's view and offers only what the viewer's
 * team may do now; the engine still decides, and its refusal is shown with the rule. */
import type { ArmyUnitView, NapoleonicArmyView, NapoleonicView } from "../net/protocol";

export type Order = Record<string, unknown>;
export type { NapoleonicArmyView as Army } from "../net/protocol";
/** An order offered to the player: `key` names its button (i18n `nap.<key>`), `args` fill the label. */
export interface Offer { key: string; order: Order; args?: Record<string, string | number> }

export interface Siege {
  fortress: string;
  cell: [number, number];
  phase: string;
  besieger: string;
  garrison: string;
  stormFrom: number | null;
  sortied: boolean;
  holds: boolean;
  proposal: { garrison: string; general: string } | null;
  proposer: string | null;
}

export interface NapView {
  turn: number;
  active: string[];
  sieges: Siege[];
  interceptions: { by: string; target: string; cell: [number, number] }[];
  fortifications: { city: string; army: string; team: string; done: number; needed: number }[];
  fortresses: string[];
  places: { name: string; kind: string; cell: [number, number] }[];
  armies: NapoleonicArmyView[];
  battles: { id: string; cell: [number, number]; status: string; attacker: string; defender: string }[];
  reinforcementRange: number;
}

const pair = (v: readonly number[]): [number, number] => [v[0] ?? 0, v[1] ?? 0];

/** The room's `state` of a Napoleonic campaign, typed by the protocol (`NapoleonicView`,
 * shared/protocol/campaign_views.py). */
export function napoleonicView(state: unknown): NapoleonicView {
  return state as NapoleonicView;
}

export function readNapoleon(state: NapoleonicView): NapView {
  return {
    turn: state.turn,
    active: state.active,
    sieges: state.sieges.map((s) => ({
      fortress: s.fortress, cell: pair(s.cell), phase: s.phase, besieger: s.besieger, garrison: s.garrison,
      stormFrom: s.storm_from, sortied: s.sortied, holds: s.holds,
      proposal: s.proposal ? { garrison: s.proposal.garrison, general: s.proposal.general } : null,
      proposer: s.proposer,
    })),
    interceptions: state.interceptions.map((i) => ({ by: i.by, target: i.target, cell: pair(i.cell) })),
    fortifications: state.fortifications.map((f) => ({ city: f.city, army: f.army, team: f.team, done: f.done, needed: f.needed })),
    fortresses: state.fortresses_built,
    places: state.map.places.map((p) => ({ name: p.name, kind: p.kind, cell: pair(p.cell) })),
    armies: state.armies,
    battles: state.battles.map((b) => ({ id: b.id, cell: pair(b.cell), status: b.status, attacker: b.attacker, defender: b.defender })),
    reinforcementRange: state.tables?.reinforcement_range ?? 7,
  };
}

/** D-GEN-2 (server/napoleonic/campaign/movement.py cells_apart): Euclidean distance between cell centres, rounded half up. */
export function cellsApart(a: [number, number], b: [number, number]): number {
  return Math.floor(Math.hypot(a[0] - b[0], a[1] - b[1]) + 0.5 + 1e-9);
}

const isArtillery = (u: ArmyUnitView): boolean => u.type.includes("artillery");
const myTurn = (v: NapView, team: string): boolean => v.active.includes(team);

/** N-SIEGE-2…5 while the fortress is invested: the besieger lifts, or storms from the turn after the siege was laid;
 * the garrison sorties (once), surrenders or holds. N-SIEGE-8 after the storm: either commander proposes terms, the
 * other accepts the standing proposal. */
export function siegeOffers(s: Siege, team: string | null, turn: number): Offer[] {
  if (!team || (team !== s.besieger && team !== s.garrison)) return [];
  const act = (action: string): Offer => ({ key: `siege.${action}`, order: { type: "siege", fortress: s.fortress, action } });
  if (s.phase === "invested") {
    if (team === s.besieger) return [...(s.stormFrom === null || turn >= s.stormFrom ? [act("storm")] : []), act("lift")];
    return [...(s.sortied ? [] : [act("sortie")]), ...(s.holds ? [] : [act("hold")]), act("surrender")];
  }
  if (s.phase === "terms" && s.proposal && s.proposer && s.proposer !== team) {
    return [{ key: "terms.accept", order: { type: "accept_terms", fortress: s.fortress }, args: { ...s.proposal } }];
  }
  return [];
}

/** The field companies that may become howitzers for a storm (server/napoleonic/siege/rules.py HOWITZER_OF). */
export const FIELD_GUNS = ["foot_artillery", "horse_artillery"] as const;

/** N-SIEGE-9, D-N-15: what the besieger may turn into howitzers with its storm order — the field companies of its
 * armies besieging the fortress, at most half of all their artillery companies, rounded up
 * (server/napoleonic/siege/deployment.py howitzer_limit). Null when the viewer is not the besieger or has none. */
export interface HowitzerChoice { companies: ArmyUnitView[]; limit: number; of: number }

export function howitzerChoice(v: NapView, s: Siege, team: string | null): HowitzerChoice | null {
  if (!team || team !== s.besieger || s.phase !== "invested") return null;
  const units = v.armies.filter((a) => a.team === team && a.status === "besieging" && a.cell[0] === s.cell[0] && a.cell[1] === s.cell[1])
    .flatMap((a) => (typeof a.units === "number" ? [] : a.units));
  const artillery = units.filter(isArtillery);
  const companies = artillery.filter((u) => (FIELD_GUNS as readonly string[]).includes(u.type));
  return companies.length ? { companies, limit: Math.ceil(artillery.length / 2), of: artillery.length } : null;
}

/** N-SIEGE-5, N-SIEGE-9: the besieger's storm order, naming the companies chosen as howitzers (none: no field). */
export function stormOrder(fortress: string, howitzers: readonly string[]): Order {
  return { type: "siege", fortress, action: "storm", ...(howitzers.length ? { howitzers: [...howitzers] } : {}) };
}

export const GARRISON_TERMS = ["prisoners", "march_out"] as const;
export const GENERAL_TERMS = ["captured", "released"] as const;

/** N-SIEGE-8: a commander's proposal (or counter-proposal) of capitulation terms. */
export function termsOrder(fortress: string, garrison: string, general: string): Order {
  return { type: "terms", fortress, terms: { garrison, general } };
}

/** N-SIEGE-8: the moderator's ruling imposing the terms. */
export function imposeTermsRuling(fortress: string, garrison: string, general: string): Order {
  return { type: "impose_terms", fortress, terms: { garrison, general } };
}

/** N-START-4, D-N-12: while a contact waits for the defender's answer, either side may order its free armies within
 * the reinforcement range (1 to 7 cells) to the battle. */
export function reinforceOffers(v: NapView, team: string | null): Offer[] {
  if (!team) return [];
  return v.battles.filter((b) => b.status === "contact" && (b.attacker === team || b.defender === team)).flatMap((b) =>
    v.armies.filter((a) => a.team === team && a.status === "ready").flatMap((a) => {
      const d = cellsApart(pair(a.cell), b.cell);
      return d >= 1 && d <= v.reinforcementRange
        ? [{ key: "reinforce", order: { type: "reinforce", battle: b.id, army: a.id }, args: { army: a.name || a.id, battle: b.id, d } }]
        : [];
    }));
}

/** N-START-2, D-N-13: in the team's turn, an army set to intercept may fall on an enemy army seen ending a move
 * within 5 cells (the view lists those chances for the team). */
export function interceptOffers(v: NapView, team: string | null): Offer[] {
  if (!team || !myTurn(v, team)) return [];
  const name = (id: string) => v.armies.find((a) => a.id === id)?.name ?? id;
  return v.interceptions.filter((i) => v.armies.some((a) => a.id === i.by && a.team === team && a.status === "ready"))
    .map((i) => ({ key: "intercept", order: { type: "intercept", army: i.by, target: i.target }, args: { army: name(i.by), target: name(i.target) } }));
}

/** Orders for one of the team's own armies in its turn: posture (intercept, support: N-START-2, D-N-12), fortify
 * the city it stands in (D-N-16: a city that is not a fortress, with an artillery company, not already being
 * fortified), appoint a general when it has none (D-N-14). */
export function armyOffers(v: NapView, army: NapoleonicArmyView, team: string | null): Offer[] {
  if (!team || army.team !== team || !myTurn(v, team) || army.status === "destroyed" || army.status === "captured") return [];
  const id = army.id;
  const offers: Offer[] = [];
  if (army.status === "ready") {
    const intercept = army.intercept === true;
    const support = army.support === true;
    offers.push({ key: intercept ? "posture.intercept_off" : "posture.intercept_on", order: { type: "posture", army: id, intercept: !intercept } });
    offers.push({ key: support ? "posture.support_off" : "posture.support_on", order: { type: "posture", army: id, support: !support } });
    const cell = pair(army.cell);
    const place = v.places.find((p) => p.cell[0] === cell[0] && p.cell[1] === cell[1]);
    if (place && (place.kind === "city" || place.kind === "capital") && !v.fortresses.includes(place.name) &&
        !v.fortifications.some((f) => f.city === place.name) && typeof army.units !== "number" && army.units.some(isArtillery)) {
      offers.push({ key: "fortify", order: { type: "fortify", army: id }, args: { city: place.name } });
    }
  }
  return offers;
}

/** D-N-14: an army whose general fell or was captured waits for the team to appoint another (in its turn). */
export function needsGeneral(v: NapView, army: NapoleonicArmyView, team: string | null): boolean {
  return !!team && army.team === team && myTurn(v, team) && !army.general && army.status !== "destroyed" && army.status !== "captured";
}

export function appointOrder(army: string, general: string): Order {
  return { type: "appoint", army, general: general.trim() };
}

/** N-VICTORY-4: a beaten army its team must lead away — how far it may go and the engine's own choice, which holds
 * when the team does not choose before its turn ends or its clock flags (D-NAP-3). Cells in the engine's
 * coordinates. Null for an army that has no retreat to make. */
export interface Retreat { army: string; name: string; team: string; cells: number; suggested: [number, number][] }

export function retreatOf(army: NapoleonicArmyView): Retreat | null {
  const r = army.retreat;
  if (army.status !== "retreating" || !r) return null;
  return { army: army.id, name: army.name || army.id, team: army.team, cells: r.cells, suggested: (r.suggested ?? []).map(pair) };
}

/** The retreats waiting for a choice, of one team or of all. */
export function retreatsDue(v: NapView, team: string | null = null): Retreat[] {
  return v.armies.map(retreatOf).filter((r): r is Retreat => r !== null && (team === null || r.team === team));
}

/** N-VICTORY-4: the team's choice — 1 to `cells` steps to neighbouring cells, from the army's cell. */
export function retreatOrder(army: string, path: [number, number][]): Order {
  return { type: "retreat", army, path };
}
