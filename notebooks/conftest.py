"""``pytest --nbmake notebooks``: every drawing cell must show its figure inline (``image/png``).

nbmake executes each notebook in a Jupyter kernel and fails on a cell's error. This hook also reads
the notebook nbmake executed and fails its test when a cell that calls a ``draw_*`` function shows
no image: the check of ``tests/docs/test_notebooks_figures.py``, which otherwise executes each
notebook a second time (``tests/conftest.py`` deselects those runs when nbmake runs the notebook
in the same session). As there, ``MPLBACKEND`` is removed from the kernel's environment (a
backend set there replaces the inline one and the figures disappear).
"""

from __future__ import annotations

import os

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not getattr(item, "nbmake", False):
        return (yield)
    from nbmake.nb_run import NotebookRun

    from tests.docs.test_notebooks_figures import cells_without_image

    runs = []
    execute = NotebookRun.execute

    def keep(self):
        runs.append(execute(self))
        return runs[-1]

    backend = os.environ.pop("MPLBACKEND", None)
    NotebookRun.execute = keep
    try:
        result = yield
    finally:
        NotebookRun.execute = execute
        if backend is not None:
            os.environ["MPLBACKEND"] = backend
    assert len(runs) == 1, f"nbmake ran {len(runs)} notebooks for {item.name} (its NotebookRun changed?)"
    problems = cells_without_image(runs[0].nb, item.name)
    assert problems == [], "\n".join(problems)
    return result
