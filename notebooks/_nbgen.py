"""Shared by the notebook generators ``notebooks/make_*.py``: collect cells, write the notebook.

A generator adds its cells with :meth:`NotebookCells.md` and
:meth:`NotebookCells.code` and ends with ``cells.write("name.ipynb")``, which
writes the notebook beside the generators with no outputs (the notebooks are
stored stripped; see ``notebooks/README.md``). Importing this module writes
nothing; running a generator rewrites its notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat as nbf

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


class NotebookCells:
    """The cells of one notebook, in order."""

    def __init__(self) -> None:
        self.cells: list = []

    def md(self, text: str) -> None:
        """Append a Markdown cell (surrounding blank lines dropped)."""
        self.cells.append(nbf.v4.new_markdown_cell(text.strip()))

    def code(self, text: str) -> None:
        """Append a code cell (surrounding blank lines dropped)."""
        self.cells.append(nbf.v4.new_code_cell(text.strip()))

    def write(self, name: str) -> Path:
        """Write the notebook ``name`` beside this module (``notebooks/``) and return its path."""
        nb = nbf.v4.new_notebook()
        nb["cells"] = self.cells
        nb["metadata"]["kernelspec"] = dict(KERNELSPEC)
        out = Path(__file__).with_name(name)
        nbf.write(nb, out)
        print("wrote", out)
        return out
