"""CONTRIBUTING.md's "Adding a method", followed step by step with a toy method.

The toy, ``minsupp``, is a real (tiny) global recoding: it suppresses every
item of support below ``k``, so every published item is in at least ``k``
records or in none, which is k^m-anonymity for ``m = 1``. A broken variant
(off by one: it keeps items of support ``k - 1``) must fail the same audit.
When a step of CONTRIBUTING.md changes, the names quoted in ``STEPS`` change
with it, and so does this test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tests.algorithms.test_common as common
from graphanon.algorithms import registry as methods
from graphanon.algorithms.declaration import MethodDeclaration
from graphanon.algorithms.registry import (
    AUDITED_BY,
    PUBLISHED_PARAMS,
    get_declaration,
    register_method,
)
from graphanon.cli.registry import registered
from graphanon.counting.support import item_supports
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.privacy import KmAnonymity
from graphanon.release import GlobalRecoding, load_release
from graphanon.release.publish import publish
from graphanon.study import expand_grid, run_study
from graphanon.utils.params import COMMON, MEANINGS, K, validate_params
from graphanon.utils.validation import check_k
from tests.conftest import cli

CONTRIBUTING = Path(__file__).resolve().parents[2] / "CONTRIBUTING.md"

#: Step title -> the names the step tells a contributor to use; each is used below.
STEPS = {
    "The function": ["anonymize_<method>", "@validate_params", "COMMON", "check_k", "GlobalRecoding.from_mapping", "publish(data, release, "
                     "unsafe_secret_seed=unsafe_secret_seed)"],
    "The declaration": ["MethodDeclaration(", "graphanon/algorithms/declaration.py", "Parameter(", "published=",
                        "privacy_model=", "audit_params=", "priors=", "needs_k=True", 'options=("k", "m")',
                        "prepare=_prepare", "PUBLISHED_PARAMS"],
    "The audit model": ["privacy_model", "graphanon/privacy/registry.py"],
    "Registration": ["METHOD_DECLARATIONS", "register_method(<METHOD>)", "graphanon.methods", "METHODS",
                     "AUDITED_BY", "PRIOR_METHODS"],
    "Tests": ["EXAMPLES", "tests/algorithms/test_common.py", "hypothesis", "broken variant"],
    "Docs": ["docs/<method>.md"],
    "Measure": ["benchmarks/<method>.py", "docs/performance.md"],
}


# ---------------------------------------------------------------- step 1: the function
def _suppress_below(data, threshold: int, *, name: str, k: int, unsafe_secret_seed: int | None):
    support = item_supports(data.matrix)
    kept = support >= threshold
    mapping = dict(zip(data.items, [item if keep else None for item, keep in zip(data.items, kept)]))
    release = GlobalRecoding.from_mapping(data, mapping, algorithm=name,
                                          params={"k": k, "m": 1, "n_suppressed": int((~kept).sum())})
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None) -> GlobalRecoding:
    """Suppress every item of support below ``k`` (k^1-anonymity by total suppression)."""
    k = check_k(k, data.n_records)
    return _suppress_below(data, k, name="minsupp", k=k, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp_broken(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Off by one: keeps the items of support ``k - 1``."""
    k = check_k(k, data.n_records)
    return _suppress_below(data, k - 1, name="minsupp_broken", k=k, unsafe_secret_seed=unsafe_secret_seed)


# ---------------------------------------------------------------- step 2: the declaration
def _prepare(declaration, data, opts, values, kwargs):
    if opts.m != 1:
        raise ParameterError(f"{declaration.name} protects single items only: give -m 1")
    return kwargs


def _declaration(name, function) -> MethodDeclaration:
    return MethodDeclaration(name=name, family="toy", summary="suppress every item of support below k",
                             function=function, privacy_model="km", published=frozenset({"k", "m", "n_suppressed"}),
                             needs_k=True, options=("k", "m"), prepare=_prepare)


