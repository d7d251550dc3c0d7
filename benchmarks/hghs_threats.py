"""HgHs/mHgHs threat mining before and after (issue 24): time, peak memory, threat counts, same releases.

Runs HgHs and mHgHs (k=5, m=2) on the retail-like data of
``benchmarks/large_vocabulary.py`` (88,162 records, 16,470 items, balanced
fan-out-5 taxonomy) and on the release-hash grid's bundled cases, once with
the code under test (this checkout) and once with an earlier checkout given
by ``--before`` (e.g. ``git archive <commit> | tar -x -C /tmp/before``). Each
run is a fresh Python process (its own peak RSS, ``ru_maxrss``); each pair is
alternated ``--repeat`` times and the best time kept.

A release is compared by the SHA-256 of its saved JSON twice: whole, and with
the per-round ``threats`` count removed from the params (that count is what
the change may alter: before, the minimal threats of all cuts of the round's
taxonomy; after, for k^2 rounds, the threats the walk mined, those lying in
its near set).

Usage::

    python benchmarks/hghs_threats.py --before /tmp/before [--repeat 3]

Prints one JSON document and writes it to ``benchmarks/results/hghs_threats.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (dataset, method, k, m, taxonomy): "retail" is benchmarks.retail_like at the public set's size
CASES = [
    ("groceries", "hghs", 5, 2, "bundled"),
    ("groceries", "mhghs", 10, 2, "bundled"),
    ("bms1", "hghs", 5, 2, "balanced:5"),
    ("bms1", "mhghs", 5, 2, "balanced:5"),
    ("retail", "hghs", 5, 2, "balanced:5"),
    ("retail", "mhghs", 5, 2, "balanced:5"),
]

CHILD = r"""
import hashlib, json, resource, sys, tempfile, time
from pathlib import Path
name, method, k, m, tax = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
from graphanon.algorithms import anonymize_hghs, anonymize_mhghs
from graphanon.datasets import load, load_taxonomy
from graphanon.privacy import KmAnonymity
from graphanon.taxonomy import Taxonomy
if name == "retail":
    sys.path.insert(0, sys.argv[6])
    from benchmarks.retail_like import retail_like
    data = retail_like(n_records=88_162, n_items=16_470, seed=0)
else:
    data = load(name)
taxonomy = load_taxonomy(name) if tax == "bundled" else Taxonomy.balanced(data.items, int(tax.split(":")[1]))
rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
fn = anonymize_hghs if method == "hghs" else anonymize_mhghs
t0, c0 = time.perf_counter(), time.process_time()
rel = fn(data, taxonomy=taxonomy, k=k, m=m, unsafe_secret_seed=0)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "release.json"
    rel.save(path)
    raw = path.read_bytes()
doc = json.loads(raw)
for rnd in doc["params"]["rounds"]:
    rnd.pop("threats")
masked = json.dumps(doc, sort_keys=True).encode()
print(json.dumps({
    "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "peak_rss_mib": round(peak, 1),
    "rss_after_loading_data_mib": round(rss_data, 1),
    "threats": [r["threats"] for r in rel.params["rounds"]],
    "sha256": hashlib.sha256(raw).hexdigest(), "sha256_without_threats": hashlib.sha256(masked).hexdigest(),
    "audit_km": bool(KmAnonymity(k, m).audit(data, rel).satisfied),
}))
"""


def run(code_root: Path, case) -> dict:
    name, method, k, m, tax = case
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    out = subprocess.run([sys.executable, "-c", CHILD, name, method, str(k), str(m), tax, str(code_root)],
                         capture_output=True, text=True, env=env, cwd=code_root)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def best(runs: list[dict]) -> dict:
    res = dict(min(runs, key=lambda r: r["cpu_seconds"]))
    res["seconds"] = min(r["seconds"] for r in runs)
    res["peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
    res["runs"] = len(runs)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "hghs_threats.json")
    args = ap.parse_args(argv)
    rows = []
    for case in CASES:
        load_before = os.getloadavg()[0]
        got: dict[str, list] = {"before": [], "after": []}
        for _ in range(args.repeat):
            for which, root in (("before", args.before), ("after", ROOT)):
                got[which].append(run(root, case))
        before, after = best(got["before"]), best(got["after"])
        row = {"dataset": case[0], "method": case[1], "k": case[2], "m": case[3], "taxonomy": case[4],
               "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
               "before": before, "after": after,
               "same_release_without_threats": before["sha256_without_threats"] == after["sha256_without_threats"],
               "same_release_bytes": before["sha256"] == after["sha256"]}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    doc = {
        "benchmark": "hghs_threats",
        "retail": "retail_like(n_records=88162, n_items=16470, seed=0), Taxonomy.balanced(items, 5)",
        "timing": "best of the runs (alternated before/after), wall and CPU of the anonymize call only",
        "peak_memory": "ru_maxrss of the run's own process (data, taxonomy, method; before saving and the audit)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "after_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True).stdout.strip(),
        "cases": rows,
    }
    text = json.dumps(doc, indent=2)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    return 0 if all(r["same_release_without_threats"] and r["after"]["audit_km"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
