"""A test scenario with the special World at War units (conformance helper).

Helicopters in both modes (WaW 9.0), air defence units and AA support weapons
(1.3.4.5), infantry support weapons and a tank ATGM (1.3.5), carriers and a
truck with their passengers (5.2), light-armored and unarmored vehicles
(1.3.4.2), mortars with HQs and recon units to call their fire (1.3.4.3-4) and
units that hide (6.1.5), off-map artillery and air support chits with smoke and
a chaos chit (1.7, clean-up markers), and an MTU-55 at the Rhine (bridge
units), on the open plateau of the Remagen window.  Not
balanced: it exists so that random play reaches every special rule.
"""

from __future__ import annotations

from waw_helpers import MAP, unit


def special_scenario(turns: int = 4) -> dict:
    """The scenario dict (see the module docstring)."""
    units = [
        unit("US-HQ", "us_hq", "A", "N17"),
        unit("US-M60", "m60", "A", "N17"),
        unit("US-APC", "m113", "A", "O18"),
        unit(
            "US-INF",
            "us_infantry",
            "A",
            None,
            carried_by="US-APC",
            support_weapon="stinger",
        ),
        unit("US-INF2", "us_infantry", "A", "M18", support_weapon="dragon"),
        unit("US-AA", "m163", "A", "O17"),
        unit("US-TOW", "tow_jeep", "A", "P17"),
        unit("US-MOR", "us_mortar81", "A", "P18"),
        unit("US-SCOUT", "m3", "A", "M17"),
        unit("US-AH64", "ah64", "AV", "Q16"),
        unit("US-AH1", "ah1", "AV", "Q18", mode="high"),
        unit("SU-HQ", "ussr_hq", "B", "H17"),
        unit("SU-T64", "t64", "B", "H17", support_weapon="songster"),
        unit("SU-T72", "t72", "B", "I16"),
        unit("SU-ZSU", "zsu23_4", "B", "G17"),
        unit("SU-SA9", "sa9", "B", "G16"),
        unit("SU-MOR", "ussr_mortar120", "B", "F18"),
        unit("SU-RECON", "brdm2", "B", "I18"),
        unit("SU-HQ2", "ussr_hq", "C", "H18"),
        unit("SU-BMP", "bmp1", "C", "H18"),
        unit(
            "SU-INF",
            "ussr_infantry",
            "C",
            None,
            carried_by="SU-BMP",
            support_weapon="sa16",
        ),
        unit("SU-TRK", "ural375", "C", "G18"),
        unit(
            "SU-INF2",
            "ussr_infantry",
            "C",
            None,
            carried_by="SU-TRK",
            support_weapon="sagger",
        ),
        unit("SU-MI24", "mi24", "D", "F17"),
        unit("SU-HQ3", "ussr_hq", "E", "Y10"),
        unit("SU-MTU", "mtu55", "E", "Y11"),
        unit("SU-T72B", "t72", "E", "Y10"),
        unit("US-M60B", "m60", "A", "Y13"),
        unit("SU-MI8", "mi8", "D", "F16", mode="high"),
    ]
    return {
        "id": "waw-special-test",
        "ruleset": "waw-classic",
        "turns": turns,
        "map": dict(MAP),
        "rules": {"first_side": "pact", "chaos_chits": 1},
        "victory": {"unit_destroyed_vp": 1},
        "sides": [{"id": "nato", "name": "NATO"}, {"id": "pact", "name": "Pact"}],
        "formations": [
            {"id": "A", "side": "nato", "name": "Team A", "hq": "US-HQ"},
            {"id": "AV", "side": "nato", "name": "Attack helicopters", "chits": 1},
            {"id": "B", "side": "pact", "name": "1/74 tanks", "hq": "SU-HQ"},
            {"id": "C", "side": "pact", "name": "2/74 motor rifles", "hq": "SU-HQ2"},
            {"id": "D", "side": "pact", "name": "Hind flight", "chits": 1},
            {"id": "E", "side": "pact", "name": "Bridging company", "hq": "SU-HQ3"},
        ],
        "units": units,
        "objectives": [{"hex": "L17", "vp": 2}],
        "support": [
            {
                "id": "nato-155",
                "side": "nato",
                "name": "155 mm battery",
                "fp": 4,
                "to_hit": 5,
                "missions": 3,
                "rationale": "test values: a medium battery",
            },
            {
                "id": "pact-su25",
                "side": "pact",
                "name": "Su-25 pair",
                "kind": "air",
                "weapon": "ap",
                "fp": 3,
                "to_hit": 4,
                "missions": 2,
                "rationale": "test values: ground-attack jets with AT weapons",
            },
        ],
    }
