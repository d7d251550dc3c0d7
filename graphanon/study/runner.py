"""Run a study's grid in parallel, resumably, into one tidy table.

Each finished run is stored as ``<store>/runs/<key>.json`` under the key of
its full configuration (:meth:`StudyRun.key`); a later study that shares runs
with it reads them back instead of repeating them (a run that failed is run
again). Runs go to a local :class:`~concurrent.futures.ProcessPoolExecutor`
or, given a Dask client (:func:`graphanon.distributed.connect`), to its workers.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd

from graphanon.study.execute import METRIC_COLUMNS, execute_run

__all__ = ["COLUMNS", "run_study", "tidy_table"]

#: column -> pandas dtype of the tidy table (one row per run)
COLUMNS = {
    "dataset": "string", "method": "string", "k": "Int64", "m": "Int64", "epsilon": "float64", "repeat": "Int64",
    "params": "string",
    "taxonomy": "string", "seed": "Int64", "status": "string", "error": "string", "kind": "string",
    "wall_seconds": "float64", "cpu_seconds": "float64", "peak_memory_mb": "float64", "memory_method": "string",
    "audit_model": "string", "audit_satisfied": "boolean", "audit_violations": "Int64",
    **{name: "float64" for name in METRIC_COLUMNS},
    "attack_success": "float64", "attack_bound": "float64", "attack_bound_kind": "string",
    "attack_within_bound": "boolean", "attack_below_k": "Int64",
    # the majority-label adversary on an l-diverse release (graphanon.attacks.label_majority_check)
    "label_success": "float64", "label_bound": "float64", "label_margin": "float64", "label_within_bound": "boolean",
    "reused": "boolean", "key": "string",
}


def tidy_table(rows) -> pd.DataFrame:
    """The rows of :func:`~graphanon.study.execute.execute_run` as a table with the :data:`COLUMNS` schema.

    Examples
    --------
    >>> t = tidy_table([{"dataset": "d", "method": "aa", "k": 2, "status": "ok"}])
    >>> str(t["k"].dtype), bool(t["m"].isna().all())
    ('Int64', True)
    """
    frame = pd.DataFrame([{name: row.get(name) for name in COLUMNS} for row in rows], columns=list(COLUMNS))
    for name, dtype in COLUMNS.items():
        if dtype == "float64":
            frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
        else:
            frame[name] = frame[name].astype(dtype)
    return frame


def _stored(store: Path, key: str) -> dict | None:
    path = store / f"{key}.json"
    if not path.exists():
        return None
    try:
        row = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return row if row.get("status") == "ok" else None


def _store(store: Path, row: dict) -> None:
    path = store / f"{row['key']}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(row, default=float), encoding="utf-8")
    os.replace(tmp, path)


def run_study(runs, store=None, *, workers: int = 1, client=None, progress=None) -> pd.DataFrame:
    """Run every :class:`~graphanon.study.grid.StudyRun` of ``runs`` and return the tidy table.

    Parameters
    ----------
    runs : sequence of StudyRun
        From :func:`~graphanon.study.grid.expand_grid`.
    store : path, optional
        Folder of finished runs (created); a run found there is not repeated
        (``reused`` is True in its row). None: nothing is stored or reused.
    workers : int
        Local worker processes (1: in this process, no pool).
    client : dask.distributed.Client, optional
        Run on its workers instead.
    progress : callable(done, total, message), optional
        Called as runs finish.

    Returns
    -------
    pandas.DataFrame
        One row per run, in the order of ``runs``, columns :data:`COLUMNS`.
        A failing run has ``status == "error"`` and its message in ``error``.

    Examples
    --------
    >>> from graphanon.study.grid import expand_grid
    >>> plan = expand_grid(["mhghs"], ["groceries"], k=[2, 5], m=1, taxonomy="balanced:5")
    >>> table = run_study(plan.runs)
    >>> table["k"].tolist(), bool(table["audit_satisfied"].all())
    ([2, 5], True)
    """
    runs = list(runs)
    folder = None if store is None else Path(store)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    rows: dict[str, dict] = {}
    todo: list = []
    for run in runs:
        key = run.key()
        found = None if folder is None else _stored(folder, key)
        if found is not None:
            rows[key] = {**found, "reused": True}
        elif all(r.key() != key for r in todo):
            todo.append(run)
    done, total = len(rows), len(runs)

    def finished(row: dict) -> None:
        nonlocal done
        row["reused"] = False
        rows[row["key"]] = row
        if folder is not None and row["status"] == "ok":
            _store(folder, row)
        done += 1
        if progress is not None:
            progress(done, total, f"{row['method']} k={row['k']} on {row['dataset']}: {row['status']}")

    if progress is not None:
        progress(done, total, f"{done} run(s) reused" if done else "starting")
    if client is not None and todo:
        futures = [client.submit(execute_run, run, pure=False) for run in todo]
        for future in futures:  # in submission order; the workers run them all meanwhile
            finished(future.result())
    elif workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(todo))) as pool:
            futures = [pool.submit(execute_run, run) for run in todo]
            for future in as_completed(futures):
                finished(future.result())
    else:
        for run in todo:
            finished(execute_run(run))
    return tidy_table([rows[run.key()] for run in runs])
