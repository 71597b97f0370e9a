"""Regenerate notebooks/03_line_of_sight.ipynb (run from the repository root)."""

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# A line-of-sight study: who watches the Remagen crossing?

In March 1945 the Ludendorff bridge at Remagen was watched from the Erpeler Ley, the basalt
cliff on the east bank. Which ground around Remagen sees the most, and how much does
height help? This notebook answers with the map's physical line of sight: the sight line
runs over the SRTM ground with woods (20 m) and built-up areas (10 m) standing on it, with
earth curvature and refraction, as `docs/los.md` describes. Everything runs offline."""),
    code("""import matplotlib.pyplot as plt
import pandas as pd
import shapely
from IPython.display import display

import wargame

m = wargame.load_map()                      # the whole Middle Rhine map
ley, remagen = m.place_xy("Erpeler Ley"), m.place_xy("Remagen")
print(m)"""),
    md("""## 1. Sight lines and their profiles
`m.los(a, b)` takes two points (map metres) or hex labels. The answer explains itself:
whether the target is seen, the first blocking point, what blocks there, and the terrain
profile along the line."""),
    code("""down = m.los(ley, remagen)                           # from the cliff into the town
across = m.los(remagen, m.place_xy("Ohlenberg"))     # from the town, east over the ridge
bare = m.los(remagen, m.place_xy("Ohlenberg"), obstacles=False)
for r in (down, across, bare):
    print(r.explain())
down.profile.head()"""),
    md("""The first sight line is clear all the way down. The second is blocked twice over: by the
