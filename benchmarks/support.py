"""Benchmark of the foundation: loading, pair supports, k^m audits on BMS-WebView-1.

Prints one JSON document and writes it to benchmarks/results/support.json.

    python benchmarks/support.py            # full
    python benchmarks/support.py --quick    # smoke test (1/10 of the records)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best_of, print_and_save  # noqa: E402


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    import graphanon.datasets as ds
    from graphanon.algorithms import anonymize_cut
    from graphanon.counting.support import VerticalBitmaps, pair_supports
    from graphanon.data import read_fimi
    from graphanon.privacy import KmAnonymity
    from graphanon.release import GlobalRecoding
    from graphanon.taxonomy import Taxonomy

    result: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                "platform": platform.platform()}}
    load_s, data = best_of(lambda: ds.load.__wrapped__("bms1"), 3)
    result["load_bundled_bms1_s"] = round(load_s, 4)
    shared = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "bms1.dat"
    if shared.exists():
        result["read_fimi_shared_bms1_s"] = round(best_of(lambda: read_fimi(shared), 3)[0], 4)
    if args.quick:
        data = data.subset(np.arange(0, data.n_records, 10))
    result["dataset"] = {"name": "bms1" + (" (every 10th record)" if args.quick else ""), **data.summary()}
    X = data.matrix
    Xi = sp.csr_array((np.ones(X.nnz, np.int32), X.indices, X.indptr), shape=X.shape)
    floor_s, _ = best_of(lambda: (Xi.T @ Xi).toarray(), 5)
    pairs_s, _ = best_of(lambda: pair_supports(X), 5)
    result["pair_supports"] = {"graphanon_s": round(pairs_s, 4), "floor_XtX_s": round(floor_s, 4),
                               "ratio_to_floor": round(pairs_s / floor_s, 2)}
    bm_s, vb = best_of(lambda: VerticalBitmaps(X), 3)
    result["vertical_bitmaps_build_s"] = round(bm_s, 4)
    rng = np.random.default_rng(0)
    triples = [rng.choice(data.n_items, 3, replace=False) for _ in range(10_000)]
    q_s, _ = best_of(lambda: vb.supports(triples), 3)
    result["bitmap_support_10k_triples_s"] = round(q_s, 4)

    raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    tax = Taxonomy.balanced(data.items, 5)
    cut = anonymize_cut(data, taxonomy=tax, level=2)
    audits = []
    for label, release in (("raw", raw), ("balanced fan-out 5, level-2 cut", cut)):
        for k, m in ((2, 2), (5, 2), (2, 3), (5, 3)):
            seconds, report = best_of(lambda release=release, k=k, m=m: KmAnonymity(k, m).audit(data, release), 3)
            audits.append({"release": label, "k": k, "m": m, "seconds": round(seconds, 4),
                           "satisfied": report.satisfied, "violations": report.violations,
                           "by_size": report.details["violations_by_size"]})
    result["km_audits"] = audits
    print_and_save(result, "support", save=not args.quick)
    return result


if __name__ == "__main__":
    main()
