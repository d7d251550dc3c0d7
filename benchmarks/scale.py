"""Scale measurements on synthetic Quest data (T10I4, 1,000 items): generate, Parquet
write/read (load), pair supports, and the k^2 audit (k=5, m=2) of the raw data
published as itself; one size per process so the peak memory (ru_maxrss) is that
size's.

Usage::

    python benchmarks/scale.py 100000          # prints one JSON line
    python benchmarks/scale.py 100000 --dask   # also on a 2-worker LocalCluster (threads)
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphanon.datasets.synthetic import quest  # noqa: E402
from graphanon.formats_parquet import read_parquet, write_parquet  # noqa: E402
from graphanon.privacy import KmAnonymity  # noqa: E402
from graphanon.release import GlobalRecoding, publish  # noqa: E402
from graphanon.support import pair_supports  # noqa: E402


def main() -> None:
    n = int(sys.argv[1])
    out = {"records": n, "load_avg_1min": os.getloadavg()[0]}
    quest(1000, rng=0)  # compile the record-filling kernel outside the timing
    t = time.perf_counter()
    data = quest(n, rng=0)
    out["generate_s"] = time.perf_counter() - t
    out["items"], out["occurrences"] = data.n_items, int(data.matrix.nnz)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "quest.parquet"
        t = time.perf_counter()
        write_parquet(data, path)
        out["parquet_write_s"] = time.perf_counter() - t
        out["parquet_mb"] = path.stat().st_size / 2**20
        t = time.perf_counter()
        data = read_parquet(path)
        out["load_parquet_s"] = time.perf_counter() - t
    t = time.perf_counter()
    S = pair_supports(data.matrix)
    out["pair_supports_s"] = time.perf_counter() - t
    out["pairs_nonzero"] = int((S != 0).sum())
    rel = publish(data, GlobalRecoding.from_mapping(data, {x: x for x in data.items}, universe=data.n_items,
                                                    algorithm="identity", params={}), unsafe_secret_seed=0)
    t = time.perf_counter()
    rep = KmAnonymity(5, 2).audit(data, rel)
    out["audit_k5_m2_s"] = time.perf_counter() - t
    out["audit_satisfied"] = bool(rep.satisfied)
    if "--dask" in sys.argv:
        from dask.distributed import Client, LocalCluster

        from graphanon import distributed

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            t = time.perf_counter()
            distributed.pair_supports(data.matrix, client=client)
            out["dask_pair_supports_s"] = time.perf_counter() - t
            t = time.perf_counter()
            viol, _ = distributed.minimal_infrequent_itemsets(data.matrix, 5, 2, client=client)
            out["dask_k5_m2_search_s"] = time.perf_counter() - t
            out["dask_violations"] = int(sum(len(v) for v in viol))
    out["cpu_s_total"] = time.process_time()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}))


if __name__ == "__main__":
    main()
