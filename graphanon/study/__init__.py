r"""Studies: methods x parameters x datasets -> one tidy table, its plots and a self-contained report.

>>> from graphanon.study import expand_grid, run_study
>>> plan = expand_grid(["mhghs", "partition"], ["groceries"], k=[2, 5], m=1, taxonomy="balanced:5")
>>> table = run_study(plan.runs)
>>> table[["method", "k", "m", "audit_satisfied"]].to_string(index=False)
... # doctest: +NORMALIZE_WHITESPACE
'   method  k    m  audit_satisfied\n    mhghs  2    1             True\n    mhghs  5    1             True\npartition  2 <NA>             True\npartition  5 <NA>             True'

The table (CSV and Parquet), the figures of :mod:`graphanon.viz.study` and
the HTML report (:func:`graphanon.study.report.write_outputs`) are what
``graphanon compare`` writes; :func:`headline` says in one sentence which
runs failed and whether every release met its model.
"""

from graphanon.study._run import method_declarations, run_method
from graphanon.study.execute import METRIC_COLUMNS, execute_run
from graphanon.study.grid import GridPlan, StudyRun, WorkloadSpec, expand_grid
from graphanon.study.report import headline
from graphanon.study.runner import COLUMNS, run_study, tidy_table

__all__ = ["COLUMNS", "METRIC_COLUMNS", "GridPlan", "StudyRun", "WorkloadSpec", "execute_run", "expand_grid",
           "headline", "method_declarations", "run_method", "run_study", "tidy_table"]
