"""The notebooks show their figures inline, and nothing in graphanon changes the matplotlib backend.

Each notebook is executed by a real Jupyter kernel (nbclient, as nbmake does) up to its last
drawing cell -- the later cells run the large benchmarks and draw nothing -- and every cell that
calls a ``draw_*`` function must produce an ``image/png`` output. Notebooks are stored with their
outputs stripped (see notebooks/README.md), so this is what a reader running them sees.

When the same session also runs the notebooks with nbmake (the README's command:
``--nbmake ... notebooks``), ``notebooks/conftest.py`` applies the same check to nbmake's
execution of each notebook and ``tests/conftest.py`` deselects this file's execution of it: each
notebook runs once instead of twice (docs/testing.md).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


_CALL = re.compile(r"\bdraw_\w+\(")


def _drawing_cells(nb) -> list[int]:
    """Indices of the code cells that call a graphanon.viz ``draw_*`` function."""
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and _CALL.search(c.source)]


def cells_without_image(nb, name: str) -> list[str]:
    """The drawing cells of the executed notebook ``nb`` that show no ``image/png``, as sentences.

    Also called by ``notebooks/conftest.py`` on nbmake's execution of each notebook.
    """
    return [f"{name} cell {i} draws but shows no image:\n{nb.cells[i].source}" for i in _drawing_cells(nb)
            if "image/png" not in [mime for out in nb.cells[i].outputs for mime in out.get("data", {})]]


def test_every_notebook_is_checked():
    assert {p.name for p in NOTEBOOKS} >= {"coat.ipynb", "getting_started.ipynb", "hierarchy_recoding.ipynb",
                                           "nonreciprocal.ipynb"}
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        assert _drawing_cells(nb), f"{path.name} draws nothing"
        for cell in nb.cells:
            assert "matplotlib.use(" not in cell.get("source", ""), f"{path.name} selects a matplotlib backend"
            assert not cell.get("outputs"), f"{path.name} is stored with outputs (strip them, see notebooks/README.md)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_drawings_show_inline(path, monkeypatch):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    drawing = _drawing_cells(nb)
    nb.cells = nb.cells[: drawing[-1] + 1]
    monkeypatch.delenv("MPLBACKEND", raising=False)  # MPLBACKEND=Agg would hide inline figures (CI must not set it)
    NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(path.parent)}}).execute()
    problems = cells_without_image(nb, path.name)
    assert problems == [], "\n".join(problems)
    images = {i: [out["data"]["image/png"] for out in nb.cells[i].outputs if "image/png" in out.get("data", {})]
              for i in drawing}
    if os.environ.get("GRAPHANON_NOTEBOOK_IMAGES"):  # to look at the figures: write them as PNG files
        import base64

        folder = Path(os.environ["GRAPHANON_NOTEBOOK_IMAGES"])
        folder.mkdir(parents=True, exist_ok=True)
        for i, pngs in images.items():
            for j, png in enumerate(pngs):
                (folder / f"{path.stem}_cell{i}_{j}.png").write_bytes(base64.b64decode(png))


def test_importing_and_drawing_keeps_the_backend(tmp_path):
    """graphanon.viz and the CLI's draw command leave the session's backend alone."""
    code = (
        "import matplotlib\n"
        "matplotlib.use('svg')\n"
        "import graphanon.viz, graphanon.cli\n"
        "from click.testing import CliRunner\n"
        f"res = CliRunner().invoke(graphanon.cli.main, ['draw', 'taxonomy', 'liuwang_fig1', '-o', r'{tmp_path / 't.png'}'])\n"
        "assert res.exit_code == 0, res.output\n"
        "print(matplotlib.get_backend())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "svg"
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
