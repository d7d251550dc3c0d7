"""CLI fuzz suite: malformed files and arguments for every subcommand.

Hypothesis generates malformed data, taxonomy, constraint and release files
(random bytes, truncated lines, byte-order marks, odd delimiters, other
encodings, empty files, huge tokens, wrong columns) and malformed arguments
(bad -k/-m values, unknown or ill-typed --param, missing files, folders given
as files, outputs in missing folders or over an input). Every run happens in
process (click's CliRunner) and must end in one of two ways:

* exit code 2 with exactly one line on stderr, ``graphanon: error: ...``, no
  traceback, no output file and no temporary file left behind, inputs intact;
* exit code 0 (or 1: audit violated) with valid output: a loadable release,
  strict JSON for ``--json``, a non-empty figure, and nothing on stderr.

Inputs are small (the bundled worked examples, a few generated records), so
the whole suite runs in well under two minutes.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import cli

FUZZ = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
SMALL_DATASETS = ["liuwang_fig1", "coat_fig1", "nr_table1", "swap_table1", "clump_food"]
ALGORITHMS = ["cut", "aa", "hghs", "mhghs", "mm", "coat", "nr", "cahd"]
MODELS = ["km", "transactional", "hkp", "constraints", "nonreciprocal", "ldiversity", "nope"]


# --------------------------------------------------------------------------- running and checking
def _strict_json(text: str):
    def reject(constant):
        raise AssertionError(f"non-strict JSON constant {constant} in {text[:200]!r}")

    return json.loads(text, parse_constant=reject)


# One run on these tiny inputs takes well under a second; a run this long is a hang
# (for example a loop over 1..m with -m 10**20), reported with its arguments.
RUN_SECONDS = 60


def _too_slow(signum, frame):
    raise TimeoutError(f"a graphanon run took more than {RUN_SECONDS} s")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def run_checked(args: list[str], folder: Path, outputs: tuple[str, ...] = ()):
    """Run ``graphanon ARGS`` in ``folder`` and check the contract of the module docstring."""
    before = _snapshot(folder)
    cwd = os.getcwd()
    os.chdir(folder)
    previous = signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(RUN_SECONDS)
    try:
        result = cli(*args, catch_exceptions=True)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(cwd)
    shown = "graphanon " + " ".join(repr(a) if " " in a or not a else a for a in args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tb = "".join(traceback.format_exception(*result.exc_info))
        raise AssertionError(f"{shown} raised instead of a one-line error:\n{tb}")
    assert "Traceback" not in result.output, f"{shown}:\n{result.output}"
    assert result.exit_code in (0, 1, 2), f"{shown}: exit {result.exit_code}\n{result.output}"
    err = [line for line in result.stderr.splitlines() if line.strip()]
    after = _snapshot(folder)
    assert not [n for n in os.listdir(folder) if n.endswith(".part")], f"{shown}: temporary file left"
    for name, content in before.items():
        assert after.get(name) == content, f"{shown}: input {name} changed or removed"
    if result.exit_code == 2:
        assert len(err) == 1 and err[0].startswith("graphanon: error:"), f"{shown}: stderr {result.stderr!r}"
        for out in outputs:
            if out not in before:
                assert not (folder / out).exists(), f"{shown}: failed but left {out}"
        return result
    # a run that succeeds says nothing on stderr but its one-line warnings (graphanon.metrics.caveats)
    assert all(line.startswith(("graphanon: warning:", "  ")) for line in err), (  # "  ": a wrapped warning
        f"{shown}: exit {result.exit_code} but stderr {result.stderr!r}")
    if "--json" in args:
        _strict_json(result.stdout)
    for out in outputs:
        path = folder / out
        if out.endswith((".json", ".json.gz")):
            from graphanon.release import load_release

            load_release(path)
            raw = path.read_bytes()
            _strict_json((gzip.decompress(raw) if out.endswith(".gz") else raw).decode("utf-8"))
        elif out:
            assert path.is_file() and path.stat().st_size > 0, f"{shown}: no figure {out}"
    return result


# --------------------------------------------------------------------------- generated files
_TOKEN = st.one_of(
    st.sampled_from(["1", "2", "3", "4", "a", "b", "001", "-1", "0", "whole milk", '"q,u"', '"', "é",
                     "x" * 3000, "9" * 40, "", "tid", "item", "P", "R", ";", "nan", "inf"]),
    st.text(max_size=4),
)


@st.composite
def text_bytes(draw) -> bytes:
    """Record-per-line text with odd delimiters, headers, BOMs, encodings and truncation."""
    delimiter = draw(st.sampled_from([" ", ",", ";", "\t", "|", ", "]))
    header = draw(st.sampled_from([None, "tid,item", "tid;item", "item,tid", "a,b,c", "tid,item,label", "tid"]))
    rows = draw(st.lists(st.lists(_TOKEN, max_size=5), max_size=7))
    lines = ([header] if header else []) + [delimiter.join(r) for r in rows]
    text = draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)
    if draw(st.booleans()):
        text += "\n"
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16"]))
    raw = text.encode(encoding, errors="replace")
    if raw and draw(st.booleans()):
        raw = raw[: draw(st.integers(0, len(raw)))]
    return raw


@st.composite
def plausible_bytes(draw) -> bytes:
    """Nearly valid data: FIMI lines, a tid,item CSV or comma baskets of a few small items."""
    records = draw(st.lists(st.lists(st.sampled_from(["1", "2", "3", "4", "5", "001", "a b", "x"]), max_size=4),
                            min_size=1, max_size=8))
    kind = draw(st.sampled_from(["fimi", "csv", "basket"]))
    if kind == "fimi":
        text = "\n".join(" ".join(r) for r in records)
    elif kind == "csv":
        text = "tid,item\n" + "\n".join(f"{t},{i}" for t, r in enumerate(records) for i in r)
    else:
        text = "\n".join(",".join(r) for r in records)
    return (text + "\n").encode()


file_bytes = st.one_of(plausible_bytes(), plausible_bytes(), text_bytes(), st.binary(max_size=120), st.just(b""))


@st.composite
def data_file(draw) -> tuple[str, bytes]:
    """(name, content) of a maybe-malformed data file; ``.gz`` files are sometimes really gzip."""
    suffix = draw(st.sampled_from([".dat", ".csv", ".txt", "", ".dat.gz", ".csv.gz"]))
    raw = draw(file_bytes)
    if suffix.endswith(".gz") and draw(st.booleans()):
        raw = gzip.compress(raw, mtime=0)
    return "in" + suffix, raw


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A scratch base folder and valid releases (bytes) to mutate."""
    base = tmp_path_factory.mktemp("fuzz")
    releases = {}
    for name, args in {
        "cut.json": ["anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o"],
        "nr.json": ["anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o"],
        "coat.json": ["anonymize", "coat_fig1", "-a", "coat", "-k", "2", "-o"],
    }.items():
        res = cli(*args, base / name)
        assert res.exit_code == 0, res.output
        releases[name] = (base / name).read_bytes()
    return base, releases


