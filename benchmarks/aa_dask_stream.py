"""The client's memory when AA on Dask writes its release from the workers (``write_aa_release``).

A Quest file (``quest(N, rng=0)``, long-form Parquet, written once by a child
process into WORK when missing, with ``items.json`` in the generator's item
order) is anonymized by :func:`graphanon.algorithms.hierarchy.aa_dask.write_aa_release`
(k=5, m=2, ``quest_taxonomy(fanout=5, rng=0)`` over those items, as
``benchmarks/scale.py``'s AA row; ``unsafe_secret_seed=0``) on a
``LocalCluster`` of single-threaded worker processes (2 unless ``--workers``), writing the release
(and with ``--link`` the private link) into WORK. This process is the client:
its peak is its exact ``ru_maxrss``; a thread samples its resident set every
2 ms per stage (stages follow the progress messages) and, every 50 ms, the
resident set of the worker processes (the cluster's descendants of this
process). ``--check`` then runs ``anonymize_aa`` on ``read_parquet`` of the
same file in a child process with the same seed and compares the SHA-256 of
both release files (and links).

``--workers N`` sets the cluster's worker processes (default 2). The client's
round trips to the workers are counted by kind
(:func:`graphanon.distributed.count_round_trips`), for the whole run and for
AA's passes alone (``aa_cut``, whose wall time and client CPU are reported
too). ``--code DIR`` runs another checkout of ``graphanon`` (a folder holding
the package, e.g. an older commit's ``git archive``) in the client and the
workers, to measure before and after a change on the same data.

Usage::

    python benchmarks/aa_dask_stream.py 1000000 --work /work/tmp/q6 --link --check \
        --out benchmarks/results/aa_dask_stream.json
    python benchmarks/aa_dask_stream.py 1000000 --work /work/tmp/q6 --workers 4 --label after
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from aa_dask_client_memory import Sampler, append_run  # noqa: E402

_GENERATE = """
import json, sys
from pathlib import Path
from graphanon.datasets.synthetic import quest
from graphanon.readwrite.parquet import write_parquet
n, work = int(sys.argv[1]), Path(sys.argv[2])
d = quest(n, rng=0)
(work / "items.json").write_text(json.dumps([str(x) for x in d.items]))
write_parquet(d, work / "quest.parquet")
"""

_IN_MEMORY = """
import json, resource, sys, time, types
from pathlib import Path
from graphanon.algorithms.hierarchy.aa import anonymize_aa
from graphanon.datasets.synthetic import quest_taxonomy
from graphanon.readwrite.parquet import read_parquet
work = Path(sys.argv[1])
t0 = time.perf_counter()
data = read_parquet(work / "quest.parquet")
tax = quest_taxonomy(types.SimpleNamespace(items=json.loads((work / "items.json").read_text())), fanout=5, rng=0)
rel = anonymize_aa(data, taxonomy=tax, k=5, m=2, unsafe_secret_seed=0)
rel.save(work / "in_memory.json")
rel.link.save(work / "in_memory_link.json")
print(json.dumps({"seconds": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time(), 1),
                  "maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


class Workers:
    """Peak summed resident set of this process's descendants (the cluster's nanny and workers), every 50 ms."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peak = 0
        self._stop = False
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def rss(self) -> int:
        total = 0
        for p in self.me.children(recursive=True):
            try:
                total += p.memory_info().rss
            except Exception:  # a process that just ended
                pass
        return total

    def cpu(self) -> float:
        total = 0.0
        for p in self.me.children(recursive=True):
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except Exception:
                pass
        return total

    def _run(self) -> None:
        while not self._stop:
            self.peak = max(self.peak, self.rss())
            time.sleep(0.05)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", type=int)
    ap.add_argument("--work", required=True, help="folder for quest.parquet, items.json and the outputs")
    ap.add_argument("--link", action="store_true", help="also write the private link")
    ap.add_argument("--check", action="store_true", help="compare with anonymize_aa(...).save() in a child process")
    ap.add_argument("--out", help="append the result to this JSON file")
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    ap.add_argument("--code", help="a folder holding another graphanon package to run (client and workers)")
    ap.add_argument("--label", help="a name for the run in the results (e.g. before, after)")
    args = ap.parse_args()
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
        os.environ["PYTHONPATH"] = str(Path(args.code).resolve())  # the spawned workers import it too
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    generated = None
    if not (work / "quest.parquet").exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", _GENERATE, str(args.records), str(work)], check=True, env=env)
        generated = round(time.perf_counter() - t0, 1)
    load_start = os.getloadavg()[0]
    sampler = Sampler()
    t0 = time.perf_counter()
    from dask.distributed import Client, LocalCluster

    import graphanon.algorithms.hierarchy.aa_dask as aa_dask
    from graphanon.algorithms.hierarchy.aa_dask import write_aa_release
    from graphanon.datasets.synthetic import quest_taxonomy
    from graphanon.distributed import count_round_trips

    passes = {}
    aa_cut = aa_dask.aa_cut

    def timed_aa_cut(*a, **kw):
        with count_round_trips() as trips:
            t, c = time.perf_counter(), time.process_time()
            out = aa_cut(*a, **kw)
            passes.update(seconds=round(time.perf_counter() - t, 1), client_cpu_s=round(time.process_time() - c, 1),
                          round_trips=dict(trips), round_trips_total=sum(trips.values()))
        return out

    aa_dask.aa_cut = timed_aa_cut

    tax = quest_taxonomy(types.SimpleNamespace(items=json.loads((work / "items.json").read_text())), fanout=5, rng=0)
    sampler.mark("imports, taxonomy", t0)
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    workers = Workers()
    sampler.mark("LocalCluster + Client", t0)
    stage = {"name": None, "t0": time.perf_counter()}

    def coarse(message: str) -> str:
        if message.startswith(("level", "AA pass", "counting")):
            return "AA passes (counting on the workers)"
        return message

    def progress(done, total, message) -> None:
        name = coarse(message)
        if name != stage["name"]:
            if stage["name"] is not None:
                sampler.mark(stage["name"], stage["t0"])
            stage.update(name=name, t0=time.perf_counter())

    out = work / "streamed.json"
    link = work / "streamed_link.json" if args.link else None
    w_cpu0 = workers.cpu()
    start, cpu = time.perf_counter(), time.process_time()
    with count_round_trips() as trips:
        info = write_aa_release(work / "quest.parquet", out, taxonomy=tax, k=5, m=2, client=client, link_out=link,
                                unsafe_secret_seed=0, progress=progress)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    sampler.mark(stage["name"] or "write_aa_release", stage["t0"])
    w_cpu = workers.cpu() - w_cpu0
    workers._stop = True
    client.close()
    cluster.close()
    result = {
        "label": args.label, "workers": args.workers, "code": args.code,
        "round_trips": dict(trips), "round_trips_total": sum(trips.values()), "aa_passes": passes,
        "records": args.records, "k": 5, "m": 2, "taxonomy": "quest_taxonomy(fanout=5, rng=0)",
        "published_items": info["published_items"], "cost": info["params"]["cost"],
        "steps_per_pass": info["params"]["steps_per_pass"],
        "client_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "seconds": round(wall, 1), "client_cpu_s": round(cpu, 1), "workers_cpu_s": round(w_cpu, 1),
        "workers_peak_rss_mb": round(workers.peak / 2**20),
        "load_avg_1min_start": round(load_start, 2), "load_avg_1min_end": round(os.getloadavg()[0], 2),
        "release_mb": round(out.stat().st_size / 2**20, 1), "release_sha256": _sha(out),
        "link_sha256": None if link is None else _sha(link),
        "generated_parquet_s": generated, "stages": sampler.stages,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }
    print(json.dumps(result), flush=True)  # the streamed run alone, before the (long) check
    if args.check:
        proc = subprocess.run([sys.executable, "-c", _IN_MEMORY, str(work)], check=True, env=env,
                              capture_output=True, text=True)
        mem = json.loads(proc.stdout.strip().splitlines()[-1])
        result["in_memory"] = {**mem, "release_sha256": _sha(work / "in_memory.json"),
                               "link_sha256": _sha(work / "in_memory_link.json")}
        result["byte_identical"] = (result["release_sha256"] == result["in_memory"]["release_sha256"]
                                    and (link is None or result["link_sha256"] == result["in_memory"]["link_sha256"]))
    print(json.dumps(result, indent=1))
    if args.out:
        append_run(Path(args.out), result)


if __name__ == "__main__":
    main()
