"""What the benchmark scripts share: a best-of timer and the results file they write."""

from __future__ import annotations

import compileall
import json
import os
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
PACKAGE = Path(__file__).resolve().parents[1] / "graphanon"


def compile_package() -> str:
    """Write the package's bytecode (``__pycache__/*.pyc``), as installing a wheel does; what the results say.

    A whole-process timing of a checkout otherwise includes compiling every graphanon module it
    imports from source, in every process, wherever ``PYTHONDONTWRITEBYTECODE`` is set (as it is
    in some shells and CI images): 0.1-0.4 s that no installed package pays. numpy's and scipy's
    bytecode was written when pip installed them.
    """
    compileall.compile_dir(str(PACKAGE), quiet=1)
    return "graphanon's bytecode written before timing (compileall), as an installed package has it"


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a timed child: this one without ``PYTHONDONTWRITEBYTECODE``, plus ``extra``.

    Every child (ours or a public implementation's script) then reads and writes its bytecode
    as an installed program does: the untimed warm-up run writes it, the timed runs read it.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


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
