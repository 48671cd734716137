"""The siege on the campaign map (N-SIEGE-2 … N-SIEGE-5, N-SIEGE-7, N-SIEGE-8, D-N-16): a small pure state machine.

The campaign engine calls it; every call returns a new `Siege` and the events, or raises a typed rule error and
changes nothing.

    lay_siege ──► invested ──(garrison: surrender)──────────────────────────────► ended "surrendered"
                    │  │ └──(besieger: lift)──────────────────────────────────────► ended "lifted"
                    │  └──(garrison: sortie)──► battle "sortie" 25/25 ─ garrison wins ► ended "relieved"
                    │                                              └ besieger wins ► invested (no second sortie)
                    └──(besieger: storm, or nobody gave way by the end of the turn after the siege was laid)
                        ──► battle "storm" 30/25 ─ garrison wins ──► ended "repulsed"
                                                 └ besieger wins (or the garrison capitulates) ─► terms ─► ended
                                                                                                   "captured"

Timing (N-SIEGE-2: "a siege lasts one strategic turn"): a siege laid in campaign turn T may be stormed from turn
T+1 on; if at the end of turn T+1 neither side has given way, the storm takes place (N-SIEGE-5). The garrison may
sortie (once) or surrender, and the besieger may lift the siege, at any time before the storm.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from server.core.engine import Event
from server.core.errors import BadOrder, IllegalOrder, NotYourUnit, UnknownOrder

from .fortress import Fortress
from .terms import SECRET_MODULE_MINUTES, Terms, TermsTalk

INVESTED = "invested"
BATTLE = "battle"
TERMS = "terms"
ENDED = "ended"

BESIEGER = "besieger"
GARRISON = "garrison"

SIEGE_TURNS = 1
"""N-SIEGE-2: a siege lasts one campaign turn before the storm."""
FIELD_LIMIT = 25
"""N-SIEGE-3 (N-START-1): a sortie is a field battle with 25 units a side."""
STORM_LIMITS = {BESIEGER: 30, GARRISON: 25}
"""N-SIEGE-5: storm limits."""


@dataclass(frozen=True, slots=True)
class SiegeArmy:
    """What the siege needs to know of an army: its campaign id, its side (team), its artillery companies
    (N-SIEGE-2) and its general (N-SIEGE-8)."""

    id: str
    side: str
    artillery: int = 0
    general: str = ""

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "side": self.side, "artillery": self.artillery, "general": self.general}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> SiegeArmy:
        return cls(str(d["id"]), str(d["side"]), int(d.get("artillery", 0)), str(d.get("general", "")))


@dataclass(frozen=True, slots=True)
class BattleCall:
    """The battle the campaign must spawn: `kind` "sortie" (a field battle, N-SIEGE-3) or "storm" (on the siege
    map, N-SIEGE-5); `attacker` is the side that attacks in the battle (acts first, D-N-1); `limits` the units
    each side may have on the field."""

    kind: str
    attacker: str
    defender: str
    limits: Mapping[str, int]

    @property
    def siege_map(self) -> bool:
        return self.kind == "storm"

    def dump(self) -> dict[str, Any]:
        return {"kind": self.kind, "attacker": self.attacker, "defender": self.defender,
                "limits": dict(self.limits), "siege_map": self.siege_map}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> BattleCall:
        return cls(str(d["kind"]), str(d["attacker"]), str(d["defender"]),
                   {str(k): int(v) for k, v in dict(d["limits"]).items()})


@dataclass(frozen=True, slots=True)
class Siege:
    fortress: Fortress
    besieger: SiegeArmy
    garrison: SiegeArmy
    begun: int
    phase: str = INVESTED
    battle: BattleCall | None = None
    sortied: bool = False
    holds: bool = False
    outcome: str | None = None
    talk: TermsTalk | None = None

    @property
    def storm_from(self) -> int:
        """N-SIEGE-2: the first campaign turn in which the fortress may be stormed."""
        return self.begun + SIEGE_TURNS

    @property
    def over(self) -> bool:
        return self.phase == ENDED

    @property
    def garrison_supplied(self) -> bool:
        """D-N-16: the besieger cannot cut a port's supply unless the scenario blockades it."""
        return self.fortress.resupplied_by_sea

    def role_of(self, side: str) -> str:
        if side == self.besieger.side:
            return BESIEGER
        if side == self.garrison.side:
            return GARRISON
        raise NotYourUnit(f"{side} takes no part in the siege of {self.fortress.city}", rule="N-SIEGE-2",
                          details={"side": side})

    def side_of(self, role: str) -> str:
        return self.besieger.side if role == BESIEGER else self.garrison.side

    def result(self) -> dict[str, Any]:
        """What the campaign applies when the siege is over: who holds the fortress, what happens to the
        garrison and its general, and which army retreats (N-VICTORY-4)."""
        if self.phase != ENDED:
            raise IllegalOrder("the siege is not over", rule="N-SIEGE-2")
        holder = {"captured": BESIEGER, "surrendered": BESIEGER}.get(self.outcome or "", GARRISON)
        terms = self.talk.agreed if self.talk else None
        garrison = ("prisoners" if terms and terms.garrison == "prisoners" else
                    "marches_out" if self.outcome in ("captured", "surrendered") else "stays")
        retreats = {"lifted": None, "relieved": BESIEGER, "repulsed": BESIEGER}.get(self.outcome or "", GARRISON)
        if garrison == "prisoners":
            retreats = None
        return {
            "fortress": self.fortress.city, "outcome": self.outcome, "holder": self.side_of(holder),
            "garrison": garrison, "general": terms.general if terms else None,
            "retreats": self.side_of(retreats) if retreats else None,
        }

    def dump(self) -> dict[str, Any]:
        return {"fortress": self.fortress.dump(), "besieger": self.besieger.dump(), "garrison": self.garrison.dump(),
                "begun": self.begun, "phase": self.phase, "battle": self.battle.dump() if self.battle else None,
                "sortied": self.sortied, "holds": self.holds, "outcome": self.outcome,
                "talk": self.talk.dump() if self.talk else None}

    @classmethod
    def load(cls, d: Mapping[str, Any]) -> Siege:
        return cls(Fortress.load(d["fortress"]), SiegeArmy.load(d["besieger"]), SiegeArmy.load(d["garrison"]),
                   int(d["begun"]), str(d["phase"]), BattleCall.load(d["battle"]) if d.get("battle") else None,
                   bool(d.get("sortied", False)), bool(d.get("holds", False)), d.get("outcome"),
                   TermsTalk.load(d["talk"]) if d.get("talk") else None)


