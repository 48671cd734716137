"""The Napoleonic campaign's orders as typed wire models (issue 14): one pydantic model per order, `NapoleonicOrder`
their discriminated union (in the protocol's schema), validated once by `parse` — BadOrder with the rule of the
field at fault (UnknownOrder for an unknown type). The values the rules judge further (a battle's or army's id,
a path's cells, a siege action, capitulation terms) are passed on as given, so the orders accepted are exactly
those of the hand reader before them, and stored campaigns replay.

    {"type": "move", "army": "bulow", "path": [[23, 19], [22, 18]], "attack"?: team}   D-NAP-1, N-START-1
    {"type": "posture", "army": id, "intercept"?: bool, "support"?: bool}               N-START-2, D-N-12
    {"type": "intercept", "army": id, "target": army id}                               N-START-2, D-N-13
    {"type": "answer", "battle": id, "choice": "accept" | "withdraw" | …, "paths"?: {army: path}}   N-START-3
    {"type": "retreat", "army": id, "path": [...]}                                      N-VICTORY-4
    {"type": "reinforce", "battle": id, "army": id}                                     D-N-12
    {"type": "offer_quick", "battle": id} · {"type": "answer_quick", "battle": id, "accept": bool}   D-L-2
    {"type": "siege", "fortress": city, "action": …} · {"type": "terms", "fortress": city, "terms": {...}}
    {"type": "accept_terms", "fortress": city}                                          N-SIEGE-2 … 8
    {"type": "fortify", "army": id}                                                     D-N-16
    {"type": "appoint", "army": id, "general": name}                                    D-N-14
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, TypeAdapter, ValidationError, WithJsonSchema

from server.core.errors import BadOrder, UnknownOrder

Id = Annotated[Any, WithJsonSchema({"type": "string", "description": "an army's id (checked against the map)"})]
Path = Annotated[list[Any] | None, Field(description="cells [x, y] (or \"x-y\"), each next to the one before")]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class MoveArmy(_Wire):
    type: Literal["move"]
    army: Id = None
    path: Path = None
    attack: Any = None


class Posture(_Wire):
    type: Literal["posture"]
    army: Id = None
    intercept: Annotated[bool, Strict()] = False
    support: Annotated[bool, Strict()] = False
    """Only the fields given are changed (`model_fields_set`)."""


class Intercept(_Wire):
    type: Literal["intercept"]
    army: Id = None
    target: Any = None


class Answer(_Wire):
    type: Literal["answer"]
    battle: Any = None
    choice: Any = None
    paths: Any = None


class RetreatArmy(_Wire):
    type: Literal["retreat"]
    army: Id = None
    path: Path = None


class Reinforce(_Wire):
    type: Literal["reinforce"]
    battle: Any = None
    army: Any = None


class OfferQuick(_Wire):
    type: Literal["offer_quick"]
    battle: Any = None


class AnswerQuick(_Wire):
    type: Literal["answer_quick"]
    battle: Any = None
    accept: Any = None


class SiegeOrder(_Wire):
    type: Literal["siege"]
    fortress: Any = None
    action: Any = None
    howitzers: Any = None


class Terms(_Wire):
    type: Literal["terms"]
    fortress: Any = None
    terms: Any = None


class AcceptTerms(_Wire):
    type: Literal["accept_terms"]
    fortress: Any = None


class Fortify(_Wire):
    type: Literal["fortify"]
    army: Id = None


class Appoint(_Wire):
    type: Literal["appoint"]
    army: Id = None
    general: Annotated[str, Strict(), Field(min_length=1, max_length=60)]


NapoleonicOrder = Annotated[MoveArmy | Posture | Intercept | Answer | RetreatArmy | Reinforce | OfferQuick
                            | AnswerQuick | SiegeOrder | Terms | AcceptTerms | Fortify | Appoint,
                            Field(discriminator="type")]
"""Every order of a Napoleonic campaign room on the wire."""
ORDER = TypeAdapter(NapoleonicOrder)
Order = MoveArmy | Posture | Intercept | Answer | RetreatArmy | Reinforce | OfferQuick | AnswerQuick | SiegeOrder \
    | Terms | AcceptTerms | Fortify | Appoint

FIELD_RULES = {"army": "D-NAP-1", "path": "D-NAP-1", "intercept": "N-START-2", "support": "N-START-2",
               "general": "D-N-14"}
"""The rule a malformed field breaks."""


def parse(order: Any) -> Order:
    if not isinstance(order, Mapping):
        raise BadOrder("an order is an object with a type")
    try:
        return ORDER.validate_python(dict(order))
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            kind = order.get("type")
            raise UnknownOrder(f"unknown order {kind!r}", details={"type": str(kind)}) from None
        where = [str(p) for p in first["loc"][1:]]
        name = where[0] if where else "order"
        raise BadOrder(f"{'.'.join(where) or 'the order'}: {first['msg']}", rule=FIELD_RULES.get(name),
                       details={"field": name}) from None
