"""Benchmark of the (k, k^m) audit, the rt linking attack and the relational metrics on synthetic RT data.

Data (seeded): ``--n`` records with 5 quasi-identifiers (age 18-90, gender,
race of 5, region of 50, income 0-199 in thousands) and items drawn from a
Zipf-like law over ``--items`` codes, shifted with the age band so that
demographics and items are correlated; 2-8 items per record.

Releases (made here by hand, no anonymizer):

* ``coarse``: age in 10-year bands, gender kept, the other QIs ``*``; the
  items as they are (the k^m search runs over large classes);
* ``fine``: age in 5-year bands, gender, race and region kept: many small
  classes, most below k;
* ``naive`` (the baseline of issue 34): the ``coarse`` relational part
  (every class has at least k rows) and the items made k^m-anonymous on
  their own by AA (``anonymize_aa``, balanced taxonomy of fanout 5) over the
  whole data: each part passes its own model; the rt audit and the attack
  show what the combination leaves.

Measured (best of ``--repeat``): ``audit_rt`` wall time and verdict numbers;
``rt_linkage`` on ``--targets`` targets; ``relational_loss`` and (100 queries,
2 of the 5 QIs and 2 items each) ``rt_count_error``. The machine is shared: the load average
before and after is recorded.

Usage: ``python benchmarks/rt_audit.py [--n 100000] [--items 1000] [--k 5] [--m 2] [--repeat 1]``;
prints JSON and writes ``benchmarks/results/rt_audit.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best_of, print_and_save  # noqa: E402
from graphanon.algorithms import anonymize_aa  # noqa: E402
from graphanon.attacks.rtlink import rt_linkage  # noqa: E402
from graphanon.data import from_iterable  # noqa: E402
from graphanon.metrics.relational import (  # noqa: E402
    attribute_domains,
    relational_loss,
    rt_count_error,
    rt_workload,
)
from graphanon.privacy.rt import audit_rt  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402


def synthetic(n: int, n_items: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 91, n)
    gender = rng.choice(["F", "M"], n)
    race = rng.choice([f"race{i}" for i in range(5)], n, p=[0.6, 0.15, 0.12, 0.08, 0.05])
    region = rng.choice([f"region{i:02d}" for i in range(50)], n)
    income = rng.integers(0, 200, n)
    qi = list(zip(age.tolist(), gender.tolist(), race.tolist(), region.tolist(), income.tolist(), strict=True))
    p = 1.0 / np.arange(1, n_items + 1) ** 1.1
    p /= p.sum()
    lengths = rng.integers(2, 9, n)
    draws = rng.choice(n_items, size=int(lengths.sum()), p=p)
    shift = np.repeat((age - 18) // 10 * (n_items // 20), lengths)  # older records: later codes
    codes = (draws + shift) % n_items
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    items = [{f"i{c}" for c in codes[bounds[i] : bounds[i + 1]].tolist()} for i in range(n)]
    return qi, items


def band(a: int, width: int) -> str:
    lo = a // width * width
    return f"[{lo}-{lo + width - 1}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--m", type=int, default=2)
    parser.add_argument("--targets", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    start = time.perf_counter()
    qi, items = synthetic(args.n, args.items)
    t_data = time.perf_counter() - start
    releases = {
        "coarse": [(band(a, 10), g, "*", "*", "*") for a, g, _, _, _ in qi],
        "fine": [(band(a, 5), g, r, reg, "*") for a, g, r, reg, _ in qi],
    }
    published = {"coarse": items, "fine": items}
    members: dict[str, dict] = {"coarse": {}, "fine": {}}
    start = time.perf_counter()
    data = from_iterable([sorted(r) for r in items])
    aa = anonymize_aa(data, taxonomy=Taxonomy.balanced(data.items, 5), k=args.k, m=args.m)
    t_aa = time.perf_counter() - start
    recode = aa.mapping
    releases["naive"] = releases["coarse"]
    published["naive"] = [{recode[x] for x in r if x in recode} for r in items]
    members["naive"] = {}
    for x, lab in recode.items():
        members["naive"].setdefault(lab, []).append(x)
    domains = attribute_domains(qi)
    queries = rt_workload(qi, items, domains, n_queries=100, q=2, attributes=2, rng=0)
    out = []
    for name, rel in releases.items():
        pub, mem = published[name], members[name]
        t_audit, rep = best_of(lambda rel=rel, pub=pub: audit_rt(rel, pub, k=args.k, m=args.m), args.repeat)
        t_attack, res = best_of(lambda rel=rel, pub=pub, mem=mem: rt_linkage(
            qi, items, rel, pub, k=args.k, m=args.m, targets=args.targets, members=mem, rng=0), args.repeat)
        t_loss, loss = best_of(lambda rel=rel: relational_loss(rel, domains), args.repeat)
        t_query, (err, _) = best_of(lambda rel=rel, pub=pub, mem=mem: rt_count_error(
            qi, items, rel, pub, queries, domains, members=mem), args.repeat)
        out.append({
            "release": name,
            "satisfied": rep.satisfied,
            "classes": rep.details["classes"],
            "small_classes": rep.details["small_classes"],
            "item_violations": rep.details["item_violations"],
            "seconds_audit": round(t_audit, 3),
            "attack_targets": res.n_targets,
            "attack_records_below_k": res.details["records_below_k"],
            "attack_success": round(res.success, 4),
            "seconds_attack": round(t_attack, 3),
            "gcp": round(loss.gcp, 4),
            "seconds_gcp": round(t_loss, 3),
            "query_avg_relative_error": round(err, 4),
            "seconds_queries_100": round(t_query, 3),
        })
    doc = {
        "benchmark": "rt_audit",
        "records": args.n,
        "items": args.items,
        "quasi_identifiers": 5,
        "k": args.k,
        "m": args.m,
        "seconds_make_data": round(t_data, 3),
        "seconds_aa_for_naive": round(t_aa, 3),
        "naive_items_alone_km": audit_rt([("*",)] * args.n, published["naive"], k=args.k, m=args.m).satisfied,
        "results": out,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    print_and_save(doc, "rt_audit", save=not args.no_save)


if __name__ == "__main__":
    main()
