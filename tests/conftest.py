"""Shared test fixtures, generators and hypothesis strategies.

``run`` invokes the ``graphanon`` command line in a fresh temporary folder;
``skewed_labels`` draws the benchmarks' skewed sensitive labels. A test file
imports a plain helper with ``from tests.conftest import NAME``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import strategies as st

from graphanon.data import from_iterable


def pytest_configure(config):
    """Write graphanon's bytecode (``__pycache__/*.pyc``) before any test, as installing the package does.

    Many tests run ``graphanon`` or ``python`` in fresh processes (the docs' blocks, the import and
    kernel-cache checks). Where ``PYTHONDONTWRITEBYTECODE`` is set (this CI image sets it), each of
    them otherwise compiled every graphanon module it imports from source: 0.1-0.2 s of CPU a
    process on the shared 2-core machine (docs/testing.md). The children still write nothing;
    a stale ``.pyc`` is never read (Python checks the source's size and modification time).
    Idempotent and safe under pytest-xdist (each file is written atomically).
    """
    import compileall
    from pathlib import Path

    import graphanon

    compileall.compile_dir(str(Path(graphanon.__file__).parent), quiet=1)


@st.composite
def small_records(draw, max_records: int = 25, max_items: int = 8, min_records: int = 1):
    """A list of records over integer items 0..max_items-1."""
    n_items = draw(st.integers(1, max_items))
    n = draw(st.integers(min_records, max_records))
    return [
        sorted(draw(st.sets(st.integers(0, n_items - 1), max_size=n_items)))
        for _ in range(n)
    ]


def brute_support(records, itemset) -> int:
    s = set(itemset)
    return sum(1 for r in records if s <= set(r))


def brute_km_violations(records, k: int, m: int | None) -> set:
    """Minimal itemsets of size <= m with support in (0, k), by enumeration."""
    items = sorted({x for r in records for x in r})
    longest = max((len(r) for r in records), default=0)
    top = longest if m is None else min(m, longest)
    found = set()
    for size in range(1, top + 1):
        for combo in itertools.combinations(items, size):
            sup = brute_support(records, combo)
            if 0 < sup < k and all(
                brute_support(records, sub) >= k for sub in itertools.combinations(combo, size - 1) if sub
            ):
                found.add(combo)
    return found


def cli(*args, **invoke):
    """``graphanon ARGS`` in-process (click's ``CliRunner``) in the current folder; its ``Result``.

    Arguments are turned into text (paths, numbers). Exceptions other than the command line's own
    exits propagate (a traceback is a test failure). Keywords go to ``CliRunner.invoke`` (``input=``,
    ``env=``, ``terminal_width=``; ``catch_exceptions=True`` where a test looks at the traceback
    itself, as the fuzz tests do). For module-scoped fixtures and tests that pass absolute paths;
    a test that writes files takes ``run``.
    """
    from click.testing import CliRunner

    from graphanon.cli import main

    invoke.setdefault("catch_exceptions", False)
    return CliRunner().invoke(main, [str(arg) for arg in args], **invoke)


@pytest.fixture
def run(tmp_path, monkeypatch):
    """``run(*args)``: ``graphanon ARGS`` in-process (click's ``CliRunner``) in ``tmp_path``; its ``Result``.

    Exceptions other than the command line's own exits propagate (a traceback is a test failure).
    """
    monkeypatch.chdir(tmp_path)
    return cli


def skewed_labels(n: int, n_labels: int = 30, seed: int = 0) -> list[str]:
    """``n`` sensitive labels ``s0..`` from the benchmarks' fixed skewed distribution (p_i ~ 0.95^i), seeded."""
    p = 0.95 ** np.arange(n_labels)
    return [f"s{int(v)}" for v in np.random.default_rng(seed).choice(n_labels, size=n, p=p / p.sum())]


@pytest.fixture
def tiny():
    return from_iterable([["a", "b"], ["a", "c"], ["a", "b", "c"], ["d"]])


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_recoding(records, draw, n_items: int):
    """Data over items ``0..n_items-1`` and a random recoding of it (groups g0..g2, or suppressed)."""
    from graphanon.release import GlobalRecoding

    d = from_iterable(records, items=list(range(n_items)))
    groups = draw.draw(st.lists(st.integers(-1, 2), min_size=n_items, max_size=n_items))
    mapping = {j: (None if g < 0 else f"g{g}") for j, g in enumerate(groups)}
    return d, mapping, GlobalRecoding.from_mapping(d, mapping)


def rows_by_record(rel) -> list[str]:
    """Each original record's own published row, rendered, in the original order
    (through the release's private link: the saved release no longer knows it)."""
    return [rel.render_record(int(p)) for p in rel.link.row_of_record]


@pytest.fixture(scope="session")
def dask_client():
    """A 2-worker LocalCluster (threads, no dashboard) shared by the distributed tests; skipped without dask."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def cli_on_test_cluster(dask_client, monkeypatch):
    """``--scheduler ADDRESS`` of the CLI connects to the test cluster instead of starting one; yields the
    list of addresses the CLI asked for."""
    import contextlib

    import graphanon.distributed

    used = []

    @contextlib.contextmanager
    def fake_connect(address):
        used.append(address)
        yield dask_client

    monkeypatch.setattr(graphanon.distributed, "connect", fake_connect)
    return used


def pytest_collection_modifyitems(config, items):
    """Deselect ``tests/docs/test_notebooks_figures.py``'s execution of a notebook that nbmake also runs
    in this session (``--nbmake ... notebooks``, the README's command): ``notebooks/conftest.py``
    checks the figures of nbmake's execution instead, so each notebook runs once, not twice."""
    from pathlib import Path

    by_nbmake = {Path(str(item.path)).resolve() for item in items if getattr(item, "nbmake", False)}
    if not by_nbmake:
        return
    left, kept = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        path = callspec.params.get("path") if callspec is not None else None
        if getattr(item, "originalname", None) == "test_notebook_drawings_show_inline" and path in by_nbmake:
            left.append(item)
        else:
            kept.append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
