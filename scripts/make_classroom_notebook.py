"""Regenerate notebooks/classroom.ipynb, the Voila classroom app (from the repo root).

Start it with:  voila notebooks/classroom.ipynb   (no code is shown)
"""

import nbformat as nbf

nb = nbf.v4.new_notebook()
code = nbf.v4.new_code_cell
app = code("""from wargame.ui import ClassroomApp

ClassroomApp()""")
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
