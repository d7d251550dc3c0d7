"""Scaling table on synthetic Quest data (T10I4, 1,000 items): 10^5, 10^6, 10^7 records.

Steps, each in its own child process so that its peak memory is its own:

* ``generate`` - :func:`graphanon.datasets.synthetic.quest` (``rng=0``);
* ``write`` - :func:`graphanon.readwrite.parquet.write_parquet`, long form
  (``tid, item`` rows, dictionary-encoded text);
* ``load`` - :func:`graphanon.readwrite.parquet.read_parquet` of that file (the
  load step of the table);
* ``pairs`` - all pair supports (:func:`graphanon.counting.support.pair_supports`;
  Dask: :func:`graphanon.distributed.pair_supports`);
* ``k2_audit`` - the k^2 check, k=5 (single process: the full
  ``KmAnonymity(5, 2).audit`` of the raw data published as itself, i.e. the
  recoding consistency check plus the level-wise search; Dask: the search
  :func:`graphanon.distributed.minimal_infrequent_itemsets` ``(X, 5, 2)``,
  whose violations are the audit's verdict);
* ``aa`` - ``anonymize_aa(k=5, m=2)`` over ``quest_taxonomy(fanout=5)``
  (Dask: with ``client=``: the recounts, re-counts and candidate fixes
  counted over 4 record blocks on the workers).

Time is wall clock inside the child around the step only (not the imports or
reading the cached input); ``cpu_s`` is the child's CPU time over the same
span (for Dask the client process only), which a loaded machine inflates
far less than the wall clock; ``workers_cpu_s`` (Dask) is the CPU time the
worker processes spent over the step (``client.run(time.process_time)``
before and after). Peak memory is the largest resident set of the
whole process tree (the child plus, for Dask, the ``LocalCluster`` worker
processes and their nanny), sampled every 50 ms with psutil, and the child's
own ``ru_maxrss`` (exact, the child process alone).

Usage::

    python benchmarks/scale.py 100000 1000000            # single process and Dask, print JSON lines
    python benchmarks/scale.py 10000000 --paths dask --steps generate,write,load,pairs,k2_audit
    python benchmarks/scale.py 100000 --out benchmarks/results/scale.json   # merge into the results file
    python benchmarks/scale.py 1000000 --steps aa --paths single,dask      # one row of the table
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = ("generate", "write", "load", "pairs", "k2_audit", "aa")


# ----------------------------------------------------------------------------- child side

def _load_cached(work: Path):
    import numpy as np
    import scipy.sparse as sp

    from graphanon.data import TransactionData

    X = sp.load_npz(work / "quest.npz")
    items = json.loads((work / "items.json").read_text())
    return TransactionData(sp.csr_array(X).astype(bool), items, record_ids=np.arange(X.shape[0]).astype(str))


def _client(n_workers: int):
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
    return cluster, Client(cluster)


def child(step: str, n: int, work: Path, dask_path: bool) -> dict:
    """Run one step; return its time and facts (printed as JSON by ``--child``)."""
    out: dict = {}
    if step == "generate":
        import scipy.sparse as sp

        from graphanon.datasets.synthetic import quest

        quest(1000, rng=0)  # compile the record-filling kernel outside the timing
        t, cpu = time.perf_counter(), time.process_time()
        data = quest(n, rng=0)
        out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
        out["items"], out["occurrences"] = data.n_items, int(data.matrix.nnz)
        sp.save_npz(work / "quest.npz", sp.csr_matrix(data.matrix), compressed=False)
        (work / "items.json").write_text(json.dumps(list(data.items)))
        return out
    if step == "load":
        from graphanon.readwrite.parquet import read_parquet

        t, cpu = time.perf_counter(), time.process_time()
        data = read_parquet(work / "quest.parquet")
        out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
        out["occurrences"] = int(data.matrix.nnz)
        return out
    data = _load_cached(work)
    if step == "write":
        from graphanon.readwrite.parquet import write_parquet

        t, cpu = time.perf_counter(), time.process_time()
        write_parquet(data, work / "quest.parquet")
        out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
        out["parquet_mb"] = round((work / "quest.parquet").stat().st_size / 2**20, 1)
        return out
    cluster = client = None
    if dask_path:
        cluster, client = _client(2)
        workers_cpu = sum(client.run(time.process_time).values())
    try:
        if step == "pairs":
            t, cpu = time.perf_counter(), time.process_time()
            if client is None:
                from graphanon.counting.support import pair_supports

                S = pair_supports(data.matrix)
                out["pairs_nonzero"] = int((S != 0).sum())
            else:
                from graphanon import distributed

                S = distributed.pair_supports(data.matrix, client=client)
                out["pairs_nonzero"] = int(S.nnz)
            out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
        elif step == "k2_audit":
            if client is None:
                from graphanon.privacy import KmAnonymity
                from graphanon.release import GlobalRecoding, publish

                identity = GlobalRecoding.from_mapping(
                    data, {x: x for x in data.items}, universe=data.n_items, algorithm="identity", params={}
                )
                rel = publish(data, identity, unsafe_secret_seed=0)
                t, cpu = time.perf_counter(), time.process_time()
                rep = KmAnonymity(5, 2).audit(data, rel)
                out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
                out["violations"], out["satisfied"] = int(rep.violations), bool(rep.satisfied)
            else:
                from graphanon import distributed

                t, cpu = time.perf_counter(), time.process_time()
                viol, _ = distributed.minimal_infrequent_itemsets(data.matrix, 5, 2, client=client)
                out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
                out["violations"] = int(sum(len(v) for v in viol))
                out["satisfied"] = out["violations"] == 0
        elif step == "aa":
            from graphanon.algorithms.hierarchy.aa import anonymize_aa
            from graphanon.datasets.synthetic import quest_taxonomy

            tax = quest_taxonomy(data, fanout=5, rng=0)
            kwargs = {}
            if client is not None:
                kwargs["client"] = client
            t, cpu = time.perf_counter(), time.process_time()
            rel = anonymize_aa(data, taxonomy=tax, k=5, m=2, unsafe_secret_seed=0, **kwargs)
            out["seconds"], out["cpu_s"] = time.perf_counter() - t, round(time.process_time() - cpu, 2)
            out["distributed"] = bool(kwargs)
            out["published_items"] = rel.n_published_items
            out["cut_cost"] = rel.params["cost"]  # equal on both paths (the same cut)
        else:
            raise SystemExit(f"unknown step {step!r}")
        if client is not None:  # the workers' CPU time over the step (they idle outside it)
            out["workers_cpu_s"] = round(sum(client.run(time.process_time).values()) - workers_cpu, 2)
    finally:
        if client is not None:
            client.close()
            cluster.close()
    return out


# ----------------------------------------------------------------------------- parent side

def run_step(step: str, n: int, work: Path, dask_path: bool, timeout: float) -> dict:
    """Run ``step`` in a child process; sample the RSS of its process tree."""
    import psutil

    cmd = [sys.executable, __file__, "--child", step, str(n), str(work)] + (["--dask"] if dask_path else [])
    load_before = os.getloadavg()[0]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(proc.pid)
    peak, start = 0, time.monotonic()
    while proc.poll() is None:
        try:
            procs = [root] + root.children(recursive=True)
            rss = 0
            for p in procs:
                try:
                    rss += p.memory_info().rss
                except psutil.Error:
                    pass
            peak = max(peak, rss)
        except psutil.Error:
            pass
        if time.monotonic() - start > timeout:
            for p in root.children(recursive=True) + [root]:
                try:
                    p.kill()
                except psutil.Error:
                    pass
            proc.wait()
            return {"step": step, "records": n, "path": "dask" if dask_path else "single", "error": f"over {timeout} s"}
        time.sleep(0.05)
    stdout, stderr = proc.communicate()
    row = {"step": step, "records": n, "path": "dask" if dask_path else "single", "load_avg_1min": round(load_before, 2)}
    if proc.returncode != 0:
        row["error"] = (stderr.strip().splitlines() or ["?"])[-1][:300]
        return row
    result = json.loads(stdout.strip().splitlines()[-1])
    row.update(result)
    row["seconds"] = round(row["seconds"], 2)
    row["peak_tree_mb"] = round(peak / 2**20)
    row["wall_s_with_startup"] = round(time.monotonic() - start, 1)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="*", type=int)
    ap.add_argument("--child", nargs=3, metavar=("STEP", "N", "WORK"))
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--paths", default="single,dask", help="single, dask or both (comma-separated)")
    ap.add_argument("--steps", default=",".join(STEPS))
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per step")
    ap.add_argument("--out", help="merge the rows into this JSON file (same records/path/step replaced)")
    ap.add_argument("--markdown", metavar="JSON", help="print the table of a results file as Markdown and exit")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())["rows"]))
        return
    if args.child:
        step, n, work = args.child
        res = child(step, int(n), Path(work), args.dask)
        res["child_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        print(json.dumps(res))
        return
    steps = args.steps.split(",")
    paths = args.paths.split(",")
    rows = []
    for n in args.records:
        with tempfile.TemporaryDirectory(prefix="graphanon-scale-") as tmp:
            work = Path(tmp)
            if "generate" not in steps:  # the later steps need the data (not timed in the table)
                run_step("generate", n, work, False, args.timeout)
            if "load" in steps and "write" not in steps:  # load reads the file write makes
                run_step("write", n, work, False, args.timeout)
            for step in steps:
                for path in paths:
                    if path == "dask" and step in ("generate", "write", "load"):
                        continue  # single-process steps: the same code runs before either path
                    row = run_step(step, n, work, path == "dask", args.timeout)
                    print(json.dumps(row), flush=True)
                    rows.append(row)
                    if "error" in row and step in ("generate", "write"):
                        break
    if args.out:
        path = Path(args.out)
        doc = json.loads(path.read_text()) if path.exists() else {"rows": []}
        keys = {(r["records"], r["path"], r["step"]) for r in rows}
        doc["rows"] = [r for r in doc["rows"] if (r["records"], r["path"], r["step"]) not in keys] + rows
        doc["rows"].sort(key=lambda r: (r["records"], STEPS.index(r["step"]), r["path"] != "single"))
        doc["machine"] = {"cores": os.cpu_count(), "memory_gb": round(_total_memory() / 2**30, 1)}
        path.write_text(json.dumps(doc, indent=1) + "\n")


def markdown(rows: list[dict]) -> str:
    """The scaling table: one line per (records, path, step)."""
    names = {"generate": "generate (quest)", "write": "write Parquet (long)", "load": "load = read Parquet (long)",
             "pairs": "pair supports", "k2_audit": "k^2 audit, k=5", "aa": "AA k=5 m=2 (fan-out 5)"}
    out = ["| records | path | step | time (s) | CPU (s) | peak memory (MB) | load avg | result |",
           "|---:|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if "seconds" not in r:
            out.append(f"| {r['records']:,} | {r['path']} | {names[r['step']]} | - | - | - | - | "
                       f"{r.get('note') or r.get('error', '')} |")
            continue
        facts = []
        for key in ("occurrences", "parquet_mb", "pairs_nonzero", "violations", "published_items"):
            if key in r:
                facts.append(f"{key.replace('_', ' ')} {r[key]:,}")
        cpu = f"{r['cpu_s']:.1f}" if "cpu_s" in r else "-"
        if "workers_cpu_s" in r:
            cpu += f" + {r['workers_cpu_s']:.1f}"
        out.append(f"| {r['records']:,} | {r['path']} | {names[r['step']]} | {r['seconds']:.1f} | "
                   f"{cpu} | {r['peak_tree_mb']:,} | {r['load_avg_1min']:.1f} | "
                   f"{', '.join(facts)} |")
    return "\n".join(out)


def _total_memory() -> int:
    import psutil

    return psutil.virtual_memory().total


if __name__ == "__main__":
    main()
