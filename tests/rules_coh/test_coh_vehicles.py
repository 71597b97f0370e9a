"""Vehicles, armour and transport of coh-2e (CoH 2e §14-17) on the real ground
of the Dachsbusch window, and the tank firefight coh_tanks_ridge.

The hexes each rule needs (a flat run of open fields, woods beside a field, a
stone house beside a field, a lane) are found on the board, so the tests say
which ground they use; dice are set through a stand-in generator.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from wargame.engine import (
    Event,
    Game,
    GameState,
    RuleContext,
    ScenarioError,
    available_scenarios,
    check_scenario,
    load_scenario,
)
from wargame.engine.policy import get_policy
from wargame.rules.coh.actions import Fire, Load, Move, Pivot, Unload
from wargame.rules.coh.hit_markers import hit_marker_kinds

WINDOW = {"place": "Dachsbusch", "width_m": 1200, "height_m": 1200}
UNITS = [  # id, type, side
    ("su-t34", "su_t34a_m40", "soviet"),
    ("su-rifles", "su_rifles_41", "soviet"),
    ("de-pz-1", "de_pz_iii_e", "german"),
    ("de-pz-2", "de_pz_iii_e", "german"),
    ("de-251", "de_sdkfz_251_1", "german"),
    ("de-rifles", "de_rifles_41", "german"),
    ("de-rifles-2", "de_rifles_41", "german"),
    ("de-lmg", "de_lmg34", "german"),
    ("de-pak", "de_pak36", "german"),
    ("de-truck", "de_opel_blitz", "german"),
    ("de-truck-2", "de_opel_blitz", "german"),
    ("de-pzjg", "de_pzjg_35r", "german"),
]


def _scenario(hexes: Sequence[str]) -> dict[str, Any]:
    return {
        "id": "coh_vehicle_tests",
        "ruleset": "coh-2e",
        "turns": 2,
        "map": {"name": "rhine-remagen", "hex_size_m": 50, "window": WINDOW},
        "rules": {"level_height_m": 15, "first_initiative": "german"},
        "sides": [
            {"id": "german", "name": "G", "nation": "german", "caps": 6},
            {"id": "soviet", "name": "S", "nation": "soviet", "caps": 6},
        ],
        "units": [
            {"id": u, "type": t, "side": s, "hex": h}
            for (u, t, s), h in zip(UNITS, hexes, strict=False)
        ],
        "objectives": [{"id": "obj", "hex": hexes[-1], "vp": 1}],
    }


@pytest.fixture(scope="module")
def game() -> Game:
    import wargame
    from wargame.rules.coh.board import board_for

    b = board_for(wargame.load_map(hex_size_m=50, window=WINDOW), level_height_m=15)
    opens = sorted(h for h in b.labels if b.terrain[h] == "open")
    return Game.from_scenario(_scenario(opens[::20][: len(UNITS) + 1]), seed=0)


class Dice:
    """A stand-in generator: ``random(n)`` returns the values given, in order."""

    def __init__(self, values: Sequence[float]) -> None:
        self.values = list(values)

    def random(self, n: int) -> np.ndarray:
        out = [self.values.pop(0) for _ in range(n)]
        return np.array(out)


def d6(*faces: int) -> list[float]:
    """Generator values giving these d6 faces (``int(6u) + 1``)."""
    return [(f - 0.5) / 6 for f in faces]


def coh(game: Game) -> Any:
    """The game's CohRuleset (typed loosely: the tests call its rule methods)."""
    return game.ruleset


def context(
    game: Game, st: GameState, events: list[Event], dice: Sequence[float] = ()
) -> RuleContext:
    """A rule context on ``st`` with set dice, logging into ``events``."""
    rng: Any = Dice(dice)
    return RuleContext(st, rng, game.map, events.append)


def resolve(
    game: Game, st: GameState, action: Any, dice: Sequence[float] = ()
) -> list[Event]:
    rules = coh(game)
    assert rules.why_not(st, action) is None, rules.why_not(st, action)
    events: list[Event] = []
    ctx = context(game, st, events, dice)
    ctx.action, ctx.action_index = action, 0
    rules.apply(ctx, action)
    return events


def put(st: GameState, uid: str, hex_: str, facing: int = 0, **attrs: Any) -> None:
    u = st.units[uid]
    u.position, u.facing = hex_, facing
    u.attrs.update(attrs)


