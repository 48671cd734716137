"""Reconnaissance (C-8.1–C-8.3, D-C-7) and what the deployment report tells (C-6.2)."""

from __future__ import annotations

import pytest

from server.core.engine import MODERATOR, SPECTATOR, team_viewer
from server.core.errors import IllegalOrder, NotYourTurn
from tests.continental.helpers import BLUE, ENGINE, RED, next_turn, order, place, start


def _at_war(level: int = 1, **kw: object) -> object:
    s = start(level, **kw)  # type: ignore[arg-type]
    a = place(s, "red", "RD", (43, 18), facing="E")
    place(s, "blue", "RD", (57, 28), uid="b-reserve")
    s, _ = order(s, RED, type="move", unit=a, path=[[44, 18]])
    return s


def test_no_questions_before_the_war_C_8_3() -> None:
    s = start(1)
    with pytest.raises(IllegalOrder) as err:
        order(s, RED, type="question", kind="presence", cell=[50, 20])
    assert err.value.rule == "C-8.3"


def test_question_costs_half_one_or_two_C_8_3() -> None:
    s = _at_war()
    place(s, "blue", "TD", (50, 21))  # type: ignore[arg-type]
    s, ev = order(s, RED, type="question", kind="presence", cell=[50, 21])  # type: ignore[arg-type]
    ans = next(e for e in ev if e.kind == "answer")
    assert ans.data["answer"] == "yes" and ans.data["cost"] == 0.5
    s, ev = order(s, RED, type="question", kind="count", cell=[50, 21])
    assert next(e for e in ev if e.kind == "answer").data["answer"] == 1
    s, ev = order(s, RED, type="question", kind="arm", cell=[50, 21])
    ans = next(e for e in ev if e.kind == "answer")
    assert ans.data["answer"] == ["TD"] and ans.data["left"] == pytest.approx(15 - 3.5)
    assert not ans.visible_to(team_viewer("blue")) and not ans.visible_to(SPECTATOR)


def test_locate_and_feature_questions_C_8_3() -> None:
    s = _at_war()
    place(s, "blue", "RD", (52, 14), uid="b7RD")  # type: ignore[arg-type]
    s, ev = order(s, RED, type="question", kind="locate", unit="b7RD")  # type: ignore[arg-type]
    assert next(e for e in ev if e.kind == "answer").data["answer"] == "52-14"
    s, ev = order(s, RED, type="question", kind="feature", feature="Blaufeld")
    assert next(e for e in ev if e.kind == "answer").data["answer"] == "yes"


def test_quota_is_15_per_10_turns_with_accumulation_C_8_3() -> None:
    s = _at_war()
    for _ in range(7):
        s, _ = order(s, RED, type="question", kind="arm", cell=[50, 21])  # type: ignore[arg-type]
    s, _ = order(s, RED, type="question", kind="count", cell=[50, 21])
    with pytest.raises(IllegalOrder):
        order(s, RED, type="question", kind="count", cell=[50, 21])
    for _ in range(10):
        s = next_turn(s)
    s, _ = order(s, RED, type="question", kind="arm", cell=[50, 21])
    assert s.recon["red"]["quota"] == 30
    for _ in range(10):
        s = next_turn(s)
    assert s.recon["red"]["quota"] - s.recon["red"]["spent"] == pytest.approx(28)


def test_questions_only_in_own_turn_C_8_3() -> None:
    s = _at_war()
    with pytest.raises(NotYourTurn):
        order(s, BLUE, type="question", kind="count", cell=[40, 20])  # type: ignore[arg-type]


def test_false_answers_never_exceed_20_percent_and_moderator_sees_them_C_8_3_D_C_7() -> None:
    for seed in range(6):
        s = _at_war(seed=seed, deception=True)
        place(s, "blue", "TD", (50, 21))  # type: ignore[arg-type]
        for _ in range(20):
            s.recon["red"]["quota"] += 1  # type: ignore[attr-defined]
            s, _ = order(s, RED, type="question", kind="presence", cell=[50, 21])  # type: ignore[arg-type]
        answers = s.answers
        false = [a for a in answers if a["false"]]
        assert len(false) <= 0.2 * len(answers)
        assert all((a["answer"] != a["truth"]) == a["false"] for a in answers)
        red_view = ENGINE.view(s, team_viewer("red"))
        assert all("false" not in a and "truth" not in a for a in red_view["answers"])
        assert any("false" in a for a in ENGINE.view(s, MODERATOR)["answers"])
    # some seed lied at least once
    lies = 0
    for seed in range(6):
        s = _at_war(seed=seed, deception=True)
        for _ in range(10):
            s, _ = order(s, RED, type="question", kind="presence", cell=[50, 21])  # type: ignore[arg-type]
        lies += sum(1 for a in s.answers if a["false"])
    assert lies > 0


