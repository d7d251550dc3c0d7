"""Attacks on every release kind: success vs the bound each must respect.

Every release kind (global recoding by cut, AA, mHgHs, MM, COAT; nonreciprocal
recoding with k, with l, and CAHD) is made on bundled data (chess, a 2,000-
record mushroom subsample, groceries, nr_table1) and on e-book-like sessions
(tests/ebook_sessions.py: 3,000 sessions over 300 titles, Zipf popularity,
genre-correlated labels), then attacked by every adversary of
:mod:`graphanon.attacks`:

(a) row linkage (position, id), (b) label inference (candidates, position,
id), (c) the m-item linking attack (m = 2 and 3), (d) seed recovery (the
structure seed and its neighbours tried, 4 re-runs per recognized seed; for
nr on a release made with the Gray order, since Gray-TSP is not yet
reproducible from a seed). Each release is also un-shuffled back into the
old model (rows in input order, input ids) and attacked by (a) and (b) with
the position strategy, to show what the attacks catch.

Datasets without sensitive labels get 30 labels drawn from a fixed skewed
distribution (p_i ~ 0.95^i, seeded), as in benchmarks/nonreciprocal.py.
Releases are scored against their private link (``release.link``).

``--seed-attacks`` runs only the attacks of issue 20 and stores them under
``"seed_attacks"`` in the result file (the other rows are kept): (e) the
known-label + seed adversary (:func:`graphanon.attacks.known_label_attack`)
on e-book-like sessions (3,000 sessions, 6 labels), ``nr`` k=5 with
``--label``, 1, 2, 5 and 10 known (person, label) pairs, 10 trials each
(fresh release, fresh known pairs); (f) two releases made with one seed
(:func:`graphanon.attacks.same_seed_attack`), 10 trials, k=5 and l=3. Each
is run on the fixed ``nr`` and on the old seeded ``nr`` (tests/old_nr.py:
the seed also decided the k assignments). Then the saved ``hghs`` /
``mhghs`` files (groceries, k,m = 5,2 / 10,2 / 20,3): does a parameter
replay the walk and rebuild the cut, and does the coarsest completion of
the leaves no published node covers name the suppressed nodes.

Usage: ``python benchmarks/attacks.py [--quick] [--datasets a,b]``; prints
JSON and writes ``benchmarks/results/attacks.json``;
``--methods cut,nr`` re-runs some methods only (their rows replace the
old ones in the result file); ``--markdown benchmarks/results/attacks.json``
prints the tables of docs/attacks.md.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphanon.algorithms.coat import anonymize_coat  # noqa: E402
from graphanon.algorithms.coat.policies import km_policy  # noqa: E402
from graphanon.algorithms.hierarchy.aa import anonymize_aa  # noqa: E402
from graphanon.algorithms.hierarchy.cut import anonymize_cut  # noqa: E402
from graphanon.algorithms.hierarchy.hghs import anonymize_mhghs  # noqa: E402
from graphanon.algorithms.hierarchy.mm import anonymize_mm  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import (  # noqa: E402
    candidate_sets,
    label_inference,
    m_item_linkage,
    row_linkage,
    seed_recovery,
)
from graphanon.data import TransactionData  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402
from tests.attacks.test_attacks import leaky  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.old_nr import old_seeded_nr  # noqa: E402

K, M, L = 5, 2, 3
STRUCTURE_SEED = 1


def skewed_labels(n, n_labels=30, ratio=0.95, seed=0):
    p = ratio ** np.arange(n_labels)
    p /= p.sum()
    return [f"s{int(v)}" for v in np.random.default_rng(seed).choice(n_labels, size=n, p=p)]


def with_labels(data, labels):
    return TransactionData(data.matrix.copy(), data.items, data.record_ids, labels, data.name)


def dataset(name: str, quick: bool):
    """(data with labels, taxonomy, k) for a dataset name."""
    if name == "ebook":
        data = ebook_sessions(1000 if quick else 3000, 150 if quick else 300, seed=0)
        return data, Taxonomy.balanced(data.items, 5), K
    data = load(name)
    if name == "mushroom":
        data = data.subset(
            np.sort(np.random.default_rng(0).choice(data.n_records, 2000, replace=False))
        )
    if quick and data.n_records > 1000:
        data = data.subset(np.arange(1000))
    if data.labels is None:
        data = with_labels(data, skewed_labels(data.n_records))
    tax = (
        load_taxonomy(name)
        if name == "groceries"
        else Taxonomy.balanced(data.items, 2 if name == "nr_table1" else 5)
    )
    return data, tax, (2 if name == "nr_table1" else K)


def methods(tax, k):
    """name -> anonymize(data, seed, order); the seed is the structure seed (None: no seed)."""
    l = min(L, k + 1)  # noqa: E741
    return {
        "cut": lambda d, s, o: anonymize_cut(d, taxonomy=tax, level=1),
        "aa": lambda d, s, o: anonymize_aa(d, taxonomy=tax, k=k, m=M),
        "mhghs": lambda d, s, o: anonymize_mhghs(d, taxonomy=tax, k=k, m=M),
        "mm": lambda d, s, o: anonymize_mm(d, k=k, m=M),
        "coat": lambda d, s, o: anonymize_coat(d, privacy=km_policy(M), utility=None, k=k, s=1.0),
        f"nr k={k}": lambda d, s, o: anonymize_nonreciprocal(d, k=k, rng=s, order=o),
        f"nr l={l}": lambda d, s, o: anonymize_nonreciprocal(d, l=l, rng=s, order=o),
        f"cahd l={l}": lambda d, s, o: anonymize_cahd(d, l=l),
    }


def attack_release(data, release, run, k, quick):
    """Every attack on ``release``, then (a) and (b) on its un-shuffled copy (the old model)."""
    truth = release.link
    level = None if release.params.get("k") or release.params.get("l") else k
    t0 = time.perf_counter()
    C = candidate_sets(data, release)
    t_cand = time.perf_counter() - t0
    results = [
        row_linkage(data, release, truth=truth, strategy=s, candidates=C)
        for s in ("position", "id")
    ]
    if release.labels is not None:
        results += [
            label_inference(data, release, strategy=s, candidates=C)
            for s in ("candidates", "position", "id")
        ]
    results += [m_item_linkage(data, release, truth=truth, m=m, k=level, rng=0) for m in (2, 3)]
    # (d): the structure seed and its neighbours; Gray-TSP is not yet reproducible from a seed
    # (OR-Tools time limit), so the seeded release for this adversary uses the Gray order.
    nr = release.algorithm == "nr"
    seeded = run(data, STRUCTURE_SEED, "gray") if nr else release
    seeds = range(STRUCTURE_SEED - 1, STRUCTURE_SEED + 2) if nr else [None]
    draws = 2 if quick else 4
    results.append(
        seed_recovery(
            data,
            seeded,
            lambda d, s: run(d, s, "gray"),
            seeds,
            truth=seeded.link,
            draws=draws,
        )
    )
    bad, aligned = leaky(release, data)
    old = [row_linkage(data, bad, truth=aligned, strategy="position")]
    if release.labels is not None:
        old.append(label_inference(data, bad, strategy="position"))
    return results, old, t_cand


def _summary(results) -> dict:
    """Mean success, bound and margin over trials, and how many trials stayed within the bound."""
    return {
        "success_mean": round(float(np.mean([r.success for r in results])), 4),
        "success_max": round(float(np.max([r.success for r in results])), 4),
        "bound_mean": round(float(np.mean([r.bound for r in results])), 4),
        "margin": round(float(np.mean([r.margin for r in results])), 4),
        "within_bound": int(sum(r.within_bound() for r in results)),
        "trials": len(results),
    }


def seed_attacks(trials: int, n_sessions: int = 3000) -> dict:
    """Issue 20's attacks (e), (f) and the hghs cut rebuild, on the fixed and the old code."""
    from graphanon.attacks import known_label_attack, same_seed_attack

    data = ebook_sessions(n_sessions, seed=1)
    seed, k, l = 11, 5, 3  # noqa: E741
    makers = {
        "fixed": lambda d, secret=None: anonymize_nonreciprocal(d, k=k, order="gray", rng=seed,
                                                                unsafe_secret_seed=secret),
        "old": lambda d, secret=None: old_seeded_nr(d, k=k, rng=seed, unsafe_secret_seed=secret),
    }
    out = {"data": f"e-book-like sessions, {n_sessions} sessions, 6 labels (tests/ebook_sessions.py, seed 1)",
           "k": k, "l": l, "seed": seed, "order": "gray", "known_labels": [], "same_seed": []}
    for version, make in makers.items():
        for n_known in (1, 2, 5, 10):
            rows, labels, pinned = [], [], 0
            for trial in range(trials):
                release = make(data)
                res = known_label_attack(data, release, make, known=n_known, truth=release.link,
                                         rng=1000 * n_known + trial)
                rows.append(res["row"])
                labels.append(res["label"])
                # pinned: one hypothesis left, and it is the published assignment
                pinned += res["row"].details["surviving"] == 1 and res["row"].details.get("surviving_success",
                                                                                          [0])[0] > 0.9
            out["known_labels"].append({"version": version, "known": n_known, "pinned_trials": pinned,
                                        "row": _summary(rows), "label": _summary(labels)})
            print(f"known-labels {version:5s} N={n_known:2d}: row {out['known_labels'][-1]['row']}, "
                  f"label {out['known_labels'][-1]['label']}, pinned {pinned}/{trials}", file=sys.stderr)
    same_seed_makers = {
        **{f"{v} k={k}": m for v, m in makers.items()},
        f"fixed l={l}": lambda d, secret=None: anonymize_nonreciprocal(d, l=l, order="gray", rng=seed,
                                                                       unsafe_secret_seed=secret),
    }
    for version, make in same_seed_makers.items():
        rows, labels, only_true = [], [], 0
        for _ in range(trials):
            r1, r2 = make(data), make(data)
            res = same_seed_attack(data, r1, r2, make, truth1=r1.link)
            rows.append(res["row"])
            labels.append(res["label"])
            only_true += bool(res["row"].details["true_pair_only"])
        out["same_seed"].append({"version": version, "true_pair_only_trials": only_true,
                                 "row": _summary(rows), "label": _summary(labels)})
        print(f"same-seed {version}: {out['same_seed'][-1]}", file=sys.stderr)
    out["hghs_cut"] = hghs_cut_rebuild()
    return out


