"""Every ```python block of README.md and docs/**/*.md runs, as a plain script, and prints what the page shows.

The blocks of one page are one script: each block sits at its own line of the page (the
lines between blocks are blank), so a traceback's line number is the page's line number.
The script runs with ``python`` in a subprocess -- as a reader who copies the page into a
file would run it, ``__name__ == "__main__"`` and all, so a Dask or multiprocessing
example without its ``if __name__ == "__main__":`` guard fails here -- in a scratch
folder holding the small files the user guide reads by name (``bms1.dat``,
``groceries.csv``, ``meps.csv``, ``baskets.txt``, ``codes.txt``, ``tax.txt``,
``data.dat``). A block preceded by the line ``<!-- no-run -->`` is skipped (for code that
needs data the package does not ship); a ```text block right after a python block is what
that block prints, checked (``...`` stands for any text; see ``tests/docs_blocks.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_blocks import ROOT, Block, doc_files, doc_id, output_matches, write_example_files

pytestmark = pytest.mark.slow  # one of the slowest files (docs/testing.md)

_MARK = "\x1edoc-block "


def python_blocks(path: Path) -> list[Block]:
    """The runnable python blocks of a markdown page."""
    from tests.docs_blocks import blocks

    return [b for b in blocks(path) if b.lang == "python" and not b.no_run]


def page_script(path: Path) -> str:
    """The page's runnable python blocks as one script, each block at its page lines.

    The opening fence's line prints a marker, so the test can cut the script's stdout into
    what each block printed.
    """
    n_lines = path.read_text(encoding="utf-8").count("\n") + 1
    lines = [""] * n_lines
    for block in python_blocks(path):
        marker = f"print({_MARK + str(block.fence_line)!r}, flush=True)"
        lines[block.fence_line - 1] = f'if __name__ == "__main__": {marker}  # not in a spawned worker'
        for offset, line in enumerate(block.code.split("\n")):
            lines[block.first_line - 1 + offset] = line
    return "\n".join(lines) + "\n"


def test_the_example_files_cover_what_the_guide_reads():
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for name in ("bms1.dat", "groceries.csv", "baskets.txt", "tax.txt"):
        assert f'"{name}"' in text


def test_a_block_without_its_main_guard_fails_as_a_script(tmp_path):
    """The reason the pages run as scripts: a pool started at import time breaks under spawn."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport multiprocessing as mp\nimport sys\n\n"
        "worker = mp.get_context('spawn').Process(target=abs, args=(-1,))\n"
        "worker.start()\nworker.join()\nsys.exit(worker.exitcode)\n```\n"
    )
    script = tmp_path / "page_md.py"
    script.write_text(page_script(page))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "bootstrapping phase" in done.stderr


@pytest.mark.parametrize("doc", [d for d in doc_files() if python_blocks(d)], ids=doc_id)
def test_python_blocks_run(doc, tmp_path):
    write_example_files(tmp_path)
    script = tmp_path / (doc.name.replace(".", "_") + ".py")
    script.write_text(page_script(doc))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, (
        f"{doc_id(doc)}: a python block failed (line numbers below are the page's lines)\n{done.stderr[-4000:]}"
    )
    printed = {}
    for chunk in done.stdout.split(_MARK)[1:]:
        line, _, out = chunk.partition("\n")
        printed[int(line)] = out
    for block in python_blocks(doc):
        if block.output is not None:
            shown = block.output.code
            assert output_matches(shown, printed[block.fence_line]), (
                f"{doc_id(doc)}:{block.output.fence_line}: the page shows\n{shown}\n"
                f"but the block at line {block.first_line} prints\n{printed[block.fence_line]}"
            )
