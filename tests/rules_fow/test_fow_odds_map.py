"""The odds helper for two platoons on the map (the rule system's
``odds_table`` hook) gives the exact odds of the shot the Shooting Step would
make: the score with its modifiers, the hit distribution, what one hit does."""

from __future__ import annotations

import pytest
from fow_fight_helpers import FIELD, game, platoon

from wargame.render.game import odds_table
from wargame.rules.fow import TO_BE_HIT, armour_odds, hit_odds, needed
from wargame.rules.fow.ruleset import Next
from wargame.rules.fow.shooting import direct_weapon


def _tanks_440_m_apart() -> object:
    x, y = FIELD
    units = [
        platoon(
            "us_t", "tf_engeman", [("us_m26_pershing", 2)], x=x - 220, y=y, facing=90.0
        ),
        platoon(
            "de_t", "bratge", [("de_panzer_iv_h", 2)], x=x + 220, y=y, facing=270.0
        ),
    ]
    for u in units:
        u["spacing_m"] = 65.0
    return game(units)


def test_the_odds_table_is_the_shot_the_shooting_step_would_make() -> None:
    g = _tanks_440_m_apart()
    before = odds_table(g, "us_t", "de_t")
    assert before is not None and before["legal"].notna().all()  # Movement Step
    g.apply(Next())  # the US Shooting Step
    f = odds_table(g, "us_t", "de_t")
    assert f is not None and f["legal"].isna().all()
    pershing = g.ruleset.team(g.state.units["us_t"].models[0])
    gun = direct_weapon(pershing)
    assert gun is not None
    panzer = g.ruleset.team(g.state.units["de_t"].models[0])
    # 440 m = 17.6" > 16": long range, in the open: Trained 3+ becomes 4+
    assert set(f["to_hit"]) == {needed(TO_BE_HIT["trained"], 1)}
    for _, row in f.iterrows():
        hits = hit_odds(int(row["dice"]), int(row["to_hit"]))
        assert row["p_any_hit"] == pytest.approx(1 - hits.iloc[0])
        assert row["dice"] == gun.rof
        one = armour_odds(panzer.armour.front, gun.anti_tank, gun.firepower)
        assert row["destroyed"] == pytest.approx(one["destroyed"])
        assert row["bailed out"] == pytest.approx(one["bailed out"])
        assert row["expected_destroyed"] == pytest.approx(
            row["expected_hits"] * one["destroyed"]
        )


def test_the_odds_table_refuses_a_question_that_makes_no_sense() -> None:
    g = _tanks_440_m_apart()
    with pytest.raises(ValueError, match="same side"):
        odds_table(g, "us_t", "us_t")
    with pytest.raises(ValueError, match="not a platoon on the table"):
        odds_table(g, "us_t", "nobody")