def _coarsest_completion(tax, published) -> set:
    """The maximal taxonomy nodes none of whose leaves a published node covers."""
    covered = {leaf for node in published for leaf in tax.leaves_under(node)}
    full = {v for v in tax.nodes if not covered & set(tax.leaves_under(v))}
    return {v for v in full if tax.parent(v) not in full}


def hghs_cut_rebuild() -> list:
    """Saved hghs / mhghs files on groceries: replay of the walk, and the coarsest-completion adversary."""
    import tempfile

    from graphanon.algorithms.hierarchy.hghs import anonymize_hghs
    from graphanon.release import load_release

    data, tax = load("groceries"), load_taxonomy("groceries")
    rows = []
    for name, run in (("hghs", anonymize_hghs), ("mhghs", anonymize_mhghs)):
        for k, m in ((5, 2), (10, 2), (20, 3)):
            rel = run(data, taxonomy=tax, k=k, m=m)
            with tempfile.TemporaryDirectory() as folder:
                rel.save(Path(folder) / "r.json")
                saved = load_release(Path(folder) / "r.json")
            walk_in_file = any(isinstance(v, list) and v and isinstance(v[0], list) and v[0]
                               and isinstance(v[0][0], str) for v in saved.params.values())
            guess = _coarsest_completion(tax, [pi.label for pi in saved.published_items])
            rows.append({"method": name, "k": k, "m": m, "suppressed_nodes": len(rel.trace.suppressed),
                         "walk_in_file": walk_in_file,
                         "coarsest_completion_equals_suppressed": guess == set(rel.trace.suppressed),
                         "suppressed_named_by_completion": len(guess & set(rel.trace.suppressed))})
    return rows


