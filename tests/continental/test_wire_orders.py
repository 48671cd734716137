"""The Continental War's orders are typed wire models validated once (issue 14): a malformed order is a BadOrder
naming its order's rule and the field at fault, an unknown type an UnknownOrder, and the models are the
protocol's `ContinentalOrder` (schema.json)."""

from __future__ import annotations

from typing import Any

import pytest

from server.continental.orders import KIND_RULES, KINDS, ORDER, parse
from server.core.errors import BadOrder, UnknownOrder
from shared.protocol.schema import build_schema


@pytest.mark.parametrize(("order", "rule", "field"), [
    ({"type": "move", "unit": "u"}, "C-4.3", "path"),
    ({"type": "march", "unit": "u", "path": [[1.5, 2]]}, "C-4.8", "path"),
    ({"type": "turn", "unit": "u", "facing": "up"}, "C-4.3bis", "facing"),
    ({"type": "frontage", "unit": "u", "width": 3}, "C-4.6", "width"),
    ({"type": "attack", "target": [1, 1], "echelons": []}, "C-9.8c", "echelons"),
    ({"type": "strike", "unit": "u", "target": [99999, 1]}, "C-9.7a", "target"),
    ({"type": "question", "kind": "count"}, "C-8.3", "order"),
    ({"type": "answer_peace", "proposal": True, "accept": True}, "C-10.4", "proposal"),
    ({"type": "amend_order", "number": 1, "order": {"type": "withdraw_order", "number": 2}}, "C-1.7", "order"),
])
def test_a_malformed_order_names_its_rule_and_field_C_9_3(order: dict[str, Any], rule: str, field: str) -> None:
    with pytest.raises(BadOrder) as err:
        parse(order)
    assert err.value.rule == rule and err.value.details == {"field": field}


def test_an_unknown_order_type_is_unknown_C_9_3() -> None:
    with pytest.raises(UnknownOrder) as err:
        parse({"type": "teleport", "unit": "u"})
    assert err.value.rule == "C-9.3"


def test_every_order_kind_has_a_wire_model_a_rule_and_a_schema_C_9_3() -> None:
    schema = build_schema()["properties"]["ContinentalOrder"]
    tags = set(schema["discriminator"]["mapping"])
    assert tags == set(KINDS) == set(KIND_RULES)
    assert ORDER.validate_python({"type": "capitulate"}).command().wire_form() == {"type": "capitulate"}
