"""A method of another installed package (entry point ``graphanon.methods``) reaches every door.

The fixture writes a tiny package to ``tmp_path`` -- a toy k-anonymous
method (suppress every item of support below ``k``, rows shuffled from OS
entropy by ``publish``), audited by ``km`` with ``m = 1``, which is exactly
what it promises -- with a ``*.dist-info`` holding its ``entry_points.txt``,
and puts it on ``sys.path``: ``importlib.metadata`` finds it as it finds a
``pip install``-ed package. Nothing of graphanon is edited: the toy is
listed by ``graphanon algorithms``, run by ``anonymize`` and ``compare``,
audited by its declared model, and passes ``check_method``; the same method
made to publish record ids, or to keep items of support ``k - 1``, fails
``check_method`` with a one-line reason. Each entry point names a
``MethodDeclaration`` (here derived by ``declare_method``); a broken entry
point and one that takes a built-in name are one warning line each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from numbers import Integral

import pandas as pd
import pytest

import graphanon.algorithms.registry as algorithms_registry
from graphanon.algorithms.declaration import MethodDeclaration, RunOptions
from graphanon.algorithms.registry import (
    AUDITED_BY,
    ENTRY_POINT_GROUP,
    PUBLISHED_PARAMS,
    get_declaration,
    method_names,
    run_method,
)
from graphanon.datasets import load
from graphanon.errors import ParameterError, PluginWarning
from graphanon.plugins import declare_method
from graphanon.privacy import KmAnonymity
from graphanon.release import load_release
from graphanon.testing import MethodCheckError, check_method
from graphanon.utils.params import COMMON, MEANINGS, Interval, K, validate_params

TOY = '''
"""A toy k-anonymous method, installed as a graphanon plugin."""
from graphanon.counting.support import item_supports
from graphanon.plugins import declare_method
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.utils.params import COMMON, MEANINGS, K, validate_params
from graphanon.utils.validation import check_k


def _recode(data, k, threshold, unsafe_secret_seed, name):
    support = item_supports(data.matrix)
    mapping = {item: (item if s >= threshold else None) for item, s in zip(data.items, support)}
    release = GlobalRecoding.from_mapping(data, mapping, algorithm=name, params={"k": k, "m": 1})
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp(data, *, k, unsafe_secret_seed=None, progress=None):
    """Suppress every item of support below k (k^1-anonymity)."""
    return _recode(data, check_k(k, data.n_records), k, unsafe_secret_seed, "minsupp")


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp_ids(data, *, k, unsafe_secret_seed=None, progress=None):
    """Broken: the record ids travel as the rows' labels."""
    k = check_k(k, data.n_records)
    return _recode(data.with_labels(data.record_ids), k, k, unsafe_secret_seed, "minsupp_ids")


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp_loose(data, *, k, unsafe_secret_seed=None, progress=None):
    """Broken: keeps the items of support k - 1."""
    return _recode(data, check_k(k, data.n_records), k - 1, unsafe_secret_seed, "minsupp_loose")


