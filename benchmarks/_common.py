"""What the benchmark scripts share: a best-of timer and the results file they write."""

from __future__ import annotations

import json
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def best_of(func, repeat: int = 3) -> tuple[float, object]:
    """Run ``func()`` ``repeat`` times: (smallest wall time in seconds, last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def print_and_save(doc: dict, name: str, *, save: bool = True, indent: int = 2) -> None:
    """Print ``doc`` as JSON and, with ``save``, write it to ``benchmarks/results/<name>.json``."""
    text = json.dumps(doc, indent=indent)
    print(text)
    if save:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{name}.json").write_text(text + "\n")
