"""Every number a page quotes from a benchmark is in that benchmark's JSON.

Markup (CONTRIBUTING.md, "Docs that cannot drift"): an HTML comment on its own line,

    <!-- bench: results/coat.json [results/other.json ...] [ignore: 2, 5] -->

checks the paragraph or table right after it (up to the first blank line after it has
begun): every number in it must be a number of one of the named files under
``benchmarks/`` (any value at any depth), as the page rounds it. Not checked: numbers in
`code`, in a link target, in the table's header row, the numbers after ``ignore:``
(comma- or space-separated: parameters the text names but the JSON does not, such as a figure's number), and
digits inside a word (``bms1``, ``T10I4D100K``).

Rounding: a number written with ``d`` decimals matches a JSON value ``v`` when ``|v' - x|
<= 0.5 * 10**-d``, where ``v'`` is ``v`` in the unit the page writes after the number:
``%`` (``v`` or ``100 v``), ``ms`` (``1000 v`` of seconds), ``KB``/``MB``/``GB``
(``v`` or bytes divided by 10^3/10^6/10^9 or 2^10/2^20/2^30), ``x`` (a ratio, ``v``);
``59,602`` is ``59602``; ``10^6`` is ``1000000``; ``-331.7`` after a space is negative.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests.docs_blocks import ROOT, doc_files, doc_id

_MARKUP = re.compile(r"^<!--\s*bench:\s*(?P<body>.*?)\s*-->\s*$")
_NUMBER = re.compile(
    r"(?<![\w.^/])(?P<sign>[-\u2212](?=\d))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\^(?P<exp>\d+))?"
    r"(?![\w^]|\.\d)(?P<unit>\s?(?:%|ms\b|[KkMG]B\b|x\b|s\b))?"
)
_SCALES = {
    "": (1.0,),
    "s": (1.0,),
    "x": (1.0,),
    "%": (1.0, 100.0),
    "ms": (1.0, 1000.0),
    "kb": (1.0, 1e-3, 2.0**-10),
    "mb": (1.0, 1e-6, 2.0**-20),
    "gb": (1.0, 1e-9, 2.0**-30),
}


def json_numbers(value) -> list[float]:
    """Every number (not a bool) anywhere in a parsed JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)] if math.isfinite(value) else []
    if isinstance(value, dict):
        return [x for v in value.values() for x in json_numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in json_numbers(v)]
    return []


def quoted_numbers(text: str) -> list[tuple[str, float, int, str]]:
    """(as written, value, decimals, unit) of every checked number of ``text``."""
    text = re.sub(r"`[^`]*`", " ", text)  # code
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    found = []
    for match in _NUMBER.finditer(text):
        written = match.group("num")
        digits = written.replace(",", "")
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        value = -float(digits) if match.group("sign") else float(digits)
        if match.group("exp"):
            value, decimals = value ** int(match.group("exp")), 0
        unit = (match.group("unit") or "").strip().lower()
        found.append((match.group(0).strip(), value, decimals, unit))
    return found


def is_found(value: float, decimals: int, unit: str, numbers: list[float]) -> bool:
    """Whether some JSON number, in the unit, rounds to ``value`` at ``decimals``."""
    tolerance = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-12
    return any(abs(v * scale - value) <= tolerance for v in numbers for scale in _SCALES[unit])


def checked_chunks(path: Path) -> list[tuple[int, list[str], list[str], str]]:
    """(line, JSON paths, ignored numbers, text) of each marked paragraph or table."""
    lines = path.read_text(encoding="utf-8").split("\n")
    chunks = []
    for i, line in enumerate(lines):
        match = _MARKUP.match(line.strip())
        if not match:
            continue
        body, _, ignored = match.group("body").partition("ignore:")
        paths = body.split()
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        start = j
        while j < len(lines) and lines[j].strip():
            j += 1
        chunk = lines[start:j]
        if chunk and chunk[0].lstrip().startswith("|"):
            chunk = chunk[1:]  # a table's header row
        ignore = [x.replace(",", "") for x in re.split(r",\s+|\s+", ignored.strip()) if x]
        chunks.append((i + 1, paths, ignore, "\n".join(chunk)))
    return chunks


def check_page(path: Path, bench_dir: Path = ROOT / "benchmarks") -> list[str]:
    """One message per quoted number that no named JSON has (and per missing JSON)."""
    problems = []
    for line, paths, ignored, text in checked_chunks(path):
        numbers: list[float] = []
        for name in paths:
            target = bench_dir / name
            if not target.is_file():
                problems.append(f"{doc_id(path)}:{line}: {name} does not exist under benchmarks/")
                continue
            numbers += json_numbers(json.loads(target.read_text(encoding="utf-8")))
        if not paths:
            problems.append(f"{doc_id(path)}:{line}: the bench comment names no JSON file")
        for written, value, decimals, unit in quoted_numbers(text):
            if written.split()[0].rstrip("%x").replace(",", "") in ignored:
                continue
            if not is_found(value, decimals, unit, numbers):
                problems.append(f"{doc_id(path)}:{line}: {written!r} is in none of {', '.join(paths)}")
    return problems


MARKED = [d for d in doc_files() if checked_chunks(d)]


@pytest.mark.parametrize("doc", MARKED, ids=doc_id)
def test_benchmark_numbers_are_in_their_json(doc):
    problems = check_page(doc)
    assert not problems, "\n".join(problems)


def test_the_rules_catch_a_drifted_number(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "b.json").write_text(json.dumps(
        {"runs": [{"k": 5, "seconds": 0.4532, "peak_bytes": 24_600_000, "share": 0.717, "records": 59602}]}
    ))
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- bench: results/b.json ignore: 3, 10,000 -->\n| k | s |\n|---|---|\n"
        "| 5 | 0.45 s, 24.6 MB, 71.7%, 59,602 records, `k=9`, figure 3, 10,000 queries |\n\n"
        "<!-- bench: results/b.json -->\nk = 5 took 0.46 s on bms1 (10^6 records)\n"
    )
    assert check_page(page, tmp_path) == [
        "page.md:6: '0.46 s' is in none of results/b.json",
        "page.md:6: '10^6' is in none of results/b.json",
    ]


def test_rounding_is_the_pages_precision():
    assert is_found(3.3, 1, "s", [3.33]) and not is_found(3.33, 2, "s", [3.3])
    assert is_found(3.0, 0, "s", [3.33]) and not is_found(8.0, 0, "s", [3.33])
    assert is_found(71.7, 1, "%", [0.717]) and is_found(2.5, 1, "x", [2.5])
    assert [(w, v) for w, v, _, _ in quoted_numbers("log UL -331.7, 3.2-8.0 s")] == [
        ("-331.7", -331.7), ("3.2", 3.2), ("8.0 s", 8.0)]
