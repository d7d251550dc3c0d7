"""Execute one run of a study: anonymize, audit, measure, attack -- one row of the tidy table.

:func:`execute_run` is what a worker process (or a Dask worker) calls. It
never raises for a failing method: the row says ``status="error"`` and holds
the error, so one failing run does not stop a study.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
import tracemalloc
from pathlib import Path

from graphanon import datasets
from graphanon.datasets.catalog import names
from graphanon.errors import GraphanonError, ParameterError
from graphanon.metrics.evaluate import evaluate_release
from graphanon.metrics.itemsets import top_k_accuracy, top_k_metrics
from graphanon.metrics.queries import average_relative_error, generate_workload
from graphanon.metrics.rtviews import rt_utility, rt_views
from graphanon.privacy.registry import build_model
from graphanon.readwrite.formats import read_any
from graphanon.study._run import method_declarations, run_options
from graphanon.taxonomy.build import parse_balanced
from graphanon.taxonomy.tree import Taxonomy, read_taxonomy

__all__ = ["ATTACKED_KINDS", "METRIC_COLUMNS", "TOP_K", "PeakMemory", "bundled_taxonomy", "execute_run",
           "load_dataset", "load_rt_data", "load_taxonomy", "load_universe"]

#: utility metrics of graphanon.metrics kept in the table (NaN where a metric does not apply to a release kind)
METRIC_COLUMNS = (
    "ncp", "ncp_taxonomy", "ul", "ggd", "suppression_ratio", "avg_relative_error",
    "error_rate", "query_error", "fi_similarity", "dif", "topk_precision", "topk_recall", "topk_f",
    "support_relative_error",
    # relational-transaction releases (graphanon.metrics.rtviews.rt_utility): GCP of the published QI values and
    # the average relative error of COUNT queries combining a range on 2 QIs with 2 items
    "rt_gcp", "rt_query_error",
)
#: the k of the top-k frequent itemsets every release is scored on (its rows mined, compared by item labels)
TOP_K = 100
#: release kinds the row-linkage attack knows (graphanon.attacks.row_linkage)
ATTACKED_KINDS = ("global_recoding", "nonreciprocal")


@functools.lru_cache(maxsize=8)
def load_dataset(source: str):
    """A bundled dataset by name, or a data file (format told by its ending); cached per process."""
    if not Path(source).exists() and source in names():
        return datasets.load(source)
    if not Path(source).exists():
        raise ParameterError(f"{source}: no such file, and not a bundled dataset ({', '.join(names())})")
    return read_any(Path(source))


@functools.lru_cache(maxsize=8)
def load_rt_data(source: str, relational: tuple):
    """Dataset ``source`` joined with the relational table of ``relational`` (a :class:`StudyRun`'s); cached."""
    from graphanon.relational import join_relational

    path, qi, hierarchies, categorical = relational
    return join_relational(load_dataset(source), path, qi, hierarchies=hierarchies, categorical=categorical or None)


@functools.lru_cache(maxsize=32)
def bundled_taxonomy(source: str) -> str | None:
    """The name of ``source``'s bundled taxonomy (its own name), or None: a file, or a dataset without one.

    Examples
    --------
    >>> bundled_taxonomy("groceries"), bundled_taxonomy("bms1")
    ('groceries', None)
    """
    if Path(source).exists() or source not in names():
        return None
    try:
        datasets.load_taxonomy(source)
    except GraphanonError:
        return None
    return source


@functools.lru_cache(maxsize=8)
def load_taxonomy(spec: str, source: str):
    """The taxonomy ``spec`` (``balanced:FANOUT[:SEED]``, a file, a bundled name) over dataset ``source``."""
    data = load_dataset(source)
    balanced = parse_balanced(spec)
    if balanced is not None:
        fanout, seed = balanced
        return Taxonomy.balanced(data.items, fanout, order="random" if seed is not None else "sorted", rng=seed)
    tax = datasets.load_taxonomy(spec) if not Path(spec).exists() and spec in names() else read_taxonomy(spec)
    tax.check_covers(data.items, what=source)
    return tax


@functools.lru_cache(maxsize=8)
def load_universe(path: str) -> tuple:
    """``--universe FILE``: the public item universe of a DP method, one item per line (blank lines skipped).

    Raises :class:`~graphanon.errors.ParameterError` naming the file: unreadable, empty, or an item twice.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ParameterError(f"--universe {path}: cannot read it ({exc.strerror or exc})") from None
    items = [line.strip() for line in lines if line.strip()]
    if not items:
        raise ParameterError(f"--universe {path}: the file names no item (give one item per line)")
    if len(set(items)) != len(items):
        twice = next(x for i, x in enumerate(items) if x in items[:i])
        raise ParameterError(f"--universe {path}: item {twice!r} is named twice")
    return tuple(items)


_STATUS = "/proc/self/status"


def _resident_kib() -> tuple[int, int] | None:
    """Return the (current, peak) resident set size of this process in KiB from Linux ``/proc``, or None."""
    try:
        with open(_STATUS, encoding="ascii") as fh:
            fields = dict(line.split(":", 1) for line in fh if line.startswith(("VmRSS", "VmHWM")))
        return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
    except (OSError, KeyError, ValueError):
        return None


def _reset_peak() -> bool:
    """Reset this process's peak resident set size to its current size (Linux ``clear_refs`` 5)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        return False
    return _resident_kib() is not None


class PeakMemory:
    """The peak memory a block of code adds to this process.

    On Linux: the rise of the process's peak resident set size (``VmHWM``,
    reset before the block with ``/proc/self/clear_refs``) over its resident
    size at the start -- everything the block touched, numba's and C
    libraries' allocations included, at no cost to the block
    (``method == "rss"``). Elsewhere: the peak traced by :mod:`tracemalloc`
    (Python objects and numpy buffers only; slows allocation-heavy Python
    code by about a quarter, ``method == "tracemalloc"``).

    Examples
    --------
    >>> import numpy as np
    >>> with PeakMemory() as peak:
    ...     block = np.ones(20_000_000)
    >>> peak.mib > 100, peak.method in ("rss", "tracemalloc")
    (True, True)
    """

    def __enter__(self):
        """Start measuring (reset the resident peak, or start tracemalloc)."""
        self.method = "rss" if _reset_peak() else "tracemalloc"
        if self.method == "rss":
            self._start = _resident_kib()[0]
        else:
            tracemalloc.start()
        self.mib = math.nan
        return self

    def __exit__(self, *exc) -> None:
        """Stop measuring and set ``mib``."""
        if self.method == "rss":
            now = _resident_kib()
            self.mib = max(0, now[1] - self._start) / 1024 if now else math.nan
        else:
            self.mib = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()


def _number(value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out


def execute_run(run) -> dict:
    """Run, audit, evaluate and attack one :class:`~graphanon.study.grid.StudyRun`.

    Times only the anonymizer call: ``wall_seconds`` (``time.perf_counter``),
    ``cpu_seconds`` (``time.process_time`` of this process: every thread,
    numba's included) and ``peak_memory_mb``: the memory the call added at its
    peak, in MiB (:class:`PeakMemory`; ``memory_method`` says how it was
    measured: ``rss``, the rise of the worker's peak resident set size, or
    ``tracemalloc``).

    Parameters
    ----------
    run : StudyRun

    Returns
    -------
    dict
        One row: the run's configuration, ``status`` (``ok`` / ``error``),
        ``error``, the timings, the audit verdict of the method's model
        (``audit_model``, ``audit_satisfied``, ``audit_violations``), every
        :data:`METRIC_COLUMNS` value (NaN where it does not apply) and, for
        release kinds in :data:`ATTACKED_KINDS`, the row-linkage attack
        (``attack_success``, ``attack_bound``, ``attack_within_bound``); for
        a relational-transaction run (``run.relational``), the
        demographics-plus-items linkage (:func:`~graphanon.attacks.rt_linkage`,
        with ``attack_below_k``: the targets left fewer than ``k`` rows); for
        a release that promises ``l`` (l-diverse), the majority-label
        adversary (``label_success``, ``label_bound``, ``label_margin``,
        ``label_within_bound``; :func:`~graphanon.attacks.label_majority_check`).

    Examples
    --------
    >>> from graphanon.study.grid import StudyRun
    >>> row = execute_run(StudyRun("groceries", "mhghs", k=2, m=1, taxonomy="balanced:5"))
    >>> row["status"], row["audit_satisfied"]
    ('ok', True)
    """
    row = {"key": run.key(), "dataset": run.dataset, "method": run.method, "k": run.k, "m": run.m,
           "epsilon": getattr(run, "epsilon", None), "repeat": getattr(run, "repeat", None),
           "params": ",".join(f"{n}={v}" for n, v in run.params), "taxonomy": run.taxonomy, "seed": run.seed,
           "status": "ok", "error": ""}
    try:
        row.update(_measure(run))
    except (GraphanonError, ValueError, TypeError, MemoryError, RuntimeError) as exc:
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
    return row


def _itemset_metrics(data, release) -> dict:
    """The :data:`METRIC_COLUMNS` of an itemset release: the shared top-:data:`TOP_K` scores, NaN for the rest.

    An itemset release (a DP top-k list with noisy supports) has no rows: the
    COUNT queries, NCP, the information-loss measures and the frequent itemsets
    mined from rows do not apply, and stay NaN. Its top-:data:`TOP_K` precision,
    recall and F are :func:`~graphanon.metrics.itemsets.top_k_metrics` at
    ``k = TOP_K`` -- the same measure the rows of the other releases are scored
    on -- and ``support_relative_error`` the median relative error of its
    noisy supports.
    """
    top = top_k_metrics(data, release, TOP_K)
    return {name: top.get(name) for name in METRIC_COLUMNS}


def _measure(run) -> dict:
    decl = method_declarations(run.method)
    data = load_dataset(run.dataset)
    relational = getattr(run, "relational", None)
    rt_data = None if relational is None else load_rt_data(run.dataset, relational)
    source = data if rt_data is None else rt_data  # what the method and its audit read
    tax = None if run.taxonomy is None else load_taxonomy(run.taxonomy, run.dataset)
    params = dict(run.params)
    # the command line's own call (AlgorithmSpec.run), with its declared defaults; a taxonomy a method can do
    # without is passed as anonymize passes a bundled one (read only where its parameters ask)
    spec, opts = run_options(run.method, k=run.k, m=run.m, taxonomy=tax, seed=run.seed, params=params, audit=True,
                             taxonomy_given=decl.needs_taxonomy)
    dp = decl.privacy_model == "dp"
    if dp:  # the DP options anonymize passes: --epsilon, and --universe (a taxonomy given wins, as on the CLI)
        universe = None if run.universe is None else list(load_universe(run.universe))
        opts = dataclasses.replace(opts, epsilon=run.epsilon, universe=universe,
                                   given=opts.given | ({"taxonomy"} if tax is not None else set()))
    with PeakMemory() as peak:
        wall, cpu = time.perf_counter(), time.process_time()
        release = spec.run(source, opts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {"wall_seconds": wall, "cpu_seconds": cpu, "peak_memory_mb": peak.mib, "memory_method": peak.method,
           "kind": release.kind, "audit_model": decl.privacy_model}
    if dp:  # no output proves DP: the mechanism is tested (docs/dp.md), the release is not audited
        out.update(audit_satisfied=None, audit_violations=None)
    else:
        used = release.params
        k = used.get("k", run.k)
        m = used.get("m", run.m)
        audit_params = {n: v for n, v in params.items() if n in decl.audit_params}
        model = build_model(decl.privacy_model, k=k, m=m, params=audit_params, original=data)
        report = model.audit(source, release, max_examples=1)
        out.update(audit_satisfied=bool(report.satisfied), audit_violations=int(report.violations))
        out.update(_label_majority(data, release))
    w = run.workload
    if release.kind == "itemsets":  # a top-k list with noisy supports (PrivBasis): no rows to query or mine
        out.update({name: _number(v) for name, v in _itemset_metrics(data, release).items()})
        return out
    metrics = evaluate_release(data, release, queries=w.queries, q=w.q, rng=w.seed, link=release.link)
    if "avg_relative_error" not in metrics and w.queries > 0:  # the COUNT queries every family answers
        workload = generate_workload(data, w.queries, w.q, rng=w.seed)  # the same workload evaluate_release draws
        metrics["avg_relative_error"] = average_relative_error(release, workload)
    if hasattr(release, "published_data"):  # releases whose rows can be mined: the top-k frequent itemsets
        top = top_k_accuracy(data, release, TOP_K)
        metrics.update(topk_precision=top["precision"], topk_recall=top["recall"], topk_f=top["f"])
    if rt_data is not None:
        out.update(_rt_measures(rt_data, release, run))
        metrics.update({name: out.pop(name) for name in ("rt_gcp", "rt_query_error")})
    out.update({name: _number(metrics.get(name)) for name in METRIC_COLUMNS})
    if release.kind in ATTACKED_KINDS and run.attack_targets > 0:
        from graphanon.attacks import row_linkage

        targets = min(run.attack_targets, data.n_records)
        res = row_linkage(data, release, truth=release.link, targets=targets, rng=w.seed)
        out.update(attack_success=res.success, attack_bound=res.bound, attack_bound_kind=res.bound_kind,
                   attack_within_bound=res.within_bound())
    return out


def _label_majority(data, release) -> dict:
    """The majority-label adversary on an l-diverse release, as ``anonymize`` runs it (none: no columns).

    :func:`~graphanon.attacks.label_majority_check`: its success, bound ``1/l``, margin and verdict
    (within ``1/l`` + margin), run on every release that promises ``l`` whatever ``--attack-targets``
    says, so that the study's headline can state it.
    """
    from graphanon.attacks.label_majority import label_majority_check

    result = label_majority_check(data, release)
    if result is None:
        return {}
    return {"label_success": result.success, "label_bound": result.bound, "label_margin": result.margin,
            "label_within_bound": bool(result.within_bound())}


def _rt_measures(rt_data, release, run) -> dict:
    """A relational-transaction release's relational utility and the demographics-plus-items linkage."""
    from graphanon.attacks import rt_linkage

    w = run.workload
    views = rt_views(rt_data, release)
    utility = rt_utility(rt_data, release, queries=w.queries, q=w.q, rng=w.seed, views=views)
    out = {"rt_gcp": utility["rt_gcp"], "rt_query_error": utility.get("rt_query_error")}
    if run.attack_targets > 0:
        k = int(release.params.get("k") or run.k or 1)
        m = int(release.params.get("m") or run.m or 2)
        res = rt_linkage(views.original_rows, views.original_items, views.published_rows, views.published_items,
                         k=k, m=m, truth=release.link, targets=min(run.attack_targets, rt_data.n_records),
                         hierarchies=views.hierarchies, members=views.members, rng=w.seed)
        below = int(res.details["records_below_k"])
        out.update(attack_success=res.success, attack_bound=res.bound, attack_bound_kind=res.bound_kind,
                   attack_within_bound=res.within_bound() and below == 0, attack_below_k=below)
    return out
