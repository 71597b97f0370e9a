"""Mortars, indirect fire, smoke, flamethrowers and off-board artillery in coh-2e
(CoH 2e §12-13, §19; research/coh.md §1.10-1.11), on the real ground around
Niederetscheid (50 m hexes): the plateau crest at rows 4-5 hides the hamlet's
stone houses (level 6) from R3 (level 8), so a mortar there must fire through
a spotting hex; heavy woods north of the houses (O8)."""

from __future__ import annotations

from typing import Any

import pytest

from wargame.engine import Game, check_scenario, load_scenario
from wargame.engine.policy import get_policy
from wargame.rules.coh.actions import (
    Fire,
    Flame,
    IndirectFire,
    Pass,
    PlotArtillery,
    SmokeFire,
)
from wargame.rules.coh.smoke import thinned
from wargame.testing import check_ruleset

WINDOW = {"place": "Niederetscheid", "width_m": 1200, "height_m": 1000}


def scenario(
    units: list[dict[str, Any]],
    forts: tuple[dict[str, Any], ...] = (),
    oba: dict[str, Any] | None = None,
) -> dict[str, Any]:
    german: dict[str, Any] = {"id": "german", "nation": "german", "caps": 6}
    if oba is not None:
        german["oba"] = oba
    sc: dict[str, Any] = {
        "id": "t_arty",
        "title": "test",
        "ruleset": "coh-2e",
        "turns": 3,
        "map": {"name": "rhine-remagen", "hex_size_m": 50, "window": WINDOW},
        "rules": {"level_height_m": 12.5, "first_initiative": "german"},
        "sides": [german, {"id": "soviet", "nation": "soviet", "caps": 6}],
        "units": units,
        "objectives": [{"id": "church", "hex": "O11", "vp": 1}],
    }
    if forts:
        sc["fortifications"] = list(forts)
    return sc


def rules(g: Game) -> Any:
    """The coh-2e ruleset of a game (its rule methods, for the checks)."""
    return g.ruleset


def unit(uid: str, type_: str, side: str, hex_: str, **kw: Any) -> dict[str, Any]:
    return {"id": uid, "type": type_, "side": side, "hex": hex_, **kw}


def game(units: list[dict[str, Any]], seed: int = 1, **kw: Any) -> Game:
    return Game.from_scenario(scenario(units, **kw), seed=seed)


MORTAR = unit("m", "de_mortar_8cm", "german", "R3", facing=5)


# -- §12.0 indirect fire ------------------------------------------------------ #
def test_indirect_fire_through_a_spotting_hex() -> None:
    g = game([MORTAR, unit("r", "su_rifles_41", "soviet", "Q11")])
    r, st = rules(g), g.state
    assert "no line of sight" in r.why_not(st, Fire(("m",), "Q11"))
    a = IndirectFire(("m",), "Q11")
    assert r.why_not(st, a) is None
    assert r.indirect_problem(st, "german", a) == (None, 4)  # the (4) of §12.0
    spot = r.best_spotter(st, "german", st.units["m"], "Q11")
    assert spot is not None and r.board.distance("R3", spot) <= 2
    assert r.board.los("R3", spot).clear and r.board.los(spot, "Q11").clear
    assert r.board.level[spot] == 8  # the highest spotter (elevation, §12.0)
    # a hex the target cannot be seen from is no spotter; nor one 3 hexes off
    assert "spotting hex R2" in str(r.why_not(st, IndirectFire(("m",), "Q11", "R2")))
    assert "more than 2" in str(r.why_not(st, IndirectFire(("m",), "Q11", "R6")))
    # elevation from the spotter: firing down from level 8 onto level 6
    fm = r.fire_math(st, st.units["m"], st.units["r"], spotter=spot)
    assert "firing down +1 (§11.2)" in fm.fp_terms and fm.flank
    assert a in g.legal_actions()
    g.apply(a)
    fired = [e for e in g.events if e.kind == "fire"][-1]
    assert f"spotted from {spot}" in fired.detail
    assert g.state.pools["ap:german"] == 3  # 7 - 4


def test_indirect_fire_needs_an_indirect_cost_and_the_arc() -> None:
    g = game(
        [
            MORTAR,
            unit("m5", "de_mortar_5cm", "german", "S3", facing=5),
            unit("r", "su_rifles_41", "soviet", "Q11"),
        ]
    )
    r, st = rules(g), g.state
    assert "no indirect fire cost" in r.why_not(st, IndirectFire(("m5",), "Q11"))
    st.units["m"].facing = 2  # turned north: the hamlet is behind it
    assert "arc" in r.why_not(st, IndirectFire(("m",), "Q11"))