def markdown(doc: dict) -> str:
    """Tables of a result file: one per dataset, a row per method, success / bound per attack."""
    cols = [
        ("row-linkage/position", "(a) position"),
        ("row-linkage/id", "(a) id"),
        ("label-inference/candidates", "(b) candidates"),
        ("label-inference/position", "(b) position"),
        ("m-item-linkage/m=2", "(c) m=2"),
        ("m-item-linkage/m=3", "(c) m=3"),
        ("seed-recovery", "(d) seed"),
    ]
    out = []
    for name in dict.fromkeys(r["dataset"] for r in doc["results"]):
        rows = [r for r in doc["results"] if r["dataset"] == name]
        out.append(
            f"**{name}** ({rows[0]['records']} records): success / bound, `*` = above bound + margin\n"
        )
        out.append("| method | " + " | ".join(c[1] for c in cols) + " | un-shuffled (a) / (b) |")
        out.append("|---" * (len(cols) + 2) + "|")
        for method in dict.fromkeys(r["method"] for r in rows):
            cells = []
            for key, _ in cols:
                hit = [
                    r
                    for r in rows
                    if r["method"] == method and r["attack"] == key and not r.get("unshuffled_copy")
                ]
                if not hit:
                    cells.append("-")
                    continue
                r = hit[0]
                cells.append(
                    f"{r['success']:.3f} / {r['bound']:.3f}" + ("" if r["within_bound"] else " *")
                )
            old = [r for r in rows if r["method"] == method and r.get("unshuffled_copy")]
            cells.append(
                " / ".join(f"{r['success']:.2f}" + ("" if r["within_bound"] else " *") for r in old)
            )
            out.append(f"| {method} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="1,000-record subsets, no seed re-runs of slow methods"
    )
    ap.add_argument("--datasets", default="nr_table1,chess,mushroom,groceries,ebook")
    ap.add_argument(
        "--methods", default=None, help="comma-separated subset of the methods (default: all)"
    )
    ap.add_argument(
        "--markdown", metavar="RESULTS_JSON", help="print the tables of a result file and exit"
    )
    ap.add_argument("--seed-attacks", action="store_true",
                    help="run only issue 20's seed / known-label / two-release / hghs attacks")
    ap.add_argument("--trials", type=int, default=10, help="with --seed-attacks: trials per setting")
    ap.add_argument(
        "--diversity-swap", action="store_true",
        help="issue 20 rows only: l-diversity variants on correlated labels, known-label linkage, "
        "swap partner tendency with and without spread (benchmarks/results/attacks_diversity_swap.json)",
    )
    ap.add_argument("--lost-items", action="store_true",
                    help="issue 30 rows only: who lost items in a PartSwap release, per unpaired rule "
                    "(benchmarks/results/attacks_lost_items.json; with --markdown FILE, print its table)")
    args = ap.parse_args()
    if args.lost_items and args.markdown:
        print(lost_items_markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
        return
    if args.lost_items:
        lost_items_main(args.quick)
        return
    if args.diversity_swap:
        diversity_swap_main(args.quick)
        return
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text(encoding="utf-8"))))
        return
    if args.seed_attacks:
        path = ROOT / "benchmarks" / "results" / "attacks.json"
        t0 = time.perf_counter()
        result = {**seed_attacks(args.trials), "seconds": None, "load_average_before": os.getloadavg()}
        result["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(result, indent=1))
        if not args.quick:
            previous = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            path.write_text(json.dumps({**previous, "seed_attacks": result}, indent=1) + "\n", encoding="utf-8")
        return
    rows = []
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    for name in args.datasets.split(","):
        data, tax, k = dataset(name, args.quick)
        for method, run in methods(tax, k).items():
            if args.methods and method.split(" ")[0] not in args.methods.split(","):
                continue
            t0 = time.perf_counter()
            release = run(data, STRUCTURE_SEED, "gray-tsp")
            t_anon = time.perf_counter() - t0
            t0 = time.perf_counter()
            results, old, t_cand = attack_release(data, release, run, k, args.quick)
            t_att = time.perf_counter() - t0
            for res in results:
                rows.append(
                    {"dataset": name, "records": data.n_records, "method": method, **res.to_dict()}
                )
            for res in old:
                rows.append(
                    {
                        "dataset": name,
                        "records": data.n_records,
                        "method": method,
                        "unshuffled_copy": True,
                        **res.to_dict(),
                    }
                )
            bad = [r.attack for r in results if not r.within_bound()]
            print(
                f"{name:10s} {method:10s} anonymize {t_anon:6.2f}s attacks {t_att:6.2f}s "
                f"(candidates {t_cand:.2f}s) above bound: {bad or 'none'}; un-shuffled copy: "
                + ", ".join(f"{r.attack} {r.success:.2f}" for r in old),
                file=sys.stderr,
            )
    out = {
        "benchmark": "attacks",
        "k": K,
        "m": M,
        "l": L,
        "structure_seed": STRUCTURE_SEED,
        "quick": args.quick,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "seconds": round(time.perf_counter() - t_start, 1),
        "results": rows,
    }
    path = ROOT / "benchmarks" / "results" / "attacks.json"
    if args.methods and path.exists() and not args.quick:  # keep the other methods' rows
        done = {(r["dataset"], r["method"]) for r in rows}
        previous = json.loads(path.read_text(encoding="utf-8"))
        kept = [r for r in previous["results"] if (r["dataset"], r["method"]) not in done]
        out = {
            **previous,
            "partial_rerun": {k: out[k] for k in out if k != "results"},
            "results": kept + rows,
        }
    text = json.dumps(out, indent=1)
    print(text)
    if not args.quick:
        path.write_text(text + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- issue 20: label models, swapping
def diversity_variant_rows(quick: bool) -> list[dict]:
    """The majority-label adversary on genre-correlated labels (e-book sessions) against CAHD with
    distinct, entropy and recursive (c, l)-diversity (l = 3) and nr l = 3, each audited for its variant."""
    from graphanon.privacy.diversity import diversity_model

    data = ebook_sessions(1000 if quick else 3000, 150 if quick else 300, seed=0)
    variants = [
        ("cahd l=3 distinct", lambda: anonymize_cahd(data, l=L), "distinct", None),
        ("cahd l=3 entropy", lambda: anonymize_cahd(data, l=L, diversity="entropy"), "entropy", None),
        ("cahd l=3 recursive c=2", lambda: anonymize_cahd(data, l=L, diversity="recursive", c=2.0), "recursive", 2.0),
        ("cahd l=3 recursive c=1", lambda: anonymize_cahd(data, l=L, diversity="recursive", c=1.0), "recursive", 1.0),
        ("nr l=3 distinct", lambda: anonymize_nonreciprocal(data, l=L, rng=STRUCTURE_SEED, order="gray"),
         "distinct", None),
    ]
    rows = []
    for name, make, variant, c in variants:
        t0 = time.perf_counter()
        release = make()
        t_anon = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = diversity_model(L, variant, c).audit(data, release)
        t_audit = time.perf_counter() - t0
        res = label_inference(data, release, strategy="candidates")
        rows.append({"dataset": "ebook", "records": data.n_records, "method": name,
                     "group_size": release.params.get("group_size"), "audit": report.model,
                     "satisfied": report.satisfied, "violations": report.violations,
                     "mean_max_label_share": report.details.get("mean_max_label_share_candidates"),
                     "seconds_anonymize": round(t_anon, 2), "seconds_audit": round(t_audit, 2),
                     "below_bound_by_margin": res.success + res.margin < res.bound, **res.to_dict()})
        print(f"{name:26s} audit {report.satisfied} majority-label {res.success:.4f} vs {res.bound:.4f} "
              f"+/- {res.margin:.4f}", file=sys.stderr)
    return rows


def known_label_rows(quick: bool) -> list[dict]:
    """Row linkage by an adversary who also knows the target's label (issue 20 item 5)."""
    from graphanon.attacks.label_linkage import known_label_linkage

    data = ebook_sessions(1000 if quick else 3000, 150 if quick else 300, seed=0)
    rows = []
    for name, make in [
        (f"nr k={K}", lambda: anonymize_nonreciprocal(data, k=K, rng=STRUCTURE_SEED, order="gray")),
        (f"nr l={L}", lambda: anonymize_nonreciprocal(data, l=L, rng=STRUCTURE_SEED, order="gray")),
        (f"cahd l={L}", lambda: anonymize_cahd(data, l=L)),
    ]:
        release = make()
        res = known_label_linkage(data, release, truth=release.link)
        rows.append({"dataset": "ebook", "records": data.n_records, "method": name, **res.to_dict()})
        print(f"{name:10s} known-label linkage {res.success:.4f} vs {res.bound:.4f}", file=sys.stderr)
    return rows


def partner_tendency_rows(quick: bool) -> list[dict]:
    """The partner-tendency attack on the five swapping methods (and the spread mitigation) on groceries
    with categories = taxonomy level 1, next to the paper's utility metrics and the tendency audit."""
    from graphanon.algorithms import (
        anonymize_fullswap,
        anonymize_partsupp,
        anonymize_partswap,
        anonymize_randswap,
        anonymize_splitperson,
    )
    from graphanon.attacks.tendency import partner_tendency
    from graphanon.metrics.itemsets import itemset_metrics
    from graphanon.privacy import TendencyHiding
    from graphanon.taxonomy.categories import parse_categories

    data = load("groceries")
    if quick:
        data = TransactionData(data.matrix[:2000], data.items, data.record_ids[:2000], None, data.name)
    cats = parse_categories("taxonomy-level:1", data, load_taxonomy("groceries"))
    runs = [
        ("partswap", lambda: anonymize_partswap(data, categories=cats, rng=0)),
        ("fullswap", lambda: anonymize_fullswap(data, categories=cats, rng=0)),
        ("randswap", lambda: anonymize_randswap(data)),
        ("partsupp", lambda: anonymize_partsupp(data, categories=cats)),
        ("splitperson", lambda: anonymize_splitperson(data, categories=cats)),
    ] + [
        (f"{name} spread={s}", lambda f=f, s=s: f(data, categories=cats, rng=0, spread=s))
        for name, f in (("partswap", anonymize_partswap), ("fullswap", anonymize_fullswap)) for s in (2, 3)
    ]
    rows = []
    for name, make in runs:
        t0 = time.perf_counter()
        release = make()
        t_anon = time.perf_counter() - t0
        pairs = getattr(release.trace, "pairs", ()) or ()
        t0 = time.perf_counter()
        plain = partner_tendency(data, release, categories=cats, partners=pairs, truth=release.link)
        t_att = time.perf_counter() - t0
        aware = partner_tendency(data, release, categories=cats, partners=pairs, truth=release.link,
                                 one_category=False)
        audit = TendencyHiding(cats).audit(data, release)
        utility = itemset_metrics(data, release, (0.002, 0.003, 0.004, 0.005))
        rows.append({"dataset": "groceries", "records": data.n_records, "categories": "taxonomy-level:1",
                     "method": name, "seconds_anonymize": round(t_anon, 2), "seconds_attack": round(t_att, 2),
                     "attack": plain.to_dict(), "attack_any_categories": aware.to_dict(),
                     "kept_tendency": audit.details.get("kept_tendency"),
                     "records_with_tendency": audit.details.get("records_with_tendency"), "utility": utility})
        print(f"{name:20s} partner tendency {plain.success:.4f} / any-categories {aware.success:.4f} vs baseline "
              f"{plain.bound:.4f} over {plain.n_targets}; kept tendency {audit.details.get('kept_tendency')}; "
              f"FI sim 0.2% {utility['fi'][0]['similarity']:.3f}; Dif {utility['dif']:.4f}", file=sys.stderr)
    return rows


def diversity_swap_main(quick: bool) -> None:
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    out = {
        "benchmark": "attacks (issue 20: l-diversity variants, known labels, swap partners)",
        "quick": quick,
        "diversity_variants": diversity_variant_rows(quick),
        "known_label_linkage": known_label_rows(quick),
        "partner_tendency": partner_tendency_rows(quick),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "seconds": round(time.perf_counter() - t_start, 1),
    }
    text = json.dumps(out, indent=1)
    print(text)
    if not quick:
        (ROOT / "benchmarks" / "results" / "attacks_diversity_swap.json").write_text(text + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- issue 30: who lost items
def lost_items_rows(quick: bool) -> list[dict]:
    """The lost-items adversary (attack (k)) on PartSwap with each ``unpaired`` rule.

    Data: retail-like baskets (benchmarks/retail_like.py, 20,000 records; 4,000 with --quick) and
    groceries with 50 random categories; groceries with the taxonomy's first level (one category
    holds most tendency records), also with spread 2 and 3; bms1 (random:50). Structure seeds 0 and
    1. The adversary holds
    every record (and, for the no-gift test, a random 1,000); the exchange adversary, who has found
    the rows of the records it holds, holds every record or a random 10 %.
    """
    from benchmarks.retail_like import retail_like
    from graphanon.algorithms import anonymize_partswap
    from graphanon.attacks import lost_items_attack, lost_records
    from graphanon.metrics.itemsets import itemset_metrics
    from graphanon.privacy import TendencyHiding
    from graphanon.taxonomy.categories import parse_categories

    cases = [
        ("retail-like", lambda: retail_like(4000 if quick else 20_000, seed=0), "random:50"),
        ("groceries", lambda: load("groceries"), "random:50"),
        ("groceries", lambda: load("groceries"), "taxonomy-level:1"),
        ("bms1", lambda: load("bms1"), "random:50"),
    ]
    runs = [(name, make, spec, 1) for name, make, spec in cases]
    runs += [("groceries", lambda: load("groceries"), "taxonomy-level:1", spread) for spread in (2, 3)]
    rows = []
    for name, make, spec, spread in runs:
        data = make()
        cats = parse_categories(spec, data, load_taxonomy("groceries") if spec.startswith("taxonomy") else None)
        for seed in (0, 1):
            for unpaired in ("keep", "suppress", "splice"):
                t0 = time.perf_counter()
                rel = anonymize_partswap(data, categories=cats, rng=seed, unpaired=unpaired, spread=spread)
                t_anon = time.perf_counter() - t0
                tr = rel.trace
                left = lost_records(data, rel, rel.link)
                for L, *_ in tr.spliced + tr.hosted + tr.gifted + tr.rehomed:
                    left[L] = True
                audit = TendencyHiding(cats).audit(data, rel)
                utility = itemset_metrics(data, rel, (0.002, 0.005))
                row = {"dataset": name, "records": data.n_records, "categories": spec, "spread": spread, "seed": seed,
                       "unpaired": unpaired, "moves": rel.moves, "seconds_anonymize": round(t_anon, 2),
                       "with_tendency": tr.with_tendency, "pairs": len(tr.partial_pairs),
                       "spliced": len(tr.spliced), "hosted": len(tr.hosted), "gifted": len(tr.gifted),
                       "rehomed": len(tr.rehomed), "suppressed_records": len(tr.suppressed_records),
                       "suppressed_occurrences": tr.suppressed_occurrences,
                       "lost_records": int(lost_records(data, rel, rel.link).sum()),
                       "kept_tendency": audit.details.get("kept_tendency"), "audit_satisfied": audit.satisfied,
                       "dif": utility["dif"], "fi": utility["fi"]}
                if unpaired != "keep":
                    t0 = time.perf_counter()
                    row["no_gift_all"] = lost_items_attack(data, rel, categories=cats, truth=rel.link).to_dict()
                    row["seconds_attack"] = round(time.perf_counter() - t0, 2)
                    row["source_all"] = lost_items_attack(data, rel, categories=cats, truth=rel.link,
                                                          evidence="source").to_dict()
                    row["no_gift_1000"] = lost_items_attack(data, rel, categories=cats, truth=rel.link,
                                                            known=1000, rng=seed).to_dict()
                    row["exchange_all"] = lost_items_attack(data, rel, categories=cats, truth=rel.link, lost=left,
                                                            evidence="exchange").to_dict()
                    row["exchange_10pct"] = lost_items_attack(data, rel, categories=cats, truth=rel.link,
                                                              lost=left, evidence="exchange",
                                                              known=data.n_records // 10, rng=seed).to_dict()
                rows.append(row)
                a = row.get("no_gift_all", {})
                print(f"{name:11s} {spec:17s} spread {spread} seed {seed} {unpaired:8s} {rel.moves:13s} spliced {row['spliced']:4d} "
                      f"hosted {row['hosted']:4d} gifted {row['gifted']:4d} rehomed {row['rehomed']:4d} lost {row['lost_records']:4d} kept {row['kept_tendency']} "
                      f"no-gift {a.get('success', float('nan')):.3f} vs {a.get('bound', float('nan')):.4f} "
                      f"(flagged {a.get('details', {}).get('flagged')}) Dif {row['dif']:.4f} "
                      f"FI 0.2% {row['fi'][0]['similarity']:.3f}", file=sys.stderr)
    return rows


def lost_items_main(quick: bool) -> None:
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    out = {"benchmark": "attacks (issue 30: who lost items in a swapping release)", "quick": quick,
           "lost_items": lost_items_rows(quick),
           "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
           "load_average_before": load_before, "load_average_after": os.getloadavg(),
           "seconds": round(time.perf_counter() - t_start, 1)}
    text = json.dumps(out, indent=1)
    print(text)
    if not quick:
        (ROOT / "benchmarks" / "results" / "attacks_lost_items.json").write_text(text + "\n", encoding="utf-8")


def lost_items_markdown(doc: dict) -> str:
    """The table of docs/attacks.md, attack (k)."""
    out = ["| data | categories | spread | seed | unpaired | moves | spliced / hosted / gifted + rehomed | lost "
           "| no-gift precision (base rate) "
           "| recall | source held nowhere (base rate) | exchange, all known (base) | exchange, 10 % known (base) | Dif "
           "| FI sim 0.2% | 0.5% |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["lost_items"]:
        if r["unpaired"] == "keep":
            continue
        a, e, e10, so = r["no_gift_all"], r["exchange_all"], r["exchange_10pct"], r["source_all"]
        out.append(f"| {r['dataset']} | `{r['categories']}` | {r.get('spread', 1)} | {r['seed']} | {r['unpaired']} | {r['moves']} | "
                   f"{r['spliced']} / {r['hosted']} / {r.get('gifted', 0)} + {r.get('rehomed', 0)} | {r['lost_records']} | "
                   f"{a['success']:.3f} ({a['bound']:.4f}) over {a['details']['flagged']} | {a['details']['recall']:.3f} | "
                   f"{so['success']:.3f} ({so['bound']:.4f}) over {so['details']['flagged']} | "
                   f"{e['success']:.3f} ({e['bound']:.4f}) | {e10['success']:.3f} ({e10['bound']:.4f}) | "
                   f"{r['dif']:.4f} | {r['fi'][0]['similarity']:.3f} | {r['fi'][1]['similarity']:.3f} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
