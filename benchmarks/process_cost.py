"""Whole-process cost of one ``graphanon anonymize bms1 -a METHOD`` job, and where its time goes (issue 24).

Two measurements per method, each in fresh processes:

* **job**: the command line itself (``python -m graphanon anonymize bms1 -a METHOD ... -o OUT``), run
  ``--runs`` times after one warm-up (OS page cache, numba's on-disk cache); per run the wall time, the
  child's user+system CPU time and its peak resident memory (``os.wait4`` rusage, that process only);
  reported: best (minimum) and median of each.
* **stages**: the same job's steps timed inside one fresh process (``--stage-runs`` times, the run with the
  least total CPU kept): ``import`` (the CLI's modules and the method's module), ``read`` (the bundled
  gzip FIMI file to a ``TransactionData``), ``taxonomy`` (``--taxonomy``), ``algorithm`` (the method,
  as the CLI runs it), ``audit`` (the CLI's check of a method's claim, ``cut`` only), ``write`` (the
  release to JSON). Per stage: wall and CPU seconds and the peak resident memory so far (``ru_maxrss``).

The **floor** is the least a job can cost: ``python -c "import numpy, scipy.sparse"`` plus reading
bms1 the cheapest way (gzip, one numpy parse of the whole text, a CSR matrix), measured the same way.
(``benchmarks/job_floor.py``, from the peers part of issue 24, measures the floor for the paired table;
this script repeats it so that its ratios come from the same run and load.)

The load average (1 minute) is recorded before and after each method: on a shared machine wall times are
upper bounds and CPU times the comparable numbers.

Usage::

    python benchmarks/process_cost.py                          # every method, 5 runs each
    python benchmarks/process_cost.py -a partition -a aa --runs 7
    python benchmarks/process_cost.py --out benchmarks/results/process_cost.json

Run it with ``PYTHONPATH`` set to the checkout to measure (the children inherit it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: README-style parameters per method on bms1 (docs/hierarchy.md, coat.md, clustering.md, swapping.md, ...)
METHODS = {
    "aa": ["-k", "5", "-m", "2", "--taxonomy", "balanced:5"],
    "hghs": ["-k", "5", "-m", "2", "--taxonomy", "balanced:5"],
    "mhghs": ["-k", "5", "-m", "2", "--taxonomy", "balanced:5"],
    "mm": ["-k", "5", "-m", "2"],
    "cut": ["-k", "5", "-m", "2", "--taxonomy", "balanced:5", "--param", "level=2", "--param", "force=true"],
    "coat": ["-k", "5", "--param", "privacy=km:2", "--param", "utility=all"],
    "nr": ["-k", "5", "--seed", "0"],
    "partition": ["-k", "5", "--taxonomy", "balanced:5"],
    "partition-k10": ["-k", "10", "--taxonomy", "balanced:5"],
    "clump": ["-k", "10", "--taxonomy", "balanced:5", "--seed", "0"],
    "partswap": ["--param", "categories=random:50", "--seed", "0"],
    "fullswap": ["--param", "categories=random:50", "--seed", "0"],
    "partsupp": ["--param", "categories=random:50"],
    "splitperson": ["--param", "categories=random:50"],
    "randswap": [],
}

FLOOR_CODE = """
import gzip, numpy as np, scipy.sparse as sp
from importlib.resources import files
raw = gzip.decompress(files("graphanon.datasets").joinpath("data/bms1.dat.gz").read_bytes())
lines = raw.split(b"\\n")
if lines and not lines[-1]:
    lines.pop()
