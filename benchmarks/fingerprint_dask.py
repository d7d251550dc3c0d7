"""The data fingerprint on Dask workers: the client's work before and after the keyed multiset hash.

``quest(N, rng=0)`` is cut into one block per worker and scattered
(:func:`graphanon.distributed.scatter_blocks`) on a ``LocalCluster`` of
single-threaded worker processes; then the fingerprint stage of
:func:`graphanon.algorithms.hierarchy.aa_dask.write_aa_release` runs both ways:

* **before** (scheme ``hmac-sha256``, the stage as of commit 2ccb436): the
  workers send each row's hash and length, the client sorts them into the
  canonical order and feeds HMAC-SHA256 the canonical records fetched in
  runs of 2^17 rows in that order (``take_rows``);
* **after** (scheme ``mset-blake2b``): each worker sums its block's keyed
  record hashes; the client adds one number per block and finishes the digest.

For each: wall time and this process's CPU time (the client; a
``LocalCluster``'s scheduler runs in this process too, so its CPU is
included), the workers' CPU, and the payload bytes the client receives
(``pickle`` size of what is gathered; for row runs, the arrays' bytes). Both
digests are checked against ``data_fingerprint`` in memory, whose time is
reported too (one process, no cluster).

Usage::

    python benchmarks/fingerprint_dask.py 1000000 --workers 1 2 --out benchmarks/results/fingerprint_dask.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphanon.counting.rows import row_hashes  # noqa: E402
from graphanon.datasets.synthetic import quest  # noqa: E402
from graphanon.release.fingerprint import (  # noqa: E402
    HMAC_SCHEME,
    canonical_rows,
    canonical_vocabulary,
    data_fingerprint,
    fingerprint_from_parts,
    fingerprint_from_sums,
)
from graphanon.release.multiset_hash import multiset_sum, record_key  # noqa: E402

RUN_ROWS = 1 << 17
KEY = "5a" * 32


def _hashes(X, rank):
    return row_hashes(X, relabel=rank), np.diff(X.indptr).astype(np.int32)


def _workers_cpu(client) -> float:
    def cpu():
        t = os.times()
        return t.user + t.system

    return sum(client.run(cpu).values())


def before(client, futures, n: int, d: int, nnz: int, items) -> tuple[str, int]:
    """The stage of commit 2ccb436: hashes gathered and sorted, canonical records streamed to HMAC-SHA256."""
    import graphanon.distributed as distributed

    rank, vocabulary = canonical_vocabulary(items)
    received = 0
    parts = client.gather([client.submit(_hashes, f, rank, pure=False) for f in futures.futures])
    received += sum(len(pickle.dumps(p)) for p in parts)
    hashes = np.concatenate([h for h, _ in parts])
    lengths = np.concatenate([ln for _, ln in parts])
    del parts
    canonical = np.lexsort((lengths, hashes[:, 1], hashes[:, 0]))
    del hashes

    def rows():
        nonlocal received
        for ln, ind in distributed.take_rows(futures, client, canonical, canonical_rows, rank, chunk=RUN_ROWS):
            received += ln.nbytes + ind.nbytes
            yield ind

    fp, _ = fingerprint_from_parts(key=KEY, shape=(n, d), vocabulary=vocabulary,
                                   lengths=(lengths[canonical[a : a + RUN_ROWS]] for a in range(0, n, RUN_ROWS)),
                                   rows=rows())
    return fp["digest"], received


def after(client, futures, n: int, d: int, nnz: int, items) -> tuple[str, int]:
    """The stage now: one keyed multiset sum per block, added on the client."""
    rank, vocabulary = canonical_vocabulary(items)
    rkey = record_key(KEY)
    sums = client.gather([client.submit(multiset_sum, f, rank, rkey, pure=False) for f in futures.futures])
    received = sum(len(pickle.dumps(s)) for s in sums)
    fp, _ = fingerprint_from_sums(key=KEY, shape=(n, d), vocabulary=vocabulary, nnz=nnz, sums=sums)
    return fp["digest"], received


def _timed(fn, *args):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    from graphanon.distributed import scatter_blocks

    load_start = os.getloadavg()[0]
    data = quest(args.n, rng=0)
    X = data.matrix
    n, d, nnz = X.shape[0], X.shape[1], int(X.nnz)
    (want_old, t_old, c_old) = _timed(lambda: data_fingerprint(data, key=KEY, scheme=HMAC_SCHEME)["digest"])
    (want_new, t_new, c_new) = _timed(lambda: data_fingerprint(data, key=KEY)["digest"])
    rows = [{"stage": "in memory (no cluster)", "workers": 0, "n": n, "occurrences": nnz,
             "before_wall_s": round(t_old, 2), "before_cpu_s": round(c_old, 2),
             "after_wall_s": round(t_new, 2), "after_cpu_s": round(c_new, 2)}]
    print(rows[-1], flush=True)
    for w in args.workers:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            blocks = scatter_blocks(X, client, n_partitions=w)
            row = {"stage": "fingerprint on Dask", "workers": w, "n": n, "occurrences": nnz}
            for label, fn, want in (("before", before, want_old), ("after", after, want_new)):
                cpu0 = _workers_cpu(client)
                (digest, received), wall, cpu = _timed(fn, client, blocks, n, d, nnz, data.items)
                assert digest == want, (label, w)
                row.update({f"{label}_wall_s": round(wall, 2), f"{label}_cpu_s": round(cpu, 2),
                            f"{label}_workers_cpu_s": round(_workers_cpu(client) - cpu0, 2),
                            f"{label}_received_bytes": int(received)})
            rows.append(row)
            print(row, flush=True)
    result = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "load_avg_start_end": [round(load_start, 1), round(os.getloadavg()[0], 1)],
              "cores": os.cpu_count(), "digests_equal_in_memory": True, "rows": rows}
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
