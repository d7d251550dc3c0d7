"""The ``graphanon`` process ends without the interpreter's teardown, and loses nothing by it.

``main()`` run as the process's own command (no ``args``) ends through
``graphanon.cli._app.exit_without_teardown``: ``atexit`` handlers run and the
output is flushed, but module and object finalizers do not (a ``__del__`` of a
module-level object is the probe). Called with ``args`` (``CliRunner``), with a
tracer installed, or with a live non-daemon thread, it exits the usual way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import atexit, os, sys, threading
atexit.register(lambda: print("ATEXIT", flush=True))
class Probe:
    def __del__(self, write=os.write):  # os itself may be gone by then
        write(1, b"TEARDOWN\\n")
probe = Probe()
{setup}
from graphanon.cli import main
sys.argv = ["graphanon", *{args!r}]
main()
"""


#: a non-daemon thread alive until ``exit_without_teardown`` has returned (if it ended the process, no TEARDOWN)
LIVE_THREAD = """
import graphanon.cli._app as app
done = threading.Event()
threading.Thread(target=done.wait).start()
checked = app.exit_without_teardown
def exit_then_release(code):
    checked(code)
    done.set()
app.exit_without_teardown = exit_then_release
"""


def _run(args, cwd, setup: str = "") -> subprocess.CompletedProcess:
    # no coverage tracer in the child (it would take the plain exit, as it must)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_CORE")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", PROBE.format(setup=setup, args=list(args))], capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)


def test_a_finished_command_skips_teardown_but_runs_atexit_and_flushes(run, tmp_path):
    out = _run(["datasets", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr
    body, _, tail = out.stdout.rpartition("ATEXIT")
    assert body == run("datasets", "--json").output  # every byte of the output, before the atexit handlers
    assert "TEARDOWN" not in tail


def test_a_refused_command_keeps_its_exit_code_and_one_line_error(tmp_path):
    out = _run(["anonymize", "bms1", "-a", "cut", "-k", "0", "-o", "never.json"], tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("graphanon: error: ") and out.stderr.count("\n") == 1
    assert out.stdout == "ATEXIT\n"
    assert not (tmp_path / "never.json").exists()


@pytest.mark.parametrize("setup", [
    "sys.settrace(lambda *a: None)",  # a tracer (coverage, a debugger) reports after the program ends
    "sys.setprofile(lambda *a: None)",  # a profiler (cProfile) too
    LIVE_THREAD,  # the interpreter waits for it
])
def test_plain_exit_when_something_could_notice(setup, tmp_path):
    out = _run(["datasets", "--json"], tmp_path, setup)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith("ATEXIT\nTEARDOWN\n")


def test_in_process_callers_get_system_exit(run):
    from graphanon.cli import main

    with pytest.raises(SystemExit) as exc:
        main.main(["datasets"], prog_name="graphanon")
    assert exc.value.code == 0
    assert run("anonymize", "bms1", "-a", "cut", "-k", "0", "-o", "x.json").exit_code == 2


def test_a_message_code_takes_the_plain_exit():
    from graphanon.cli._app import exit_without_teardown

    assert exit_without_teardown("a message for stderr") is None
