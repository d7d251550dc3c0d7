"""Connecting to Dask: a scheduler address, or ``local:N`` for a LocalCluster on this machine."""

from __future__ import annotations

import re
from contextlib import contextmanager

from graphanon.errors import ParameterError

__all__ = ["connect", "require_dask"]

_INSTALL = "pip install 'graphanon[dask]'"


def require_dask():
    """The ``distributed`` module, or a :class:`~graphanon.errors.ParameterError` saying what to install."""
    try:
        import distributed
    except ImportError:
        raise ParameterError(f"running on Dask needs dask.distributed, which is not installed: {_INSTALL}") from None
    return distributed


@contextmanager
def connect(address: str, *, timeout: float = 10.0):
    """A ``dask.distributed.Client`` for ``address``, closed (with its cluster) on exit.

    Parameters
    ----------
    address : str
        ``local:N`` starts a ``LocalCluster`` of ``N`` single-threaded worker
        processes on this machine; anything else is the address of a running
        scheduler (``tcp://host:8786``, started with ``dask scheduler``).
    timeout : float
        Seconds to wait for the scheduler.

    Raises
    ------
    ParameterError
        dask is not installed, ``local:N`` has no valid ``N``, or the
        scheduler cannot be reached.

    Examples
    --------
    >>> with connect("local:1") as client:  # doctest: +SKIP
    ...     KmAnonymity(5, 2).audit(data, release, client=client)
    """
    distributed = require_dask()
    local = re.fullmatch(r"local:(\S*)", address.strip())
    if local:
        n = local.group(1)
        if not n.isdigit() or int(n) < 1:
            raise ParameterError(f"local:N needs a number of workers N >= 1, got {address!r}")
        cluster = distributed.LocalCluster(n_workers=int(n), threads_per_worker=1, dashboard_address=None)
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as exc:
        raise ParameterError(
            f"cannot reach the Dask scheduler at {address!r} ({type(exc).__name__}: {exc}); "
            "start one with `dask scheduler`, or use local:N for N workers on this machine"
        ) from None
    with client:
        yield client
