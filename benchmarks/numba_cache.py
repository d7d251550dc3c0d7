"""First-call cost of graphanon's numba kernels with the kernel-set cache stamp and with numba's own.

For each locator setting, a fresh copy of the package (empty cache) runs each
case once *cold* (compile and write the cache), then ``--runs`` times *warm*
(load the cache) in fresh processes; the median wall time of the warm runs
and the cold time are printed as JSON. "numba" restores numba's own
locators (``NUMBA_CACHE_LOCATOR_CLASSES``), i.e. the behaviour before
:mod:`graphanon.utils.numba_cache`; "kernel set" is the package as shipped.

Usage::

    python benchmarks/numba_cache.py --runs 5 --out benchmarks/results/numba_cache.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "COAT k^m (coat_fig1, k=2, m=2)": (
        "from graphanon.datasets import load; from graphanon.algorithms.coat import anonymize_coat; "
        "from graphanon.taxonomy.constraint_sets import KmConstraints; "
        "anonymize_coat(load('coat_fig1'), privacy=KmConstraints(2), k=2, s=1.0)"
    ),
    "nonreciprocal k=2 + audit (nr_table1)": (
        "from graphanon.datasets import load; from graphanon.algorithms.nonreciprocal import "
        "anonymize_nonreciprocal; from graphanon.privacy import NonreciprocalKAnonymity; d = load('nr_table1'); "
        "NonreciprocalKAnonymity(2).audit(d, anonymize_nonreciprocal(d, k=2, order='identity', rng=0))"
    ),
}
SETTINGS = {
    "kernel set": {},
    "numba": {"NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"},
}


def _time(root: Path, code: str, env_extra: dict) -> float:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONWARNINGS": "ignore", **env_extra}
    env.pop("NUMBA_CACHE_DIR", None)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    results = []
    for setting, env_extra in SETTINGS.items():
        with tempfile.TemporaryDirectory(prefix="graphanon-numba-cache-") as tmp:
            root = Path(tmp)
            shutil.copytree(ROOT / "graphanon", root / "graphanon", ignore=shutil.ignore_patterns("__pycache__"))
            for case, code in CASES.items():
                cold = _time(root, code, env_extra)
                warm = [_time(root, code, env_extra) for _ in range(args.runs)]
                results.append({"locator": setting, "case": case, "cold_seconds": round(cold, 2),
                                "warm_median_seconds": round(statistics.median(warm), 3),
                                "warm_min_seconds": round(min(warm), 3), "runs": args.runs})
    py = ("import numba.core.caching, time; t = time.perf_counter(); import graphanon.utils.numba_cache as c; "
          "c.kernel_set_digest(); print(time.perf_counter() - t)")
    digest = subprocess.run([sys.executable, "-c", py], cwd=ROOT, capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    report = {"results": results, "import_and_digest_seconds (numba already imported)": round(float(digest.stdout), 3),
              "loadavg": os.getloadavg(), "python": sys.version.split()[0]}
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
