"""Regenerate notebooks/01_quickstart.ipynb (run from the repository root)."""

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# Quick start: the Middle Rhine map

The map is real geography: SRTM elevation and OpenStreetMap woods, towns, roads, rail and
river around Remagen, Linz and Andernach, cut into the ~150 m hexes of *World at War*.
Everything here runs offline from the map files committed under `maps/`."""),
    code("""import matplotlib.pyplot as plt
from IPython.display import Image, display

import wargame
from wargame.render.terrain import map_picture

m = wargame.load_map("rhine-remagen", hex_size_m=150)
m"""),
    md("""## The terrain picture
Hillshade, terrain colours, water, roads, rail and names, made from the map data (no web
tiles). The same picture is the base layer of the map widgets."""),
    code("""pic = map_picture(m)
print(pic.size, "pixels; west, south, east, north:", pic.lonlat_bounds)
display(Image(pic.png, width=700))"""),
    md("""## The interactive map
Pan and zoom; click anywhere to see that hex (found by arithmetic from the click, so
the 46,000 hexes are never sent to the browser)."""),
    code("""from wargame.ui import MapView

view = MapView(m)
view.select_hex(m.hex_of_place("Remagen"))
view"""),
    md("""## The hexes
`Map.hexes` is a DataFrame indexed by the board-game label (column letters, row
number: `L1` and `M1` are neighbours). Each hex knows its dominant terrain, elevation, best
road, river crossings, bridges, ferries and the nearest place."""),
    code("""h = m.hexes
h.head()"""),
    code("""shares = h["terrain"].value_counts(normalize=True).rename("share of hexes")
shares.to_frame().style.format("{:.1%}")"""),
    code("""fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
shares.plot.bar(ax=axes[0], color="tab:green", title="Terrain of the hexes")
h["elevation_m"].plot.hist(bins=60, ax=axes[1], title="Mean hex elevation (m)")
axes[1].axvspan(50, 62, color="tab:blue", alpha=0.2, label="Rhine level")
axes[1].legend()
fig.tight_layout()"""),
    md("""## Finding places
Named places and peaks are looked up by name; `hex_at(lon=..., lat=...)` turns any
coordinate into a hex by arithmetic."""),
    code("""rows = []
for name in ["Remagen", "Linz", "Sinzig", "Erpeler Ley"]:
    label = m.hex_of_place(name)
    rows.append({"place": name, "hex": label, **h.loc[label, ["terrain", "elevation_m",
                 "elevation_max_m", "road"]].to_dict()})
import pandas as pd

places = pd.DataFrame(rows).set_index("place")
places"""),
    code("""# checks: this notebook is also a test
assert places.loc["Remagen", "terrain"] == "town"
assert places.loc["Linz", "terrain"] == "town"
assert places.loc["Erpeler Ley", "elevation_max_m"] > 150
assert m.hex_at(lon=7.2287, lat=50.5792) == places.loc["Remagen", "hex"]
print("Rhine crossings: ferries in", int(h["ferry"].sum()), "hexes; the Rhine bridge in",
      int(h["rhine_bridge"].sum()), "hexes")"""),
    md("""## A scenario
Scenarios are TOML files in `scenarios/`: the rule system, the map window, the sides,
formations, units with their hexes, objectives and victory points. `Game.from_scenario`
loads one with a dice seed (the same seed and the same decisions give the same game).
`test_remagen` is a small World at War fight on the plateau above Remagen."""),
    code("""from wargame.engine import Game

game = Game.from_scenario("test_remagen", seed=7)
print(game)
game.units[["name", "side", "type", "hex", "strength", "unit_class"]]"""),
    md("""## The game on the map
`game.view()` puts the game on the offline terrain picture. Units are NATO-style symbols
in their counter colours (US green, Soviet red, West German grey, British beige); a white
band marks a reduced counter, a yellow **D** a disrupted one, a grey veil Ops Complete,
and a number the units in a stack.

* **Click a unit**: the hexes it can see within its extended weapon range (its line-of-sight
  polygon; tick *DEM-level viewshed* for the terrain-level one) and range rings for
  normal and extended range.
* **Then click an enemy**: the sight line, green where it sees and red behind the first
  blocker, the terrain profile and the exact odds of every weapon (tab *Line of sight*).
* **Step** plays one action by the AI, **End of turn** and **Run to end** more; **Undo**
  takes actions back; **Reset** starts again with the seed in the field. Choose a side
  under *you play* to play it yourself from the map and the list in *Your move*.
* The dice of the last roll, the chit cup and the log (filter it by turn, side or unit)
  are always up to date."""),
    code("""view = game.view()
view"""),
    md("""## The same from code
Every control is also a method, so a notebook can drive the view. Here the T-72 platoon
looks west to east across the plateau, then we ask what a shot at the M60s would do."""),
    code("""view.select_unit("SU-T1")      # as a click on its counter
view.pick_target("US-M1")      # as a click on the enemy stack
print(view.los_result.explain())
print(f"{len(view.visible_hexes)} hexes in its line of sight")"""),
    code("""from wargame.render.game import odds_table, unit_reach

print("reach (m):", [(r.label, r.metres) for r in unit_reach(game, "SU-T1")])
odds_table(game, "SU-T1", "US-M1").style.format("{:.1%}", subset=["no effect", "disrupted", "reduced", "destroyed"], na_rep="")"""),
    md("""## Stepping
`view.step()` is the **Step** button: the side to move lets its policy (here the random
one) choose a legal action. The map, the dice, the cup and the log follow; `game.log` is a
DataFrame with one row per event."""),
    code("""for _ in range(10):
    view.step()
view.end_turn()
print(game)
game.log[["seq", "turn", "phase", "side", "unit", "kind", "dice", "needed", "hits", "result"]].tail(10)"""),
    code("""# the log is ordinary pandas: events per turn and kind so far
game.log.pivot_table(index="kind", columns="turn", values="seq", aggfunc="count", observed=True).fillna(0).astype(int)"""),
    code("""# checks: this notebook is also a test
assert game.state.turn >= 2 and len(game.actions) >= 11
assert len(view.units.stacks) == game.units.query("status != 'destroyed'")["hex"].nunique()
print("quickstart ok:", len(game.log), "events")"""),
    md("""## A closer look: a 50 m grid around Linz
Skirmish rule systems use smaller hexes; cut a window so the grid stays small."""),
    code("""linz = wargame.load_map(hex_size_m=50, window="Linz")
print(linz)
display(Image(map_picture(linz, hex_outlines=True).png, width=700))"""),
    md("""Attribution: Elevation: NASA SRTM (public domain). Map data © OpenStreetMap
contributors, ODbL 1.0. Place names: GeoNames, CC BY 4.0."""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb.metadata["language_info"] = {"name": "python"}
nbf.write(nb, "notebooks/01_quickstart.ipynb")