MINSUPP = declare_method(anonymize_minsupp, audit_model="km", published=("k", "m"))
MINSUPP_IDS = declare_method(anonymize_minsupp_ids, audit_model="km")
MINSUPP_LOOSE = declare_method(anonymize_minsupp_loose, audit_model="km")
'''

ENTRY_POINTS = """\
[graphanon.methods]
minsupp = toy_minsupp:MINSUPP
minsupp_ids = toy_minsupp:MINSUPP_IDS
minsupp_loose = toy_minsupp:MINSUPP_LOOSE
broken = toy_missing_module:METHOD
aa = toy_minsupp:MINSUPP
"""


def write_package(site) -> None:
    """The toy package and its distribution metadata (what ``pip install`` would leave) under ``site``."""
    (site / "toy_minsupp").mkdir(parents=True)
    (site / "toy_minsupp" / "__init__.py").write_text(textwrap.dedent(TOY), encoding="utf-8")
    info = site / "toy_minsupp-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-minsupp\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The toy package installed for one test; the method registry is rebuilt for it and restored after."""
    site = tmp_path / "site"
    write_package(site)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setattr(algorithms_registry, "_REGISTRY", None)
    yield site
    sys.modules.pop("toy_minsupp", None)


def test_listed_with_one_warning_line_per_broken_entry_point(installed, run):
    with pytest.warns(PluginWarning) as caught:
        res = run("algorithms")
    assert res.exit_code == 0, res.output
    rows = [line.split()[:2] for line in res.output.splitlines()]
    assert ["minsupp", "km"] in rows and ["minsupp_ids", "km"] in rows and ["minsupp_loose", "km"] in rows
    messages = sorted(str(w.message) for w in caught)
    assert messages == [
        "graphanon.methods entry point 'aa' (toy_minsupp:MINSUPP): the method name 'aa' is taken; skipped",
        "graphanon.methods entry point 'broken' (toy_missing_module:METHOD): ModuleNotFoundError: No module "
        "named 'toy_missing_module'; skipped",
    ]
    assert all("\n" not in m for m in messages)
    res = run("algorithms", "minsupp")
    assert res.exit_code == 0
    assert "audit model   km (graphanon audit INPUT RELEASE --model km)" in res.output
    assert "options       -k" in res.output and "python        toy_minsupp.anonymize_minsupp" in res.output


@pytest.mark.filterwarnings("ignore::graphanon.errors.PluginWarning")
def test_anonymize_audit_and_the_python_api(installed, run):
    res = run("anonymize", "groceries", "-a", "minsupp", "-k", "5", "-o", "r.json")
    assert res.exit_code == 0, res.output
    assert "check it: graphanon audit groceries r.json --model km -k 5 -m 1" in res.output  # its declared model
    release = load_release("r.json")
    assert release.algorithm == "minsupp" and release.params == {"k": 5, "m": 1}
    res = run("audit", "groceries", "r.json", "--model", "km", "-k", "5", "-m", "1", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True
    res = run("anonymize", "groceries", "-a", "minsupp", "-k", "5", "-m", "2", "-o", "s.json")
    assert res.exit_code == 2 and "does not use -m" in res.output  # the spec derived from the signature
    data = load("groceries")
    assert KmAnonymity(3, 1).audit(data, run_method("minsupp", data, k=3)).satisfied
    assert AUDITED_BY["minsupp"] == ("km", ()) and PUBLISHED_PARAMS["minsupp"] == {"k", "m"}  # derived views
    assert PUBLISHED_PARAMS["minsupp_ids"] == {"k", "m", "l", "n_suppressed_nodes", "audit"}  # the generic list


@pytest.mark.filterwarnings("ignore::graphanon.errors.PluginWarning")
def test_compare_runs_and_audits_with_the_declared_model(installed, run):
    res = run("compare", "liuwang_fig1", "-a", "minsupp,minsupp_loose", "-k", "3", "-j", "1", "--queries", "0",
              "--attack-targets", "0", "-o", "study")
    assert "minsupp" in res.output, res.output
    table = pd.read_csv(installed.parent / "study" / "results.csv").set_index("method")
    assert (table["status"] == "ok").all()
    assert table.loc["minsupp", "audit_model"] == "km" and bool(table.loc["minsupp", "audit_satisfied"])
    assert not bool(table.loc["minsupp_loose", "audit_satisfied"])  # the audit tells them apart


@pytest.mark.filterwarnings("ignore::graphanon.errors.PluginWarning")
def test_check_method_green_on_the_toy_and_red_on_its_broken_variants(installed):
    results = check_method("minsupp")
    assert all(r.status in ("passed", "skipped") for r in results)
    with pytest.raises(MethodCheckError) as failed:
        check_method("minsupp_ids")
    assert ("check_no_record_ids: the release publishes 40 record id(s) of the input, e.g. "
            "'graphanon-check-record-0'") in str(failed.value).splitlines()
    with pytest.raises(MethodCheckError) as failed:
        check_method("minsupp_loose")
    assert any(line.startswith("check_audit_bundled: the km audit (k=2, m=1) finds 26 violation(s) on groceries")
               for line in str(failed.value).splitlines())


def test_a_fresh_interpreter_finds_the_installed_plugin(tmp_path):
    """No test fixture: a new ``graphanon`` process with the package on its path lists the toy."""
    site = tmp_path / "site"
    write_package(site)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-m", "graphanon", "algorithms"], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert any(line.split()[:2] == ["minsupp", "km"] for line in out.stdout.splitlines())
    warned = [line for line in out.stderr.splitlines() if "PluginWarning" in line]
    assert len(warned) == 2 and any("'broken'" in line for line in warned), out.stderr


# ---------------------------------------------------------------- the declaration derived from a signature
@validate_params({"k": K, "depth": [Interval(Integral, 1, None, closed="left")], **COMMON}, meanings=MEANINGS)
def anonymize_knobs(data, *, k, m=None, taxonomy=None, depth: int = 1, mode: str = "fast", exact: bool = False,
                    rng=None, unsafe_secret_seed=None, progress=None):
    """A method with knobs (never run).

    Parameters
    ----------
    depth : int
        How deep the search goes.
    """


def anonymize_positional(data, k):
    """Broken declaration: ``k`` is not keyword-only."""


def anonymize_undeclared(data, *, k):
    """Broken entry point: a function, not its declaration."""


KNOBS = declare_method(anonymize_knobs, audit_model="km", audit_params=("depth",))


def test_the_declaration_is_derived_from_the_signature():
    assert isinstance(KNOBS, MethodDeclaration) and KNOBS.name == "knobs" and KNOBS.family == "plugin"
    assert KNOBS.options == ("k", "m", "taxonomy", "seed") and not KNOBS.needs_taxonomy and KNOBS.needs_k
    assert KNOBS.privacy_model == "km" and KNOBS.audit_params == ("depth",)
    assert KNOBS.summary == f"A method with knobs (never run). (plugin {__name__})"
    assert [(p.name, p.default) for p in KNOBS.params] == [("depth", 1), ("mode", "fast"), ("exact", False)]
    assert KNOBS.params[0].help == "How deep the search goes."
    assert KNOBS.parse_params({"depth": "3", "exact": "yes"}) == {"depth": 3, "mode": "fast", "exact": True}
    with pytest.raises(ParameterError, match=r"^--param depth='0': depth must be"):
        KNOBS.parse_params({"depth": "0"})
    with pytest.raises(ParameterError, match="unknown --param speed"):
        KNOBS.parse_params({"speed": "1"})
    values = KNOBS.parse_params({})
    # options left unset keep the function's defaults; -m inf (given, None) says "unbounded"; -k is required
    assert KNOBS.arguments(None, RunOptions(k=2), values) == {"k": 2, "depth": 1, "mode": "fast", "exact": False,
                                                            "unsafe_secret_seed": None, "progress": None}
    assert KNOBS.arguments(None, RunOptions(k=2, seed=4, given=frozenset({"k", "m", "seed"})), values)["m"] is None
    assert KNOBS.arguments(None, RunOptions(k=2, seed=4), values)["rng"] == 4
    with pytest.raises(ParameterError, match="algorithm 'knobs' needs -k K"):
        KNOBS.arguments(None, RunOptions(), values)


def test_declare_method_refuses_what_no_door_could_run():
    with pytest.raises(TypeError, match=r"arguments after the data must be keyword-only \(k\)"):
        declare_method(anonymize_positional, audit_model="km")
    with pytest.raises(ParameterError, match="^unknown audit model 'kanon'"):
        declare_method(anonymize_knobs, audit_model="kanon")
    with pytest.raises(ParameterError, match="^audit_params: 'k' of anonymize_knobs is no keyword argument"):
        declare_method(anonymize_knobs, audit_model="km", audit_params=("k",))
    assert declare_method(anonymize_knobs, audit_model="km", name="other").name == "other"


def test_a_wrong_entry_point_is_one_warning_and_the_rest_loads(monkeypatch):
    here = "tests.testing.test_testing_plugins"
    declared = [EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in [
        ("undeclared", f"{here}:anonymize_undeclared"), ("renamed", f"{here}:KNOBS"), ("knobs", f"{here}:KNOBS"),
        ("nr", f"{here}:KNOBS"), ("missing", f"{here}:NO_SUCH_NAME")]]
    reads = []

    def entry_points(group):
        reads.append(group)
        return declared if group == ENTRY_POINT_GROUP else []

    monkeypatch.setattr(algorithms_registry, "entry_points", entry_points)
    monkeypatch.setattr(algorithms_registry, "_REGISTRY", None)  # restored after: the methods found stay here
    assert get_declaration("nr").family == "nonreciprocal" and not reads  # a built-in name reads no entry point
    with pytest.warns(PluginWarning) as caught:
        names = method_names()
    assert "knobs" in names and not {"undeclared", "renamed", "missing"} & set(names)
    assert get_declaration("knobs") is KNOBS and get_declaration("nr").family == "nonreciprocal"
    messages = sorted(str(w.message) for w in caught)
    assert messages == [
        f"graphanon.methods entry point 'missing' ({here}:NO_SUCH_NAME): AttributeError: module '{here}' has no "
        "attribute 'NO_SUCH_NAME'; skipped",
        f"graphanon.methods entry point 'nr' ({here}:KNOBS): the method name 'nr' is taken; skipped",
        f"graphanon.methods entry point 'renamed' ({here}:KNOBS): its declaration names the method 'knobs'; skipped",
        f"graphanon.methods entry point 'undeclared' ({here}:anonymize_undeclared): expected a MethodDeclaration "
        "(graphanon.plugins.declare_method), got function; skipped",
    ]
    method_names()  # read once per process: no second warning
    assert reads == [ENTRY_POINT_GROUP]
