"""What the map shows of a Бронепехота unit: a manned machine's tracks (§2.2,
§4.2, §7.7), its pilot (§1.6), and a unit that has acted this turn (§3.2)."""

from __future__ import annotations

from wargame.engine import Game, load_scenario
from wargame.engine.state import unit_change


def test_a_manned_machine_shows_its_durability_sector_speed_ammo_and_pilot() -> None:
    g = Game(load_scenario("bronepehota_linz_bank"), seed=1)
    look = g.ruleset.unit_look(g.state, g.state.units["tp_bronekhod"])
    assert look.markers == (
        "durability 10 of 10 (green, speed 4)",
        "ammo 12 of 12",
        "pilot tp_cyber.6",
    )
    assert look.words == () and not look.spent


def test_the_markers_follow_the_durability_track_down_its_sectors() -> None:
    g = Game(load_scenario("bronepehota_linz_bank"), seed=1)
    mach = g.ruleset.arm.machines[g.state.units["tp_bronekhod"].type]
    for cell in range(1, mach.durability_max + 1):
        st = g.state.copy()
        st.apply(unit_change("tp_bronekhod", durability=cell))
        look = g.ruleset.unit_look(st, st.units["tp_bronekhod"])
        want = f"({mach.colour_at(cell)}, speed {mach.speed_at(cell)})"
        assert look.markers[0] == f"durability {cell} of 10 {want}"
    # Fig. 21's machine is not this one; the sectors must still change speed
    speeds = {mach.speed_at(c) for c in range(1, mach.durability_max + 1)}
    assert len(speeds) > 1


def test_a_unit_that_has_acted_is_drawn_spent_and_says_so() -> None:
    g = Game(load_scenario("bronepehota_linz_bank"), seed=1)
    g.step()  # the first side's first unit acts (§3.2)
    acted = [k for k, u in g.state.units.items() if u.attrs.get("acted")]
    assert acted
    for k, u in g.state.units.items():
        look = g.ruleset.unit_look(g.state, u)
        assert look.spent == (k in acted)
        assert ("acted" in look.words) == (k in acted)
