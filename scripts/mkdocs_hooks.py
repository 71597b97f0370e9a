"""mkdocs hooks (mkdocs.yml ``hooks:``): the notebooks as pages of the site.

Each ``notebooks/*.ipynb`` becomes ``notebooks/<name>.md``, converted by nbconvert
without running it (the test suite runs them with nbmake). A hook rather than the
mkdocs-jupyter plugin, whose jupytext dependency installs a JupyterLab extension
that breaks the Voila classroom page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files
from nbconvert import MarkdownExporter


def on_files(files: Files, config: Any) -> Files:
    """Add one generated Markdown page per notebook."""
    root = Path(config["config_file_path"]).parent
    exporter = MarkdownExporter()
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        body, _ = exporter.from_filename(str(nb))
        head = (
            f"*This page is `notebooks/{nb.name}` as text; open it in JupyterLab "
            "(`make lab`) to run it.*\n\n"
        )
        files.append(
            File.generated(config, f"notebooks/{nb.stem}.md", content=head + body)
        )
    return files
