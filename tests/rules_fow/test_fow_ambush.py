"""fow-v3 ambushes (Starting Step item 4, research/fow.md §1.1; the details are
assumptions M1-M8, ambush.py), on the open field east of Remagen."""

from __future__ import annotations

import pytest
from fow_fight_helpers import FIELD, game, platoon

from wargame.engine import Game, IllegalActionError, Point, ScenarioError
from wargame.engine.policy import Decision
from wargame.rules.fow.ambush import SPRUNG_IN, Reveal
from wargame.rules.fow.doctrine import DoctrinePolicy
from wargame.rules.fow.ruleset import Move, Next, Shoot
from wargame.testing import check_ruleset
from wargame.testing.conformance import secrets_seen

X, Y = FIELD


def _units(gap_m: float = 450.0, kind: str = "de_rifle_team") -> list[dict]:
    """A US rifle platoon facing east and, ``gap_m`` east of it (450 m = 18",
    beyond the 16" inside which an ambush in the open may not be revealed,
    M9), a German platoon of ``kind`` teams in ambush; a second German platoon
    in the open farther off."""
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 2)],
        command="us_command_rifle_team",
        x=X - 150,
        y=Y,
        facing=90.0,
    )
    amb = platoon("de_amb", "bratge", [(kind, 3)], x=X - 150 + gap_m, y=Y, facing=270)
    amb["ambush"] = True
    hold = platoon(
        "de_h", "bratge", [("de_rifle_team", 2)], x=X + 200, y=Y - 80, facing=270.0
    )
    return [us, amb, hold]


def _gap_in(g, a: str, b: str) -> float:
    st = g.state
    return (
        min(
            ((p.x - q.x) ** 2 + (p.y - q.y) ** 2) ** 0.5
            for p in (m.position for m in st.units[a].models)
            for q in (m.position for m in st.units[b].models)
        )
        / g.ruleset.scale
    )


def _to_german_start(g) -> None:
    while g.current_side != "de":
        g.apply(Next())
    assert g.state.phase == "starting"


def test_a_platoon_in_ambush_is_placed_hidden() -> None:
    g = game(_units())
    u = g.state.units["de_amb"]
    assert u.hidden and isinstance(u.position, Point)
    assert all(isinstance(m.position, Point) for m in u.models)
    assert not g.state.units["de_h"].hidden and not g.state.units["us_a"].hidden


def test_reveal_is_offered_to_its_owner_at_item_4_of_the_starting_step() -> None:
    g = game(_units())
    assert g.current_side == "us" and g.state.phase == "movement"  # US: no wait
    assert not any(isinstance(a, Reveal) for a in g.legal_actions())
    with pytest.raises(IllegalActionError, match="no platoon 'de_amb'"):
        g.apply(Reveal("de_amb"))  # the US cannot even name it
    _to_german_start(g)
    assert g.legal_actions() == [Reveal("de_amb"), Next()]
    before = len(g.log)
    events = g.apply(Reveal("de_amb"))
    assert not g.state.units["de_amb"].hidden
    sprung = [e for e in events if e.kind == "ambush"]
    assert len(sprung) == 1 and sprung[0].visible_to is None  # public
    assert g.state.phase == "movement"  # none left hidden: on to item 5
    assert len(g.log) > before
    with pytest.raises(IllegalActionError, match="not hidden in ambush"):
        g.apply(Reveal("de_amb"))


def test_next_at_item_4_keeps_the_platoon_hidden_and_it_does_nothing() -> None:
    g = game(_units())
    _to_german_start(g)
    g.apply(Next())
    assert g.state.phase == "movement" and g.state.units["de_amb"].hidden
    acts = g.legal_actions()
    assert not any(getattr(a, "unit", None) == "de_amb" for a in acts)
    assert any(isinstance(a, Move) and a.unit == "de_h" for a in acts)
    before = g.state.copy()
    with pytest.raises(IllegalActionError, match="hidden in ambush"):
        g.apply(Move("de_amb", Point(X, Y + 40)))
    with pytest.raises(IllegalActionError, match="Starting Step"):
        g.apply(Reveal("de_amb"))  # only at item 4
    assert g.state.units == before.units


