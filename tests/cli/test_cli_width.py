"""Every command readable at 80 columns: each ``--help`` and each command's normal output, and an example in every help.

A line over 80 characters fails the test, naming the command and the line.
The examples of every ``--help`` (graphanon.cli.examples) that run in seconds
on the bundled data are run as shown.
"""

from __future__ import annotations

import shlex

import pytest

from graphanon.cli import main
from graphanon.cli.draw import KINDS
from graphanon.cli.examples import EXAMPLES
from graphanon.cli.registry import registered
from tests.conftest import cli

WIDTH = 80


def run(args, **kwargs):
    return cli(*args, env={"COLUMNS": str(WIDTH)}, terminal_width=WIDTH, **kwargs)


def too_wide(output: str) -> list[str]:
    return [line for line in output.splitlines() if len(line) > WIDTH]


COMMANDS = sorted(main.commands)
HELPS = [[], *([name] for name in COMMANDS), *(["draw", kind] for kind in KINDS)]


@pytest.mark.parametrize("args", HELPS, ids=lambda a: " ".join(a) or "graphanon")
def test_every_help_fits_80_columns(args):
    res = run([*args, "--help"])
    assert res.exit_code == 0, res.output
    assert too_wide(res.output) == [], f"graphanon {' '.join(args)} --help"


@pytest.mark.parametrize("args", [[], *([name] for name in COMMANDS)], ids=lambda a: " ".join(a) or "graphanon")
def test_every_help_shows_an_example(args):
    res = run([*args, "--help"])
    assert "Examples:" in res.output, f"graphanon {' '.join(args)} --help has no example (graphanon.cli.examples)"
    examples = res.output.split("Examples:", 1)[1]
    assert f"graphanon {args[0] if args else ''}".strip() in examples


def test_the_checker_catches_a_wide_line():
    assert too_wide("short\n" + "x" * 81) == ["x" * 81]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder with an mHgHs release (m.json) and a CAHD one with its link (c.json, c.link.json)."""
    d = tmp_path_factory.mktemp("width")
    res = run(["anonymize", "liuwang_fig1", "-a", "mhghs", "-k", 2, "-m", 2, "-o", d / "m.json"])
    assert res.exit_code == 0, res.output
    res = run(["anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "-o", d / "c.json",
               "--link-out", d / "c.link.json"])
    assert res.exit_code == 0, res.output
    return d


NORMAL = [
    ["datasets"],
    ["algorithms"],
    *(["algorithms", name] for name in sorted(registered())),
    ["taxonomy", "groceries"],
    ["anonymize", "liuwang_fig1", "-a", "hghs", "-k", 2, "-m", 2, "-o", "h.json"],
    ["anonymize", "nr_table1", "-a", "nr", "-k", 2, "--param", "l=2", "-o", "n.json"],
    ["audit", "liuwang_fig1", "m.json", "--model", "km", "-k", 2, "-m", 2],
    ["audit", "liuwang_fig1", "m.json", "--model", "km", "-k", 3, "-m", 2],  # violated: the worst case printed
    ["evaluate", "liuwang_fig1", "m.json"],
    ["report", "liuwang_fig1", "m.json"],
    ["attack", "nr_table1", "c.json"],
    ["attack", "nr_table1", "c.json", "--link", "c.link.json", "--known-labels", 6],
    ["draw", "taxonomy", "liuwang_fig1", "--release", "m.json", "-o", "t.png"],
]


@pytest.mark.parametrize("args", NORMAL, ids=lambda a: " ".join(map(str, a[:2])))
def test_every_command_output_fits_80_columns(args, folder, monkeypatch):
    monkeypatch.chdir(folder)
    res = run(args)
    assert res.exit_code in (0, 1), res.output
    assert res.output.strip()
    assert too_wide(res.output) == [], f"graphanon {' '.join(map(str, args))}"


# The examples that take seconds, in the order shown (later ones read the files earlier ones write).
RUN_EXAMPLES = ["datasets", "algorithms", "anonymize", "attack", "audit", "evaluate", "report", "draw", "taxonomy"]
SKIP = ("search.html", "ICD9.paths", "s.json")  # minutes of search, a file of the user's, a swap release


def test_the_examples_run_as_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in RUN_EXAMPLES:
        lines = EXAMPLES[name]
        joined = " ".join(line.split("  #")[0].strip() for line in lines).replace("\\ ", "")
        for command in joined.split("graphanon ")[1:]:
            if any(s in command for s in SKIP):
                continue
            res = run(shlex.split(command))
            assert res.exit_code == 0, (command, res.output)
            assert "--json" in command or too_wide(res.output) == [], command