def requires_siege(fortress: Fortress | None, garrisoned: bool) -> bool:
    """N-SIEGE-2: an army in a fortress must be besieged before it can be taken (no ordinary battle)."""
    return fortress is not None and garrisoned


def lay_siege(fortress: Fortress, besieger: SiegeArmy, garrison: SiegeArmy, turn: int) -> tuple[Siege, list[Event]]:
    """N-SIEGE-2: `besieger` invests `fortress`, which holds `garrison`. Only an army with artillery may."""
    if besieger.side == garrison.side:
        raise IllegalOrder("an army cannot besiege its own side", rule="N-SIEGE-2")
    if besieger.artillery < 1:
        raise IllegalOrder("only an army with artillery may besiege a fortress", rule="N-SIEGE-2",
                           details={"army": besieger.id})
    siege = Siege(fortress, besieger, garrison, turn)
    return siege, [_event("siege_laid", siege, besieger=besieger.side, garrison=garrison.side, turn=turn,
                          storm_from=siege.storm_from, resupplied_by_sea=siege.garrison_supplied, rule="N-SIEGE-2")]


# What each side may order while the fortress is invested, and the rule that gives the choice.
INVESTED_ORDERS: dict[tuple[str, str], str] = {
    (BESIEGER, "storm"): "N-SIEGE-5",
    (BESIEGER, "lift"): "N-SIEGE-2",
    (GARRISON, "sortie"): "N-SIEGE-3",
    (GARRISON, "surrender"): "N-SIEGE-4",
    (GARRISON, "hold"): "N-SIEGE-5",
}


