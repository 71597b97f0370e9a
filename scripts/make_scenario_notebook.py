"""Regenerate notebooks/02_scenario_replay.ipynb (run from the repository root)."""

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# Replaying a scenario: AI against AI

A *World at War* scenario on the real Middle Rhine map, played to the end by two AI
policies. Everything that happens is an event in `game.log` (a pandas DataFrame): moves,
every die rolled, every hit. This notebook reads it back: losses turn by turn, and whether
the dice behave like dice. It runs offline in well under a minute.

Scenarios live in `scenarios/` (format: `docs/scenarios.md`); policies in `wargame.ai`."""),
    code("""import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from wargame.ai import available_policies, get_policy, play_until
from wargame.engine import Game, available_scenarios, load_scenario

SCENARIO = "ahr_delay"  # try "remagen_linz_crossing" or "siebengebirge_heights"
SEED = 7
print("scenarios:", [s for s in available_scenarios() if s != "test_remagen"])
print("policies: ", available_policies())"""),
    md("""## The scenario
The briefing is written for a classroom; the historical note says what is documented and
what is invented."""),
    code("""scenario = load_scenario(SCENARIO)
print(scenario.title, f"- {scenario.turns} turns of {scenario.turn_minutes} minutes")
print(scenario.text("description"))
print(scenario.text("briefing"))
print(scenario.text("historical_note"))"""),
    md("""## Play it: `doctrine` against `doctrine`
Each side gets a policy. The policies are deterministic given the seed: the same seed
gives the same game, and a saved game replays exactly."""),
    code("""sides = [s["id"] for s in scenario.sides]
game = Game(scenario, seed=SEED, policies={s: get_policy("doctrine", ruleset=scenario.ruleset) for s in sides})
outcome = game.run()
names = {s: game.state.sides[s].name for s in sides}
print(game)
print("winner:", names.get(outcome.winner, "draw"), "-", outcome.termination)
print("victory points:", {names[s]: vp for s, vp in outcome.victory_points.items()})"""),
    md("""## On the map: event by event
`ReplayView` steps through the game's events on the map: drag the slider or press play;
the last actions' trails, fire lines and dice are drawn where they happened."""),
    code("""from wargame.ui import ReplayView

ReplayView(game, height="460px")"""),
    md("""## The log
One row per event. `dice` holds the faces rolled, `needed` the number each die had to
reach, `hits` the successes, `detail` a sentence in game terms."""),
    code("""log = game.log
log[["seq", "turn", "side", "unit", "kind", "dice", "needed", "hits", "result", "detail"]].head(12)"""),
    code("""# what happened, by kind of event and turn
log.pivot_table(index="kind", columns="turn", values="seq", aggfunc="count",
                observed=True).fillna(0).astype(int)"""),
    md("""## Losses over turns
A `hit` event carries the result on the unit (`disrupted`, `reduced`, `destroyed`);
retreats and assaults can destroy units too. Count the units each side has lost by the end
of each turn."""),
    code("""lost = log[log["result"].eq("destroyed") & log["unit"].notna()]
lost = lost.drop_duplicates("unit")  # a unit is destroyed once
per_turn = (lost.groupby(["turn", "side"], observed=True).size().unstack(fill_value=0)
            .reindex(range(1, scenario.turns + 1), fill_value=0).cumsum())
per_turn = per_turn.rename(columns=names)
ax = per_turn.plot(drawstyle="steps-post", marker="o", figsize=(7, 3.5),
                   title=f"Units lost (cumulative) - {scenario.title}, seed {SEED}")
ax.set_xlabel("turn")
ax.set_ylabel("units destroyed")
per_turn.tail(1)"""),
    code("""# the same from the final state: losses by side and unit type
units = game.units
start = game.initial_state.units
summary = (units.assign(destroyed=units["status"].eq("destroyed"),
                        reduced=[u.strength == "reduced" and start[i].strength != "reduced"
                                 for i, u in game.state.units.items()])
           .groupby(["side", "type"], observed=True)[["destroyed", "reduced"]].sum())
summary[summary.sum(axis=1) > 0]"""),
    md("""## The dice
Every die comes from the game's seeded generator and is logged. Over a whole game the
faces should be about uniform; fire dice hit when they reach the to-hit number."""),
    code("""rolls = log[log["dice"].notna()]
faces = pd.Series([f for dice in rolls["dice"] for f in dice], name="face")
counts = faces.value_counts().sort_index()
fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
counts.plot.bar(ax=axes[0], color="tab:blue", title=f"{len(faces)} dice rolled")
axes[0].axhline(len(faces) / 6, color="k", ls="--", label="expected")
axes[0].legend()
by_kind = rolls.assign(n=rolls["dice"].map(len)).groupby("kind", observed=True)["n"].sum()
by_kind[by_kind > 0].sort_values().plot.barh(ax=axes[1], color="tab:orange",
                                             title="dice by kind of roll")
fig.tight_layout()"""),
    code("""# fire: share of dice that hit, against the exact chance of the to-hit number
fire = log[log["kind"].eq("fire") & log["dice"].notna()]
rows = []
for needed, grp in fire.groupby("needed"):
    dice = [f for d in grp["dice"] for f in d]
    rows.append({"to-hit": needed, "dice": len(dice),
                 "hit share": np.mean([f >= needed for f in dice]),
                 "exact chance": (7 - needed) / 6})
pd.DataFrame(rows).set_index("to-hit").round(3)"""),
    md("""## Play one side yourself
Give a policy to one side only and let it play until your side must decide:
`play_until(game, side)`, then `game.legal_actions()` and `game.apply(...)`. Here the
"person" simply takes the first option offered, for two decisions."""),
    code("""human = sides[0]
duel = Game(scenario, seed=SEED, policies={sides[1]: get_policy("doctrine", ruleset=scenario.ruleset)})
for _ in range(2):
    play_until(duel, human)
    options = duel.legal_actions()
    print(f"{names[human]} may choose from {len(options)} actions, e.g.",
          [duel.describe(a) for a in options[:3]])
    duel.apply(options[0])
print(duel)"""),
    md("""## Checks
This notebook is also a test (`make notebooks`)."""),
    code("""assert outcome is not None and game.is_over
assert set(outcome.victory_points) == set(sides)
assert len(faces) > 100 and set(faces.unique()) <= {1, 2, 3, 4, 5, 6}
assert abs(counts / len(faces) - 1 / 6).max() < 0.05, counts
again = Game(scenario, seed=SEED, policies={s: get_policy("doctrine", ruleset=scenario.ruleset) for s in sides})
again.run()
assert again.actions == game.actions  # same seed, same game
print("scenario replay ok:", len(log), "events,", len(faces), "dice")"""),
    md("""Attribution: Elevation: NASA SRTM (public domain). Map data © OpenStreetMap
contributors, ODbL 1.0. Place names: GeoNames, CC BY 4.0."""),
]
nb.metadata["kernelspec"] = {
    "name": "python3",
    "display_name": "Python 3",
    "language": "python",
}
nb.metadata["language_info"] = {"name": "python"}
nbf.write(nb, "notebooks/02_scenario_replay.ipynb")
