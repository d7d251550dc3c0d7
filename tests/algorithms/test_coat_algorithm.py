"""COAT: golden example, audits on real and random data, infeasibility, bad input, CLI adapter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.coat import KmConstraints, anonymize_coat, pgen
from graphanon.algorithms.coat.policies import pp_policy, up_policy
from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.data import from_iterable
from graphanon.datasets import load, load_constraints
from graphanon.errors import DataFormatError, InfeasibleError, ParameterError
from graphanon.privacy import KmAnonymity, PrivacyConstraints, check_utility_constraints
from graphanon.privacy.registry import build_model
from graphanon.taxonomy import Taxonomy

from ..conftest import rows_by_record

EXPECTED_FIG1 = {
    "Alice": "(a,b) c e f (g,h)",
    "Mary": "(a,b) c e f (g,h)",
    "George": "c e f (g,h)",
    "Jack": "(a,b) c e f",
    "Anne": "e f (g,h)",
    "Tom": "e f (g,h)",
    "Jim": "(a,b) e",
    "Steve": "(a,b) c f",
    "David": "(a,b) c",
    "Ellen": "(a,b) (g,h)",
}


@pytest.fixture(scope="module")
def fig1():
    return load("coat_fig1"), load_constraints("coat_fig1")


def test_golden_fig1_release(fig1):
    data, c = fig1
    rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=c["k"], s=c["s"])
    trace = rel.trace
    got = dict(zip(data.record_ids, rows_by_record(rel), strict=True))
    assert got == EXPECTED_FIG1
    assert rel.mapping == {"a": "(a,b)", "b": "(a,b)", "c": "c", "e": "e", "f": "f", "g": "(g,h)", "h": "(g,h)"}
    assert rel.suppressed_items(data) == ["d"]
    # The trace of the SPEC: b merges with a (support 7), d is suppressed (support 4), g merges with h (6).
    assert [(s.kind, s.result, s.support) for s in trace.steps] == [
        ("merge", ("a", "b"), 7),
        ("suppress", (), 4),
        ("merge", ("g", "h"), 6),
    ]
    assert PrivacyConstraints(c["privacy"], c["k"]).audit(data, rel).satisfied
    assert check_utility_constraints(data, rel, c["utility"], c["s"]).satisfied


def test_fig1_too_strict_utility_raises_naming_constraint(fig1):
    data, c = fig1
    singletons = [[x] for x in data.items]
    with pytest.raises(InfeasibleError, match=r"privacy constraint \['a', 'b', 'c'\].*utility constraint.*12\.5% > s = 0%"):
        anonymize_coat(data, privacy=c["privacy"], utility=singletons, k=5, s=0.0)
    # With s = 15% the first suppression is allowed, the second is not.
    with pytest.raises(InfeasibleError, match=r"2 of 8 items \(25% > s = 15%\)"):
        anonymize_coat(data, privacy=c["privacy"], utility=singletons, k=5, s=0.15)


def test_fig1_with_taxonomy_weights(fig1):
    data, c = fig1
    tax = Taxonomy.from_parent_map(
        {"a": "A", "b": "A", "c": "B", "A": "AB", "B": "AB", "d": "D", "e": "E", "f": "E", "g": "G", "h": "G",
         "D": "DH", "E": "DH", "G": "DH", "AB": "ROOT", "DH": "ROOT"}
    )
    rel = anonymize_coat(data, privacy=c["privacy"], utility=None, k=5, s=0.15, weights=tax)
    assert PrivacyConstraints(c["privacy"], 5).audit(data, rel).satisfied
    assert check_utility_constraints(data, rel, None, 0.15).satisfied


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"privacy": [["a", "zz"]]}, r"privacy constraint #0 .* not in the data: \['zz'\]"),
        ({"privacy": [[]]}, r"privacy constraint #0 is empty"),
        ({"privacy": ["abc"]}, r"privacy constraint #0 is 'abc'"),
        ({"k": 0}, r"k must be a whole number >= 1"),
        ({"k": 11}, r"exceeds the number of records \(10\)"),
        ({"s": 1.5}, r"s must be a number in \[0, 1\] \(the largest fraction"),
        ({"utility": [["a", "b"]]}, r"6 item\(s\) of the data .* are in no group"),
        ({"utility": [["a", "b"], ["b", "c", "d", "e", "f", "g", "h"]]}, r"item 'b' is in two groups"),
    ],
)
def test_bad_input(fig1, kwargs, match):
    data, c = fig1
    args = {"privacy": c["privacy"], "utility": c["utility"], "k": 5, "s": 0.15}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=match):
        anonymize_coat(data, **args)


@pytest.fixture(scope="module")
def bms1():
    return load("bms1")


def test_bms1_all_pairs_is_k2_anonymous(bms1):
    rel = anonymize_coat(bms1, privacy=KmConstraints(2), utility=None, k=5, s=0.005)
    assert rel.algorithm == "coat"
    assert KmAnonymity(5, 2).audit(bms1, rel).satisfied  # independent k^m audit
    assert PrivacyConstraints(KmConstraints(2), 5).audit(bms1, rel).satisfied
    assert check_utility_constraints(bms1, rel, None, 0.005).satisfied
    # The raw data is not 5^2-anonymous, so COAT had work to do.
    assert rel.n_published_items < bms1.n_items


def test_bms1_pgen_constraints(bms1):
    sub = bms1.subset(range(0, bms1.n_records, 4))
    P = pgen(sub, 5)
    assert P and all(len(p) >= 1 for p in P)
    rel = anonymize_coat(sub, privacy=P, utility=None, k=5, s=0.005)
    assert PrivacyConstraints(P, 5).audit(sub, rel).satisfied
    assert check_utility_constraints(sub, rel, None, 0.005).satisfied


@pytest.mark.parametrize("pp, up", [(3, 3), (6, 2)])
def test_bms1_policies(bms1, pp, up):
    sub = bms1.subset(range(0, bms1.n_records, 3))
    tax = Taxonomy.balanced(sub.items, 5)
    P = pp_policy(sub, pp, rng=1)
    U = up_policy(tax, up, data=sub)
    rel = anonymize_coat(sub, privacy=P, utility=U, k=5, s=0.005)
    assert PrivacyConstraints(P, 5).audit(sub, rel).satisfied
    assert check_utility_constraints(sub, rel, U, 0.005).satisfied


def test_bms1_pp3_up2_is_infeasible_at_half_percent(bms1):
    # Blocks of 50 items fully merged still leave a pair of support in (0, 5): the only way out is
    # suppressing a whole published set of 50 items, far above s = 0.5%.
    sub = bms1.subset(range(0, bms1.n_records, 3))
    U = up_policy(Taxonomy.balanced(sub.items, 5), 2, data=sub)
    pattern = r"privacy constraint \['\d+', '\d+'\] .*utility constraint #\d+ .*of 497 items \([\d.]+% > s = 0.5%\)"
    with pytest.raises(InfeasibleError, match=pattern):
        anonymize_coat(sub, privacy=pp_policy(sub, 3, rng=1), utility=U, k=5, s=0.005)


@st.composite
def problems(draw):
    n_items = draw(st.integers(2, 7))
    items = [chr(ord("a") + i) for i in range(n_items)]
    records = draw(
        st.lists(st.lists(st.sampled_from(items), min_size=1, max_size=n_items, unique=True), min_size=3, max_size=14)
    )
    used = sorted({x for r in records for x in r})
    cons = draw(st.lists(st.lists(st.sampled_from(used), min_size=1, max_size=4, unique=True), min_size=1, max_size=5))
    n_blocks = draw(st.integers(1, len(used)))
    assign = draw(st.lists(st.integers(0, n_blocks - 1), min_size=len(used), max_size=len(used)))
    blocks = [[x for x, b in zip(used, assign, strict=True) if b == j] for j in range(n_blocks)]
    blocks = [b for b in blocks if b]
    k = draw(st.integers(1, min(4, len(records))))
    s = draw(st.sampled_from([0.0, 0.2, 1.0]))
    return from_iterable(records), cons, blocks, k, s


@settings(max_examples=60, deadline=None)
@given(problems())
def test_random_releases_pass_audits(problem):
    data, cons, blocks, k, s = problem
    try:
        rel = anonymize_coat(data, privacy=cons, utility=blocks, k=k, s=s)
    except InfeasibleError as exc:
        assert s < 1.0 and "% > s =" in str(exc)
        return
    rep = PrivacyConstraints(cons, k).audit(data, rel)
    assert rep.satisfied, str(rep)
    assert check_utility_constraints(data, rel, blocks, s).satisfied


@settings(max_examples=40, deadline=None)
@given(problems(), st.integers(1, 3))
def test_random_km_releases_pass_km_audit(problem, m):
    data, _, _, k, _ = problem
    rel = anonymize_coat(data, privacy=KmConstraints(m), utility=None, k=k, s=1.0)
    assert KmAnonymity(k, m).audit(data, rel).satisfied
    assert PrivacyConstraints(KmConstraints(m), k).audit(data, rel).satisfied


def test_cli_adapter_and_audit_model(fig1, tmp_path):
    data, c = fig1
    pfile = tmp_path / "p.txt"
    pfile.write_text("a,b,c\nd,e,f,g,h\n")
    ufile = tmp_path / "u.txt"
    ufile.write_text("a,b\nc\nd\ne,f,g,h\n")
    spec = get_algorithm("coat")
    assert spec.privacy_model == "constraints"
    rel = spec.run(data, RunOptions(k=5, params={"privacy": str(pfile), "utility": f"groups:{ufile}", "s": "15%"}))
    assert rows_by_record(rel)[0] == "(a,b) c e f (g,h)"
    model = build_model("constraints", k=5, m=None, params={"privacy": str(pfile)}, original=data)
    assert model.audit(data, rel).satisfied
    rel2 = spec.run(data, RunOptions(k=2, m=2, params={"s": "0.5"}))
    assert build_model("constraints", k=2, m=2, params={}, original=data).audit(data, rel2).satisfied
    with pytest.raises(ParameterError, match="unknown --param bogus"):
        spec.run(data, RunOptions(k=2, params={"bogus": "1"}))
    with pytest.raises(DataFormatError, match="line 1: item 'zz' is not in the data"):
        bad = tmp_path / "bad.txt"
        bad.write_text("zz,a\n")
        spec.run(data, RunOptions(k=2, params={"privacy": str(bad)}))
    with pytest.raises(ParameterError, match="taxonomy-level:N needs --taxonomy"):
        spec.run(data, RunOptions(k=2, params={"utility": "taxonomy-level:1"}))


def test_cli_bundled_constraints_reproduce_the_golden_release(fig1):
    data, _ = fig1
    spec = get_algorithm("coat")
    params = {"privacy": "bundled", "utility": "bundled", "s": "15%"}
    rel = spec.run(data, RunOptions(k=5, params=params))
    got = dict(zip(data.record_ids, rows_by_record(rel), strict=True))
    assert got == EXPECTED_FIG1
    model = build_model("constraints", k=5, m=None, params=params, original=data)
    assert model.audit(data, rel).satisfied
    with pytest.raises(ParameterError, match="ships no constraints"):
        spec.run(load("liuwang_fig1"), RunOptions(k=2, params={"privacy": "bundled"}))
    with pytest.raises(ParameterError, match=r"on the command line, 15%"):
        anonymize_coat(data, privacy=[["a", "b"]], utility=None, k=2, s=15)


def test_stuck_item_lets_another_item_of_the_constraint_merge():
    # x is alone in its utility constraint with support 3 = k: it cannot be merged and must not be
    # suppressed while y can still be generalized (with z): x(y,z) then has support 3.
    data = from_iterable([["x", "y"], ["x", "z"], ["x", "z"]] + [["y"]] * 5 + [["z"]])
    rel = anonymize_coat(data, privacy=[["x", "y"]], utility=[["x"], ["y", "z"]], k=3, s=0.0)
    assert rel.mapping == {"x": "x", "y": "(y,z)", "z": "(y,z)"}
    assert PrivacyConstraints([["x", "y"]], 3).audit(data, rel).satisfied
    # When nothing can be merged any more, the suppression phase removes the least-supported item.
    rel = anonymize_coat(data, privacy=[["x", "y"]], utility=[["x"], ["y"], ["z"]], k=3, s=0.34)
    assert rel.suppressed_items(data) == ["x"]
    with pytest.raises(InfeasibleError, match=r"privacy constraint \['x', 'y'\]"):
        anonymize_coat(data, privacy=[["x", "y"]], utility=[["x"], ["y"], ["z"]], k=3, s=0.0)


def test_audit_model_with_utility_constraints(fig1, tmp_path):
    data, c = fig1
    rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15)
    pfile = tmp_path / "p.txt"
    pfile.write_text("a,b,c\nd, e, f, g, h\n")
    ufile = tmp_path / "u.txt"
    ufile.write_text("a,b\nc\nd\ne,f,g,h\n")
    ok = build_model("constraints", k=5, m=None, params={"privacy": str(pfile), "utility": f"groups:{ufile}",
                                                          "s": "15%"}, original=data)
    assert ok.audit(data, rel).satisfied
    strict = build_model("constraints", k=5, m=None, params={"privacy": str(pfile), "utility": f"groups:{ufile}",
                                                              "s": "10%"}, original=data)
    rep = strict.audit(data, rel)
    assert not rep.satisfied and rep.violations == 1  # d suppressed: 12.5% > 10%
    with pytest.raises(ParameterError, match="unknown --param x"):
        build_model("constraints", k=5, m=None, params={"privacy": str(pfile), "x": "1"}, original=data)


def test_weights_callable_progress_and_errors(fig1):
    data, c = fig1
    calls = []
    seen = []

    def w(members):
        seen.append(members)
        return 0.5

    rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15, weights=w,
                         progress=lambda d, t, msg: calls.append(msg))
    assert rows_by_record(rel)[0] == "(a,b) c e f (g,h)"  # constant weights do not change the choices
    assert ("a", "b") in seen and calls and calls[-1].startswith("done")
    with pytest.raises(ParameterError, match="weights must be in"):
        anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15, weights=lambda m: 2.0)
    with pytest.raises(ParameterError, match="weights must be None"):
        anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15, weights=3)