town's own buildings 90 m from the observer (the *first* blocker, which `explain()`
reports) and, even on bare ground, by the Erpeler Ley's ridge across the river."""),
    code("""fig, axes = plt.subplots(1, 2, figsize=(13, 3.6))
down.plot(ax=axes[0], title="Erpeler Ley → Remagen")
across.plot(ax=axes[1], title="Remagen → Ohlenberg")
fig.tight_layout()"""),
    md("""What blocks is often not the ground but what stands on it. The same sight lines with and
without obstacles, from each peak near Remagen to the market square:"""),
    code("""peaks = ["Erpeler Ley", "Reisberg", "Scheidskopf", "Birgeler Kopf", "Koppel"]
rows = []
for name in peaks:
    with_obstacles = m.los(m.place_xy(name), remagen)
    bare = m.los(m.place_xy(name), remagen, obstacles=False)
    rows.append({
        "from": name,
        "distance_m": round(with_obstacles.distance_m),
        "sees Remagen": with_obstacles.visible,
        "bare ground only": bare.visible,
        "first blocker": with_obstacles.blocker.kind if with_obstacles.blocker else "",
    })
pd.DataFrame(rows).set_index("from")"""),
    md("""## 2. Viewsheds from candidate observation posts
`m.viewshed(point, radius_m)` is the ground seen from a point at DEM resolution, as a
shapely polygon. Compare the candidates within 3 km: the visible area, its share of the
circle, and whether the post sees the Remagen market and the Erpel bank."""),
    code("""RADIUS = 3000
candidates = ["Erpeler Ley", "Reisberg", "Scheidskopf", "Birgeler Kopf", "Koppel",
              "Remagen", "Erpel"]
erpel = shapely.Point(m.place_xy("Erpel"))
views, rows = {}, []
for name in candidates:
    p = m.place_xy(name)
    v = m.viewshed(p, RADIUS)
    views[name] = v
    circle = shapely.Point(p).buffer(RADIUS)
    rows.append({
        "post": name,
        "ground_m": round(float(m.elevation(*p))),
        "visible_km2": round(v.area / 1e6, 2),
        "share_of_circle": v.area / circle.area,
        "sees Remagen": bool(v.distance(shapely.Point(remagen)) < 1),
        "sees Erpel": bool(v.distance(erpel) < 1),
    })
posts = pd.DataFrame(rows).set_index("post").sort_values("visible_km2", ascending=False)
posts.style.format({"share_of_circle": "{:.1%}"})"""),
    code("""from shapely.plotting import plot_polygon

fig, axes = plt.subplots(1, 3, figsize=(14, 4.8))
for ax, name in zip(axes, posts.index[:3], strict=True):
    x, y = m.place_xy(name)
    plot_polygon(views[name], ax=ax, add_points=False, facecolor="tab:blue",
                 edgecolor="none", alpha=0.55)
    ax.plot(x, y, "k^", ms=9)
    ax.plot(*remagen, "rs", ms=6)
    ax.add_patch(plt.Circle((x, y), RADIUS, fill=False, ls="--", color="grey"))
    ax.set_xlim(x - RADIUS, x + RADIUS)
    ax.set_ylim(y - RADIUS, y + RADIUS)
    ax.set_title(f"{name}: {posts.loc[name, 'visible_km2']} km²")
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("Ground seen within 3 km (blue); red square: Remagen market")
fig.tight_layout()"""),
    md("""## 3. The value of height
Two kinds of height: the ground the post stands on, and the eye above it (a soldier 2.5 m,
a vehicle commander, a rooftop, a church tower, a mast). On wooded summits the eye must
clear the 20 m canopy before the summit pays off."""),
    code("""EYES = [2.5, 10.0, 25.0, 40.0]
height = pd.DataFrame(
    {name: [m.viewshed(m.place_xy(name), RADIUS, observer_height_m=h).area / 1e6
            for h in EYES]
     for name in ["Erpeler Ley", "Reisberg", "Scheidskopf", "Remagen"]},
    index=pd.Index(EYES, name="eye height (m)"),
).round(2)
ax = height.plot(marker="o", figsize=(7, 3.6), ylabel="visible within 3 km (km²)")
ax.set_title("Visible area against eye height")
height"""),
    md("""And ground height alone? Over every hex of the 4 × 3 km Remagen window, how many hexes
within 20 (3 km) does each hex see (the hex LOS table the rules use), against its
elevation and terrain? (Hexes near the window's edges have part of their range cut off.)"""),
    code("""w = wargame.load_map(window="Remagen")
table = w.hex_los_table(range_hexes=20)
hexes = w.hexes[w.hexes["on_map"]].copy()
hexes["hexes_seen"] = [len(table.visible_from(h)) for h in hexes.index]
by_height = hexes.groupby(pd.cut(hexes["elevation_m"], [0, 70, 100, 150, 250]),
                          observed=True)["hexes_seen"].agg(["count", "mean", "max"])
by_terrain = hexes.groupby("terrain", observed=True)["hexes_seen"].agg(["count", "mean"])
display(by_height.round(1), by_terrain.round(1))
ax = hexes.plot.scatter(x="elevation_m", y="hexes_seen", c="tab:green", alpha=0.5,
                        figsize=(7, 3.6), title="Hexes seen (range 20) against elevation")"""),
    md("""**Reading it.** The Erpeler Ley is the best post: a bare cliff top above the river sees
both banks. Higher but wooded summits (Scheidskopf, 279 m) see almost nothing from a
soldier's eye and overtake the lower posts only from a mast above the trees. Across the
window, ground height alone does not buy sight: the plateau's highest hexes are wooded or
set back from the edge, while open river-bank hexes see far along the valley. Height pays
when it clears what stands on the ground, and when it overlooks the valley, not the
plateau."""),
    md("""## 4. Explore: the LOS inspector
Click two points for a sight line and its profile; switch to *Viewshed* and click one point
for its viewshed, then move the radius and eye-height sliders. Every inspection is added
to the table below the map (`inspector.history` as a DataFrame)."""),
    code("""from wargame.ui import LOSInspector

inspector = LOSInspector(w)
inspector.inspect_line(w.hex_of_place("Erpeler Ley"), w.hex_of_place("Remagen"))
inspector"""),
    code("""# checks: this notebook is also a test
assert down.visible and not across.visible and not bare.visible
assert across.blocker.kind == "town" and bare.blocker.kind == "terrain"
assert posts.index[0] == "Erpeler Ley"
assert (height.diff().dropna() >= 0).all().all()         # a higher eye never sees less
assert height.loc[40.0, "Scheidskopf"] > 10 * height.loc[2.5, "Scheidskopf"]
assert len(inspector.history) == 1
print("line-of-sight study ok")"""),
]
nb.metadata["kernelspec"] = {
    "name": "python3",
    "display_name": "Python 3",
    "language": "python",
}
nb.metadata["language_info"] = {"name": "python"}
nbf.write(nb, "notebooks/03_line_of_sight.ipynb")
