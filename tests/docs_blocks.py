"""The code blocks of the documentation, read the way the doc tests run them.

Shared by ``tests/docs/test_docs_snippets.py`` (```python blocks), ``tests/docs/test_docs_bash.py``
(```bash and ```console blocks) and ``tests/docs/test_docs_numbers.py`` (benchmark numbers).
The conventions (also in CONTRIBUTING.md, "Docs that cannot drift"):

* A block whose nearest non-blank line before its opening fence is ``<!-- no-run -->``
  (or ``<!-- no-run: the reason -->``) is not run (pip install, apt-get, a cluster on
  other machines, a multi-minute run).
* A ```text block that follows a ```python or ```bash block with only blank lines between
  them is what that block prints: the python block's whole stdout, or the stdout of the
  bash block's last command. In a ```console block the lines after a ``$ command`` line are
  that command's stdout.
* Shown output is compared line by line after stripping trailing blanks and surrounding
  blank lines; ``...`` stands for any text (within a line or across lines), which is how a
  page shows a timing, a secret random order or a cut-off table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[ \t]*$")
NO_RUN = "<!-- no-run -->"


def doc_files() -> list[Path]:
    """README.md and every markdown page under docs/ (recursively), in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def doc_id(path: Path) -> str:
    """The page's path relative to the repository (the test id)."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


@dataclass(frozen=True)
class Block:
    """One fenced code block of a markdown page."""

    lang: str
    fence_line: int  # 1-based line of the opening fence
    code: str  # the body, dedented by the fence's indentation
    no_run: bool
    output: Block | None = None  # the ```text block shown right after, if any

    @property
    def first_line(self) -> int:
        """1-based line of the block's first code line."""
        return self.fence_line + 1


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` with its shown output attached."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[tuple[str, int, str, bool, int]] = []  # lang, fence line, code, no_run, closing line
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, lang = match.group("indent"), match.group("lang")
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:j]]
        before = next((lines[b].strip() for b in range(i - 1, -1, -1) if lines[b].strip()), "")
        found.append((lang, i + 1, "\n".join(body), before.startswith(NO_RUN[:-4]), j + 1))
        i = j + 1
    result: list[Block] = []
    skip = set()
    for n, (lang, fence, code, no_run, closing) in enumerate(found):
        if n in skip:
            continue
        output = None
        if n + 1 < len(found) and lang in ("python", "bash"):
            nlang, nfence, ncode, nno_run, _ = found[n + 1]
            between = lines[closing:nfence - 1]
            if nlang == "text" and all(not line.strip() for line in between):
                output = Block(nlang, nfence, ncode, nno_run)
                skip.add(n + 1)
        result.append(Block(lang, fence, code, no_run, output))
    return result


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n")).strip("\n")


def output_matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is what ``expected`` shows (``...`` stands for any text)."""
    parts = _normalise(expected).split("...")
    pattern = ".*?".join(re.escape(part) for part in parts)
    return re.fullmatch(pattern, _normalise(actual), re.S) is not None


def write_example_files(folder: Path) -> None:
    """The small files the pages read by name, written into ``folder``.

    ``bms1.dat``, ``groceries.csv``, ``baskets.txt``, ``meps.csv``, ``codes.txt`` and
    ``tax.txt`` (the user guide's examples), ``data.dat`` (2,000 records of bms1, for
    the command lines that stand for "your data") and ``baskets.parquet`` (2,000 records
    of groceries in the long form, for docs/scale.md's command lines).
    """
    from graphanon.datasets import load, load_taxonomy

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
    bms1 = load("bms1")
    (folder / "data.dat").write_text(
        "\n".join(" ".join(sorted(record)) for record in bms1.subset(range(2000)).records()) + "\n"
    )
    try:
        from graphanon.readwrite.parquet import write_parquet

        write_parquet(load("groceries").subset(range(2000)), folder / "baskets.parquet")
    except ImportError:  # pyarrow is an extra; the pages that read Parquet say so
        pass