def order(siege: Siege, side: str, action: str, turn: int) -> tuple[Siege, list[Event]]:
    """A commander's siege decision (N-SIEGE-2 … N-SIEGE-5): the besieger storms or lifts, the garrison sorties,
    surrenders or holds."""
    role = siege.role_of(side)
    if not any(a == action for _, a in INVESTED_ORDERS):
        raise UnknownOrder(f"unknown siege order {action!r}", rule="N-SIEGE-2", details={"order": action})
    rule = INVESTED_ORDERS.get((role, action))
    if rule is None:
        raise NotYourUnit(f"the {role} cannot order {action!r}", rule="N-SIEGE-2",
                          details={"order": action, "role": role})
    if siege.phase != INVESTED:
        raise IllegalOrder(f"the siege is past the point of {action!r} ({siege.phase})", rule=rule,
                           details={"phase": siege.phase})
    if action == "storm":
        if turn < siege.storm_from:
            raise IllegalOrder("the siege lasts one campaign turn before the storm", rule="N-SIEGE-2",
                               details={"turn": turn, "storm_from": siege.storm_from})
        return _storm(siege, turn, forced=False)
    if action == "lift":
        s = replace(siege, phase=ENDED, outcome="lifted")
        return s, [_event("siege_lifted", s, turn=turn, rule=rule)]
    if action == "surrender":
        s = replace(siege, phase=ENDED, outcome="surrendered")
        return s, [_event("fortress_surrendered", s, turn=turn, holder=siege.besieger.side,
                          retreats=siege.garrison.side, rule=rule)]
    if action == "hold":
        s = replace(siege, holds=True)
        return s, [_event("garrison_holds", s, turn=turn, rule=rule)]
    if siege.sortied:
        raise IllegalOrder("the garrison has already made its sortie in this siege", rule="N-SIEGE-3")
    call = BattleCall("sortie", siege.garrison.side, siege.besieger.side,
                      {siege.garrison.side: FIELD_LIMIT, siege.besieger.side: FIELD_LIMIT})
    s = replace(siege, phase=BATTLE, battle=call, sortied=True)
    return s, [_event("sortie", s, turn=turn, battle=call.dump(), rule=rule)]


def turn_ended(siege: Siege, turn: int) -> tuple[Siege, list[Event]]:
    """End of campaign turn `turn`: when the siege has lasted its turn and nobody gave way, the storm takes
    place (N-SIEGE-2, N-SIEGE-5)."""
    if siege.phase == INVESTED and turn >= siege.storm_from:
        return _storm(siege, turn, forced=True)
    return siege, []


def battle_ended(siege: Siege, winner: str, *, capitulated: bool = False) -> tuple[Siege, list[Event]]:
    """The sortie or storm battle is over, won by side `winner`. A lost sortie sends the garrison back behind
    its walls and the siege goes on; a won sortie breaks it (N-SIEGE-3). A storm won by the besieger, or
    ended by the garrison's capitulation order, captures the fortress and opens the terms (N-SIEGE-7,
    N-SIEGE-8); a repulsed storm ends the siege."""
    if siege.phase != BATTLE or siege.battle is None:
        raise IllegalOrder("no siege battle is being fought", rule="N-SIEGE-2")
    role = siege.role_of(winner)
    kind = siege.battle.kind
    if capitulated and (kind != "storm" or role != BESIEGER):
        raise IllegalOrder("only a stormed garrison capitulates, and the besieger then wins", rule="N-SIEGE-8")
    if kind == "sortie":
        if role == GARRISON:
            s = replace(siege, phase=ENDED, battle=None, outcome="relieved")
            return s, [_event("siege_broken", s, winner=winner, retreats=siege.besieger.side, rule="N-SIEGE-3")]
        s = replace(siege, phase=INVESTED, battle=None)
        return s, [_event("sortie_repulsed", s, winner=winner, storm_from=s.storm_from, rule="N-SIEGE-3")]
    if role == GARRISON:
        s = replace(siege, phase=ENDED, battle=None, outcome="repulsed")
        return s, [_event("storm_repulsed", s, winner=winner, retreats=siege.besieger.side, rule="N-SIEGE-7")]
    s = replace(siege, phase=TERMS, battle=None, talk=TermsTalk())
    return s, [_event("fortress_captured", s, winner=winner, capitulated=capitulated,
                      rule="N-SIEGE-8" if capitulated else "N-SIEGE-7")]


