"""One job's whole process against the floor (issue 24): every ``graphanon anonymize bms1 -a METHOD``.

The floor is what any Python job on bms1 pays: the interpreter
(``python -c pass``) and the cheapest load of the data (``python -c "import
numpy, scipy.sparse; <read the bundled bms1.dat.gz into a CSR matrix>"``,
no graphanon import). Each job is the CLI process (``python -m graphanon
anonymize bms1 -a METHOD ... -o release.json``, this checkout on
``PYTHONPATH``) with the README-style parameters of :data:`JOBS`. Its
algorithm's own cost is measured in a separate fresh process that loads bms1
and the taxonomy first and then times only the registered adapter's call
(``spec.run(data, options)``, what ``anonymize`` calls): wall time by
``time.perf_counter`` and memory as the growth of resident memory during the
call (the kernel's high-water mark ``VmHWM`` is reset through
``/proc/self/clear_refs`` just before the call, so the growth is the call's
own peak above the resident memory it started from).

A job is *within the floor bounds* when

* wall <= 1.5 x floor wall + algorithm wall, and
* peak <= 1.5 x floor peak + algorithm memory

(:func:`floor_bounds`); the same bound on user+system CPU time is reported
too (``cpu_ok``), since on a loaded machine wall time mostly measures the
other jobs. Every number is best of ``--runs`` fresh processes
after one warm-up run (page cache, numba's on-disk cache); the 1-minute load
average is recorded around each job.

Usage::

    python benchmarks/job_floor.py               # all jobs, best of 3
    python benchmarks/job_floor.py --quick       # best of 1
    python benchmarks/job_floor.py --markdown    # also print the table of docs/performance.md
    python benchmarks/job_floor.py --save-as job_floor_mine   # results/job_floor_mine.json

Results: ``benchmarks/results/job_floor.json`` (``--save-as NAME``: ``NAME.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._child import measure_child  # noqa: E402
from benchmarks._common import RESULTS, child_env, compile_package, print_and_save  # noqa: E402

#: (method, k, m, taxonomy fan-out or None, --param dict): the README/docs command lines on bms1.
#: ``cahd`` is absent: it needs sensitive labels, which bms1 does not have.
JOBS = [
    ("cut", None, None, 5, {"level": "2"}),
    ("aa", 5, 2, 5, {}),
    ("hghs", 5, 2, 5, {}),
    ("mhghs", 5, 2, 5, {}),
    ("mm", 5, 2, None, {}),
    ("coat", 5, None, None, {"privacy": "km:2", "utility": "all"}),
    ("nr", 10, None, None, {}),
    ("clump", 10, None, 5, {}),
    ("partition", 10, None, 5, {}),
    ("partswap", None, None, None, {"categories": "random:50"}),
    ("fullswap", None, None, None, {"categories": "random:50"}),
    ("randswap", None, None, None, {}),
    ("partsupp", None, None, None, {"categories": "random:50"}),
    ("splitperson", None, None, None, {"categories": "random:50"}),
]

FACTOR = 1.5

#: the floor's load: gzip + one vectorized parse into a CSR matrix, no graphanon
FLOOR_LOAD = """
import gzip, sys
import numpy as np, scipy.sparse as sp
lines = [ln for ln in gzip.decompress(open(sys.argv[1], 'rb').read()).split(b'\\n') if ln.strip()]
lengths = np.fromiter((len(ln.split()) for ln in lines), dtype=np.int64, count=len(lines))
tokens = np.array(b' '.join(lines).split()).astype(np.int64)
items, cols = np.unique(tokens, return_inverse=True)
rows = np.repeat(np.arange(len(lines)), lengths)
m = sp.csr_array((np.ones(len(cols), dtype=bool), (rows, cols)), shape=(len(lines), len(items)))
assert m.shape == (59602, 497), m.shape
"""

#: the algorithm alone, in a fresh process: load first, then time and measure the adapter call only
ALGORITHM_ONLY = """
import json, sys, time
from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.datasets import load
from graphanon.taxonomy import Taxonomy
method, k, m, fanout, params = json.loads(sys.argv[1])
data = load("bms1")
taxonomy = Taxonomy.balanced(data.items, fanout) if fanout else None
spec = get_algorithm(method)
options = RunOptions(k=k, m=m, taxonomy=taxonomy, params=dict(params))

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])  # kB

rss_before = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # reset the peak (VmHWM) to the current RSS
start, cpu = time.perf_counter(), time.process_time()
release = spec.run(data, options)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"algorithm_s": wall, "algorithm_cpu_s": cpu,
                  "algorithm_mib": max(0, status("VmHWM:") - rss_before) / 1024, "numba": "numba" in sys.modules}))
