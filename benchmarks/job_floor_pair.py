"""Two checkouts' bms1 jobs, run by run in turn: the whole process's CPU and wall time, minimum and median.

``benchmarks/job_floor.py`` measures one checkout against the floor, best of a
few runs; on a shared machine two such runs minutes apart see different loads.
This script measures the same ``graphanon anonymize bms1 -a METHOD`` jobs
(:data:`benchmarks.job_floor.JOBS`) of two graphanon trees in turn -- before,
after, before, after, ... -- each a fresh process with that tree first on
``PYTHONPATH``, after one warm-up of each, so both see the same load. With
``--floor`` it adds the floor process (``benchmarks/job_floor.py``) and the floor
importing numba (numba's share, measured in the same turns).

Usage::

    git archive HEAD~1 graphanon | tar -x -C /tmp/before   # plus numba's cache files, or it compiles once
    python benchmarks/job_floor_pair.py --before /tmp/before --methods coat,partswap --runs 8 --floor

Results: ``benchmarks/results/job_floor_pair.json`` (``--save-as NAME``: ``NAME.json``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._child import measure_child  # noqa: E402
from benchmarks._common import child_env, print_and_save  # noqa: E402
from benchmarks.job_floor import FLOOR_LOAD, JOBS, command_text, job_argv  # noqa: E402


def summary(samples: list[dict]) -> dict:
    """Minimum and median CPU and wall seconds, and the smallest peak (MiB), of one command's runs.

    Examples
    --------
    >>> summary([{"cpu_s": 1.0, "wall_s": 2.0, "peak_mib": 9.0}, {"cpu_s": 3.0, "wall_s": 1.0, "peak_mib": 8.0}])
    {'cpu_min': 1.0, 'cpu_median': 2.0, 'wall_min': 1.0, 'wall_median': 1.5, 'peak_mib': 8.0, 'runs': 2}
    """
    cpu = [s["cpu_s"] for s in samples]
    wall = [s["wall_s"] for s in samples]
    return {"cpu_min": round(min(cpu), 3), "cpu_median": round(statistics.median(cpu), 3),
            "wall_min": round(min(wall), 3), "wall_median": round(statistics.median(wall), 3),
            "peak_mib": round(min(s["peak_mib"] for s in samples), 1), "runs": len(samples)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, type=Path, help="the other graphanon tree (holding graphanon/)")
    ap.add_argument("--after", type=Path, default=ROOT, help="default: this checkout")
    ap.add_argument("--methods", required=True, help="comma-separated jobs of benchmarks/job_floor.py")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--floor", action="store_true", help="also the floor, and the floor importing numba")
    ap.add_argument("--save-as", default="job_floor_pair", metavar="NAME")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        if not (tree / "graphanon" / "__init__.py").exists():
            ap.error(f"{tree}: no graphanon/ package there")
    wanted = args.methods.split(",")
    unknown = sorted(set(wanted) - {job[0] for job in JOBS})
    if unknown:
        ap.error(f"--methods: not a job of benchmarks/job_floor.py: {', '.join(unknown)}")
    commands: dict[str, tuple[list[str], dict]] = {}
    out_dir = Path(os.environ.get("TMPDIR", "/tmp"))
    for job in JOBS:
        if job[0] in wanted:
            for name, tree in trees.items():
                commands[f"{job[0]}/{name}"] = (job_argv(*job, str(out_dir / f"job_floor_pair_{name}.json")),
                                                child_env(PYTHONPATH=str(tree)))
    if args.floor:
        bms1 = str(ROOT / "graphanon" / "datasets" / "data" / "bms1.dat.gz")
        for label, code in (("floor", FLOOR_LOAD), ("floor_numba", FLOOR_LOAD + "import numba\n")):
            commands[label] = ([sys.executable, "-c", code, bms1], child_env())
    doc: dict = {"benchmark": "job_floor_pair", "runs": args.runs, "nproc": os.cpu_count(),
                 "trees": {k: str(v) for k, v in trees.items()}, "load_start": round(os.getloadavg()[0], 2),
                 "commands": {key: command_text(*next(j for j in JOBS if j[0] == key.split("/")[0]))
                              for key in commands if "/" in key}}
    for cmd, env in commands.values():
        measure_child(cmd, env=env)  # warm-up: page cache, bytecode, numba's cache
    samples: dict[str, list[dict]] = {key: [] for key in commands}
    for _ in range(args.runs):
        for key, (cmd, env) in commands.items():
            stats = measure_child(cmd, env=env)
            if stats.get("code", 0) != 0:
                raise SystemExit(f"{key}: exit code {stats['code']}")
            samples[key].append(stats)
    doc["results"] = {key: summary(rows) for key, rows in samples.items()}
    if args.floor:
        r = doc["results"]
        doc["numba_share"] = {f"{m}_{s}": round(r["floor_numba"][f"{m}_{s}"] - r["floor"][f"{m}_{s}"], 3)
                              for m in ("cpu", "wall") for s in ("min", "median")}
    doc["load_end"] = round(os.getloadavg()[0], 2)
    print_and_save(doc, args.save_as, save=not args.no_save)
    return doc


if __name__ == "__main__":
    main()