def test_the_enemy_never_sees_a_hidden_platoon() -> None:
    g = game(_units())
    rules = g.ruleset
    for _ in range(4):  # the US turn and the German Starting Step
        assert "de_amb" not in g.state_for("us").units
        assert "de_amb" in g.state_for("de").units
        side = g.current_side
        acts = g.legal_actions()
        assert not secrets_seen(
            rules, g.state, "us", actions=acts if side == "us" else ()
        )
        assert not any("de_amb" in str(a.to_dict()) for a in acts if side == "us")
        if g.current_side == "de":
            break
        g.apply(Next())
    assert not (g.log_for("us")["unit"] == "de_amb").any()
    assert not (g.log_for("us")["target"] == "de_amb").any()
    with pytest.raises(ValueError, match="'de_amb' is not a platoon on the table"):
        rules.odds_table(g.state, "us_a", "de_amb")  # no odds at a hidden platoon


def test_hidden_units_never_leak_under_the_conformance_harness() -> None:
    g = game(_units(), turns=2)
    report = check_ruleset(
        "fow-v3",
        g.scenario,
        seeds=(1, 2),
        repeat=1,
        sampled=lambda a: a.type in ("move", "double"),
        complete_legal_actions=False,
    )
    assert report.games == 2 and report.leak_checks > 0


def test_a_hidden_platoon_cannot_be_shot_and_a_revealed_one_can() -> None:
    g = game(_units(270.0))
    g.apply(Next())  # the US Shooting Step
    rules, st = g.ruleset, g.state
    assert _gap_in(g, "us_a", "de_amb") < 16  # a rifle's range, open ground
    assert Shoot("us_a", "de_amb") not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="no platoon 'de_amb'"):
        g.apply(Shoot("us_a", "de_amb"))
    why = rules.shot_problem(st, st.units["us_a"], "de_amb")
    assert why is not None and "not an enemy platoon on the table" in why
    assert rules.assault_problem(st, st.units["us_a"], "de_amb") is not None
    g.apply(Next())
    g.apply(Next())
    # the German Starting Step: 10.8" in the open is too near to reveal (M9)
    assert Reveal("de_amb") not in g.legal_actions()
    with pytest.raises(IllegalActionError, match='within 16"'):
        g.apply(Reveal("de_amb"))
    while g.current_side != "us" or g.state.phase != "movement":
        g.apply(Next())
    g.apply(Move("us_a", Point(X - 50, Y)))  # 6.8" away: sprung
    g.apply(Next())
    assert Shoot("us_a", "de_amb") in g.legal_actions()


@pytest.mark.parametrize(("step_m", "sprung"), [(100.0, True), (50.0, False)])
def test_an_enemy_team_within_8_inches_springs_the_ambush(step_m, sprung) -> None:
    """270 m apart (10.8"); 100 m nearer is 6.8" (sprung), 50 m is 8.8"."""
    g = game(_units(270.0))
    assert g.state.units["de_amb"].hidden
    events = g.apply(Move("us_a", Point(X - 150 + step_m, Y)))
    gap = _gap_in(g, "us_a", "de_amb")
    assert (gap <= SPRUNG_IN) is sprung
    u = g.state.units["de_amb"]
    assert u.hidden is not sprung
    kinds = [e.kind for e in events]
    assert ("ambush" in kinds) is sprung
    if sprung:
        e = next(e for e in events if e.kind == "ambush")
        assert e.visible_to is None and e.unit == "de_amb"
        assert '8"' in (e.detail or "")
        assert u.attrs.get("gone_to_ground")  # sprung in the enemy's turn
        assert any(a == Shoot("us_a", "de_amb") for a in _shots(g))


def _shots(g) -> list:
    g.apply(Next())
    return g.legal_actions()


def test_an_ambush_within_8_inches_at_the_start_is_sprung_at_once() -> None:
    g = game(_units(180.0))
    assert not g.state.units["de_amb"].hidden
    assert (g.log["kind"] == "ambush").sum() == 1


def _decision(g) -> Decision:
    side = g.current_side
    return Decision(
        side=side,
        legal_actions=g.legal_actions(),
        number=len(g.actions),
        seed=g.seed,
        view=lambda: g.ruleset.view(g.state, side),
        rules=g.ruleset,
    )