def test_he_hits_the_flank_and_air_bursts_in_heavy_woods() -> None:
    g = game(
        [
            MORTAR,
            unit("x", "de_rifles_41", "german", "R5", facing=5),
            unit("w", "su_rifles_41", "soviet", "O8"),  # heavy woods
        ]
    )
    r, st = rules(g), g.state
    w = st.units["w"]
    w.facing = next(f for f in range(6) if r.board.in_arc("O8", f, "R5"))
    mortar = r.fire_math(st, st.units["m"], w, at="R3")
    rifle = r.fire_math(st, st.units["x"], w)
    assert mortar.flank and mortar.dv_terms == ("flank DR 11",)  # no woods +2
    assert not rifle.flank and "terrain +2 (heavy woods)" in rifle.dv_terms


def test_a_hidden_stack_is_shelled_at_its_lowest_flank_dr() -> None:
    g = game(
        [
            MORTAR,
            unit("r", "su_rifles_41", "soviet", "O10", hidden=True),  # flank 11
            unit("mg", "su_maxim_mmg", "soviet", "O10", hidden=True),  # flank 10
        ]
    )
    n = len(g.events)
    g.apply(IndirectFire(("m",), "O10"))
    targets = [e.target for e in g.events[n:] if e.kind == "attack" and e.target]
    assert targets[0] == "mg"


# -- §13 smoke ------------------------------------------------------------------ #
def _pair_through(board: Any, x: str) -> tuple[str, str]:
    """Two hexes on one level whose lines of sight both pass through ``x``."""
    for a in sorted(board.within(x, 2)):
        for b in sorted(board.within(x, 2)):
            if a >= b or board.distance(a, b) < 3 or not board.los(a, b).clear:
                continue
            cells = [c for c, _side in board._line(a, b)]
            if (
                [x] in cells
                and len({board.level[h] for h in (a, b, x)}) == 1
            ):
                return a, b
    raise AssertionError(f"no pair through {x}")


def test_smoke_blocks_sight_at_two_and_adds_dms() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "T4"),
            unit("r", "su_rifles_41", "soviet", "Q12"),
        ]
    )
    r, st = rules(g), g.state
    b = r.board
    a, c = _pair_through(b, "S5")
    st.vars["smoke"] = (("S5", 2),)
    assert not r.sight(st, a, c).clear  # +2 blocks through (§13)
    assert r.sight(st, a, "S5").clear  # ... but one sees into it
    st.vars["smoke"] = (("S5", 1),)
    assert r.sight(st, a, c).clear  # +1 does not block
    assert r.smoke_dm(st, a, c) == 1  # +1 DM passing through
    st.vars["smoke"] = (("S5", 1), ("S5", 1))
    assert not r.sight(st, a, c).clear  # cumulative: two +1 act as +2
    st.vars["smoke"] = (("Q12", 2), ("T4", 1))
    fm = r.fire_math(st, st.units["x"], st.units["r"])
    assert any(t.startswith("smoke +3") for t in fm.dv_terms)  # target +2, firer +1


def test_smoke_thins_each_pre_round() -> None:
    assert thinned((("G7", 2), ("H8", 1))) == (("G7", 1),)
    g = game([MORTAR, unit("r", "su_rifles_41", "soviet", "Q11")])
    g.state.vars["smoke"] = (("Q11", 2), ("R10", 1))
    g.apply(Pass())
    g.apply(Pass())  # two passes: round 2's pre-round
    assert g.state.turn == 2
    assert [tuple(x) for x in g.state.vars["smoke"]] == [("Q11", 1)]


def test_mortar_and_pioneer_smoke() -> None:
    g = game(
        [
            MORTAR,
            unit("p", "de_pioneers", "german", "S2", facing=5),
            unit("x", "de_rifles_41", "german", "Q2", facing=5),
            unit("r", "su_rifles_41", "soviet", "Q11"),
        ]
    )
    r, st = rules(g), g.state
    assert r.smoke_problem(st, "german", SmokeFire(("m",), "Q11")) == (None, 4)
    assert r.smoke_problem(st, "german", SmokeFire(("p",), "S3")) == (None, 2)
    assert "one hex away" in str(r.why_not(st, SmokeFire(("p",), "S5")))
    assert "may not fire smoke" in str(r.why_not(st, SmokeFire(("x",), "Q3")))
    g.apply(SmokeFire(("m",), "Q11"))
    assert ("Q11", 2) in [tuple(x) for x in g.state.vars["smoke"]]


