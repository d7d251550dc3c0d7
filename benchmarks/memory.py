"""Peak memory and time of the unbounded-m cases (issue 11), each in its own limited process.

Cases (retail-like data from :mod:`benchmarks.retail_like`: 20,000 records,
seed 0; chess is bundled):

* ``km_inf_raw`` - ``KmAnonymity(5, None)`` audit of the unaltered data
  (k^infinity by containment counting);
* ``km_inf_cut`` - the same audit of a level-3 cut of a fan-out-5 taxonomy;
* ``hghs_inf`` - ``anonymize_hghs(k=5, m=None)`` with that taxonomy (stops
  with a MemoryBudgetError, or finishes);
* ``mhghs_inf`` - ``anonymize_mhghs(k=5, m=None)``, the round-by-round answer;
* ``nr_k_n`` - nonreciprocal recoding of chess with k = the record count.

Each case runs in a child process with an address-space limit (default
4 GB, ``--limit``); the parent reports wall time, the child's peak resident
memory (``wait4`` rusage) and the outcome. Results go to
``benchmarks/results/memory.json``.

Usage::

    python benchmarks/memory.py                 # all cases
    python benchmarks/memory.py --case km_inf_raw
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
CASES = ["km_inf_raw", "km_inf_cut", "hghs_inf", "mhghs_inf", "nr_k_n"]


def _retail():
    from benchmarks.retail_like import retail_like

    return retail_like(n_records=20_000, seed=0)


def run_case(name: str) -> dict:
    """Run one case in this process; return what it produced."""
    from graphanon.errors import GraphanonError
    from graphanon.release import GlobalRecoding
    from graphanon.taxonomy import Taxonomy

    out: dict = {}
    try:
        if name.startswith("km_inf"):
            from graphanon.algorithms import anonymize_cut
            from graphanon.privacy import KmAnonymity

            data = _retail()
            if name == "km_inf_raw":
                rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
            else:
                rel = anonymize_cut(data, taxonomy=Taxonomy.balanced(data.items, 5), level=3)
            start = time.perf_counter()
            rep = KmAnonymity(5, None).audit(data, rel)
            out.update(audit_seconds=round(time.perf_counter() - start, 3), satisfied=rep.satisfied,
                       violations=rep.violations, worst=rep.worst)
        elif name in ("hghs_inf", "mhghs_inf"):
            from graphanon.algorithms import anonymize_hghs, anonymize_mhghs

            data = _retail()
            method = anonymize_hghs if name == "hghs_inf" else anonymize_mhghs
            rel = method(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, m=None)
            out.update(ncp=rel.params["ncp"], cut_size=len(rel.details["cut"]),
                       suppressed=len(rel.details["suppress"]), rounds=len(rel.params["rounds"]))
        elif name == "nr_k_n":
            from graphanon.algorithms import anonymize_nonreciprocal
            from graphanon.datasets import load

            data = load("chess")
            rel = anonymize_nonreciprocal(data, k=data.n_records, rng=0)
            out.update(records=rel.n_records, mean_threshold=float(rel.threshold.mean()))
        else:
            raise SystemExit(f"unknown case {name!r}; choose from {CASES}")
        out["outcome"] = "finished"
    except GraphanonError as exc:
        out.update(outcome=type(exc).__name__, message=str(exc))
    except MemoryError as exc:
        out.update(outcome="MemoryError (unguarded)", message=str(exc)[:200])
    return out


def measure(name: str, limit: int) -> dict:
    """Run ``name`` in a child limited to ``limit`` bytes of address space."""
    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", name], stdout=subprocess.PIPE,
                            preexec_fn=preexec, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    result = json.loads(proc.stdout.read() or "{}")
    return {"case": name, "seconds": round(wall, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "exit_status": status, "address_space_limit_gb": round(limit / 1e9, 1), **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", action="append", choices=CASES, help="run only these cases")
    parser.add_argument("--limit", type=float, default=4.0, help="address-space limit per case, GB")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child), default=str))
        return
    results = {"load_average": os.getloadavg(), "cpus": os.cpu_count(), "cases": []}
    for name in args.case or CASES:
        res = measure(name, int(args.limit * 1e9))
        print(json.dumps(res, default=str), flush=True)
        results["cases"].append(res)
    results["load_average_after"] = os.getloadavg()
    out = HERE / "results" / "memory.json"
    if out.exists() and args.case:  # keep the other cases' last measurements
        old = {c["case"]: c for c in json.loads(out.read_text()).get("cases", [])}
        old.update({c["case"]: c for c in results["cases"]})
        results["cases"] = list(old.values())
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
