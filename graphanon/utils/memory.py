"""One memory budget that algorithms and audits consult before large allocations.

Searches over itemsets can grow exponentially with the attacker knowledge
``m`` and with the data. Rather than let the operating system kill the
process, each such step estimates the bytes it is about to allocate and
calls :func:`check_memory`, which raises :class:`~graphanon.errors.MemoryBudgetError`
(a :class:`~graphanon.errors.GraphanonError`) naming the parameter to change.

The budget is, in order of precedence:

1. the value set with :func:`set_max_memory` / :func:`max_memory` (CLI:
   ``graphanon --max-memory 4G ...``);
2. the environment variable ``GRAPHANON_MAX_MEMORY`` (same syntax);
3. 75% of the physical memory, or of the address-space limit
   (``RLIMIT_AS``, e.g. set by ``prlimit`` or ``ulimit -v``) when lower.

A check compares the estimate with the budget minus the memory the process
already holds (its resident set). Estimates are deliberately rough upper
bounds of the arrays a step creates; they keep the process within the
budget's order of magnitude, they do not account every byte.

Examples
--------
>>> with max_memory("2G"):
...     get_max_memory() == 2 * 1024**3
True
>>> parse_memory("512M"), parse_memory("1.5G"), parse_memory(1000)
(536870912, 1610612736, 1000)
>>> try:
...     with max_memory("1M"):
...         check_memory(10**9, what="this step", advice="use less data")
... except MemoryBudgetError as exc:
...     print(str(exc)[:60])
this step needs about 954 MB, more than the memory budget al
"""

from __future__ import annotations

import ctypes
import os
import re
from contextlib import contextmanager
from typing import Any

import numpy as np

from graphanon.errors import MemoryBudgetError, ParameterError

__all__ = [
    "MemoryBudgetError",
    "available_memory",
    "check_memory",
    "cost_blocks",
    "format_bytes",
    "get_max_memory",
    "max_memory",
    "parse_memory",
    "release_free_memory",
    "set_max_memory",
]

_DEFAULT_FRACTION = 0.75
_ENV = "GRAPHANON_MAX_MEMORY"
_budget: int | None = None
_UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_memory(value) -> int:
    """Bytes from ``4G``, ``500M``, ``1.5g``, ``75%`` (of physical memory) or a number of bytes."""
    if isinstance(value, bool):
        raise ParameterError(f"max memory must be a size such as 4G or 500M, got {value!r}")
    if isinstance(value, (int, float)):
        if value <= 0:
            raise ParameterError(f"max memory must be positive, got {value!r}")
        return int(value)
    text = str(value).strip().upper()
    match = re.fullmatch(r"(\d+(?:\.\d*)?)\s*([KMGT]?)I?B?|(\d+(?:\.\d*)?)\s*%", text)
    if not match:
        raise ParameterError(
            f"max memory must be a size such as 4G, 500M or 75% (of physical memory), got {value!r}"
        )
    if match.group(3) is not None:
        size = float(match.group(3)) / 100 * _physical_memory()
    else:
        size = float(match.group(1)) * _UNITS[match.group(2)]
    if size <= 0:
        raise ParameterError(f"max memory must be positive, got {value!r}")
    return int(size)


def format_bytes(n: float) -> str:
    """``1536 -> '1.5 KB'`` (powers of 1024)."""
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit in ("B", "MB", "KB") else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"  # pragma: no cover


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 * 1024**3


def _address_space_limit() -> int | None:
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _resident_memory() -> int:
    """Bytes the process holds now (resident set; 0 when unknown)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - non-Linux
        return 0


def get_max_memory() -> int:
    """The memory budget in bytes (see the module docstring for its sources)."""
    if _budget is not None:
        return _budget
    env = os.environ.get(_ENV)
    if env:
        return parse_memory(env)
    total = _physical_memory()
    limit = _address_space_limit()
    if limit is not None:
        total = min(total, limit)
    return int(_DEFAULT_FRACTION * total)


def set_max_memory(value) -> int | None:
    """Set the budget (a size as for :func:`parse_memory`, or None for the default); return the previous setting."""
    global _budget
    previous = _budget
    _budget = None if value is None else parse_memory(value)
    return previous


@contextmanager
def max_memory(value):
    """Context manager: the budget is ``value`` inside the block."""
    previous = set_max_memory(value)
    try:
        yield
    finally:
        global _budget
        _budget = previous


def available_memory() -> int:
    """Budget minus the resident memory of the process (at least 0)."""
    return max(0, get_max_memory() - _resident_memory())


def check_memory(needed: float, *, what: str, advice: str) -> None:
    """Raise :class:`MemoryBudgetError` when ``needed`` bytes exceed the available budget.

    Parameters
    ----------
    needed : float
        Estimated bytes the next step allocates.
    what : str
        The step, e.g. ``"the threat search (k=5, m=inf) at level 4"``.
    advice : str
        What to change, in the caller's terms (e.g. ``"pass -m 3"``); the
        message adds how to raise the budget.
    """
    avail = available_memory()
    if needed > avail:
        raise MemoryBudgetError(
            f"{what} needs about {format_bytes(needed)}, more than the memory budget allows "
            f"({format_bytes(avail)} free of {format_bytes(get_max_memory())}); {advice}, or raise the "
            f"budget (CLI: graphanon --max-memory SIZE; Python: graphanon.set_max_memory)"
        )


def cost_blocks(costs, limit: int) -> list[tuple[int, int]]:
    """Split ``range(len(costs))`` into consecutive ``(start, stop)`` blocks of total cost about ``limit``.

    Each block's cost is at most ``limit`` unless a single element exceeds
    it (then that element is a block of its own).

    Examples
    --------
    >>> cost_blocks([3, 3, 3, 10, 1], 6)
    [(0, 2), (2, 3), (3, 4), (4, 5)]
    """
    costs = np.asarray(costs, dtype=np.int64)
    edges, start, total = [0], 0, np.cumsum(costs)
    while start < len(costs):
        base = total[start] - costs[start]
        stop = max(start + 1, int(np.searchsorted(total, base + limit, side="right")))
        edges.append(stop)
        start = stop
    return list(zip(edges[:-1], edges[1:], strict=True))


_trim: Any = None  # glibc's malloc_trim once looked up; False where there is none


def release_free_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc ``malloc_trim(0)``); False elsewhere.

    Arrays freed between the steps of a job (a kNN search's buffers, a
    sort's temporaries) leave free pages inside the C heap and its per-thread
    arenas, which glibc returns to the system only at the heap's top: the
    resident set, and so the next step's peak, keeps them. Calling this
    between steps returns them (a few milliseconds); nothing is freed that
    is still in use, so results cannot change.

    Returns
    -------
    bool
        Whether memory was handed back (glibc's answer); False without glibc.

    Examples
    --------
    >>> release_free_memory() in (True, False)
    True
    """
    global _trim
    if _trim is None:
        try:
            _trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError, TypeError):  # not glibc (macOS, musl; Windows: no CDLL(None))
            _trim = False
    return bool(_trim(0)) if _trim else False
