"""Every ```python block of README.md and docs/*.md runs.

The blocks of one file run in order in one namespace (later blocks use names
earlier ones define), in a scratch folder holding the small files the user
guide reads by name (``bms1.dat``, ``groceries.csv``, ``meps.csv``,
``baskets.txt``, ``codes.txt``, ``tax.txt``). A block preceded by the line ``<!-- no-run -->`` is skipped
(for code that needs data the package does not ship).
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python[ \t]*\n(?P<code>.*?)\n```", re.S)


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(line number, code) of each runnable python block of a markdown file."""
    text = "\n" + path.read_text(encoding="utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        if match.group("before").strip() == "<!-- no-run -->":
            continue
        lineno = text.count("\n", 0, match.start("code")) - 1
        blocks.append((lineno, match.group("code")))
    return blocks


def _write_example_files(folder: Path) -> None:
    from graphanon.datasets import load_taxonomy

    (folder / "bms1.dat").write_text("1 2 3\n2 3\n3 4\n")
    (folder / "groceries.csv").write_text("tid,item\n1,whole milk\n1,butter\n2,yogurt\n")
    (folder / "baskets.txt").write_text('bread,"milk, whole"\nbutter\n')
    (folder / "meps.csv").write_text("tid;item\n1;001\n1;250\n2;010\n")
    (folder / "codes.txt").write_text("001 250\n010\n")
    tax = load_taxonomy("liuwang_fig1")
    lines = []
    for leaf in tax.leaves:
        path = [leaf]
        while tax.parent(path[-1]) is not None:
            path.append(tax.parent(path[-1]))
        lines.append(";".join(str(v) for v in path))
    (folder / "tax.txt").write_text("\n".join(lines) + "\n")


def test_the_example_files_cover_what_the_guide_reads():
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for name in ("bms1.dat", "groceries.csv", "baskets.txt", "tax.txt"):
        assert f'"{name}"' in text


@pytest.mark.parametrize("doc", [d for d in DOC_FILES if python_blocks(d)], ids=lambda p: p.name)
def test_python_blocks_run(doc, tmp_path, monkeypatch):
    blocks = python_blocks(doc)
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    _write_example_files(tmp_path)
    namespace: dict = {"__name__": "__doc_snippet__"}
    for lineno, code in blocks:
        exec(compile(code, f"{doc.name}:{lineno}", "exec"), namespace)  # noqa: S102