def fresh(game: Game, side: str = "german") -> GameState:
    """The game's first state with every unit parked off the map."""
    st = game.state.copy()
    for u in st.units.values():
        u.position = None
        u.attrs.pop("entry", None)
    st.vars["side"] = side
    return st


def ahead(b: Any, h: str, f: int) -> str | None:
    return next((n for n in b.neighbors(h) if b.direction(h, n) == f), None)


def runs(b: Any, n: int) -> Iterator[tuple[int, list[str]]]:
    """Straight runs of ``n`` hexes: (direction, hexes)."""
    for h in sorted(b.labels):
        for f in range(6):
            line = [h]
            while len(line) < n:
                nxt = ahead(b, line[-1], f)
                if nxt is None:
                    break
                line.append(nxt)
            if len(line) == n:
                yield f, line


def open_flat_run(b: Any) -> tuple[int, list[str]]:
    for f, line in runs(b, 4):
        if (
            all(b.terrain[x] == "open" for x in line)
            and len({b.level[x] for x in line}) == 1
        ):
            return f, line
    raise AssertionError("no flat run of four open hexes")


# -- §14.1 bonus moves ------------------------------------------------------ #
def test_t34_crosses_three_open_hexes_for_one_ap(game: Game) -> None:
    """research/coh.md §1.9: the T-34a (two track symbols) pays 1 AP for an
    open hex and takes two bonus moves into open ground, in one action."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, h2, h3) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    a = Move(("su-t34",), (h1,), then=(h2, h3))
    assert rules.move_problem(st, "soviet", a) == (None, 1)
    assert a in rules.legal_actions(st)
    # a third bonus hex is one more than its two symbols
    problem, _ = rules.move_problem(
        st, "soviet", Move(("su-t34",), (h1,), then=(h2, h3, ahead(b, h3, f) or h0))
    )
    assert problem is not None and "2 bonus move" in problem
    events = resolve(game, st, a)
    assert [e.hex_to for e in events if e.kind == "move"] == [h1, h2, h3]
    assert st.units["su-t34"].hex == h3 and st.pools["ap:soviet"] == 6


def test_bonus_moves_pay_uphill_and_none_in_reverse(game: Game) -> None:
    """Fig. 27: uphill still costs +1 AP a level on bonus moves; §14.4: no
    bonus moves after a reverse move (which costs +1 AP)."""
    rules = coh(game)
    b = rules.board
    for f, (h0, h1, h2) in runs(b, 3):  # noqa: B007 (f is used after the loop)
        if (
            all(b.terrain[x] == "open" for x in (h0, h1, h2))
            and b.level[h1] == b.level[h0]
            and b.level[h2] == b.level[h1] + 1
        ):
            break
    else:
        raise AssertionError("no open run climbing one level")
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    assert rules.move_problem(st, "soviet", Move(("su-t34",), (h1,), then=(h2,))) == (
        None,
        2,
    )
    put(st, "su-t34", h1, f)  # h0 is now behind it
    assert rules.move_problem(st, "soviet", Move(("su-t34",), (h0,)))[1] == 2
    problem, _ = rules.move_problem(st, "soviet", Move(("su-t34",), (h0,), then=(h2,)))
    assert problem is not None and "reverse" in problem


def test_pz_iii_e_pays_three_into_heavy_woods_without_bonus(game: Game) -> None:
    """Fig. 26: the PzIIIe pays 1 AP + 2 AP into heavy woods; woods give no
    bonus move."""
    rules = coh(game)
    b = rules.board
    a, w = next(
        (x, n)
        for x in sorted(b.labels)
        if b.terrain[x] == "open"
        for n in b.neighbors(x)
        if b.terrain[n] == "heavy_woods" and b.level[n] == b.level[x]
    )
    st = fresh(game)
    put(st, "de-pz-1", a, b.direction(a, w))
    assert rules.move_problem(st, "german", Move(("de-pz-1",), (w,))) == (None, 3)
    assert rules.bonus_paths(st, st.units["de-pz-1"], w) == []


def test_wheels_take_bonus_moves_along_roads_only_and_not_into_congestion(
    game: Game,
) -> None:
    """§14.1: a wheel symbol moves an extra road hex; §14.2: no bonus move
    into a road hex holding another vehicle."""
    rules = coh(game)
    b = rules.board
    st = fresh(game)
    for r0 in sorted(h for h in b.labels if b.road[h]):
        for r1 in b.neighbors(r0):
            if not rules.road_step(r0, r1):
                continue
            put(st, "de-truck", r0, b.direction(r0, r1))
            paths = rules.bonus_paths(st, st.units["de-truck"], r1)
            if any(len(p) == 2 for p in paths):
                break
        else:
            continue
        break
    else:
        raise AssertionError("no lane with a two-hex bonus run")
    assert all(
        rules.road_step(x, y) for p in paths for x, y in zip((r1, *p), p, strict=False)
    )
    path = next(p for p in paths if len(p) == 2)
    put(st, "de-truck-2", path[0])
    left = rules.bonus_paths(st, st.units["de-truck"], r1)
    assert all(path[0] not in p for p in left)


def test_vehicles_drive_through_enemy_hexes_without_close_combat(game: Game) -> None:
    """§14.3: a vehicle may move through an enemy-held hex; one that does not
    stop there cannot be engaged in close combat."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, h2, h3) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    put(st, "de-rifles", h2, f)
    events = resolve(game, st, Move(("su-t34",), (h1,), then=(h2, h3)))
    assert st.units["su-t34"].hex == h3
    assert not any(e.kind == "fire" for e in events)


