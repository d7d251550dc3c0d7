"""Wall time, CPU time and peak memory of one child process, measured from a small launcher.

Linux counts, in a child's ``ru_maxrss``, the resident size of the parent it
was forked (or spawned) from: at ``exec`` the kernel keeps the high-water mark
of the old memory image, which is the parent's. A benchmark parent that holds
bms1 and a taxonomy (about 300 MiB) would give every child at least that
peak, whatever the child used. So the child is started by a fresh,
minimal interpreter (``python -I -S``, about 9 MiB) that spawns it, waits
for it with ``os.wait4`` and reports its rusage and wall time as JSON: the
peak is then the child's own (or the launcher's 9 MiB, whichever is larger).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

LAUNCHER = r"""
import json, os, signal, sys, time
timed_out = []
def stop(*_):
    timed_out.append(True)
    os.kill(pid, signal.SIGKILL)
signal.signal(signal.SIGALRM, stop)
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[3], sys.argv[3:], os.environ)
if float(sys.argv[2]) > 0:
    signal.setitimer(signal.ITIMER_REAL, float(sys.argv[2]))
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
signal.setitimer(signal.ITIMER_REAL, 0)
with open(sys.argv[1], "w") as fh:
    json.dump({"code": os.waitstatus_to_exitcode(status), "timed_out": bool(timed_out), "wall_s": wall,
               "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}, fh)
"""


class ChildTimeout(RuntimeError):
    """The child did not finish within its time limit (it was killed)."""


def measure_child(argv, *, cwd=None, env=None, stdout=None, timeout: float = 0) -> dict:
    """Run ``argv`` to completion from a minimal launcher: its wall and CPU seconds and peak RSS (MiB).

    Parameters
    ----------
    argv : sequence of str
        The command; ``argv[0]`` is looked up on ``PATH``.
    cwd, env :
        As for :class:`subprocess.Popen`.
    stdout : file object, optional
        Where the child's standard output goes (default: discarded).
    timeout : float
        Seconds after which the child is killed and :class:`ChildTimeout`
        raised (0: no limit).

    Returns
    -------
    dict
        ``wall_s``, ``cpu_s``, ``peak_mib`` of the child alone.

    Raises
    ------
    RuntimeError
        When the child exits with a non-zero code (its standard error's tail is included).
    ChildTimeout
        When it ran out of ``timeout``.

    Examples
    --------
    >>> import sys
    >>> r = measure_child([sys.executable, "-c", "b = bytearray(50 * 2**20); b[::4096] = b'x' * len(b[::4096])"])
    >>> 50 < r["peak_mib"] < 120
    True
    >>> measure_child([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    ... # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ChildTimeout: the command did not finish in 0.5 s (killed)
    """
    fd, report = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, report, str(timeout), *map(str, argv)], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, stdout=stdout if stdout is not None else subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise RuntimeError(f"launcher failed ({done.returncode}): {done.stderr.decode()[-800:]}")
        with open(report) as fh:
            out = json.load(fh)
    finally:
        os.unlink(report)
    if out["timed_out"]:
        err = ChildTimeout(f"{' '.join(map(str, argv))} did not finish in {timeout} s (killed after "
                           f"{out['cpu_s']:.1f} s CPU)")
        err.stats = {"wall_s": out["wall_s"], "cpu_s": out["cpu_s"], "peak_mib": out["peak_mib"]}
        raise err
    if out["code"] != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed ({out['code']}): {done.stderr.decode()[-800:]}")
    return {"wall_s": out["wall_s"], "cpu_s": out["cpu_s"], "peak_mib": out["peak_mib"]}
