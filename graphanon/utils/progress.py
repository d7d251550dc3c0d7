"""The one progress-callback signature of graphanon (bottom layer).

Every long-running function takes ``progress=None`` or a callable
``progress(done, total, message)``: ``done`` of ``total`` units of the
current phase are finished, ``message`` names the phase. The command line
turns it into a progress bar; notebooks may print or ignore it.

Examples
--------
>>> seen = []
>>> report(lambda done, total, message: seen.append((done, total, message)), 1, 4, "ordering")
>>> report(None, 2, 4, "ordering")  # no callback: nothing happens
>>> seen
[(1, 4, 'ordering')]
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ProgressCallback", "compile_watchers", "compiling", "report"]

#: ``progress(done, total, message)``; see the module docstring.
ProgressCallback = Callable[[int, int, str], None]

#: Called with no argument when numba starts compiling a kernel it did not find in its on-disk cache
#: (:mod:`graphanon.utils.numba_cache` listens to numba's compile events); the command line adds one that
#: prints a one-time note while its progress bar runs.
compile_watchers: list[Callable[[], None]] = []


def compiling() -> None:
    """Tell every watcher in :data:`compile_watchers` that a kernel is being compiled.

    Examples
    --------
    >>> seen = []
    >>> compile_watchers.append(lambda: seen.append("compiling"))
    >>> compiling(); compile_watchers.clear(); seen
    ['compiling']
    """
    for watcher in list(compile_watchers):
        watcher()


def report(progress: ProgressCallback | None, done: int, total: int, message: str) -> None:
    """Call ``progress(done, total, message)`` unless ``progress`` is None.

    Parameters
    ----------
    progress : callable(done, total, message) or None
    done, total : int
        Units finished and units in the current phase.
    message : str
        The phase (shown next to the progress bar).
    """
    if progress is not None:
        progress(int(done), int(total), message)