"""


def floor_bounds(job_wall: float, job_peak: float, floor_wall: float, floor_peak: float,
                 algorithm_wall: float, algorithm_mem: float, factor: float = FACTOR) -> dict:
    """The issue's bounds for one job: wall and peak against factor x floor plus the algorithm's own cost.

    Parameters
    ----------
    job_wall, job_peak : float
        The whole job process: wall seconds and peak resident MiB.
    floor_wall, floor_peak : float
        The floor process (interpreter, numpy/scipy import, cheapest load of the data).
    algorithm_wall, algorithm_mem : float
        The anonymizer call alone: wall seconds and MiB of resident growth.
    factor : float
        Allowed multiple of the floor (1.5 in issue 24).

    Returns
    -------
    dict
        ``wall_bound_s``, ``peak_bound_mib`` and whether the job is within each
        (``wall_ok``, ``peak_ok``), plus the slack of each as a fraction of its bound.

    Examples
    --------
    >>> b = floor_bounds(1.0, 150.0, 0.3, 100.0, 0.5, 20.0)
    >>> b["wall_bound_s"], b["wall_ok"], b["peak_bound_mib"], b["peak_ok"]
    (0.95, False, 170.0, True)
    """
    wall_bound = factor * floor_wall + algorithm_wall
    peak_bound = factor * floor_peak + algorithm_mem
    return {
        "wall_bound_s": round(wall_bound, 4),
        "peak_bound_mib": round(peak_bound, 2),
        "wall_ok": bool(job_wall <= wall_bound),
        "peak_ok": bool(job_peak <= peak_bound),
        "wall_of_bound": round(job_wall / wall_bound, 3),
        "peak_of_bound": round(job_peak / peak_bound, 3),
    }


def run_child(argv, env=None) -> tuple[dict, str]:
    """(wall s, CPU s, peak MiB of that child alone, from a minimal launcher) and its stdout."""
    with tempfile.TemporaryFile() as out:
        stats = measure_child(argv, env=env, stdout=out)
        out.seek(0)
        text = out.read().decode()
    return stats, text


def best(argv, runs: int, warmup: int, env=None) -> dict:
    for _ in range(warmup):
        run_child(argv, env)
    stats = [run_child(argv, env)[0] for _ in range(runs)]
    return {
        "wall_s": round(min(s["wall_s"] for s in stats), 4),
        "cpu_s": round(min(s["cpu_s"] for s in stats), 4),
        "peak_mib": round(min(s["peak_mib"] for s in stats), 1),
        "walls_s": [round(s["wall_s"], 4) for s in stats],
    }


def job_argv(method, k, m, fanout, params, out) -> list[str]:
    argv = [sys.executable, "-m", "graphanon", "anonymize", "bms1", "-a", method]
    if k is not None:
        argv += ["-k", str(k)]
    if m is not None:
        argv += ["-m", str(m)]
    if fanout:
        argv += ["--taxonomy", f"balanced:{fanout}"]
    for key, value in params.items():
        argv += ["--param", f"{key}={value}"]
    return [*argv, "-o", out]


def command_text(method, k, m, fanout, params) -> str:
    return " ".join(job_argv(method, k, m, fanout, params, "R.json")[3:-2]).replace("anonymize", "graphanon anonymize")


def algorithm_only(job, runs: int, env) -> dict:
    rows = []
    for _ in range(runs):
        _, text = run_child([sys.executable, "-c", ALGORITHM_ONLY, json.dumps(list(job))], env)
        rows.append(json.loads(text.strip().splitlines()[-1]))
    return {
        "algorithm_s": round(min(r["algorithm_s"] for r in rows), 4),
        "algorithm_cpu_s": round(min(r["algorithm_cpu_s"] for r in rows), 4),
        "algorithm_mib": round(min(r["algorithm_mib"] for r in rows), 1),
        "loads_numba": any(r["numba"] for r in rows),
    }


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per measurement (best of; default 3)")
    ap.add_argument("--quick", action="store_true", help="best of 1")
    ap.add_argument("--methods", help="comma-separated subset of the jobs")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--save-as", default="job_floor", metavar="NAME",
                    help="write benchmarks/results/NAME.json (default job_floor)")
    ap.add_argument("--table", type=Path, help="only print the markdown table of an earlier results file")
    args = ap.parse_args(argv)
    if args.table:
        doc = json.loads(args.table.read_text())
        print(markdown_table(doc))
        return doc
    runs = 1 if args.quick else args.runs
    env = child_env(PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    bms1 = str(ROOT / "graphanon" / "datasets" / "data" / "bms1.dat.gz")
    jobs = JOBS if not args.methods else [j for j in JOBS if j[0] in args.methods.split(",")]

    bytecode = compile_package()
    doc = {"benchmark": "job_floor", "dataset": "bms1", "runs": runs, "factor": FACTOR, "nproc": os.cpu_count(),
           "python": sys.version.split()[0], "load_start": round(os.getloadavg()[0], 2), "bytecode": bytecode}
    doc["python_pass"] = best([sys.executable, "-c", "pass"], runs, 1)
    doc["floor"] = best([sys.executable, "-c", FLOOR_LOAD, bms1], runs, 1)
    doc["floor_command"] = 'python -c "import numpy, scipy.sparse; <gzip + parse bms1.dat.gz into a CSR matrix>"'
    # numba's share of a job that loads it: the same floor process importing numba too
    doc["floor_numba"] = best([sys.executable, "-c", FLOOR_LOAD + "import numba\n", bms1], runs, 1)
    doc["numba_share"] = {key: round(doc["floor_numba"][key] - doc["floor"][key], 4) for key in ("wall_s", "cpu_s", "peak_mib")}
    rows = []
    with tempfile.TemporaryDirectory(prefix="graphanon-floor-") as tmp:
        for job in jobs:
            before = round(os.getloadavg()[0], 2)
            whole = best(job_argv(*job, os.path.join(tmp, "release.json")), runs, 1, env)
            alg = algorithm_only(job, runs, env)
            row = {"method": job[0], "command": command_text(*job), **{f"job_{k}": v for k, v in whole.items()},
                   **alg, "load_before": before, "load_after": round(os.getloadavg()[0], 2)}
            row.update(floor_bounds(whole["wall_s"], whole["peak_mib"], doc["floor"]["wall_s"],
                                    doc["floor"]["peak_mib"], alg["algorithm_s"], alg["algorithm_mib"]))
            cpu_bound = FACTOR * doc["floor"]["cpu_s"] + alg["algorithm_cpu_s"]  # the same bound on CPU time
            row.update(cpu_bound_s=round(cpu_bound, 4), cpu_ok=bool(whole["cpu_s"] <= cpu_bound))
            rows.append(row)
            doc["jobs"] = rows  # saved after every job, so an interrupted run keeps what it measured
            if not args.no_save:
                (RESULTS / f"{args.save_as}.json").write_text(json.dumps(doc, indent=2) + "\n")
            print(json.dumps({job[0]: [row["job_wall_s"], row["wall_bound_s"], row["job_peak_mib"],
                                       row["peak_bound_mib"]], "load": row["load_after"]}), file=sys.stderr)
    doc["jobs"] = rows
    doc["load_end"] = round(os.getloadavg()[0], 2)
    print_and_save(doc, args.save_as, save=not args.no_save)
    if args.markdown:
        print(markdown_table(doc))
    return doc


def markdown_table(doc: dict) -> str:
    """Jobs against the floor: wall and peak of the job, of the algorithm alone, the bounds and verdicts."""
    fl, pp = doc["floor"], doc["python_pass"]
    out = [f"Floor: `python -c pass` {pp['wall_s']:.2f} s, {pp['peak_mib']:.0f} MiB; "
           f"numpy + scipy.sparse + load bms1 {fl['wall_s']:.2f} s (CPU {fl['cpu_s']:.2f} s), {fl['peak_mib']:.0f} MiB "
           f"(best of {doc['runs']}, load {doc['load_start']}-{doc['load_end']})."
           + (f" The same floor importing numba: +{doc['numba_share']['wall_s']:.2f} s wall, "
              f"+{doc['numba_share']['cpu_s']:.2f} s CPU, +{doc['numba_share']['peak_mib']:.0f} MiB (numba's share of a job "
              "that loads it)." if "numba_share" in doc else ""), "",
           "| job | wall (s) | algorithm (s) | bound 1.5 floor + alg (s) | within | CPU (s) | CPU bound (s) | "
           "within | peak (MiB) | algorithm (MiB) | bound (MiB) | within | numba | load |", "|" + "---|" * 14]
    for r in doc["jobs"]:
        out.append(
            f"| `{r['command']}` | {r['job_wall_s']:.2f} | {r['algorithm_s']:.2f} | {r['wall_bound_s']:.2f} | "
            f"{'yes' if r['wall_ok'] else 'no'} | {r['job_cpu_s']:.2f} | {r['cpu_bound_s']:.2f} | "
            f"{'yes' if r['cpu_ok'] else 'no'} | {r['job_peak_mib']:.0f} | {r['algorithm_mib']:.0f} | "
            f"{r['peak_bound_mib']:.0f} | {'yes' if r['peak_ok'] else 'no'} | "
            f"{'yes' if r.get('loads_numba') else 'no' if 'loads_numba' in r else '?'} | {r['load_before']}-{r['load_after']} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    main()