def test_partisans_pioneers_have_no_flamethrower_or_smoke() -> None:
    r = rules(Game.from_scenario("coh_partisans", seed=1))
    assert not r.may_fire_smoke("de-pioneers") and not r.has_flamethrower("de-pioneers")


# -- §19.1 flamethrowers ------------------------------------------------------ #
def test_flamethrower_ignores_every_defence_modifier() -> None:
    g = game(
        [
            unit("p", "de_pioneers", "german", "P10", facing=4),
            unit("r", "su_rifles_41", "soviet", "O11", hasty=True),  # stone + hasty
        ]
    )
    r, st = rules(g), g.state
    assert r.board.distance("P10", "O11") == 1
    a = Flame(("p",), "O11")
    assert r.why_not(st, a) is None
    fm = r.fire_math(st, st.units["p"], st.units["r"], flame=True)
    assert (fm.fp, fm.dv, fm.flank) == (2 + 3, 11, True)
    plain = r.fire_math(st, st.units["p"], st.units["r"])
    assert plain.dv > fm.dv + 2
    assert "reaches 1 hex" in str(r.why_not(st, Flame(("p",), "O12")))
    assert a in g.legal_actions()


# -- §12.3 off-board artillery ------------------------------------------------ #
def test_off_board_artillery_is_plotted_secretly_and_lands_next_round() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "R5", facing=5),
            unit("r", "su_rifles_41", "soviet", "Q11"),
        ],
        oba={"card": "oba_lefh18", "strikes": 1},
    )
    st = g.state
    assert st.phase == "artillery" and g.current_side == "german"
    assert "no spotter" in str(rules(g).why_not(st, PlotArtillery("A20")))
    assert PlotArtillery("Q11") in g.legal_actions()
    g.apply(PlotArtillery("Q11"))
    assert g.state.decks["oba:german"] == ("1:Q11",)
    assert rules(g).view(g.state, "soviet").decks["oba:german"] == ("?",)
    assert g.state.phase == "play"
    g.apply(Pass())
    g.apply(Pass())
    n = [e for e in g.events if e.kind == "oba" and e.result == "strike"]
    assert n and n[0].hex_to == "Q11" and n[0].turn == 2
    hit = [e for e in g.events if e.kind == "attack" and e.target == "r"]
    assert hit and "artillery" in str(hit[0].detail)
    assert "flank DR 11" in str(hit[0].detail)
    assert not g.state.decks.get("oba:german")


def test_bad_oba_key_is_reported() -> None:
    sc = scenario([MORTAR], oba={"card": "luck", "strikes": 0})
    problems = check_scenario(load_scenario(sc))
    assert any("sides[0].oba.card" in p and "oba_lefh18" in p for p in problems)


# -- the hidden-village firefight -------------------------------------------- #
def test_hidden_village_validates_and_hides_its_defenders() -> None:
    sc = load_scenario("coh_hidden_village")
    assert check_scenario(sc) == []
    g = Game.from_scenario(sc, seed=0)
    hidden = {u.id for u in g.state.units.values() if u.hidden}
    assert {"su-sniper", "su-maxim"} <= hidden
    view = rules(g).view(g.state, "german")
    assert not hidden & view.units.keys()
    assert view.decks["mines:soviet"] == ("?",)
    assert g.state.units["su-rifles-3"].attrs.get("trench")


@pytest.mark.parametrize("policy", ["random", "doctrine"])
def test_hidden_village_plays_to_the_end(policy: str) -> None:
    g = Game.from_scenario("coh_hidden_village", seed=2)
    for side in ("german", "soviet"):
        g.policies[side] = get_policy(policy, ruleset="coh-2e")
    g.run(max_actions=5000)
    assert g.outcome is not None and g.state.turn <= 5
    if policy == "doctrine":
        assert any(a.type == "indirect_fire" for a in g.actions)


def test_hidden_village_passes_the_conformance_harness() -> None:
    report = check_ruleset("coh-2e", "coh_hidden_village", seeds=range(3), repeat=1)
    assert report.games == 3 and report.leak_checks > 100
