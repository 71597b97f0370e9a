"""Regenerate notebooks/04_what_if.ipynb (run from the repository root)."""

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# What if: who gains more from one more tank platoon?

**The question.** In the Remagen test fight a US company team holds the plateau crossroads
against a Soviet tank battalion and a motor rifle battalion. *Who gains more from one extra
tank platoon: the NATO defender (one more M60) or the Soviet attacker (one more T-72)? And
does the answer depend on how well the two sides play?*

**How we answer it.** A *variant grid*: 2 ways of playing × 3 choices of reinforcement = 6
variants, each played 40 times.

* *Random play*: every legal order equally likely (the `random` policy). It measures the
  scenario itself, without tactics.
* *Doctrine play*: both sides follow simple scripted doctrine (the `doctrine` policy of
  `wargame.ai`: advance by bounds through cover, overwatch, rally near the HQ, hold what was
  taken).

Game *i* uses the same dice seed in every variant (common random numbers), so the variants
differ only by what we changed. Every result comes with a 95 % interval: with 40 games a
win rate is only known to within about ±10 to 15 points, and the notebook says so.

Everything runs offline in about a minute on two cores."""),
    code("""import matplotlib.pyplot as plt
import pandas as pd

from wargame import batch
from wargame.engine import load_scenario

SCENARIO = "test_remagen"
N_GAMES = 40          # per variant; 400 would narrow the intervals about threefold
SEED = 2024           # the batch seed: the whole study is reproducible from it
print("policies available:", ", ".join(batch.policy_names()))
SMART = "doctrine" if "doctrine" in batch.policy_names() else "random"

scenario = load_scenario(SCENARIO)
scenario.title"""),
    md("""## The variant grid
A variant is a dict of overrides applied to the scenario: `policies.<side>` chooses who
plays a side, `add_units` puts one more platoon on the map (next to its own company or
battalion). A misspelt parameter, an unknown policy or a bad hex is refused before any game
runs."""),
    code("""M60 = {"id": "US-M3", "name": "M60 platoon 5/A", "type": "m60",
       "formation": "A/1-32", "hex": "N16"}       # on the crossroads objective
T72 = {"id": "SU-T3", "name": "T-72 platoon 3/1/74", "type": "t72",
       "formation": "1/74", "hex": "I17"}         # next to its battalion

PLAY = {"random play": {"policies.nato": "random", "policies.pact": "random"},
        "doctrine play": {"policies.nato": SMART, "policies.pact": SMART}}
REINFORCEMENT = {"as printed": {},
                 "+1 M60 (NATO)": {"add_units": [M60]},
                 "+1 T-72 (Pact)": {"add_units": [T72]}}
variants = batch.variant_grid({"play": PLAY, "reinforcement": REINFORCEMENT})
pd.DataFrame({name: {k: str(v)[:50] for k, v in ov.items()}
              for name, ov in variants.items()}).T.fillna("")"""),
    md("""## Play the games
`batch.run` spreads the games over every core (a progress bar shows how far it is) and
returns one row per game: winner, victory points, losses by side and unit type, who holds
each objective, the policies, the seed (to replay any game) and more."""),
    code("""df = batch.run(SCENARIO, N_GAMES, seed=SEED, variants=variants)
print(f"{len(df)} games, {df['wall_time'].sum():.0f} s of game time")
df.drop(columns=["destroyed"]).head()"""),
    md("""## Win rates with their intervals
`compare` gives one row per variant: NATO's win rate with its 95 % Wilson interval, the
draw rate, mean victory points and losses, and the loss-exchange ratio (`ler`: Soviet units
destroyed per NATO unit lost, with a bootstrap interval)."""),
    code("""table = batch.compare(df, "nato")
cols = ["games", "win_rate", "win_low", "win_high", "draw_rate", "lost_nato",
        "lost_pact", "ler", "ler_low", "ler_high"]
table[cols].style.format(dict.fromkeys(cols[1:5], "{:.0%}") |
                         dict.fromkeys(cols[5:], "{:.2f}"))"""),
    code("""fig, axes = plt.subplots(1, 2, figsize=(13, 4))
batch.plot_win_rates(df, "nato", ax=axes[0])
batch.plot_outcomes(df, ax=axes[1])
fig.tight_layout()"""),
    md("""## Losses over the turns
Mean units destroyed per game by the end of each turn under doctrine play (solid: NATO,
dashed: Soviet). The curves show *when* the extra platoon makes its difference."""),
    code("""doctrine = df[df["variant"].astype(str).str.startswith("doctrine")]
ax = batch.plot_losses_over_turns(doctrine)
ax.figure.set_size_inches(8, 4)
batch.losses_by_turn(doctrine).unstack("turn").round(2)"""),
    md("""## Where the units died
A heat map of the hexes where units were destroyed (all units, both sides) under doctrine
play, without and with the extra T-72, on one colour scale. The same data becomes a map
layer with `wargame.render.heatmap.heat_geojson` (GeoJSON with a fill colour per hex), shown
below it on the map widget."""),
    code("""game_map = scenario.load_map()
