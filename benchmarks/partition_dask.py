"""Partition (k=5) and the transactional k-anonymity audit of its release, one process and Dask.

Quest data (``quest(n, rng=0)``, ``quest_taxonomy(fanout=5, rng=0)``); Dask is a
``LocalCluster`` of 2 single-threaded worker processes. Prints one JSON line per
(step, path): wall seconds, the client's CPU seconds, the workers' CPU seconds
(``client.run(time.process_time)`` before and after) and whether the Dask
result equals the one-process result; the numba kernel is compiled (and the
workers warmed) outside the timings.

Usage::

    python benchmarks/partition_dask.py 100000
    python benchmarks/partition_dask.py 1000000
"""

import json
import os
import resource
import sys
import time

import numpy as np
from dask.distributed import Client, LocalCluster

from graphanon.algorithms import anonymize_partition
from graphanon.datasets.synthetic import quest, quest_taxonomy
from graphanon.privacy import TransactionalKAnonymity


def timed(fn):
    """``(fn(), wall seconds, CPU seconds of this process)``."""
    t, c = time.perf_counter(), time.process_time()
    r = fn()
    return r, round(time.perf_counter() - t, 2), round(time.process_time() - c, 2)


def warm(k: int = 5) -> None:
    """Compile the Partition kernel (numba) on a small run."""
    small = quest(2000, rng=0)
    anonymize_partition(small, taxonomy=quest_taxonomy(small, fanout=5, rng=0), k=k)


def main(n: int) -> None:
    data = quest(n, rng=0)
    tax = quest_taxonomy(data, fanout=5, rng=0)
    warm()
    ref, t1, c1 = timed(lambda: anonymize_partition(data, taxonomy=tax, k=5, unsafe_secret_seed=0))
    emit(n, "partition", "single", t1, c1)
    rep, t2, c2 = timed(lambda: TransactionalKAnonymity(5).audit(data, ref))
    emit(n, "transactional", "single", t2, c2, violations=rep.violations)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(warm)
        w0 = sum(client.run(time.process_time).values())
        got, t3, c3 = timed(lambda: anonymize_partition(data, taxonomy=tax, k=5, unsafe_secret_seed=0, client=client))
        w1 = sum(client.run(time.process_time).values())
        same = ((got.records != ref.records).nnz == 0 and got.params == ref.params
                and np.array_equal(got.trace.ggd_per_group, ref.trace.ggd_per_group))
        emit(n, "partition", "dask", t3, c3, workers_cpu=round(w1 - w0, 2), equal=bool(same))
        rep2, t4, c4 = timed(lambda: TransactionalKAnonymity(5).audit(data, ref, client=client))
        w2 = sum(client.run(time.process_time).values())
        emit(n, "transactional", "dask", t4, c4, workers_cpu=round(w2 - w1, 2), equal=rep2.to_dict() == rep.to_dict())
    print(json.dumps({"n": n, "client_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))


def emit(n: int, step: str, path: str, seconds: float, cpu: float, **facts) -> None:
    print(json.dumps({"records": n, "step": step, "path": path, "seconds": seconds, "cpu_s": cpu,
                      "load_avg_1min": round(os.getloadavg()[0], 2), **facts}), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]))