# -- §14.5 immobilisation, §15.4 turrets -------------------------------------- #
def _stone_step(b: Any) -> tuple[str, str]:
    return next(
        (x, n)
        for x in sorted(b.labels)
        if b.terrain[x] == "open"
        for n in b.neighbors(x)
        if b.terrain[n] == "stone_building"
        and b.immobilisation_check(n)
        and b.level[n] == b.level[x]
        and not b.road[n]
    )


@pytest.mark.parametrize(("dice", "stuck"), [((1, 4), True), ((2, 4), False)])
def test_immobilisation_roll_after_entering_a_bang_hex(
    game: Game, dice: tuple[int, int], stuck: bool
) -> None:
    """§14.5: after entering "!" terrain 2d6 >= 6 is safe, else immobilised:
    no move, no pivot; the turret still fires out of its arc (+1 AP, §15.4)."""
    rules = coh(game)
    b = rules.board
    a, s = _stone_step(b)
    st = fresh(game)
    put(st, "de-pz-1", a, b.direction(a, s))
    events = resolve(game, st, Move(("de-pz-1",), (s,)), d6(*dice))
    (roll,) = [e for e in events if e.kind == "immobilisation" and e.dice]
    assert sum(roll.dice or ()) == sum(dice)
    u = st.units["de-pz-1"]
    assert bool(u.attrs.get("immobilised")) is stuck
    st.vars["side"] = "german"
    why = rules.why_not(st, Pivot(("de-pz-1",), ((u.facing or 0) + 1) % 6))
    assert (why is not None and "immobilised" in why) is stuck
    # an enemy right behind the tank: out of its arc, the turret pays +1 AP
    behind = next(n for n in b.neighbors(s) if not b.in_arc(s, u.facing, n))
    put(st, "su-rifles", behind)
    problem, cost = rules.fire_problem(st, "german", Fire(("de-pz-1",), behind))
    assert problem is None and cost == 3 + 1


# -- §15 armour in fire ------------------------------------------------------- #
def test_a_mixed_stack_is_fired_at_with_both_colours(game: Game) -> None:
    """§15.1: the T-34 fires blue 7 at the tank and red 5 at the rifles of one
    hex; §15.6: the rifles have +1 DM from their own tank."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    put(st, "de-pz-1", h1, (f + 3) % 6)
    put(st, "de-rifles", h1, (f + 3) % 6)
    events = resolve(game, st, Fire(("su-t34",), h1), d6(1, 1, 1, 1))
    rolls = {e.target: e.detail for e in events if e.kind == "attack" and e.dice}
    assert "blue FP 7" in rolls["de-pz-1"]
    assert "red FP 5" in rolls["de-rifles"] and "vehicle cover +1" in rolls["de-rifles"]


@pytest.mark.parametrize(
    ("target", "pile"), [("de-pz-1", "vehicle"), ("de-rifles", "foot")]
)
def test_a_hit_draws_from_the_pile_of_the_unit_type(
    game: Game, target: str, pile: str
) -> None:
    """§7.5, §15.2: vehicles draw from the vehicle pile, foot units from the
    foot pile."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    put(st, target, h1, (f + 3) % 6)
    fm = rules.fire_math(st, st.units["su-t34"], st.units[target])
    need = fm.needed  # a hit, not a kill
    dice = (min(6, need - 1), need - min(6, need - 1))
    events = resolve(game, st, Fire(("su-t34",), h1), [*d6(*dice), 0.99])
    (drawn,) = [e.result for e in events if e.kind == "hit_marker"]
    assert drawn in hit_marker_kinds()[pile]
    assert st.units[target].attrs.get("hit") == drawn


