"""Large vocabularies (issue 15): AA, mHgHs and COAT at k=5, m=2, and MM, on full-size data.

Datasets:

* ``retail``: :func:`benchmarks.retail_like.retail_like` with the public retail set's
  size (88,162 records, 16,470 items, seed 0) and a balanced fan-out-5 taxonomy;
* ``quest``: T10I4D100K-like data, :func:`graphanon.datasets.synthetic.quest` (100,000
  records, seed 0) with :func:`~graphanon.datasets.synthetic.quest_taxonomy` (fan-out 5).

MM runs (h, k, p)-coherence as on bms1 (``benchmarks/mm_coherence.py``): k=5, p=3,
h=0.4, the 15% most frequent items public and the rest private; its audit is
:class:`graphanon.privacy.HKPCoherence`.

Each run is a fresh Python process (so its peak memory, ``ru_maxrss`` of that process,
is its own) with a time limit; a run over the limit is reported as a timeout, never
dropped. For each run: time, peak memory, NCP and the verdict of the independent
k^m audit (:class:`graphanon.privacy.KmAnonymity`).

Usage::

    python benchmarks/large_vocabulary.py                  # all runs, 120 s limit each
    python benchmarks/large_vocabulary.py --limit 600 --datasets retail --methods mhghs

Prints one JSON document and writes it to ``benchmarks/results/large_vocabulary.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def dataset(name: str):
    from graphanon.taxonomy import Taxonomy

    if name == "retail":
        from benchmarks.retail_like import retail_like

        data = retail_like(n_records=88_162, n_items=16_470, seed=0)
        return data, Taxonomy.balanced(data.items, 5)
    from graphanon.datasets.synthetic import quest, quest_taxonomy

    data = quest(100_000, rng=0)
    return data, quest_taxonomy(data, fanout=5, rng=0)


def one(name: str, method: str, k: int, m: int) -> dict:
    """Run one method in this process; the result as a dict."""
    import numpy as np

    from graphanon.algorithms import anonymize_aa, anonymize_mhghs
    from graphanon.algorithms.coat import KmConstraints, anonymize_coat
    from graphanon.algorithms.hierarchy.mm import anonymize_mm
    from graphanon.metrics import ncp
    from graphanon.privacy import HKPCoherence, KmAnonymity

    data, tax = dataset(name)
    model = KmAnonymity(k, m)
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    if method == "aa":
        rel = anonymize_aa(data, taxonomy=tax, k=k, m=m)
    elif method == "mhghs":
        rel = anonymize_mhghs(data, taxonomy=tax, k=k, m=m)
    elif method == "mm":
        order = np.argsort(-data.supports(), kind="stable")
        private = [data.items[j] for j in order[int(0.15 * data.n_items):]]
        model = HKPCoherence(0.4, k, m, private)  # m is p here
        rel = anonymize_mm(data, k=k, m=m, h=0.4, private_items=private)
    else:
        rel = anonymize_coat(data, privacy=KmConstraints(m), k=k, s=0.005)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    audit = model.audit(data, rel)
    audit_seconds = time.perf_counter() - t0
    return {
        "status": "ok",
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(peak, 1),
        "rss_after_loading_data_mib": round(rss_data, 1),
        "ncp": float(ncp(data, rel)),
        "published_items": int(rel.n_published_items),
        "audit": bool(audit.satisfied),
        "audit_model": model.name,
        "audit_seconds": round(audit_seconds, 2),
    }


def run(name: str, method: str, k: int, m: int, limit: float) -> dict:
    cmd = [sys.executable, __file__, "--one", name, method, str(k), str(m)]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "limit_seconds": limit}
    if out.returncode != 0:
        return {"status": "error", "error": out.stderr.strip().splitlines()[-1:]}
    res = json.loads(out.stdout)
    res["wall_with_loading_seconds"] = round(time.perf_counter() - t0, 2)
    return res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--datasets", nargs="+", default=["retail", "quest"])
    ap.add_argument("--methods", nargs="+", default=["aa", "mhghs", "coat", "mm"])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "large_vocabulary.json"))
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        name, method, k, m = args.one
        print(json.dumps(one(name, method, int(k), int(m))))
        return
    runs = []
    for name in args.datasets:
        for method in args.methods:
            load_before = os.getloadavg()[0]
            m = 3 if method == "mm" else 2  # MM: p=3, as on bms1
            res = run(name, method, 5, m, args.limit)
            runs.append({"dataset": name, "method": method, "k": 5, "m": m, "load_before": round(load_before, 2),
                         "load_after": round(os.getloadavg()[0], 2), **res})
            print(json.dumps(runs[-1]), file=sys.stderr)
    doc = {
        "benchmark": "large_vocabulary",
        "datasets": {
            "retail": "retail_like(n_records=88162, n_items=16470, seed=0), Taxonomy.balanced(items, 5)",
            "quest": "quest(100000, rng=0), quest_taxonomy(data, fanout=5, rng=0)",
        },
        "coat": "privacy=KmConstraints(m), utility=None (one block), s=0.005",
        "mm": "k=5, p=3, h=0.4; the 15% most frequent items public, the rest private",
        "peak_memory": "ru_maxrss of the run's own process (data, taxonomy, method; before the audit)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": runs,
    }
    text = json.dumps(doc, indent=2)
    print(text)
    if len(args.datasets) == 2 and len(args.methods) == 4:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
