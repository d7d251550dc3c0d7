"""Every command of every ```bash and ```console block of README.md and docs/**/*.md runs.

The blocks of one page run in order, command by command (a line; a trailing ``\\`` joins
the next), in one scratch folder holding the example files of
``tests/docs/test_docs_snippets.py``, with ``graphanon`` and ``python`` on ``PATH`` meaning this
checkout's package (``python -m graphanon`` with the repository on ``PYTHONPATH``). Each
command must exit 0, or the code its trailing ``# exit N`` comment names (an audit that
finds a violation exits 1). Output shown right after a ```bash block in a ```text block
is the block's last command's stdout; in a ```console block each ``$ command`` line is
followed by its stdout; both are compared as ``tests/docs_blocks.py`` says (``...`` for
any text). A command that starts by making and activating a venv and installing this
package (the README's first command: ``python3 -m venv .venv && . .venv/bin/activate && pip
install -e ".[dev]" && ...``) runs from what follows the install: the test already runs in
that environment. A block preceded by ``<!-- no-run -->`` is skipped: keep those few (pip install,
apt-get, a cluster on other machines, a multi-minute run) and say why next to them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs_blocks import ROOT, blocks, doc_files, doc_id, output_matches, write_example_files

pytestmark = pytest.mark.slow  # one of the slowest files (docs/testing.md)

_EXIT = re.compile(r"#\s*exit (\d+)\s*$")
#: ``python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[extras]" && `` before a command
_INSTALL_PREFIX = re.compile(
    r'^python3? -m venv (?P<venv>\S+) && \. (?P=venv)/bin/activate && pip install -e "\.(\[[\w,]+\])?" && '
)
TIMEOUT = 300


@dataclass(frozen=True)
class Command:
    """One documented command line and what the page says it does."""

    line: int  # 1-based line of the page
    text: str
    exit_code: int = 0
    shown: str | None = None  # the stdout the page shows, if it shows one


def commands(path: Path) -> list[Command]:
    """The runnable commands of a page, in page order."""
    found: list[Command] = []
    for block in blocks(path):
        if block.no_run or block.lang not in ("bash", "console"):
            continue
        pending: list[tuple[int, str]] = []
        shown: list[str] | None = None
        lines = block.code.split("\n")
        n = 0
        while n < len(lines):
            lineno, text = block.first_line + n, lines[n]
            while text.endswith("\\") and n + 1 < len(lines):
                n += 1
                text = text[:-1] + " " + lines[n].strip()
            n += 1
            if block.lang == "console":
                if text.startswith("$ "):
                    if shown is not None and pending:
                        pending[-1] = (pending[-1][0], pending[-1][1] + "\0" + "\n".join(shown))
                    pending.append((lineno, text[2:]))
                    shown = []
                elif shown is not None:
                    shown.append(text)
            elif text.strip() and not text.lstrip().startswith("#"):
                pending.append((lineno, _INSTALL_PREFIX.sub("", text)))
        if block.lang == "console" and shown is not None and pending:
            pending[-1] = (pending[-1][0], pending[-1][1] + "\0" + "\n".join(shown))
        for k, (lineno, text) in enumerate(pending):
            text, _, out = text.partition("\0")
            expected = _EXIT.search(text)
            if block.lang == "bash" and k == len(pending) - 1 and block.output is not None:
                out = block.output.code
            found.append(
                Command(lineno, text, int(expected.group(1)) if expected else 0, out if out.strip() else None)
            )
    return found


def _shims(folder: Path) -> dict[str, str]:
    """An environment whose ``graphanon`` and ``python`` are this checkout's."""
    folder.mkdir(exist_ok=True)
    for name, target in (("graphanon", f'"{sys.executable}" -m graphanon'), ("python", f'"{sys.executable}"')):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        shim.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "MPLBACKEND": "Agg",
        "COLUMNS": "120",
        "NO_COLOR": "1",
    }


def run_page(path: Path, folder: Path) -> list[str]:
    """Run the page's commands in ``folder``; one message per command that broke its promise."""
    folder.mkdir(parents=True, exist_ok=True)
    write_example_files(folder)
    env = _shims(folder / ".bin")
    failures = []
    for command in commands(path):
        where = f"{doc_id(path)}:{command.line}: `{command.text}`"
        try:
            done = subprocess.run(
                ["bash", "-c", command.text], cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{where} did not finish in {TIMEOUT} s")
            continue
        if done.returncode != command.exit_code:
            failures.append(
                f"{where} exited {done.returncode} (the page expects {command.exit_code})\n"
                f"  stderr: {done.stderr.strip()[-1500:]}"
            )
        elif command.shown is not None and not output_matches(command.shown, done.stdout):
            failures.append(f"{where} printed\n{done.stdout}\n  but the page shows\n{command.shown}")
    return failures


@pytest.mark.parametrize("doc", [d for d in doc_files() if commands(d)], ids=doc_id)
def test_bash_blocks_run(doc, tmp_path):
    failures = run_page(doc, tmp_path)
    assert not failures, "\n\n".join(failures)


def test_a_renamed_option_fails(tmp_path):
    """A planted break: a documented option that does not exist is caught, with page:line."""
    page = tmp_path / "page.md"
    page.write_text("# p\n\n```bash\ngraphanon datasets\ngraphanon anonymize nr_table1 -a nr -k 2 --sed 1 -o r.json\n```\n")
    failures = run_page(page, tmp_path / "run")
    assert len(failures) == 1
    assert ":5: `graphanon anonymize nr_table1" in failures[0] and "--sed" in failures[0]


def test_shown_output_is_compared(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```bash\necho 3 && echo x\n```\n\n```text\n3\ny\n```\n\n```console\n$ echo 4\n4\n$ echo 5\n6\n```\n")
    failures = run_page(page, tmp_path / "run")
    assert [f.split("`")[1] for f in failures] == ["echo 3 && echo x", "echo 5"]


def test_expected_exit_codes(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```bash\nfalse   # exit 1\ntrue   # exit 1\n```\n\n<!-- no-run -->\n```bash\nfalse\n```\n")
    failures = run_page(page, tmp_path / "run")
    assert len(failures) == 1 and "`true   # exit 1` exited 0" in failures[0]


def test_readme_opens_with_one_command_that_installs_and_runs_the_main_job():
    """The README's first command is one line for a fresh machine; this suite runs its job part."""
    first = next(b for b in blocks(ROOT / "README.md") if b.lang == "bash")
    assert not first.no_run and first.code.count("\n") == 0
    assert _INSTALL_PREFIX.match(first.code), first.code
    job = commands(ROOT / "README.md")[0]
    assert job.text.startswith("graphanon anonymize bms1 ") and "graphanon audit " in job.text
    assert job.shown is not None and "satisfied" in job.shown


def test_an_install_prefix_is_run_from_the_job(tmp_path):
    page = tmp_path / "page.md"
    page.write_text('```bash\npython3 -m venv .venv && . .venv/bin/activate && pip install -e ".[dev]" && echo job\n```\n')
    assert [c.text for c in commands(page)] == ["echo job"]