_counter = iter(range(10**9))


def _folder(base: Path) -> Path:
    folder = base / f"case{next(_counter)}"
    folder.mkdir()
    return folder


# --------------------------------------------------------------------------- malformed data files
def _data_commands(name: str) -> st.SearchStrategy[tuple[list[str], tuple[str, ...]]]:
    fmt = st.sampled_from([[], [], ["--format", "fimi"], ["--format", "csv"], ["--format", "basket"],
                           ["--sep", ";"], ["--format", "csv", "--label", "label"]])
    commands = st.sampled_from([
        (["anonymize", name, "-a", "cut", "--taxonomy", "balanced:2", "--param", "level=1", "-o", "o.json"], ("o.json",)),
        (["anonymize", name, "-a", "mm", "-k", "2", "-m", "1", "-o", "o.json.gz"], ("o.json.gz",)),
        (["anonymize", name, "-a", "aa", "-k", "2", "-m", "2", "--taxonomy", "balanced:3", "-o", "o.json"], ("o.json",)),
        (["anonymize", name, "-a", "coat", "-k", "2", "-o", "o.json"], ("o.json",)),
        (["anonymize", name, "-a", "nr", "-k", "2", "-o", "o.json"], ("o.json",)),
        (["audit", name, "cut.json", "--model", "km", "-k", "2", "--json"], ()),
        (["audit", name, "nr.json", "--model", "nonreciprocal", "-k", "2"], ()),
        (["evaluate", name, "cut.json", "--queries", "5", "--json"], ()),
        (["bench", name, "-a", "hghs", "-k", "2", "-m", "2", "--taxonomy", "balanced:2", "--queries", "5", "--json"], ()),
        (["draw", "generalization", name, "-k", "2", "-o", "g.png"], ("g.png",)),
    ])
    def with_format(command_format):
        (args, outputs), options = command_format
        return (args if args[0] == "draw" else args[:2] + options + args[2:]), outputs

    return st.tuples(commands, fmt).map(with_format)