def test_gun_damaged_takes_one_colour_away(game: Game) -> None:
    """§15.2: a Gun Damaged (blue) tank cannot attack armour, still soft targets."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f, hit="gun_damaged_blue", marked=True)
    put(st, "de-pz-1", h1)
    put(st, "de-rifles", h1)
    assert rules.fire_math(st, st.units["su-t34"], st.units["de-pz-1"]) is None
    assert rules.fire_math(st, st.units["su-t34"], st.units["de-rifles"]) is not None


def test_open_topped_flank_is_red_to_foot_close_combat_and_he(game: Game) -> None:
    """§15.5: the PzJg 35R's blue flank acts as red against HE and close combat
    by foot units; tank hunters keep their blue FP; tanks do not change."""
    from wargame.rules.coh.catalog import unit_type

    rules = coh(game)
    pzjg = unit_type("de_pzjg_35r")
    colour = rules.shot_colour
    assert (
        colour(unit_type("su_rifles_41"), pzjg, flank=True, he=False, cc=True) == "red"
    )
    assert (
        colour(unit_type("su_mortar_82mm"), pzjg, flank=True, he=True, cc=False)
        == "red"
    )
    assert (
        colour(unit_type("de_tank_hunters"), pzjg, flank=True, he=False, cc=True)
        == "blue"
    )
    assert (
        colour(unit_type("su_t34a_m40"), pzjg, flank=True, he=False, cc=True) == "blue"
    )
    assert (
        colour(unit_type("su_rifles_41"), pzjg, flank=True, he=False, cc=False)
        == "blue"
    )


def test_self_propelled_guns_pivot_to_fire_out_of_their_arc(game: Game) -> None:
    """§15.4: a gun without a turret (the PzJg 35R) may not fire out of its arc;
    it must pivot first, a separate action."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game)
    put(st, "de-pzjg", h1, f)  # h0 is behind it
    put(st, "su-rifles", h0)
    problem, _ = rules.fire_problem(st, "german", Fire(("de-pzjg",), h0))
    assert problem is not None and "outside" in problem and "arc" in problem
    put(st, "de-pzjg", h1, (f + 3) % 6)
    assert rules.fire_problem(st, "german", Fire(("de-pzjg",), h0)) == (None, 4)


def test_foot_close_combat_against_a_tank(game: Game) -> None:
    """§7.7.3, §14.3: foot units entering a tank's hex attack it in close
    combat at its flank: a Soviet Rifle's blue 0 + 4 against the PzIIIe's 13."""
    rules = coh(game)
    b = rules.board
    _f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-rifles", h0)
    put(st, "de-pz-1", h1)
    resolve(game, st, Move(("su-rifles",), (h1,)))
    fm = rules.fire_math(st, st.units["su-rifles"], st.units["de-pz-1"])
    assert (fm.fp, fm.dv, fm.flank) == (0 + 4, 13 + b.dm(h1), True)


def test_trucks_attack_only_in_close_combat_and_claim_nothing(game: Game) -> None:
    """§16.0: trucks have -2 FP and range 0 (feeble close combat only), never
    claim control hexes and cost no CAP when destroyed."""
    rules = coh(game)
    b = rules.board
    obj = next(iter(rules.objective_hexes))
    st = fresh(game)
    near = next(n for n in b.neighbors(obj) if b.terrain[n] == "open")
    put(st, "de-truck", near, b.direction(near, obj))
    put(st, "su-rifles", obj)
    problem, _ = rules.fire_problem(st, "german", Fire(("de-truck",), obj))
    assert problem is not None and "reach of 0" in problem
    resolve(game, st, Move(("de-truck",), (obj,)))
    st.vars["side"] = "german"
    fm = rules.fire_math(st, st.units["de-truck"], st.units["su-rifles"])
    assert fm.fp == -2 + 4  # red -2, close combat +4 (no white box)
    st.units["su-rifles"].position = None  # the rifle leaves: the truck alone
    rules.after_move(context(game, st, []), "de-truck")
    assert st.control.get(obj) != "german"
    caps = st.pools["caps:german"]
    rules.destroy(context(game, st, []), st.units["de-truck"], "test")
    assert st.pools["caps:german"] == caps and st.vars["losses:german"] == 0
    assert st.vars["vp:soviet"] == 1


