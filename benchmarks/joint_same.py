"""The same data published twice with secret label groups: the joint audit of the pair, independent and with priors=.

Data: generated patients (``tests/patients.py``, seed 0: diagnosis codes and a skewed 5-value label that follows
them), ``--sizes`` people. Per size: ``nr -k 3 --param l=3`` (label groups drawn in secret, the default) with
structure seed 1, then

* a second run of the same command (same rows, groups drawn anew): the joint audit's propagation alone
  (``exact=False``; its pinned count is a lower bound), and
* a release made with ``priors=`` the first: the full joint audit (l-diversity and k), which reads the alike pair as
  one release (:mod:`graphanon.privacy.joint_same`) and is exact at any size.

Usage: ``python benchmarks/joint_same.py [--sizes 600,3000]``; prints one JSON line per pair and writes
``benchmarks/results/joint_same.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from patients import patients  # noqa: E402

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.prior import Prior  # noqa: E402
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity  # noqa: E402
from graphanon.privacy.joint import JointAudit  # noqa: E402


def audit(name: str, n: int, model, data, releases, exact) -> dict:
    start = time.perf_counter()
    rep = JointAudit(model, exact=exact).audit(data, releases)
    row = {"pair": name, "records": n, "model": model.name, "satisfied": rep.satisfied,
           "pinned": rep.details["pinned_records"], "below_level": rep.details["records_below_level"],
           "exact": rep.details["exact"], "distinct_releases": rep.details["distinct_releases"],
           "audit_seconds": round(time.perf_counter() - start, 2)}
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="600,3000")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "joint_same.json"))
    args = ap.parse_args()
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        data = patients(n, seed=0)
        first = anonymize_nonreciprocal(data, k=3, l=3, rng=1)
        second = anonymize_nonreciprocal(data, k=3, l=3, rng=1)
        rows.append(audit("independent", n, LDiversity(3), data, [first, second], exact=False))
        start = time.perf_counter()
        again = anonymize_nonreciprocal(data, k=3, l=3, priors=[Prior(first, first.link)])
        made = round(time.perf_counter() - start, 3)
        for model in (LDiversity(3), NonreciprocalKAnonymity(3)):
            rows.append(audit("priors= the first", n, model, data, [first, again], exact="auto"))
            rows[-1]["make_seconds"] = made
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    Path(args.out).write_text(json.dumps({"sizes": args.sizes, "load_average_1min_at_end": load, "rows": rows},
                                         indent=1) + "\n")


if __name__ == "__main__":
    main()