@FUZZ
@given(st.data())
def test_malformed_data_files(work, data):
    base, releases = work
    name, raw = data.draw(data_file())
    args, outputs = data.draw(_data_commands(name))
    folder = _folder(base)
    (folder / name).write_bytes(raw)
    for rel, content in releases.items():
        (folder / rel).write_bytes(content)
    run_checked(args, folder, outputs)


# --------------------------------------------------------------------------- malformed taxonomy / constraint files
@FUZZ
@given(st.data())
def test_malformed_taxonomy_and_constraint_files(work, data):
    base, releases = work
    raw = data.draw(st.one_of(file_bytes, st.sampled_from([b"a,b\nc\n", b"a;P;R\nb;P;R\n", b"e,f\ng,h\n"])))
    name = data.draw(st.sampled_from(["t.txt", "t.csv", "c.csv", "c.tsv"]))
    args, outputs = data.draw(st.sampled_from([
        (["taxonomy", name, "--json"], ()),
        (["taxonomy", name], ()),
        (["draw", "taxonomy", name, "--max-nodes", "20", "-o", "t.svg"], ("t.svg",)),
        (["anonymize", "liuwang_fig1", "-a", "hghs", "-k", "2", "-m", "1", "--taxonomy", name, "-o", "o.json"], ("o.json",)),
        (["anonymize", "coat_fig1", "-a", "coat", "-k", "2", "--param", f"privacy={name}", "-o", "o.json"], ("o.json",)),
        (["anonymize", "coat_fig1", "-a", "coat", "-k", "2", "--param", f"utility=groups:{name}", "-o", "o.json"], ("o.json",)),
        (["audit", "coat_fig1", "coat.json", "--model", "constraints", "-k", "2", "--param", f"privacy={name}"], ()),
    ]))
    folder = _folder(base)
    (folder / name).write_bytes(raw)
    (folder / "coat.json").write_bytes(releases["coat.json"])
    run_checked(args, folder, outputs)


# --------------------------------------------------------------------------- malformed release files
_JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.floats(allow_nan=False), st.text(max_size=4)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def release_bytes(draw, releases) -> bytes:
    """A valid release with one field replaced, removed or nested value changed; or garbage."""
    how = draw(st.sampled_from(["field", "field", "drop", "inner", "truncate", "bytes"]))
    raw = releases[draw(st.sampled_from(sorted(releases)))]
    if how == "bytes":
        return draw(st.binary(max_size=80))
    if how == "truncate":
        return raw[: draw(st.integers(0, len(raw) - 1))]
    doc = json.loads(raw)
    key = draw(st.sampled_from(sorted(doc)))
    if how == "drop":
        del doc[key]
    elif how == "inner" and isinstance(doc[key], list) and doc[key]:
        i = draw(st.integers(0, len(doc[key]) - 1))
        doc[key][i] = draw(_JSON_VALUE)
    else:
        doc[key] = draw(_JSON_VALUE)
    return json.dumps(doc).encode()


@FUZZ
@given(st.data())
def test_malformed_release_files(work, data):
    base, releases = work
    raw = data.draw(release_bytes(releases))
    name = data.draw(st.sampled_from(["r.json", "r.json.gz"]))
    if name.endswith(".gz") and data.draw(st.booleans()):
        raw = gzip.compress(raw, mtime=0)
    dataset = data.draw(st.sampled_from(["liuwang_fig1", "nr_table1"]))
    args = data.draw(st.sampled_from([
        ["audit", dataset, name, "--model", "km", "-k", "2", "-m", "2", "--json"],
        ["audit", dataset, name, "--model", "transactional", "-k", "2"],
        ["audit", dataset, name, "--model", "nonreciprocal", "-k", "2", "--json"],
        ["audit", dataset, name, "--model", "ldiversity", "-k", "2"],
        ["evaluate", dataset, name, "--queries", "5", "--json"],
        ["evaluate", dataset, name, "--queries", "5"],
    ]))
    folder = _folder(base)
    (folder / name).write_bytes(raw)
    run_checked(args, folder)


