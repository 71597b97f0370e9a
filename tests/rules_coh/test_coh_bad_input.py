"""Bad input to coh-2e: a scenario error naming file, field and fix, or an
IllegalActionError naming the rule, with the state unchanged."""

from __future__ import annotations

import pytest
from coh_helpers import WINDOW, game

from wargame.engine import Game, IllegalActionError, ScenarioError, check_scenario
from wargame.rules.coh.actions import Fire, Move

FAR_SU = ("far-su", "su_rifles_41", "soviet", "AB20", 2)


def _scenario(**unit: object) -> dict[str, object]:
    base = {
        "id": "r",
        "type": "de_rifles_41",
        "side": "german",
        "hex": "K4",
        "facing": 0,
    }
    base.update(unit)
    return {
        "id": "coh_bad",
        "ruleset": "coh-2e",
        "turns": 1,
        "map": {"name": "rhine-remagen", "hex_size_m": 50, "window": WINDOW},
        "rules": {"first_initiative": "german"},
        "sides": [
            {"id": "german", "name": "G", "caps": 6},
            {"id": "soviet", "name": "S", "caps": 7},
        ],
        "units": [
            base,
            {
                "id": "s",
                "type": "su_rifles_41",
                "side": "soviet",
                "hex": "AB20",
                "facing": 2,
            },
        ],
    }


def _problems(sc: dict[str, object]) -> str:
    with pytest.raises(ScenarioError) as exc:
        Game.from_scenario(sc, seed=1)
    return str(exc.value)


def test_facing_outside_0_to_5_is_a_scenario_error() -> None:
    text = _problems(_scenario(facing=6))
    assert "units[0].facing" in text and "hexside 0-5" in text


def test_unknown_unit_type_suggests_the_right_one() -> None:
    text = _problems(_scenario(type="de_rifle_41"))
    assert "units[0].type" in text and "did you mean 'de_rifles_41'" in text


def test_card_number_not_in_the_second_edition_set() -> None:
    sc = _scenario()
    sc["rules"] = {"first_initiative": "german", "cards": 1000}
    text = _problems(sc)
    assert "rules.cards" in text


def test_level_height_outside_10_to_15_m() -> None:
    sc = _scenario()
    sc["rules"] = {"first_initiative": "german", "level_height_m": 30}
    assert "rules.level_height_m" in _problems(sc)


def test_a_vehicle_may_not_start_hidden() -> None:
    text = _problems(_scenario(type="de_pz_iii_h", hidden=True))
    assert "units[0].hidden" in text and "only squads" in text


def test_a_hidden_unit_in_the_open_next_to_the_enemy_is_refused() -> None:
    sc = _scenario(hidden=True, hex="K4")
    sc["units"][1].update(hex="K5")  # type: ignore[index]
    text = _problems(sc)
    assert "units[0].hex" in text and "§10.0" in text


def test_check_scenario_lists_the_problems_without_raising() -> None:
    problems = check_scenario(_scenario(facing=-1))
    assert any("units[0].facing" in p for p in problems)


def _refused(g: Game, action: object, match: str) -> None:
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match=match):
        g.apply(action)  # type: ignore[arg-type]
    assert g.state.digest() == before


def test_supporter_out_of_arc_or_at_long_range_is_refused() -> None:
    g = game(
        [
            ("mg", "de_lmg34", "german", "K4", 5),
            ("rf", "de_rifles_41", "german", "K4", 2),  # faces away
            ("su", "su_rifles_41", "soviet", "K7", 2),
        ]
    )
    _refused(g, Fire(("mg", "rf"), "K7"), "outside supporter .* arc")
    g2 = game(
        [
            ("mg", "de_lmg34", "german", "K4", 5),
            ("rf", "de_rifles_41", "german", "K4", 5),
            ("su", "su_rifles_41", "soviet", "G10", 2),
        ]
    )
    assert g2.ruleset.board.distance("K4", "G10") == 8  # rifles: range 5
    _refused(g2, Fire(("mg", "rf"), "G10"), "long range for supporter")


def test_caps_beyond_the_pool_are_refused() -> None:
    g = game(
        [
            ("mg", "de_lmg34", "german", "K4", 5),
            ("su", "su_rifles_41", "soviet", "K7", 2),
        ],
        caps=(1, 7),
    )
    _refused(g, Fire(("mg",), "K7", caps=2), "CAP")
    _refused(g, Fire(("mg",), "K7", caps=3), "at most 2 CAPs")
    _refused(g, Move(("mg",), ("K5",), pay="command", facing=9), "facing")


def test_moving_another_sides_unit_or_two_hexes_is_refused() -> None:
    g = game([("mg", "de_lmg34", "german", "K4", 5), FAR_SU])
    _refused(g, Move(("far-su",), ("AB19",)), "own units")
    _refused(g, Move(("mg",), ("K6",)), "one hex per move")
