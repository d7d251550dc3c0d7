"""Where the Dask client's memory goes in ``anonymize_aa(..., client=)``: resident set per stage.

One fresh process (the client) loads Quest data cached by ``benchmarks/scale.py``'s
``generate`` step (``quest.npz``, ``items.json`` in WORK) or generates it,
starts a ``LocalCluster`` of 2 single-threaded worker processes, and runs AA
(k=5, m=2, ``quest_taxonomy(fanout=5, rng=0)``, ``unsafe_secret_seed=0``)
with its stages wrapped: the hierarchy index, the blocks on the workers, the
passes (counts), the recoding of all rows by the cut, NCP, the secret shuffle
(``publish``: permutation, fingerprint, digest) and, optionally, writing the
JSON. A thread samples this process's resident set (``/proc/self/statm``)
every 2 ms (short spikes between samples can be missed; ``client_maxrss_mb`` is exact); each stage reports the RSS after it and the peak during it (the
workers' memory is not counted: they are other processes).

Usage::

    python benchmarks/aa_dask_client_memory.py 1000000 --work /tmp/q6 --save /tmp/aa.json \
        --out benchmarks/results/aa_dask_client_memory.json --label before
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGE = os.sysconf("SC_PAGE_SIZE")


class Sampler:
    """Peak and current RSS of this process between marks."""

    def __init__(self) -> None:
        self.peak = self.rss()
        self.stages: list[dict] = []
        self._lock = threading.Lock()
        self._stop = False
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * PAGE

    def _run(self) -> None:
        while not self._stop:
            with self._lock:
                self.peak = max(self.peak, self.rss())
            time.sleep(0.002)

    def mark(self, name: str, t0: float) -> None:
        with self._lock:
            now = self.rss()
            self.stages.append({"stage": name, "rss_mb": round(now / 2**20), "peak_mb": round(max(self.peak, now) / 2**20),
                                "seconds": round(time.perf_counter() - t0, 2)})
            self.peak = now

    def wrap(self, module, attr: str, name: str) -> None:
        fn = getattr(module, attr)

        @functools.wraps(fn)
        def inner(*a, **kw):
            self.mark(f"(before {name})", time.perf_counter())
            t0 = time.perf_counter()
            out = fn(*a, **kw)
            self.mark(name, t0)
            return out

        setattr(module, attr, inner)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", type=int)
    ap.add_argument("--work", required=True, help="folder with quest.npz/items.json (made when missing)")
    ap.add_argument("--save", help="also write the release JSON here")
    ap.add_argument("--out", help="append the result to this JSON file")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    sampler = Sampler()
    work = Path(args.work)
    t0 = time.perf_counter()
    import numpy as np
    import scipy.sparse as sp

    from graphanon.data import TransactionData
    from graphanon.datasets.synthetic import quest, quest_taxonomy

    if not (work / "quest.npz").exists():
        work.mkdir(parents=True, exist_ok=True)
        d = quest(args.records, rng=0)
        sp.save_npz(work / "quest.npz", sp.csr_matrix(d.matrix), compressed=False)
        (work / "items.json").write_text(json.dumps(list(d.items)))
        del d
    sampler.mark("imports", t0)
    t0 = time.perf_counter()
    X = sp.load_npz(work / "quest.npz")
    data = TransactionData(sp.csr_array(X).astype(bool), json.loads((work / "items.json").read_text()),
                           record_ids=np.arange(X.shape[0]).astype(str))
    del X
    assert data.n_records == args.records
    sampler.mark("load data (as benchmarks/scale.py)", t0)
    t0 = time.perf_counter()
    tax = quest_taxonomy(data, fanout=5, rng=0)
    sampler.mark("taxonomy", t0)
    t0 = time.perf_counter()
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    sampler.mark("LocalCluster + Client", t0)

    import graphanon.algorithms.hierarchy.aa as aa
    import graphanon.release.publish  # noqa: F401  (the name is shadowed by the function in graphanon.release)

    pub = sys.modules["graphanon.release.publish"]

    for module, attr, name in [
        (aa, "HierarchyIndex", "hierarchy index"),
        (aa, "BlockCounts", "blocks on the workers (scatter, extended blocks, bitmaps)"),
        (aa, "_sweep", "a sweep"),
        (aa, "cut_recoding", "recode all rows by the cut (cut_recoding)"),
        (aa, "ncp", "ncp(data, release)"),
        (aa, "publish", "publish (shuffle, fingerprint, link)"),
        (pub, "data_fingerprint", "  publish: data fingerprint"),
        (pub, "ordered_digest", "  publish: ordered digest"),
    ]:
        if hasattr(module, attr):
            sampler.wrap(module, attr, name)
    t0 = time.perf_counter()
    cpu = time.process_time()
    rel = aa.anonymize_aa(data, taxonomy=tax, k=5, m=2, unsafe_secret_seed=0, client=client)
    total = {"seconds": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - cpu, 2)}
    sampler.mark("anonymize_aa returned", t0)
    if args.save:
        t0 = time.perf_counter()
        rel.save(args.save)
        sampler.mark("save JSON", t0)
    client.close()
    cluster.close()
    result = {
        "label": args.label, "records": args.records, "occurrences": int(data.matrix.nnz),
        "published_items": rel.n_published_items, "cost": rel.params["cost"],
        "client_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "load_avg_1min": round(os.getloadavg()[0], 2), "aa": total, "stages": sampler.stages,
    }
    print(json.dumps(result, indent=1))
    if args.out:
        append_run(Path(args.out), result)


def append_run(path: Path, result: dict) -> None:
    """Add ``result`` to the ``runs`` of the JSON file ``path`` (made when missing)."""
    doc = json.loads(path.read_text()) if path.exists() else {"runs": []}
    doc["runs"].append(result)
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
