"""coh-2e through the neutral hooks: the classroom app plays it, counters show
facing and hit markers as their viewer may see them, hands stay secret."""

from __future__ import annotations

from coh_helpers import game

from wargame.rules.coh.actions import Fire


def test_classroom_offers_and_plays_a_coh_scenario() -> None:
    from wargame.ui.classroom import ClassroomApp

    app = ClassroomApp("coh_partisans", side="soviet", seed=2)
    assert "coh_partisans" in [n for _, n in app.scenario.options]
    assert app.game.ruleset.id == "coh-2e" and app.view.human == "soviet"
    app.view.step_button.click()  # the AI plays the Germans until Soviets decide
    assert len(app.game.actions) >= 1


def test_panels_show_pools_caps_and_only_the_own_hand() -> None:
    from wargame.engine import Game

    g = Game.from_scenario("coh_partisans", seed=3)  # cards numbered <= 13
    assert len(g.state.decks["hand:german"]) == 2
    (panel,) = g.ruleset.panels(g.state, "german")
    rows = {s.title: s for s in panel.sections}
    assert "AP pool, CAPs and VP" in rows
    assert all(i.text != "?" for i in rows["german hand"].items)
    assert all(i.text == "?" for i in rows["soviet hand"].items)
    assert set(g.state_for("soviet").decks["hand:german"]) == {"?"}


def test_a_face_down_marker_is_seen_by_its_owner_only() -> None:
    for seed in range(60):
        g = game(
            [
                ("mg", "de_hmg34", "german", "K4", 5),
                ("su", "su_rifles_41", "soviet", "K7", 2),
            ],
            seed=seed,
        )
        g.apply(Fire(("mg",), "K7"))
        u = g.state.units["su"]
        if u.attrs.get("marked") and not u.destroyed and not u.attrs.get("marker"):
            break
    else:
        raise AssertionError("no face-down hit in 60 seeds")
    mine = g.ruleset.unit_look(g.state_for("soviet"), g.state_for("soviet").units["su"])
    theirs = g.ruleset.unit_look(
        g.state_for("german"), g.state_for("german").units["su"]
    )
    assert any("face down" in w and "hit (" not in w for w in mine.words)
    assert "hit (face down)" in theirs.words
    assert "hit" not in g.state_for("german").units["su"].attrs
    look = g.ruleset.unit_look(g.state, g.state.units["mg"])
    assert "facing 5" in look.markers