# -- §16-17 transport ----------------------------------------------------------- #
def test_load_and_unload_cost_the_open_ground_move_cost(game: Game) -> None:
    """§17.0: loading and unloading are group actions costing the loading
    units' open-ground move cost; one foot unit or one gun per vehicle, a
    German Rifle and LMG together; pinned units do not load themselves."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, *_rest) = open_flat_run(b)
    st = fresh(game)
    for uid in ("de-251", "de-rifles", "de-lmg", "de-rifles-2"):
        put(st, uid, h0, f)
    put(st, "de-truck", h1, f)
    put(st, "de-pak", h1, f)
    squad = Load(("de-251", "de-lmg", "de-rifles"))
    assert rules.load_problem(st, "german", squad) == (None, 1)
    assert squad in rules.legal_actions(st)
    assert rules.load_problem(st, "german", Load(("de-truck", "de-pak"))) == (None, 3)
    both = rules.load_problem(
        st, "german", Load(("de-251", "de-rifles", "de-rifles-2"))
    )
    assert both[0] is not None and "one foot unit" in both[0]
    st.units["de-rifles-2"].attrs.update(hit="pinned", marked=True)
    pinned = rules.load_problem(st, "german", Load(("de-251", "de-rifles-2")))
    assert pinned[0] is not None and "Pinned" in pinned[0]
    resolve(game, st, squad)
    assert st.units["de-rifles"].attrs["carried_by"] == "de-251"
    assert st.pools["ap:german"] == 6
    # riders move with their vehicle and do not act on their own
    st.vars["side"] = "german"
    why = rules.why_not(st, Move(("de-rifles",), (h1,)))
    assert why is not None and "rides on" in why
    why = rules.why_not(st, Fire(("de-lmg",), h1))
    assert why is not None and "may not fire" in why
    resolve(game, st, Move(("de-251",), (h1,)))
    assert st.units["de-rifles"].hex == st.units["de-lmg"].hex == h1
    st.vars["side"] = "german"
    off = Unload(("de-251", "de-rifles"))
    assert rules.unload_problem(st, "german", off) == (None, 1)
    resolve(game, st, off)
    assert "carried_by" not in st.units["de-rifles"].attrs
    assert st.units["de-lmg"].attrs["carried_by"] == "de-251"


def test_fire_at_a_transporter_rolls_at_the_cargo_flank_with_the_apc_shield(
    game: Game,
) -> None:
    """§17.1: fire at a transporter rolls separately against its cargo's flank
    DR, both with the hex DM; §16.1: +2 DM in an APC, kept for the attack that
    destroys it; survivors are set down facing the vehicle's way."""
    rules = coh(game)
    b = rules.board
    f, (h0, h1, h2, _h3) = open_flat_run(b)
    st = fresh(game, "soviet")
    put(st, "su-t34", h0, f)
    put(st, "de-251", h1, (f + 3) % 6)  # facing the T-34: front DR
    put(st, "de-rifles", h1, (f + 3) % 6, carried_by="de-251")
    put(st, "de-truck", h2, f)
    put(st, "de-rifles-2", h2, f, carried_by="de-truck")
    t34 = st.units["su-t34"]
    in_apc = rules.fire_math(st, t34, st.units["de-rifles"])
    in_truck = rules.fire_math(st, t34, st.units["de-rifles-2"])
    assert in_apc.flank and in_truck.flank
    assert "APC +2 (§16.1)" in in_apc.dv_terms
    assert in_apc.dv - in_truck.dv == 2  # same ground, same level
    assert not any("vehicle cover" in t for t in in_truck.dv_terms)
    # the rifle is missed, the APC destroyed (12 on the dice)
    events = resolve(game, st, Fire(("su-t34",), h1), [*d6(1, 1), *d6(6, 6)])
    rolled = [e.target for e in events if e.kind == "attack" and e.dice]
    assert rolled == ["de-rifles", "de-251"]
    assert st.units["de-251"].destroyed
    rifles = st.units["de-rifles"]
    assert not rifles.destroyed and "carried_by" not in rifles.attrs
    assert rifles.hex == h1 and rifles.facing == (f + 3) % 6


