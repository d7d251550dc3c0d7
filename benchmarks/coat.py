"""COAT benchmark on BMS-WebView-1: COAT vs AA (Apriori Anonymization), Pgen, scalability.

Measures, on the bundled ``bms1`` dataset:

* COAT (P = all m-itemsets, U = all items, s = 0.5%) against AA (balanced
  fan-out-5 taxonomy) for k in {2, 5, 10, 25, 50} at m = 2 and for
  m in {1, 2, 3} at k = 5: AvgRE of COUNT workloads with q = 1 and q = 3
  items per query (the same seeded workload for both methods), UL (log, weight 1),
  runtime, published items, and the independent k^m audit of both releases;
* runtime for |D| from 1K to 59,602 records (k = 5, m = 2);
* Pgen on the full data, and COAT with Pgen's constraints;
* the privacy policies PP1-PP9 and utility policies UP1-UP4 of Sec. 6.3-6.4.

Workload items are drawn, as in the paper, from the items that are
generalized (by COAT or by AA, the union, so both methods answer the same
queries); a second workload draws from all items.

Usage::

    python benchmarks/coat.py            # full run (a few minutes)
    python benchmarks/coat.py --quick    # smoke test (seconds)

Prints one JSON document and writes ``benchmarks/results/coat.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphanon.algorithms.coat import KmConstraints, anonymize_coat, pgen  # noqa: E402
from graphanon.algorithms.coat.policies import pp_policy, up_policy  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.errors import InfeasibleError, ParameterError  # noqa: E402
from graphanon.metrics import average_relative_error, generate_workload, ul  # noqa: E402
from graphanon.privacy import KmAnonymity, PrivacyConstraints, check_utility_constraints  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402

try:
    from graphanon.algorithms.hierarchy.aa import anonymize_aa  # noqa: E402
except ImportError:  # AA lives on another branch until the lead merges it
    anonymize_aa = None


def timed(fn, *a, **kw):
    t = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t


def generalized_items(rel) -> set:
    return {x for pi in rel.published_items if len(pi.members) > 1 for x in pi.members}


def compare(data, tax, k, m, s, n_queries, seed):
    coat, t_coat = timed(anonymize_coat, data, privacy=KmConstraints(m), utility=None, k=k, s=s)
    row = {
        "k": k,
        "m": m,
        "coat_seconds": round(t_coat, 3),
        "coat_published_items": coat.n_published_items,
        "coat_suppressed": coat.n_suppressed,
        "coat_log_ul": ul(data, coat).log_value,
        "coat_km_audit": KmAnonymity(k, m).audit(data, coat).satisfied,
    }
    aa = None
    if anonymize_aa is not None:
        aa, t_aa = timed(anonymize_aa, data, taxonomy=tax, k=k, m=m)
        row.update(
            aa_seconds=round(t_aa, 3),
            aa_published_items=aa.n_published_items,
            aa_log_ul=ul(data, aa).log_value,
            aa_km_audit=KmAnonymity(k, m).audit(data, aa).satisfied,
        )
    pool = generalized_items(coat) | (generalized_items(aa) if aa is not None else set())
    for q in (1, 3):
        for name, among in (("gen", sorted(pool) if len(pool) >= q else None), ("all", None)):
            try:
                wl = generate_workload(data, n_queries, q, rng=seed + q, among=among)
            except ParameterError as exc:  # e.g. m = 1: too few generalized items co-occur
                row[f"coat_avgre_q{q}_{name}"] = None
                row[f"workload_q{q}_{name}_error"] = str(exc)
                continue
            row[f"coat_avgre_q{q}_{name}"] = average_relative_error(coat, wl)
            if aa is not None:
                row[f"aa_avgre_q{q}_{name}"] = average_relative_error(aa, wl)
                a, c = row[f"aa_avgre_q{q}_{name}"], row[f"coat_avgre_q{q}_{name}"]
                row[f"ratio_aa_over_coat_q{q}_{name}"] = (a / c) if c > 0 else (float("inf") if a > 0 else 1.0)
    row["workload_pool_items"] = len(pool)
    return row


def policies(data, tax, s, n_q, seed, quick=False):
    """Sec. 6.3-6.4: PP1-PP9 (k = 5, U = all) and UP1-UP4 (P = all 2-itemsets), against AA.

    AA protects all 2-itemsets for PP1-PP5 and UP1-UP4, all 4-itemsets for PP6-PP9 (as in
    the paper). AvgRE over a workload of all items (q = 2 for PP, q = 1 and 3 for UP).
    """
    out = {"pp": [], "up": []}
    aa_rel = {}
    if anonymize_aa is not None:
        for m in (2, 4):
            aa_rel[m] = anonymize_aa(data, taxonomy=tax, k=5, m=m)
    wl2 = generate_workload(data, n_q, 2, rng=seed + 2)
    for number in ([1, 6] if quick else [1, 2, 3, 4, 5, 6, 7, 8, 9]):
        P = pp_policy(data, number, rng=seed)
        rel, t = timed(anonymize_coat, data, privacy=P, utility=None, k=5, s=s)
        row = {
            "policy": f"PP{number}",
            "constraints": len(P),
            "coat_seconds": round(t, 3),
            "coat_published_items": rel.n_published_items,
            "coat_suppressed": rel.n_suppressed,
            "coat_audit": PrivacyConstraints(P, 5).audit(data, rel).satisfied,
            "coat_avgre_q2": average_relative_error(rel, wl2),
        }
        if aa_rel:
            m = 2 if number <= 5 else 4
            row["aa_m"] = m
            row["aa_avgre_q2"] = average_relative_error(aa_rel[m], wl2)
            row["aa_audit"] = PrivacyConstraints(P, 5).audit(data, aa_rel[m]).satisfied
        out["pp"].append(row)
    wls = {q: generate_workload(data, n_q, q, rng=seed + q) for q in (1, 3)}
    for number in ([3] if quick else [1, 2, 3, 4]):
        U = up_policy(tax, number, data=data)
        row = {"policy": f"UP{number}", "blocks": len(U)}
        try:
            rel, t = timed(anonymize_coat, data, privacy=KmConstraints(2), utility=U, k=5, s=s)
        except InfeasibleError as exc:
            row["coat_infeasible"] = str(exc)[:300]
            rel = None
        if rel is not None:
            row.update(
                coat_seconds=round(t, 3),
                coat_published_items=rel.n_published_items,
                coat_suppressed=rel.n_suppressed,
                coat_utility_ok=check_utility_constraints(data, rel, U, s).satisfied,
                coat_km_audit=KmAnonymity(5, 2).audit(data, rel).satisfied,
                **{f"coat_avgre_q{q}": average_relative_error(rel, wls[q]) for q in (1, 3)},
            )
        if aa_rel:
            row["aa_utility_ok"] = check_utility_constraints(data, aa_rel[2], U, s).satisfied
            row.update({f"aa_avgre_q{q}": average_relative_error(aa_rel[2], wls[q]) for q in (1, 3)})
        out["up"].append(row)
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny run for a smoke test")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "coat.json"))
    args = ap.parse_args(argv)

    full = load("bms1")
    data = full.subset(range(5000)) if args.quick else full
    tax = Taxonomy.balanced(data.items, 5)
    s = 0.005
    n_q = 100 if args.quick else args.queries
    ks = [5] if args.quick else [2, 5, 10, 25, 50]
    ms = [1, 2] if args.quick else [1, 2, 3]

    res: dict = {
        "dataset": "bms1" if not args.quick else "bms1[:5000]",
        "records": data.n_records,
        "items": data.n_items,
        "taxonomy": "Taxonomy.balanced(items, fanout=5)",
        "s": s,
        "queries": n_q,
        "seed": args.seed,
        "aa_available": anonymize_aa is not None,
        "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
                    "note": "2-core machine shared with other jobs while measuring"},
    }
    P, t_pgen = timed(pgen, data, 5)
    res["pgen"] = {"k": 5, "seconds": round(t_pgen, 3), "constraints": len(P), "largest": max(map(len, P)) if P else 0}
    rel, t = timed(anonymize_coat, data, privacy=P, utility=None, k=5, s=s)
    res["coat_pgen"] = {
        "seconds": round(t, 3),
        "published_items": rel.n_published_items,
        "suppressed": rel.n_suppressed,
        "audit": PrivacyConstraints(P, 5).audit(data, rel).satisfied,
    }
    res["vary_k_m2"] = [compare(data, tax, k, 2, s, n_q, args.seed) for k in ks]
    res["vary_m_k5"] = [compare(data, tax, 5, m, s, n_q, args.seed) for m in ms]
    res["policies"] = policies(data, tax, s, n_q, args.seed, quick=args.quick)
    sizes = [1000, 5000] if args.quick else [1000, 5000, 10000, 25000, 50000, full.n_records]
    rng = np.random.default_rng(args.seed)
    scal = []
    for n in sizes:
        sub = full.subset(np.sort(rng.choice(full.n_records, size=n, replace=False))) if n < full.n_records else full
        _, tc = timed(anonymize_coat, sub, privacy=KmConstraints(2), utility=None, k=5, s=s)
        row = {"records": n, "coat_seconds": round(tc, 3)}
        if anonymize_aa is not None:
            _, ta = timed(anonymize_aa, sub, taxonomy=Taxonomy.balanced(sub.items, 5), k=5, m=2)
            row["aa_seconds"] = round(ta, 3)
        scal.append(row)
    res["scalability_k5_m2"] = scal
    text = json.dumps(res, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    if not args.quick or args.out != str(ROOT / "benchmarks" / "results" / "coat.json"):
        Path(args.out).write_text(text + "\n")
    return res


if __name__ == "__main__":
    main()