@settings(FUZZ, max_examples=10)
@given(st.data())
def test_malformed_release_for_draw(work, data):
    base, releases = work
    raw = data.draw(release_bytes(releases))
    folder = _folder(base)
    (folder / "r.json").write_bytes(raw)
    run_checked(["draw", "taxonomy", "liuwang_fig1", "--release", "r.json", "-o", "t.svg"], folder, ("t.svg",))


# --------------------------------------------------------------------------- malformed arguments
_NUMBER = st.one_of(st.sampled_from(["0", "-1", "1", "2", "3", "5", "100", "inf", "nan", "abc", "", "1.5",
                                     "99999999999999999999"]), st.integers(-3, 12).map(str))
_PARAM_VALUE = st.sampled_from(["", "0", "-1", "1", "2", "abc", "inf", "nan", "1e309", "0.5%", "150%", "pgen",
                                "km:0", "km:x", "km:2", "bundled", "groups:missing.csv", "groups:folder",
                                "taxonomy-level:9", "taxonomy-level:1", "all", "one", "taxonomy", "P,Q", "a,,b",
                                "folder", "missing.csv", "1,2", "P,f,g,M,e,i", "random", "closed-walk"])
_PARAM_NAME = st.sampled_from(["level", "cut", "suppress", "privacy", "utility", "s", "weights", "l", "p", "h",
                               "extraction", "label", "bogus", "", "k"])


def _opt(flag: str, values) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [flag, v]))


_PARAMS = st.lists(st.tuples(_PARAM_NAME, _PARAM_VALUE).map(
    lambda nv: ["--param", f"{nv[0]}={nv[1]}" if nv[0] != "k" else nv[1]]), max_size=2).map(
    lambda pairs: [a for p in pairs for a in p])
_INPUT = st.sampled_from(SMALL_DATASETS * 4 + ["missing.dat", "folder", "bms2", ""])
_TAXONOMY = _opt("--taxonomy", st.sampled_from(["balanced:2", "balanced:0", "balanced:x", "balanced:2:7",
                                                "balanced:1", "liuwang_fig1", "missing.txt", "folder", "", "bms1"]))
_OUTPUT = st.sampled_from(["o.json", "o.json.gz", "nodir/o.json", "o.txt", "folder", "", "o.JSON", ".json"])


@st.composite
def _argv(draw) -> tuple[list[str], tuple[str, ...]]:
    command = draw(st.sampled_from(["anonymize", "audit", "evaluate", "bench", "taxonomy", "draw", "datasets",
                                    "algorithms", "nope"]))
    k = draw(_opt("-k", _NUMBER))
    m = draw(_opt("-m", _NUMBER))
    if command == "anonymize":
        output = draw(_OUTPUT)
        args = ["anonymize", draw(_INPUT), "-a", draw(st.sampled_from(ALGORITHMS + ["zz"])), *k, *m,
                *draw(_TAXONOMY), *draw(_PARAMS), *draw(_opt("--seed", _NUMBER)), "-o", output]
        return args, (output,)
    if command == "audit":
        return ["audit", draw(_INPUT), draw(st.sampled_from(["cut.json", "nr.json", "missing.json", "folder"])),
                "--model", draw(st.sampled_from(MODELS)), *k, *m, *draw(_PARAMS),
                *draw(_opt("--examples", _NUMBER)), "--json"], ()
    if command == "evaluate":
        return ["evaluate", draw(_INPUT), draw(st.sampled_from(["cut.json", "nr.json", "folder"])),
                *draw(_opt("--queries", _NUMBER)), *draw(_opt("-q", _NUMBER)), *draw(_opt("--seed", _NUMBER)),
                "--json"], ()
    if command == "bench":
        return ["bench", draw(_INPUT), "-a", draw(st.sampled_from(ALGORITHMS)), *k, *m, *draw(_TAXONOMY),
                *draw(_PARAMS), *draw(_opt("--queries", st.sampled_from(["0", "5", "-1", "x"]))), "--json"], ()
    if command == "taxonomy":
        return ["taxonomy", draw(st.sampled_from(SMALL_DATASETS + ["missing.txt", "folder", "groceries"])),
                "--json"], ()
    if command == "draw":
        what = draw(st.sampled_from(["taxonomy", "search", "constraints", "generalization", "nope"]))
        output = draw(st.sampled_from(["d.png", "d.svg", "d.xyz", "nodir/d.png", "folder", "d"]))
        source = draw(st.sampled_from(["liuwang_fig1", "coat_fig1", "nr_table1", "missing.txt", "folder"]))
        return ["draw", what, source, *k, *m, *draw(_TAXONOMY),
                *draw(_opt("--max-nodes", _NUMBER)), *draw(_opt("-a", st.sampled_from(["hghs", "mhghs", "aa"]))),
                *draw(_opt("--release", st.sampled_from(["cut.json", "missing.json", "folder"]))),
                "-o", output], (output,)
    extra = draw(st.sampled_from([[], ["--json"], ["--bogus"], ["x"]]))
    return [command, *extra], ()