def test_towing_an_immobilised_tank_out_of_the_bad_ground(game: Game) -> None:
    """§14.5: tracked vehicles tow immobilised tracked vehicles, without bonus
    moves; towed out of the "!" terrain it may move again."""
    rules = coh(game)
    b = rules.board
    a, s = _stone_step(b)
    st = fresh(game)
    put(st, "de-pz-1", s, b.direction(a, s), immobilised="terrain")
    put(st, "de-pz-2", s, b.direction(s, a))
    tow = Load(("de-pz-2", "de-pz-1"))
    assert rules.load_problem(st, "german", tow) == (None, 1)
    put(st, "de-truck", s)
    by_truck = rules.load_problem(st, "german", Load(("de-truck", "de-pz-1")))[0]
    assert by_truck is not None and "only tracked" in by_truck
    resolve(game, st, tow)
    st.vars["side"] = "german"
    assert rules.bonus_paths(st, st.units["de-pz-2"], a) == []
    resolve(game, st, Move(("de-pz-2",), (a,)))
    assert st.units["de-pz-1"].hex == a
    st.vars["side"] = "german"
    resolve(game, st, Unload(("de-pz-2", "de-pz-1")))
    assert "immobilised" not in st.units["de-pz-1"].attrs


def test_riders_at_set_up_are_checked(game: Game) -> None:
    """A firefight's ``carried_by`` must name a vehicle of the side with room."""
    base = _scenario(["A1", "A2", "A3"])
    base["units"] = [
        {"id": "t", "type": "su_t34a_m40", "side": "soviet", "hex": "C20"},
        {"id": "r1", "type": "su_rifles_41", "side": "soviet", "carried_by": "t"},
        {"id": "r2", "type": "su_rifles_41", "side": "soviet", "carried_by": "t"},
        {"id": "r3", "type": "su_rifles_41", "side": "soviet", "carried_by": "r1"},
    ]
    with pytest.raises(ScenarioError) as err:
        Game(load_scenario(base), seed=0)
    text = str(err.value)
    assert "units[2].carried_by" in text and "one foot unit" in text
    assert "units[3].carried_by" in text and "does not transport" in text


# -- the tank firefight ---------------------------------------------------------- #
def test_the_tank_scenario_validates_and_starts_its_riders_on_board() -> None:
    assert check_scenario("coh_tanks_ridge") == []
    g = Game.from_scenario("coh_tanks_ridge", seed=1)
    rides = {u.id: u.attrs.get("carried_by") for u in g.state.units.values()}
    assert rides["su-rifles-1"] == "su-t34-1" and rides["de-lmg"] == "de-251"
    assert g.state.units["de-lmg"].hex == g.state.units["de-251"].hex
    b = coh(g).board
    assert b.level["M11"] == max(b.level.values())  # the crest is the objective
    # the half-track and its squad move as a group: the squad shares the pool
    move = next(
        a
        for a in g.legal_actions()
        if isinstance(a, Move) and a.units == ("de-251",) and a.pay == "ap"
    )
    g.apply(move)
    status = {u: g.state.units[u].attrs["status"] for u in ("de-251", "de-lmg")}
    assert status == {"de-251": "active", "de-lmg": "active"}
    assert g.state.units["de-lmg"].hex == g.state.units["de-251"].hex


@pytest.mark.parametrize("policy", ["random", "doctrine"])
def test_the_tank_scenario_plays_to_the_end(policy: str) -> None:
    pols = {s: get_policy(policy, ruleset="coh-2e") for s in ("german", "soviet")}
    g = Game.from_scenario("coh_tanks_ridge", seed=3, policies=pols)
    outcome = g.run(max_actions=5000)
    assert outcome is not None and g.is_over
    for u in g.state.units.values():  # riders are where their vehicle is
        by = u.attrs.get("carried_by")
        if by and not u.destroyed:
            assert u.hex == g.state.units[by].hex and not g.state.units[by].destroyed


def test_the_tank_scenario_is_in_the_conformance_run() -> None:
    """check_ruleset("coh-2e", "coh_tanks_ridge") runs in test_coh_conformance.py
    (every coh-2e scenario, six seeds, with the leak checks); not repeated here
    to keep the suite fast."""
    assert "coh_tanks_ridge" in available_scenarios()
    assert load_scenario("coh_tanks_ridge").ruleset == "coh-2e"
