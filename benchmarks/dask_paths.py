"""Partition's and the audits' ``client=`` paths: round trips, client CPU and wall time, before and after batching.

One process per (code, workers): ``quest(N, rng=0)``, ``quest_taxonomy(fanout=5, rng=0)``, a
``LocalCluster`` of ``W`` single-threaded worker processes (the numba kernels compiled on the workers
outside the timings), then, each timed on its own:

* ``partition``: ``anonymize_partition(k=5, client=, unsafe_secret_seed=0)`` (default ``n_partitions``),
  its release saved as JSON and hashed (SHA-256);
* ``transactional``: ``TransactionalKAnonymity(5).audit(data, that release, client=)``;
* ``km``: ``KmAnonymity(5, 2).audit(data, raw, client=)`` with the raw records published as
  themselves (a global recoding; its report's violations are the data's k^2 violations).

Round trips are counted two ways. ``blocking`` counts every call of ``Client.sync`` (each
synchronous wait of the client for the scheduler or the workers: a gather, a scatter, a
``Future.result``, a ``scheduler_info``), which measures old and new code alike; ``counted`` is the
package's own ``graphanon.distributed.count_round_trips`` by kind (old code counts only some kinds).
Client CPU is this process's CPU time over the step (the ``LocalCluster`` scheduler runs in it);
workers' CPU is ``client.run(time.process_time)`` summed, before and after.

``--single`` runs the in-memory path instead (no cluster): the release's SHA-256 and the reports'
hashes that the Dask runs must equal.

The code measured is whatever ``graphanon`` the interpreter imports, so "before" is a checkout of
the earlier commit on ``PYTHONPATH`` (the workers inherit it)::

    git archive cf1f3d9 | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before python benchmarks/dask_paths.py 200000 --workers 1 --label before --out R.json
    PYTHONPATH=$PWD python benchmarks/dask_paths.py 200000 --workers 1 --label after --out R.json
    PYTHONPATH=$PWD python benchmarks/dask_paths.py 200000 --single --out R.json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path


def timed(fn):
    """``(fn(), wall seconds, CPU seconds of this process)``."""
    t, c = time.perf_counter(), time.process_time()
    r = fn()
    return r, time.perf_counter() - t, time.process_time() - c


def report_hash(report) -> str:
    return hashlib.sha256(json.dumps(report.to_dict(), sort_keys=True, default=str).encode()).hexdigest()


def release_hash(release) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        release.save(path)
        return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def blocking_calls():
    """Count ``Client.sync`` calls (every wait of a synchronous client) by the coroutine's name."""
    from distributed import Client

    seen: Counter = Counter()
    original = Client.sync

    def sync(self, func, *args, **kwargs):
        seen[getattr(func, "__name__", str(func))] += 1
        return original(self, func, *args, **kwargs)

    Client.sync = sync
    try:
        yield seen
    finally:
        Client.sync = original


def warm(client) -> None:
    """Compile the Partition kernels (numba, or read their cache) on the client and the workers: a small run."""
    from graphanon.algorithms import anonymize_partition
    from graphanon.datasets.synthetic import quest, quest_taxonomy

    small = quest(2000, rng=0)
    anonymize_partition(small, taxonomy=quest_taxonomy(small, fanout=5, rng=0), k=5, client=client,
                        n_partitions=None if client is None else 4 * len(client.scheduler_info()["workers"]))


def steps(data, tax, n_partitions=None):
    """(name, run(client), facts(result)) of the measured steps; only ``run`` is timed."""
    from graphanon.algorithms import anonymize_partition
    from graphanon.privacy import KmAnonymity, TransactionalKAnonymity
    from graphanon.release import GlobalRecoding

    raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    kept = {}

    def partition(client):
        kept["release"] = anonymize_partition(data, taxonomy=tax, k=5, unsafe_secret_seed=0, client=client,
                                               **({"n_partitions": n_partitions} if client is not None else {}))
        return kept["release"]

    def audited(rep):
        return {"report_sha256": report_hash(rep), "violations": rep.violations}

    return [
        ("partition", partition, lambda rel: {"release_sha256": release_hash(rel)}),
        ("transactional", lambda c: TransactionalKAnonymity(5).audit(data, kept["release"], client=c), audited),
        ("km", lambda c: KmAnonymity(5, 2).audit(data, raw, client=c), audited),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=int)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--single", action="store_true", help="the in-memory path (no cluster)")
    parser.add_argument("--n-partitions", type=int, help="Partition's n_partitions (default: twice the workers)")
    parser.add_argument("--label", default="after", help="the code's name in the results (before / after)")
    parser.add_argument("--out", type=Path, help="append the rows to this JSON file ({'runs': [...]})")
    args = parser.parse_args()

    from graphanon.datasets.synthetic import quest, quest_taxonomy

    data = quest(args.records, rng=0)
    tax = quest_taxonomy(data, fanout=5, rng=0)
    rows = []
    common = {"records": args.records, "code": args.label,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    if args.single:
        warm(None)
        for name, fn, facts_of in steps(data, tax):
            load0 = os.getloadavg()[0]
            result, wall, cpu = timed(lambda fn=fn: fn(None))
            facts = facts_of(result)
            rows.append({**common, "path": "single", "step": name, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                         "load_avg": [round(load0, 2), round(os.getloadavg()[0], 2)], **facts})
            print(json.dumps(rows[-1]), flush=True)
    else:
        from dask.distributed import Client, LocalCluster

        import graphanon.distributed as gd

        counted = getattr(gd, "count_round_trips", None)
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            warm(client)
            for name, fn, facts_of in steps(data, tax, args.n_partitions):
                load0 = os.getloadavg()[0]
                w0 = sum(client.run(time.process_time).values())
                with blocking_calls() as waits, (counted() if counted else contextlib.nullcontext(Counter())) as own:
                    result, wall, cpu = timed(lambda fn=fn: fn(client))
                w1 = sum(client.run(time.process_time).values())
                facts = facts_of(result)
                rows.append({**common, "path": "dask", "workers": args.workers, "n_partitions": args.n_partitions, "step": name,
                             "wall_s": round(wall, 2), "client_cpu_s": round(cpu, 2),
                             "workers_cpu_s": round(w1 - w0, 2), "blocking": sum(waits.values()),
                             "blocking_by_call": dict(waits), "counted": dict(own),
                             "load_avg": [round(load0, 2), round(os.getloadavg()[0], 2)], **facts})
                print(json.dumps(rows[-1]), flush=True)
    if args.out:
        old = json.loads(args.out.read_text()) if args.out.is_file() else {"runs": []}
        old["runs"].extend(rows)
        args.out.write_text(json.dumps(old, indent=1) + "\n")


if __name__ == "__main__":
    main()