pair = ["doctrine play, as printed", "doctrine play, +1 T-72 (Pact)"]
top = max(batch.destroyed_hexes(df, variant=v)["per_game"].max() for v in pair)
fig, axes = plt.subplots(1, 2, figsize=(13, 5))
for ax, v in zip(axes, pair, strict=True):
    batch.plot_destroyed_hexes(df, game_map, ax=ax, variant=v, vmax=top)
fig.tight_layout()"""),
    code("""import ipyleaflet
import ipywidgets as widgets

from wargame.render.heatmap import heat_geojson, heat_legend_html
from wargame.ui import MapView

hot = batch.destroyed_hexes(doctrine)
layer = ipyleaflet.GeoJSON(
    data=heat_geojson(game_map, hot["per_game"]),
    name="units destroyed",
    style_callback=lambda f: {"fillColor": f["properties"]["fill"], "color": "#555",
                              "weight": 0.5, "fillOpacity": 0.7},
)
view = MapView(game_map, height="420px")
view.leaflet.add(layer)
legend = widgets.HTML(heat_legend_html(hot["per_game"], "units destroyed a game",
                                       unit="units"))
view.leaflet.add(ipyleaflet.WidgetControl(widget=legend, position="bottomright"))
view"""),
    md("""## Replay one game
Every row carries its seed, so any game can be replayed move by move: here the game with the
extra T-72 under doctrine play in which NATO lost most."""),
    code("""t72 = df[df["variant"] == "doctrine play, +1 T-72 (Pact)"]
worst = t72.sort_values(["lost_nato", "game"], ascending=[False, True]).iloc[0]
game = batch.game_for(SCENARIO, int(worst["seed"]), variant=str(worst["variant"]),
                      variants=variants)
print(game.run())
log = game.log
log[log["result"].astype(str).str.contains("destroyed")][
    ["turn", "side", "unit", "kind", "hex_to", "result", "detail"]]"""),
    md("""## Conclusion
The cell below writes the answer from the numbers above, so it stays true when the engine,
the policies, the seed or the number of games change. Read it out as it is."""),
    code("""def pct(x: float) -> str:
    return f"{x:.0%}"


def clear(lo: float, hi: float) -> str:
    return ("a clear difference" if lo > 0 or hi < 0
            else "within what chance alone gives with this many games")


lines, widths = [], []
for play in PLAY:
    b = table.loc[f"{play}, as printed"]
    base_ler = b["ler"]
    text = (f"{play.capitalize()}: as printed, NATO wins {pct(b['win_rate'])} of "
            f"{int(b['games'])} games (95 % interval {pct(b['win_low'])} to "
            f"{pct(b['win_high'])}) and destroys {base_ler:.1f} Soviet units per unit "
            "it loses.")
    shifts = {}
    for name, who in [("+1 M60 (NATO)", "one more M60 for NATO"),
                      ("+1 T-72 (Pact)", "one more T-72 for the Soviets")]:
        r = table.loc[f"{play}, {name}"]
        wins = (r["win_rate"] * r["games"], r["games"])
        d, lo, hi = batch.newcombe_interval(*wins, b["win_rate"] * b["games"], b["games"])
        shifts[who] = d
        widths.append((hi - lo) / 2)
        loss_note = ("clearly" if r["ler_low"] > base_ler or r["ler_high"] < base_ler
                     else "not clearly")
        text += (f" With {who}, NATO wins {pct(r['win_rate'])}: {d:+.0%} "
                 f"(interval {lo:+.0%} to {hi:+.0%}), {clear(lo, hi)}; the exchange "
                 f"ratio becomes {r['ler']:.1f}, {loss_note} different.")
    bigger = max(shifts, key=lambda k: abs(shifts[k]))
    text += f" Under {play}, {bigger} moves the result most ({shifts[bigger]:+.0%})."
    lines.append(text)
lines.append(
    f"With {N_GAMES} games per variant, a difference in win rate must exceed about "
    f"{sum(widths) / len(widths):.0%} to be told from luck: where the answer matters, "
    "play more games (the same call with a bigger n_games, or on a cluster).")
print("\\n\\n".join(lines))"""),
    md("""## Bigger studies
* `out="runs/what_if"` keeps every row as Parquet and resumes an interrupted run;
  `logs=True` also keeps every game's event log.
* `client=dask.distributed.Client(...)` plays the same games on a cluster with the same
  results (see `docs/scaling.md`).
* The same study from a terminal: `wargame batch test_remagen --games 400 --variants
  what_if.toml --out runs/what_if`."""),
    code("""# checks: this notebook is also a test
assert len(df) == 6 * N_GAMES and df["error"].isna().all()
assert (table["win_low"] <= table["win_rate"]).all()
assert (table["win_rate"] <= table["win_high"]).all()
assert set(df.loc[df["variant"] == "random play, as printed", "policy_nato"]) == {"random"}
assert set(df.loc[df["variant"] == "doctrine play, as printed", "policy_pact"]) == {SMART}
print("ok")"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb.metadata["language_info"] = {"name": "python"}
nbf.write(nb, "notebooks/04_what_if.ipynb")
