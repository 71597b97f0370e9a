"""Regenerate notebooks/classroom.ipynb, the Voila classroom app (from the repo root).

Start it with:  wargame classroom   (or make classroom: Voila with a pre-heated
kernel, on 127.0.0.1; no code is shown).  Under Voila the cell returns at once
and the app is built while the browser loads the page (wargame.ui.page).
"""

import nbformat as nbf

nb = nbf.v4.new_notebook()
code = nbf.v4.new_code_cell
app = code("""from wargame.ui import classroom_page

classroom_page()""")
# hide the code in JupyterLab too; Voila never shows code
app.metadata["jupyter"] = {"source_hidden": True}
app.metadata["tags"] = ["classroom-app"]
nb.cells = [app]
nb.metadata["kernelspec"] = {
    "name": "python3",
    "display_name": "Python 3",
    "language": "python",
}
nb.metadata["language_info"] = {"name": "python"}
nb.metadata["title"] = "Wargame classroom"
nbf.write(nb, "notebooks/classroom.ipynb")
