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


def sample_stats(values) -> dict:
    """Mean, sample sd, min, max and the number of ``values`` (what a side-by-side row reports per measure)."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0, "min": float(v.min()),
            "max": float(v.max()), "runs": int(v.size)}


def welch_t(a, b) -> float:
    """Welch's t statistic of ``mean(a) - mean(b)`` (nan when either side has fewer than 2 values or no spread)."""
    import math

    import numpy as np

    a, b = np.asarray(a, float), np.asarray(b, float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) if a.size > 1 and b.size > 1 else 0.0
    return float((a.mean() - b.mean()) / se) if se > 0 else float("nan")


def side_by_side(names, epsilons, runs: int, *, prepare, ours, theirs, score, make_row, out: dict) -> dict:
    """The run loop of the ``authors_*.py`` scripts: ours and the authors' code, ``runs`` times each, alternated.

    For each bundled dataset of ``names`` (loaded once) ``prepare(name, data)`` is
    entered (a context manager giving the state both sides need, e.g. the
    authors' input file); then for each epsilon, ``runs`` times: ``ours(state,
    eps)`` is timed here (wall, data loaded) and returns a release;
    ``theirs(state, eps, run)`` returns ``(release, seconds)`` (the authors' own
    timing). Both releases are scored by ``score(state, release)`` (a dict of
    measures). ``make_row(name, data, eps, sides)`` turns ``sides = {"ours":
    {measure: [values], "seconds": [...]}, "authors": {...}}`` into the result
    row, appended to ``out["results"]``; ``out`` gets the 1-minute load average
    before and after. Returns ``out``.
    """
    from graphanon import datasets

    out.update(load_before=os.getloadavg()[0], results=[])
    for name in names:
        data = datasets.load(name)
        with prepare(name, data) as state:
            for eps in epsilons:
                sides: dict = {"ours": {"seconds": []}, "authors": {"seconds": []}}
                for run in range(runs):  # alternated, so a change of machine load hits both sides
                    start = time.perf_counter()
                    release = ours(state, eps)
                    pairs = [("ours", release, time.perf_counter() - start), ("authors", *theirs(state, eps, run))]
                    for side, rel, seconds in pairs:
                        sides[side]["seconds"].append(seconds)
                        for measure, value in score(state, rel).items():
                            sides[side].setdefault(measure, []).append(value)
                out["results"].append(make_row(name, data, eps, sides))
    out["load_after"] = os.getloadavg()[0]
    return out
