"""The empirical DP audit of PrivBasis with many runs: the mechanism and each planted bug, epsilon lower bounds.

The neighbouring pairs, events and planted bugs are those of
``tests/algorithms/test_privbasis_empirical.py`` (imported from it), run here with
more runs than the unit tests afford: halved noise and the bin budget spent
once per basis need about 500 runs a side. Each bug is planted by replacing
one helper of :mod:`graphanon.algorithms.dp.privbasis` (or the universe the
mechanism is given), as the tests do. epsilon claimed 2, alpha 1e-4.

Run::

    python benchmarks/dp_audit.py                  # 1000 runs a side for the bins pair, 300 for the others
    python benchmarks/dp_audit.py --runs 600 --few 150

Writes ``benchmarks/results/dp_audit_privbasis.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import graphanon.algorithms.dp.privbasis as pb  # noqa: E402
from graphanon.algorithms.dp.noise import discrete_laplace  # noqa: E402
from tests.algorithms.test_privbasis_empirical import EPS, _exact_lambda, _no_noise, audit  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _halved(values, epsilon, **kw):
    return discrete_laplace(values, 2 * epsilon, **kw)


def _per_basis(eps_bins, w):
    return eps_bins


#: name -> (neighbouring pair, which runs, helper replaced and its stand-in, universe, events)
CASES = {
    "none (PrivBasis as shipped), bins pair": ("bins", "many", None, None, None),
    "none (PrivBasis as shipped), lambda pair": ("lambda", "few", None, None, None),
    "noise scale halved": ("bins", "many", ("discrete_laplace", _halved), None, None),
    "bin counts released without noise": ("bins", "few", ("discrete_laplace", _no_noise), None, None),
    "lambda from the exact counts": ("lambda", "few", ("_choose_lambda", _exact_lambda), None, None),
    "budget spent once per basis (not shared)": ("bins", "many", ("_bin_budget", _per_basis), None, None),
    "universe taken from the data": ("bins", "few", None, "data",
                                     {"universe names a": lambda rel: "a" in rel.items}),
}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs a side for the sharp (bins) cases")
    ap.add_argument("--few", type=int, default=300, help="runs a side for the cases an event separates for sure")
    ap.add_argument("--out", default=str(RESULTS / "dp_audit_privbasis.json"))
    args = ap.parse_args(argv)
    rows = []
    for name, (pair, size, patch, universe, events) in CASES.items():
        runs = args.runs if size == "many" else args.few
        saved = None
        if patch is not None:
            saved = getattr(pb, patch[0])
            setattr(pb, patch[0], patch[1])
        start = time.perf_counter()
        try:
            res = audit(pair, runs, universe, events)
        finally:
            if saved is not None:
                setattr(pb, patch[0], saved)
        row = {"bug": name, "pair": pair, "runs": runs, "epsilon_lower": round(float(res.epsilon_lower), 3),
               "claimed": EPS, "passed": res.passed, "event": res.event,
               "counts": {k: list(v) for k, v in res.counts.items()},
               "seconds": round(time.perf_counter() - start, 1)}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    report = {"method": "privbasis", "claimed": EPS, "alpha": 1e-4, "cases": rows,
              "shipped_passes": all(r["passed"] for r in rows if r["bug"].startswith("none")),
              "every_bug_caught": all(not r["passed"] for r in rows if not r["bug"].startswith("none")),
              "numpy": np.__version__}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