def propose_terms(siege: Siege, side: str, terms: Mapping[str, Any] | Terms) -> tuple[Siege, list[Event]]:
    """N-SIEGE-8: a commander proposes capitulation terms (or counter-proposes)."""
    siege.role_of(side)
    talk = _talk(siege)
    t = terms if isinstance(terms, Terms) else Terms.parse(terms)
    s = replace(siege, talk=talk.propose(side, t))
    return s, [_event("terms_proposed", s, by=side, terms=t.dump(), rule="N-SIEGE-8")]


def accept_terms(siege: Siege, side: str) -> tuple[Siege, list[Event]]:
    """N-SIEGE-8: the other commander accepts the standing proposal; the siege ends on those terms."""
    siege.role_of(side)
    return _settle(siege, _talk(siege).accept(side), by=side)


def impose_terms(siege: Siege, terms: Mapping[str, Any] | Terms) -> tuple[Siege, list[Event]]:
    """N-SIEGE-8: the moderator imposes the terms."""
    t = terms if isinstance(terms, Terms) else Terms.parse(terms)
    return _settle(siege, _talk(siege).impose(t), by="moderator")


DEFAULT_TERMS = Terms("prisoners", "captured")
"""N-SIEGE-8, D-NAP-9: the terms that hold when the victorious besieger lets its turn end without settling them —
the garrison of a fortress taken by storm surrenders at discretion: nothing is conceded that was not agreed."""


def terms_due(siege: Siege) -> str | None:
    """N-SIEGE-8, D-NAP-9: whose word the terms wait for — the garrison's while the besieger's proposal stands, the
    besieger's otherwise (nothing proposed yet, or the garrison's counter-proposal); None when not negotiating."""
    if siege.phase != TERMS or siege.talk is None or siege.talk.agreed is not None:
        return None
    return siege.garrison.side if siege.talk.proposer == siege.besieger.side else siege.besieger.side


def terms_lapse(siege: Siege, side: str) -> tuple[Siege, list[Event]]:
    """D-NAP-9 (issue 12: no decision stalls the campaign): the side the terms wait for let its turn end or its
    clock run out — the garrison accepts the besieger's standing proposal; the besieger's silence concedes nothing,
    so the default terms hold (`DEFAULT_TERMS`)."""
    if terms_due(siege) != side:
        raise IllegalOrder("the terms do not wait for this side", rule="N-SIEGE-8", details={"side": side})
    talk = _talk(siege)
    if side == siege.garrison.side:
        return _settle(siege, talk.accept(side), by=side, default=True)
    return _settle(siege, talk.lapse(DEFAULT_TERMS), by=side, default=True)


def _talk(siege: Siege) -> TermsTalk:
    if siege.phase != TERMS or siege.talk is None:
        raise IllegalOrder("capitulation terms are settled only after the fortress has fallen", rule="N-SIEGE-8",
                           details={"phase": siege.phase})
    return siege.talk


def _settle(siege: Siege, talk: TermsTalk, by: str, *, default: bool = False) -> tuple[Siege, list[Event]]:
    terms = talk.agreed
    if terms is None:
        raise BadOrder("no terms agreed", rule="N-SIEGE-8")
    s = replace(siege, phase=ENDED, outcome="captured", talk=talk)
    events = [_event("terms_agreed", s, by=by, imposed=talk.imposed, terms=terms.dump(), result=s.result(),
                     default=default, rule="N-SIEGE-8, D-NAP-9" if default else "N-SIEGE-8")]
    general = siege.garrison.general
    if terms.general == "captured":
        events.append(_event("general_captured", s, general=general, side=siege.garrison.side,
                             secret_module_minutes=SECRET_MODULE_MINUTES, rule="N-SIEGE-8"))
    else:
        events.append(_event("general_released", s, general=general, side=siege.garrison.side, rule="N-SIEGE-8"))
    return s, events


def _storm(siege: Siege, turn: int, *, forced: bool) -> tuple[Siege, list[Event]]:
    call = BattleCall("storm", siege.besieger.side, siege.garrison.side,
                      {siege.besieger.side: STORM_LIMITS[BESIEGER], siege.garrison.side: STORM_LIMITS[GARRISON]})
    s = replace(siege, phase=BATTLE, battle=call)
    return s, [_event("storm", s, turn=turn, forced=forced, battle=call.dump(), rule="N-SIEGE-5")]


def _event(kind: str, siege: Siege, **data: Any) -> Event:
    return Event(kind, {"fortress": siege.fortress.city, "phase": siege.phase, **data})