lengths = np.fromiter(map(len, map(bytes.split, lines)), np.int64, len(lines))
tokens = np.array(raw.split(), dtype=np.int64)
labels, cols = np.unique(tokens, return_inverse=True)
indptr = np.r_[0, np.cumsum(lengths)]
X = sp.csr_array((np.ones(len(cols), bool), cols, indptr), shape=(len(lengths), len(labels)))
"""

STAGE_CODE = r"""
import json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
out = []
def mark(name):
    out.append({"stage": name, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
method, argv, path = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
from graphanon.cli._app import parse_m, parse_param_pairs, read_input, taxonomy_option
from graphanon.cli.anonymize import verify_claim
from graphanon.cli.registry import RunOptions, get_algorithm
spec = get_algorithm(method)
opts = dict(k=None, m=None, taxonomy=None, seed=None, params=[])
it = iter(argv)
for flag in it:
    value = next(it)
    if flag == "-k": opts["k"] = int(value)
    elif flag == "-m": opts["m"] = value
    elif flag == "--taxonomy": opts["taxonomy"] = value
    elif flag == "--seed": opts["seed"] = int(value)
    elif flag == "--param": opts["params"].append(value)
mark("import")
data, bundled = read_input("bms1", None, None, "tid", "item", None)
mark("read")
tax = taxonomy_option(opts["taxonomy"], data, bundled) if spec.needs_taxonomy or opts["taxonomy"] else None
mark("taxonomy")
run = RunOptions(k=opts["k"], m=parse_m(opts["m"]), taxonomy=tax, seed=opts["seed"],
                 params=parse_param_pairs(tuple(opts["params"])))
spec.check_options(run)
release = spec.run(data, run)
mark("algorithm")
verify_claim(spec, data, release, run)
mark("audit")
release.save(path)
mark("write")
print("STAGES " + json.dumps(out))
"""


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def measure(argv: list[str], runs: int) -> dict:
    """Best and median wall, CPU and peak RSS of ``argv`` over ``runs`` fresh processes (after a warm-up)."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        if status:
            raise RuntimeError(f"{argv} failed: {proc.stderr.read().decode()[-2000:]}")
        proc.stderr.close()
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)
    return {"wall_best": round(min(walls), 3), "wall_median": round(statistics.median(walls), 3),
            "cpu_best": round(min(cpus), 3), "cpu_median": round(statistics.median(cpus), 3),
            "peak_mib_best": round(min(peaks), 1), "peak_mib_median": round(statistics.median(peaks), 1)}


def stages(method: str, args: list[str], runs: int, tmp: Path) -> list[dict]:
    """Per-stage wall/CPU/peak of one job in a fresh process; the run with the least total CPU of ``runs``."""
    best = None
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", STAGE_CODE, method.split("-")[0], json.dumps(args),
                              str(tmp / "stage.json")], check=True, capture_output=True, text=True).stdout
        marks = json.loads(out.rpartition("STAGES ")[2])
        if best is None or marks[-1]["cpu"] < best[-1]["cpu"]:
            best = marks
    rows, prev_wall, prev_cpu = [], 0.0, 0.0
    for m in best:
        rows.append({"stage": m["stage"], "wall": round(m["wall"] - prev_wall, 3), "cpu": round(m["cpu"] - prev_cpu, 3),
                     "peak_mib_so_far": round(m["peak_mib"], 1)})
        prev_wall, prev_cpu = m["wall"], m["cpu"]
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-a", "--algorithm", action="append", choices=sorted(METHODS),
                        help="method(s) to measure (default: all)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per job (after one warm-up)")
    parser.add_argument("--stage-runs", type=int, default=3, help="fresh processes for the stage profile")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    methods = args.algorithm or list(METHODS)
    py = sys.executable
    result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
              "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "runs": args.runs}
    load0 = load_average()
    result["floor"] = {**measure([py, "-c", FLOOR_CODE], args.runs), "load": [load0, load_average()],
                       "code": "import numpy, scipy.sparse; gzip + numpy parse of bms1 into a CSR matrix"}
    result["python -c pass"] = measure([py, "-c", "pass"], args.runs)
    result["jobs"] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in methods:
            method = name.split("-")[0]
            load0 = load_average()
            cmd = [py, "-m", "graphanon", "anonymize", "bms1", "-a", method, *METHODS[name], "-o", str(tmp / "r.json")]
            try:
                job = measure(cmd, args.runs)
                job["stages"] = stages(name, METHODS[name], args.stage_runs, tmp)
            except (RuntimeError, subprocess.CalledProcessError) as exc:  # one failing method does not lose the rest
                result["jobs"][name] = {"error": str(exc)[-500:], "command": " ".join(cmd[2:])}
                continue
            job["algorithm_cpu"] = next(s["cpu"] for s in job["stages"] if s["stage"] == "algorithm")
            job["load"] = [load0, load_average()]
            job["command"] = "graphanon anonymize bms1 -a " + " ".join([method, *METHODS[name]])
            floor = result["floor"]
            job["cpu_over_floor_plus_algorithm"] = round(job["cpu_best"] / (floor["cpu_best"] + job["algorithm_cpu"]), 2)
            result["jobs"][name] = job
            print(json.dumps({name: {k: v for k, v in job.items() if k != "stages"}}), file=sys.stderr)
            if args.out:  # after every method, so an interrupted run keeps what it measured
                args.out.write_text(json.dumps(result, indent=1) + "\n")
    result["finished_utc"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
