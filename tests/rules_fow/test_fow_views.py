"""fow-v3 on the map: Pinned Down platoons and Bailed Out / Bogged Down teams
are drawn as such (research/fow.md §3.5, §3.6, §2.1) through the neutral
``model_marks`` hook and the unit look."""

from __future__ import annotations

from dataclasses import replace

from fow_remagen_foot import remagen_on_foot

from wargame.engine import Game
from wargame.render.points import SUPPRESSED_COLOUR, models_geojson


def test_pinned_platoons_and_bailed_or_bogged_teams_are_drawn_so() -> None:
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    st = g.state
    tanks = st.units["us_pershings"]
    first, second, *rest = tanks.models
    models = (
        replace(first, attrs={**first.attrs, "bailed": True}),
        replace(second, attrs={**second.attrs, "bogged": True}),
        *rest,
    )
    st.units["us_pershings"] = replace(tanks, models=models)
    rifles = st.units["us_1pl"]
    st.units["us_1pl"] = replace(rifles, attrs={**rifles.attrs, "pinned": True})
    assert g.ruleset.model_marks(st, st.units["us_pershings"]) == {
        first.id: ("Bailed Out",),
        second.id: ("Bogged Down",),
    }
    dots = {
        f["properties"]["model"]: f["properties"]
        for f in models_geojson(g)["features"]
        if f["geometry"]["type"] == "Point"
    }
    assert dots[first.id]["marks"] == ["Bailed Out"]
    assert dots[first.id]["style"]["dashArray"] == "2 2"
    assert dots[second.id]["marks"] == ["Bogged Down"]
    assert rest and dots[rest[0].id]["marks"] == []
    assert "dashArray" not in dots[rest[0].id]["style"]
    pinned = [p for p in dots.values() if p["unit"] == "us_1pl"]
    assert pinned and all(p["style"]["color"] == SUPPRESSED_COLOUR for p in pinned)
    others = [p for p in dots.values() if p["unit"] == "us_2pl"]
    assert others and all(p["style"]["color"] != SUPPRESSED_COLOUR for p in others)


def test_after_a_step_the_map_shows_the_trail_and_the_fire_line_at_points() -> None:
    """The step marks of a free-movement game: a platoon's move is a trail
    from its point to its new one, a shot a fire line from the firing
    platoon's point to its target's, coloured by the result."""
    from wargame.ai import get_policy
    from wargame.render.trail import RESULT_COLOURS, step_marks_geojson

    pol = get_policy("greedy", ruleset="fow-v3")
    g = Game.from_scenario("fow_ockenfels_1945", seed=5)
    g.policies = {"us": pol, "de": pol}
    shot = None
    for _ in range(200):
        g.step()
        last = g.log[g.log["action_index"] == g.log["action_index"].max()]
        if (last["kind"] == "shoot").any():
            shot = last[last["kind"] == "shoot"].iloc[-1]
            break
    assert shot is not None, "no shot in 200 actions"
    fc = step_marks_geojson(g.map, g.log, steps=1)
    lines = [f for f in fc["features"] if f["properties"]["mark"] == "shot"]
    assert len(lines) == 1
    props = lines[0]["properties"]
    assert props["unit"] == shot["unit"] and props["hexes"] == []
    (x0, y0), (x1, y1) = props["points"]
    assert (x0, y0) == (round(shot["x_from"], 2), round(shot["y_from"], 2))
    assert (x1, y1) == (round(shot["x_to"], 2), round(shot["y_to"], 2))
    want = "hit" if shot["hits"] > 0 else "miss"
    assert props["result"] == want
    assert props["style"]["color"] == RESULT_COLOURS[want]
    # and the older actions: move trails between points
    fc3 = step_marks_geojson(g.map, g.log, steps=40)
    assert any(f["properties"]["mark"] == "move" for f in fc3["features"])
