"""bronepehota-2008 AI players: registered, doctrine the default, the exact odds
in their scores, a machine low on its track backing off, whole games, the same
seed the same game, and doctrine beating random."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

from wargame.ai import get_policy
from wargame.engine import Game, Point, get_ruleset, load_scenario
from wargame.engine.policy import RandomPolicy
from wargame.rules.bronepehota.ai import (
    MACHINE_VALUE,
    PILOT_VALUE,
    DoctrinePolicy,
    GreedyPolicy,
)
from wargame.rules.bronepehota.ruleset import EndSquad, Move, Shoot

LINZ = "bronepehota_linz_bank"
SCENARIO = Path(__file__).parents[2] / "scenarios" / f"{LINZ}.toml"


def _face_off() -> Game:
    """RAPTOR 4 steps south of BRONEKHOD on the open bank, facing each other;
    Polaris to act (as in test_bronepehota_ruleset.py)."""
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    units = {u["id"]: u for u in d["units"]}
    units["pl_raptor"].update(x=378085.0, y=5602830.0, facing=0)
    units["tp_bronekhod"].update(x=378085.0, y=5602870.0, facing=180)
    g = Game.from_scenario(d, seed=7)
    while g.state.vars["side"] != "polaris":
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    return g


def test_greedy_and_doctrine_are_registered_and_doctrine_is_the_default() -> None:
    assert isinstance(
        get_policy("doctrine", ruleset="bronepehota-2008"), DoctrinePolicy
    )
    assert isinstance(get_policy("greedy", ruleset="bronepehota-2008"), GreedyPolicy)
    assert get_ruleset("bronepehota-2008").default_policy == "doctrine"


def test_greedy_scores_a_rocket_at_a_machine_by_the_exact_odds() -> None:
    # RAPTOR's rocket (Д6+3 / 2Д20) at BRONEKHOD 4 steps away, fully visible:
    # always hits; each Д20 above the cell 10 is 1/2 (§7.4): E[damage] = 1,
    # P(any) = 3/4, then the pilot's Д6 survival test above his Бр (§7.4 III)
    g = _face_off()
    rules, view = g.ruleset, g.state
    shot = Shoot(
        "pl_raptor",
        "pl_raptor.m",
        "tp_bronekhod",
        "tp_bronekhod.m",
        "ракетная установка#1",
    )
    pilot = rules.fig(view, "tp_bronekhod", "tp_bronekhod.m").soldier
    want = MACHINE_VALUE * 1.0 / 10 + PILOT_VALUE * 0.75 * (6 - pilot.armour) / 6
    got = GreedyPolicy().score(rules, view, shot, "polaris")
    assert abs(got - want) < 1e-12
    # doctrine weights the same odds by the target (a machine with one weapon)
    focus = DoctrinePolicy()._focus(
        rules, view, rules.fig(view, "tp_bronekhod", "tp_bronekhod.m")
    )
    assert (
        abs(DoctrinePolicy().score(rules, view, shot, "polaris") - want * focus) < 1e-12
    )


def test_doctrine_backs_a_machine_low_on_its_track_away_from_the_enemy() -> None:
    g = _face_off()
    rules, view = g.ruleset, g.state
    at = Point(378085.0, 5602830.0)  # RAPTOR; BRONEKHOD 40 m north
    away, toward = Point(at.x, at.y - 20), Point(at.x, at.y + 20)
    doc = DoctrinePolicy()
    full = [
        doc.score(rules, view, Move("pl_raptor", "pl_raptor.m", p), "polaris")
        for p in (away, toward)
    ]
    u = view.units["pl_raptor"]
    view.units["pl_raptor"] = replace(u, attrs={**u.attrs, "durability": 2})
    low = [
        doc.score(rules, view, Move("pl_raptor", "pl_raptor.m", p), "polaris")
        for p in (away, toward)
    ]
    assert low[0] > low[1]  # at 2 of 9 it keeps its pilot alive
    assert low[0] - low[1] > full[0] - full[1]


def test_each_player_plays_a_game_to_the_end_the_same_twice() -> None:
    sc = load_scenario(LINZ)
    for cls in (GreedyPolicy, DoctrinePolicy):
        g = Game(sc, seed=4, policies={s["id"]: cls() for s in sc.sides})
        out = g.run()
        assert out is not None and out.turn <= sc.turns
        kinds = {type(a) for a in g.actions}
        assert {Move, Shoot, EndSquad} <= kinds
        again = Game(sc, seed=4, policies={s["id"]: cls() for s in sc.sides})
        again.run()
        assert list(again.actions) == list(g.actions)


def test_doctrine_beats_random_in_most_games_on_the_linz_bank() -> None:
    # measured: 20 of 20 from either side (seeds 0-19); asserted weakly
    sc = load_scenario(LINZ)
    wins = 0
    for seed in range(10):
        g = Game(
            sc,
            seed=seed,
            policies={"polaris": DoctrinePolicy(), "protectorate": RandomPolicy()},
        )
        out = g.run()
        wins += out is not None and out.winner == "polaris"
    assert wins >= 6
