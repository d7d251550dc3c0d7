"""The command line's progress: a one-time "compiling kernels" note, and no frozen 0/N count (issue 32)."""

from __future__ import annotations

import numba

import graphanon.utils.numba_cache  # noqa: F401  (registers the compile listener)
from graphanon.cli._app import COMPILE_NOTE, progress_bar
from graphanon.utils.progress import compile_watchers


def _function(module: str):
    namespace = {"__name__": module}
    exec("def probe(x):\n    return x + 1\n", namespace)  # a fresh function: never in numba's cache
    return namespace["probe"]


def test_a_graphanon_kernel_compile_is_announced_others_not():
    seen: list[str] = []
    compile_watchers.append(lambda: seen.append("compiling"))
    try:
        numba.njit(_function("someone_else"))(1)
        assert seen == []
        numba.njit(_function("graphanon._probe"))(1)
        assert seen == ["compiling"]
        kernel = numba.njit(_function("graphanon._probe2"))
        kernel(1)
        kernel(2)  # compiled once: the second call loads nothing and says nothing
        assert seen == ["compiling", "compiling"]
    finally:
        compile_watchers.clear()


def test_the_bar_prints_the_note_once_and_hides_a_count_before_the_first_unit(capsys):
    with progress_bar(True) as callback:
        assert len(compile_watchers) == 1
        numba.njit(_function("graphanon._probe3"))(1)
        numba.njit(_function("graphanon._probe4"))(1)
        callback(0, 2, "l-diverse graph (min-cost flow)")
    assert compile_watchers == []  # removed when the bar ends
    out = capsys.readouterr()
    assert (out.out + out.err).count(COMPILE_NOTE) == 1


def test_count_shown_only_once_a_unit_is_done(monkeypatch):
    from rich.progress import Progress

    updates = []
    original = Progress.update

    def spy(self, task_id, **kwargs):
        updates.append(kwargs)
        return original(self, task_id, **kwargs)

    monkeypatch.setattr(Progress, "update", spy)
    with progress_bar(True) as callback:
        callback(0, 2, "l-diverse graph (min-cost flow)")
        callback(1, 2, "l-diverse graph (min-cost flow)")
        callback(3, 0, "working")
    assert updates[0]["count"] == "" and updates[0]["total"] is None  # pulsing, no frozen 0/2
    assert updates[1]["count"] == "1/2" and updates[1]["total"] == 2
    assert updates[2]["count"] == "" and updates[2]["total"] is None  # unknown length: pulsing
