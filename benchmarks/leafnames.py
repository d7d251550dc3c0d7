"""The leaf-naming attack (issue 30, item 4) before and after ``public_taxonomy=True``.

Data: :func:`graphanon.datasets.synthetic.icd9_like` -- two samples of one
population of patients over an ICD-9-shaped taxonomy (about 1,000-1,200
leaves, 500-650 of them absent from a sample). The adversary holds the
taxonomy and the other sample's code counts, ranks the leaves the file
leaves open and names as many as the file's ``n_suppressed`` (for a
``public_taxonomy`` release, which suppresses nothing: as many as the
default release suppressed); the truth is the codes the default release
of the same data suppressed. The bound is the same ranking over every
leaf, without the release. Two rankings (``frequency``: most common
first; ``rarity``: seen, least common first) and two strategies
(``open``: the leaves the file leaves open; ``pooled``: also the leaves of
items the file shows as unions of taxonomy nodes). ``mm`` (suppression
only) is attacked with the code list as a public flat catalogue (its
default release only: it has no ``public_taxonomy``). Utility: NCP and
the average relative error of 500 two-item COUNT queries (seed 0).

Usage::

    python benchmarks/leafnames.py            # prints JSON, writes benchmarks/results/leafnames.json
    python benchmarks/leafnames.py --quick    # one data seed, no file
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms import anonymize_hghs, anonymize_mhghs, anonymize_mm  # noqa: E402
from graphanon.attacks import leaf_naming  # noqa: E402
from graphanon.datasets.synthetic import icd9_like  # noqa: E402
from graphanon.metrics import ncp, ncp_taxonomy  # noqa: E402
from graphanon.metrics.evaluate import evaluate_release  # noqa: E402
from graphanon.privacy import KmAnonymity  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402

SETTINGS = ((5, 2), (10, 2), (20, 3))


def _maximal_uncovered(tax, published_labels) -> set:
    """The maximal taxonomy nodes none of whose leaves a published node covers."""
    covered = {leaf for node in published_labels if node in tax for leaf in tax.leaves_under(node)}
    full = {v for v in tax.nodes if not covered & set(tax.leaves_under(v))}
    return {v for v in full if tax.parent(v) not in full}


def _are(data, rel) -> float:
    """Average relative error of 500 COUNT queries of 2 items (seed 0, the same workload for every release)."""
    return round(evaluate_release(data, rel, queries=500, q=2, rng=0)["avg_relative_error"], 2)


def _attacks(rel, tax, external, data, truth, n) -> dict:
    out = {}
    for strategy in ("open", "pooled"):
        for score in ("frequency", "rarity"):
            res = leaf_naming(rel, tax, external, truth=truth, n=n, score=score, strategy=strategy, original=data)
            d = res.details
            out[f"{strategy}/{score}"] = {
                "named": d["named"], "named_without_release": d["named_without_release"],
                "occurrences_named": d["occurrences_named"],
                "occurrences_named_without_release": d["occurrences_named_without_release"],
                "candidates": d["candidates"], "within_bound": res.within_bound(),
            }
    return out


def run(seeds, n_records: int) -> list:
    rows = []
    for seed in seeds:
        data, external, tax = icd9_like(n_records, rng=seed)
        absent = len(tax.leaves) - data.n_items
        for name, method in (("hghs", anonymize_hghs), ("mhghs", anonymize_mhghs)):
            for k, m in SETTINGS:
                t = time.perf_counter()
                default = method(data, taxonomy=tax, k=k, m=m)
                t_default = time.perf_counter() - t
                t = time.perf_counter()
                public = method(data, taxonomy=tax, k=k, m=m, public_taxonomy=True)
                t_public = time.perf_counter() - t
                truth = default.suppressed
                n = len(truth)
                audit = KmAnonymity(k, m)
                uncovered = _maximal_uncovered(tax, [pi.label for pi in default.published_items])
                rows.append({
                    "seed": seed, "records": data.n_records, "leaves": len(tax.leaves), "absent_leaves": absent,
                    "method": name, "k": k, "m": m,
                    "suppressed_codes": n,
                    "suppressed_occurrences": int(sum(data.supports()[data.items.index(x)] for x in truth)),
                    "suppressed_nodes": len(default.trace.suppressed),
                    "maximal_uncovered_nodes": len(uncovered),
                    "suppressed_nodes_among_them": len(uncovered & set(default.trace.suppressed)),
                    "default": {
                        "seconds": round(t_default, 3), "audit": audit.audit(data, default).satisfied,
                        "ncp": round(ncp(data, default), 4), "ncp_taxonomy": round(ncp_taxonomy(data, default), 4),
                        "avg_relative_error": _are(data, default),
                        "published_items": default.n_published_items,
                        "empty_rows": int((default.records.indptr[1:] == default.records.indptr[:-1]).sum()),
                        "attack": _attacks(default, tax, external, data, truth, n),
                    },
                    "public_taxonomy": {
                        "seconds": round(t_public, 3), "audit": audit.audit(data, public).satisfied,
                        "ncp": round(ncp(data, public), 4), "ncp_taxonomy": round(ncp_taxonomy(data, public), 4),
                        "avg_relative_error": _are(data, public),
                        "published_items": public.n_published_items,
                        "pooled_items": sum(1 for pi in public.published_items if pi.label not in tax),
                        "n_suppressed": public.n_suppressed,
                        "empty_rows": int((public.records.indptr[1:] == public.records.indptr[:-1]).sum()),
                        "attack": _attacks(public, tax, external, data, truth, n),
                    },
                })
    return rows


def run_mm(seeds, n_records: int) -> list:
    """MM (suppression only, no taxonomy) with the public code list as a flat catalogue: the default release only."""
    rows = []
    for seed in seeds:
        data, external, tax = icd9_like(n_records, rng=seed)
        catalogue = Taxonomy.from_parent_map({leaf: "ALL" for leaf in tax.leaves})
        for k, m in SETTINGS:
            t = time.perf_counter()
            rel = anonymize_mm(data, k=k, m=m)
            seconds = time.perf_counter() - t
            out = {"seed": seed, "method": "mm", "k": k, "m": m, "codes": data.n_items, "leaves": len(tax.leaves),
                   "suppressed_codes": rel.n_suppressed, "seconds": round(seconds, 3),
                   "audit": KmAnonymity(k, m).audit(data, rel).satisfied}
            for score in ("frequency", "rarity"):
                res = leaf_naming(rel, catalogue, external, truth=rel.suppressed, score=score)
                out[score] = {"named": res.details["named"], "named_without_release": res.details["named_without_release"]}
            rows.append(out)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one data seed, nothing written")
    ap.add_argument("--records", type=int, default=3000)
    args = ap.parse_args()
    seeds = (1,) if args.quick else (1, 2, 3)
    start = time.perf_counter()
    rows = run(seeds, args.records)
    doc = {
        "benchmark": "leafnames",
        "data": f"icd9_like({args.records}, rng=seed), external sample of the same size",
        "load_average": round(os.getloadavg()[0], 1),
        "seconds": round(time.perf_counter() - start, 1),
        "results": rows,
        "mm": run_mm(seeds, args.records),
    }
    print_and_save(doc, "leafnames", save=not args.quick)


if __name__ == "__main__":
    main()