@settings(FUZZ, max_examples=300)
@given(_argv())
def test_malformed_arguments(work, argv):
    base, releases = work
    args, outputs = argv
    folder = _folder(base)
    (folder / "folder").mkdir()
    for rel, content in releases.items():
        (folder / rel).write_bytes(content)
    run_checked(args, folder, tuple(o for o in outputs if o and o != "folder"))


# --------------------------------------------------------------------------- outputs never destroy inputs
@settings(FUZZ, max_examples=15)
@given(st.sampled_from(["d.dat", "./d.dat", "sub/../d.dat", "link.dat"]),
       st.sampled_from(["INPUT", "--taxonomy", "privacy"]))
def test_output_is_never_an_input(work, out, which):
    base, _ = work
    folder = _folder(base)
    (folder / "sub").mkdir()
    (folder / "d.dat").write_text("1 2\n2 3\n1 3\n1 2 3\n")
    os.symlink("d.dat", folder / "link.dat")
    if which == "INPUT":
        args = ["anonymize", "d.dat", "-a", "nr", "-k", "2", "-o", out]
    elif which == "--taxonomy":
        args = ["anonymize", "liuwang_fig1", "-a", "hghs", "-k", "2", "--taxonomy", "d.dat", "-o", out]
    else:
        args = ["anonymize", "coat_fig1", "-a", "coat", "-k", "2", "--param", "privacy=d.dat", "-o", out]
    res = run_checked(args, folder)
    assert res.exit_code == 2
    assert "input of this command" in res.stderr or "cannot write this kind of file" in res.stderr


# --------------------------------------------------------------------------- plausible runs end to end
@st.composite
def _plausible_run(draw) -> list[list[str]]:
    """anonymize -> audit -> evaluate -> bench with in-range settings (most succeed)."""
    dataset = draw(st.sampled_from(SMALL_DATASETS))
    algorithm = draw(st.sampled_from(ALGORITHMS))
    k = str(draw(st.integers(1, 4)))
    m = draw(st.sampled_from(["1", "2", "inf"]))
    options = ["-k", k, "-m", m, "--taxonomy", draw(st.sampled_from(["balanced:2", "balanced:3:1"]))]
    options += {"cut": ["--param", "level=1"], "cahd": ["--param", "l=2"]}.get(algorithm, [])
    model = {"coat": "constraints", "nr": "nonreciprocal", "cahd": "ldiversity"}.get(algorithm, "km")
    audit_options = ["-k", k if algorithm != "cahd" else "2"] + (["-m", m] if model in ("km", "constraints") else [])
    out = draw(st.sampled_from(["r.json", "r.json.gz"]))
    return [
        ["anonymize", dataset, "-a", algorithm, *options, "-o", out, "--json"],
        ["audit", dataset, out, "--model", model, *audit_options, "--json"],
        ["evaluate", dataset, out, "--queries", "20", "--json"],
        ["bench", dataset, "-a", algorithm, *options, "--queries", "20", "--json"],
    ]


@settings(FUZZ, max_examples=30)
@given(_plausible_run())
def test_plausible_runs_end_to_end(work, commands):
    base, _ = work
    folder = _folder(base)
    anonymize, *rest = commands
    first = run_checked(anonymize, folder, (anonymize[-2],))
    if first.exit_code == 0:
        for args in rest:
            run_checked(args, folder)
