"""fow-v3 on the map: Pinned Down platoons and Bailed Out / Bogged Down teams
are drawn as such (research/fow.md §3.5, §3.6, §2.1) through the neutral
``model_marks`` hook and the unit look."""

from __future__ import annotations

from dataclasses import replace

from wargame.engine import Game
from wargame.render.points import SUPPRESSED_COLOUR, models_geojson


def test_pinned_platoons_and_bailed_or_bogged_teams_are_drawn_so() -> None:
    g = Game.from_scenario("fow_remagen_1945", seed=1)
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