@pytest.fixture
def toy(monkeypatch):
    """Register the toy and its broken variant (step 4) for one test; the registry is restored after."""
    registry = methods._declared()
    monkeypatch.setattr(registry, "_values", dict(registry._values))
    for name, function in [("minsupp", anonymize_minsupp), ("minsupp_broken", anonymize_minsupp_broken)]:
        register_method(_declaration(name, function))
    # step 5: the worked example of tests/algorithms/test_common.py
    monkeypatch.setitem(common.EXAMPLES, "minsupp", ("liuwang_fig1", {"k": 2, "m": 1}, {}, {}))
    return get_declaration("minsupp")


def test_every_table_reads_the_declaration(toy):
    assert AUDITED_BY["minsupp"] == ("km", ())
    assert PUBLISHED_PARAMS["minsupp"] == frozenset({"k", "m", "n_suppressed"})
    assert methods.METHODS.get("minsupp") is anonymize_minsupp
    assert "minsupp" not in methods.PRIOR_METHODS


# ---------------------------------------------------------------- the steps as written
def _steps() -> dict[str, str]:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text.split("## Adding a method", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^\d+\. \*\*(.+?)\.\*\*(.*?)(?=^\d+\. \*\*|\Z)", section, flags=re.M | re.S)
    return {title: body for title, body in found}


def test_contributing_lists_the_steps_this_test_follows():
    steps = _steps()
    assert list(steps) == list(STEPS), "CONTRIBUTING.md's steps changed: change tests/docs/test_contributing.py too"
    for title, names in STEPS.items():
        body = " ".join(steps[title].split())
        for name in names:
            assert name in body, (title, name)
    assert "tests/docs/test_contributing.py" in CONTRIBUTING.read_text(encoding="utf-8")


def test_contributing_check_commands_are_ci_commands():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    block = text.split("## Run the checks", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci, command


# ---------------------------------------------------------------- step 2: the allowlist is enforced
def test_without_the_allowlist_entry_save_refuses(tmp_path):
    release = anonymize_minsupp(load("liuwang_fig1"), k=2, unsafe_secret_seed=0)
    with pytest.raises(ReleaseFormatError, match="n_suppressed"):
        release.save(tmp_path / "r.json")


# ---------------------------------------------------------------- steps 3 and 5: the independent audit
def test_golden_liuwang_fig1(toy):
    data = load("liuwang_fig1")  # supports: f 4; c, d 3; a, b, e, g, i 2; x, y, z 1
    release = anonymize_minsupp(data, k=3, unsafe_secret_seed=0)
    assert sorted(release.mapping) == ["c", "d", "f"]
    assert sorted(release.suppressed) == ["a", "b", "e", "g", "i", "x", "y", "z"]
    assert KmAnonymity(3, 1).audit(data, release).satisfied
    broken = anonymize_minsupp_broken(data, k=3, unsafe_secret_seed=0)
    report = KmAnonymity(3, 1).audit(data, broken)
    assert not report.satisfied and report.violations == 5  # a, b, e, g, i: support 2 < 3


@pytest.mark.parametrize("dataset, k", [("bms1", 50), ("chess", 1500), ("groceries", 100)])
def test_bundled(toy, dataset, k):
    data = load(dataset)
    release = anonymize_minsupp(data, k=k, unsafe_secret_seed=1)
    assert KmAnonymity(k, 1).audit(data, release).satisfied
    support = item_supports(data.matrix)
    if (support == k - 1).any():
        assert not KmAnonymity(k, 1).audit(data, anonymize_minsupp_broken(data, k=k, unsafe_secret_seed=1)).satisfied


@st.composite
def small_data(draw):
    n_items = draw(st.integers(1, 6))
    records = draw(st.lists(st.sets(st.integers(0, n_items - 1)), min_size=1, max_size=12))
    k = draw(st.integers(1, len(records)))
    return from_iterable([[f"i{j}" for j in r] for r in records]), k


@settings(max_examples=60, deadline=None)
@given(small_data())
def test_hypothesis_toy_passes_and_broken_fails_exactly_when_an_item_has_support_k_minus_1(case):
    data, k = case
    audit = KmAnonymity(k, 1)
    assert audit.audit(data, anonymize_minsupp(data, k=k, unsafe_secret_seed=0)).satisfied
    support = item_supports(data.matrix)
    broken = audit.audit(data, anonymize_minsupp_broken(data, k=k, unsafe_secret_seed=0))
    assert broken.satisfied == (k == 1 or not (support == k - 1).any())


# ---------------------------------------------------------------- step 4: the CLI code path
def test_cli_runs_the_registered_toy_and_the_audit_tells_them_apart(toy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli("algorithms")
    assert res.exit_code == 0 and any(line.split()[:2] == ["minsupp", "km"] for line in res.output.splitlines())
    res = cli("algorithms", "minsupp")
    assert res.exit_code == 0 and "tests.docs.test_contributing.anonymize_minsupp" in res.output
    res = cli("anonymize", "liuwang_fig1", "-a", "minsupp", "-m", "1", "-o", "r.json")
    assert res.exit_code == 2 and "needs -k K" in res.output
    res = cli("anonymize", "liuwang_fig1", "-a", "minsupp", "-k", "3", "-m", "1", "-o", "r.json")
    assert res.exit_code == 0, res.output
    assert load_release("r.json").params == {"k": 3, "m": 1, "n_suppressed": 8}
    res = cli("audit", "liuwang_fig1", "r.json", "--model", "km", "-k", "3", "-m", "1", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True
    res = cli("anonymize", "liuwang_fig1", "-a", "minsupp_broken", "-k", "3", "-m", "1", "-o", "b.json")
    assert res.exit_code == 0, res.output
    res = cli("audit", "liuwang_fig1", "b.json", "--model", "km", "-k", "3", "-m", "1", "--json")
    assert res.exit_code == 1 and json.loads(res.output)["satisfied"] is False
    # options the toy does not read are refused, as for every method
    res = cli("anonymize", "liuwang_fig1", "-a", "minsupp", "-k", "3", "-m", "1", "--seed", "1", "-o", "s.json")
    assert res.exit_code == 2 and "does not use --seed" in res.output


# ---------------------------------------------------------------- step 5: the common checks take it
def test_common_checks_run_on_the_toy(toy, tmp_path):
    assert "minsupp" in registered()
    common.test_has_a_bundled_example("minsupp")
    common.test_params_are_declared_once("minsupp")
    common.test_declared_constraints_refuse_generated_values("minsupp")
    common.test_declared_audit_model_exists("minsupp")
    common.test_anonymize_audit_save_load_evaluate("minsupp", tmp_path)
    for bad_k in ("zero", "above n"):
        common.test_bad_k_raises_parameter_error("minsupp", bad_k)
    common.test_same_rng_and_secret_seed_give_the_same_file("minsupp", tmp_path)


def test_the_toy_is_row_shuffled_and_linked(toy):
    data = load("liuwang_fig1")
    release = anonymize_minsupp(data, k=2, unsafe_secret_seed=5)
    rows = np.asarray(release.link.row_of_record)
    assert sorted(rows.tolist()) == list(range(data.n_records))
    for i in range(data.n_records):  # the link points each record to its own recoding
        kept = {x for x in data.record(i) if x in release.mapping}
        assert set(release.render_record(int(rows[i])).split()) == kept


# ---------------------------------------------------------------- step 4: the study reads the Python table
def test_the_study_runs_and_audits_the_toy(toy, tmp_path):
    plan = expand_grid(["minsupp", "minsupp_broken"], ["liuwang_fig1"], k=3, m=1)
    table = run_study(plan.runs, tmp_path).set_index("method")
    assert table.loc["minsupp", "audit_satisfied"] and table.loc["minsupp", "audit_model"] == "km"
    assert not table.loc["minsupp_broken", "audit_satisfied"]
    assert table.loc["minsupp_broken", "audit_violations"] == 5