@pytest.mark.parametrize(
    ("kind", "gap_m", "reveals"),
    [
        ("de_mg42_hmg", 450.0, True),
        ("de_rifle_team", 450.0, False),
        ("de_mg42_hmg", 270.0, False),
    ],
)
def test_the_doctrine_springs_an_ambush_with_an_enemy_in_range(
    kind, gap_m, reveals
) -> None:
    """18" away: MG 42s (24", 600 m) reveal, rifles (16") wait; 10.8" away in
    the open an ambush may not be revealed (M9) and waits to be sprung."""
    g = game(_units(gap_m, kind=kind))
    _to_german_start(g)
    choice = DoctrinePolicy().choose(_decision(g))
    assert choice == (Reveal("de_amb") if reveals else Next())


def test_doctrine_games_with_an_ambush_play_to_the_end() -> None:
    sc = game(_units(500.0), turns=2).scenario
    policies = {"us": DoctrinePolicy(), "de": DoctrinePolicy()}
    g = Game.from_scenario(sc, seed=1, policies=policies)
    assert g.run() is not None
    assert not g.state.units["de_amb"].hidden  # the last turn reveals it


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ambush": "yes"}, r"\.ambush: 'yes' is not true or false"),
        ({"ambush": 1}, r"\.ambush: 1 is not true or false"),
        ({"reserve": True}, r"\.ambush: a platoon in reserve"),
        ({"mounted_in": "de_h"}, r"\.ambush: a mounted platoon rides"),
    ],
)
def test_bad_ambush_keys_are_named_with_file_unit_and_field(change, message) -> None:
    units = _units()
    units[1].update(change)
    with pytest.raises(ScenarioError, match=r"units\[1\] \('de_amb'\)" + message):
        game(units)


def test_a_side_with_only_a_hidden_platoon_is_still_in_the_game() -> None:
    g = game(_units()[:2])  # the US platoon and the ambush, nothing else
    for _ in range(3):  # the US turn ends: the Germans are not annihilated
        g.apply(Next())
    assert not g.is_over and g.current_side == "de"
    assert g.legal_actions() == [Reveal("de_amb"), Next()]


# --------------------------------------------------------------------------- #
# where an ambush may be revealed (M9, ambush.placement_problem)              #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(("gap_m", "offered"), [(390.0, False), (410.0, True)])
def test_an_ambush_in_the_open_is_not_revealed_within_16_inches(gap_m, offered) -> None:
    """15.6" from the US platoon it may not be revealed, 16.4" it may (M9)."""
    g = game(_units(gap_m)[:2])  # the US platoon and the ambush
    _to_german_start(g)
    assert (Reveal("de_amb") in g.legal_actions()) is offered
    if not offered:
        before = g.state.to_dict()
        with pytest.raises(IllegalActionError, match=r'15\.6" from it.*within 16"'):
            g.apply(Reveal("de_amb"))
        assert g.state.to_dict() == before


def test_concealed_and_unseen_an_ambush_may_be_revealed_down_to_4_inches() -> None:
    """In concealing terrain and out of every enemy team's line of sight the
    limit is 4" (M9): 10.8" away it may be revealed; seen, it may not; and
    3" away it may not even unseen."""
    import dataclasses

    from wargame.rules.fow.ambush import placement_problem

    g = game(_units(270.0))
    _to_german_start(g)
    rules = g.ruleset
    assert Reveal("de_amb") not in g.legal_actions()  # open ground
    rules._concealed_at = lambda x, y: True  # type: ignore[method-assign]
    rules._sees = lambda a, b, eye, tgt: False  # type: ignore[method-assign]
    assert Reveal("de_amb") in g.legal_actions()
    st = g.state
    assert placement_problem(rules, st, st.units["de_amb"]) is None
    rules._sees = lambda a, b, eye, tgt: True  # type: ignore[method-assign]
    why = placement_problem(rules, st, st.units["de_amb"])
    assert why is not None and 'within 16"' in why
    rules._sees = lambda a, b, eye, tgt: False  # type: ignore[method-assign]
    near = st.copy()
    us = near.units["us_a"]
    shift = 270.0 - 3 * rules.scale  # 3" from the ambush, centre to centre
    moved = tuple(
        dataclasses.replace(m, position=Point(m.position.x + shift, m.position.y))
        for m in us.models
    )
    near.units["us_a"] = dataclasses.replace(us, models=moved)
    why = placement_problem(rules, near, near.units["de_amb"])
    assert why is not None and 'within 4"' in why