def test_without_deception_answers_are_true_D_C_7() -> None:
    s = _at_war(seed=3)
    for _ in range(10):
        s, _ = order(s, RED, type="question", kind="presence", cell=[50, 21])  # type: ignore[arg-type]
    assert not any(a["false"] for a in s.answers)


def test_secret_deception_roll_goes_to_moderator_only_D_GEN_1_D_C_7() -> None:
    s = _at_war(deception=True)
    s, ev = order(s, RED, type="question", kind="presence", cell=[50, 21])  # type: ignore[arg-type]
    roll = next(e for e in ev if e.kind == "roll")
    assert roll.audience == frozenset({MODERATOR})


def test_standing_information_and_open_sectors_C_8_1_C_8_2() -> None:
    s = start(1, clear=False)
    assert "standing_information" not in ENGINE.view(s, team_viewer("red"))  # told throughout the war
    s.war = True
    view = ENGINE.view(s, team_viewer("red"))
    info = view["standing_information"]["blue"]
    assert sorted(map(tuple, info["covering_troops"])) == [(44, 18), (44, 21), (44, 24), (44, 27)]
    first = {a["army"]: a for a in info["first_echelon"]}
    assert first["1A"] == {"army": "1A", "divisions": 6}  # composition without arms
    enemy = {u["id"]: u for u in view["enemy_units"]}
    assert enemy["b1RD"] == {"id": "b1RD", "team": "blue", "cell": [44, 27], "cover": True} or "arm" in enemy["b1RD"]


def test_deployment_report_to_each_side_C_6_2() -> None:
    s = start(1, clear=False)
    report = ENGINE.view(s, team_viewer("blue"))["deployment_report"]["red"]
    assert sorted(map(tuple, report["covering_troops"])) == [(43, 17), (43, 20), (43, 23), (43, 26)]
    first = {a["army"]: a for a in report["first_echelon"]}
    assert first["1A"] == {"army": "1A", "zone": [[40, 17], [43, 26]], "corps": 2}  # corps, not composition
    assert "3A" in report["other_armies"]


def test_units_far_behind_the_border_stay_hidden_C_8_2() -> None:
    s = start(1, clear=False)
    red = {u["id"]: u for u in ENGINE.view(s, team_viewer("red"))["enemy_units"]}
    assert not {"b61SPD", "b22MD", "b8RD", "b7RD"} & set(red)  # more than 60 km behind Blue's border
    # Blue's cover leaves the corners 44-16 and 44-29 open: 60 km behind them is open to Red (C-8.2) ...
    assert "arm" in red["b21MD"] and "arm" in red["b6RD"]
    # ... except behind Blue's second echelon 47-18, 49-19, 50-20, a continuous front (C-8.2's exception)
    assert "b11TD" not in red
    spectator = ENGINE.view(s, SPECTATOR)
    assert {"b61SPD", "b22MD"} <= {u["id"] for u in spectator["units"]}
    assert "units" not in ENGINE.view(s, "public")


def test_covering_the_whole_border_closes_it_to_observation_C_5_8_C_8_2() -> None:
    s = start(1, clear=False)
    place(s, "blue", "RD", (45, 16), facing="W", uid="bcS", cover=True)
    place(s, "blue", "RD", (45, 29), facing="W", uid="bcN", cover=True)
    red = {u["id"]: u for u in ENGINE.view(s, team_viewer("red"))["enemy_units"]}
    assert "b11TD" not in red and "b21MD" not in red
    assert red["bcN"] == {"id": "bcN", "team": "blue", "cell": [45, 29], "cover": True}  # position only (C-8.1)


WALL = (13, 16, 19, 22, 25, 28)


def _behind_a_front(gaps: tuple[int, ...] = ()) -> dict[str, dict[str, object]]:
    s = start(1)  # no covering troops: Blue's whole border with Red (longitude 44) is open
    for y in WALL:
        if y not in gaps:
            place(s, "blue", "RD", (47, y), facing="W", uid=f"wall-{y}")
    place(s, "blue", "TD", (49, 20), facing="W", uid="behind")
    place(s, "blue", "RD", (50, 27), facing="W", uid="deep")
    return {u["id"]: u for u in ENGINE.view(s, team_viewer("red"))["enemy_units"]}


def test_a_continuous_second_echelon_closes_the_ground_behind_it_C_8_2() -> None:
    seen = _behind_a_front()
    assert {f"wall-{y}" for y in WALL if y >= 16} <= set(seen)  # the front itself is observed in full
    assert "arm" in seen["wall-19"]
    assert "behind" not in seen and "deep" not in seen


def test_a_gap_in_the_second_echelon_lets_observation_through_C_8_2() -> None:
    seen = _behind_a_front(gaps=(19, 22))
    assert "arm" in seen["behind"]
    assert "deep" not in seen  # still closed behind the rest of the front ...
    assert "arm" in _behind_a_front(gaps=WALL)["deep"]  # ... which alone hid it
