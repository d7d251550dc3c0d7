"""The leaf-naming attack (issue 30, item 4) and ``public_taxonomy=True`` releases that name no code."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_cut, anonymize_hghs, anonymize_mhghs
from graphanon.algorithms.hierarchy.cut import cover_cut, cut_recoding, public_taxonomy_recoding
from graphanon.attacks import leaf_naming
from graphanon.attacks.leafnames import named_hits, release_candidates
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.datasets.synthetic import icd9_like
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.metrics.evaluate import evaluate_release
from graphanon.privacy import KmAnonymity
from graphanon.release import load_release
from graphanon.taxonomy import Taxonomy
from tests.conftest import cli


@pytest.fixture(scope="module")
def icd9():
    return icd9_like(1500, rng=2)


# ------------------------------------------------------------------ the data


def test_icd9_like_is_seeded_and_shaped():
    d1, e1, t1 = icd9_like(800, n_external=500, rng=5)
    d2, e2, t2 = icd9_like(800, n_external=500, rng=5)
    assert d1.items == d2.items and (d1.matrix != d2.matrix).nnz == 0 and e1.items == e2.items
    assert (d1.n_records, e1.n_records) == (800, 500)
    assert t1.nodes == t2.nodes and t1.root == "ICD9" and t1.height == 4
    t1.check_covers(d1.items)
    t1.check_covers(e1.items)
    # the samples differ, the population is the same: common codes are shared
    assert set(d1.items) != set(e1.items)
    top = np.argsort(-np.asarray(d1.supports()))[:20]
    assert {d1.items[j] for j in top} <= set(e1.items)
    assert len(t1.leaves) - d1.n_items > len(t1.leaves) // 3  # many absent leaves


def test_icd9_like_refuses_bad_sizes():
    with pytest.raises(ParameterError, match="n_records"):
        icd9_like(0)
    with pytest.raises(ParameterError, match="avg_codes"):
        icd9_like(10, avg_codes=0.5)


# ------------------------------------------------------------------ the ranking


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.booleans()), min_size=1, max_size=7),
       st.integers(0, 8))  # fmt: skip
def test_named_hits_is_the_mean_over_tie_breaks(rows, n):
    scores = np.array([r[0] for r in rows], dtype=float)
    truth = np.array([r[1] for r in rows])
    allowed = np.array([r[2] for r in rows])
    idx = [i for i in range(len(rows)) if allowed[i]]
    # brute force: every order of the allowed leaves that sorts them by score, the first n named
    outcomes = []
    for perm in itertools.permutations(idx):
        if all(scores[perm[i]] >= scores[perm[i + 1]] for i in range(len(perm) - 1)):
            outcomes.append(sum(truth[j] for j in perm[:n]))
    expected = float(np.mean(outcomes)) if outcomes else 0.0
    assert named_hits(scores, allowed, truth, n) == pytest.approx(expected)


def test_planted_suppression_is_named():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    assert [x for x, c in zip(tax.leaves, release_candidates(rel, tax), strict=True) if c] == ["i"]
    external = {leaf: 10 for leaf in tax.leaves}  # i is as common as anything: only the release names it
    res = leaf_naming(rel, tax, external, truth=["i"], original=data)
    assert res.success == 1.0 and res.bound == pytest.approx(1 / len(tax.leaves))  # one name: no margin verdict
    assert res.details["occurrences_named"] == data.supports()[data.items.index("i")]


def test_refuses_truth_outside_the_taxonomy():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_cut(data, taxonomy=tax, level=1)
    with pytest.raises(ParameterError, match="not leaves"):
        leaf_naming(rel, tax, {}, truth=["nope"])
    with pytest.raises(ParameterError, match="score"):
        leaf_naming(rel, tax, {}, truth=["i"], score="loud")


def test_hghs_names_its_suppressed_codes(icd9):
    """The finding: ranking the uncovered leaves by another sample's frequencies names the suppressed codes."""
    data, external, tax = icd9
    rel = anonymize_hghs(data, taxonomy=tax, k=5, m=2)
    assert rel.n_suppressed > 10
    res = leaf_naming(rel, tax, external, truth=rel.suppressed, original=data)
    assert res.details["n"] == rel.n_suppressed  # the file says how many
    assert res.success > 2 * res.bound and not res.within_bound(), str(res)


# ------------------------------------------------------------------ public_taxonomy=True


@pytest.mark.parametrize("run", [anonymize_hghs, anonymize_mhghs])
@pytest.mark.parametrize(("k", "m"), [(5, 2), (10, 2), (20, 3)])
def test_public_taxonomy_names_nothing_beyond_the_frequency_guess(icd9, run, k, m, tmp_path):
    data, external, tax = icd9
    default = run(data, taxonomy=tax, k=k, m=m)
    rel = run(data, taxonomy=tax, k=k, m=m, public_taxonomy=True)
    assert KmAnonymity(k, m).audit(data, rel).satisfied
    rel.save(tmp_path / "r.json")
    saved = load_release(tmp_path / "r.json")
    # the file: nothing suppressed, every taxonomy leaf named once, present or absent, no search numbers
    assert saved.n_suppressed == 0 and saved.params["public_taxonomy"] is True
    assert set(saved.params) == {"k", "m", "n_suppressed_nodes", "public_taxonomy"}
    named = [m_ for pi in saved.published_items for m_ in pi.members]
    assert sorted(named) == sorted(tax.leaves)
    assert all(pi.leaves == len(pi.members) for pi in saved.published_items)
    assert np.diff(saved.records.indptr).min() > 0  # no record lost all its codes
    metrics = evaluate_release(data, saved, queries=50)
    assert metrics["suppression_ratio"] == 0.0 and 0 < metrics["ncp"] < 1
    # the codes the method would have suppressed: named no more than without the release
    for score in ("frequency", "rarity"):
        res = leaf_naming(saved, tax, external, truth=default.suppressed, score=score)
        assert res.success == pytest.approx(res.bound), str(res)
    # and the release suppresses nothing: nothing to name
    assert leaf_naming(saved, tax, external, truth=(), n=0).details["named"] == 0


def test_public_taxonomy_golden():
    """Liu & Wang's Fig. 1 data: HgHs's cut with {i} suppressed, generalized instead."""
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_hghs(data, taxonomy=tax, k=2, m=2, public_taxonomy=True, unsafe_secret_seed=0)
    assert rel.trace.suppressed == () and rel.n_suppressed == 0
    assert [(pi.label, pi.members) for pi in rel.published_items] == [
        ("K", ("c", "d")), ("(H,i)", ("a", "b", "i")), ("(e,Q)", ("e", "f", "g", "x", "y", "z"))
    ]
    rows = sorted(line.split(": ", 1)[1] for line in rel.to_text().splitlines())
    assert rows == sorted(['"(H,i)" "(e,Q)"', '"(H,i)"', 'K "(e,Q)"', '"(H,i)" "(e,Q)"', 'K "(H,i)"',
                           'K "(H,i)" "(e,Q)"', 'K "(e,Q)"', '"(e,Q)"'])  # fmt: skip
    assert KmAnonymity(2, 2).audit(data, rel).satisfied


def test_public_taxonomy_on_bundled_groceries():
    data, tax = load("groceries"), load_taxonomy("groceries")
    for run in (anonymize_hghs, anonymize_mhghs):
        rel = run(data, taxonomy=tax, k=10, m=2, public_taxonomy=True)
        assert rel.n_suppressed == 0
        assert KmAnonymity(10, 2).audit(data, rel).satisfied


def test_skipping_the_km_loop_fails_the_audit(icd9):
    """A broken variant: the suppressed nodes published again, no generalization after -- the audit says no."""
    data, _, tax = icd9
    default = anonymize_hghs(data, taxonomy=tax, k=5, m=2)
    broken = public_taxonomy_recoding(data, tax, [[v] for v in default.trace.cut], algorithm="hghs")
    assert not KmAnonymity(5, 2).audit(data, broken).satisfied
    fixed = cover_cut(data, tax, default.trace.cut, default.trace.suppressed, k=5, m=2)
    assert KmAnonymity(5, 2).audit(data, public_taxonomy_recoding(data, tax, fixed, algorithm="hghs")).satisfied


def test_public_taxonomy_recoding_checks_its_groups():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    with pytest.raises(Exception, match="cut"):
        public_taxonomy_recoding(data, tax, [["P"], ["Q"]], algorithm="cut")  # e and i uncovered
    with pytest.raises(Exception, match="not nodes of the cut"):
        cover_cut(data, tax, ["P", "Q", "e", "i"], ["H"], k=2, m=1)


def test_public_taxonomy_refuses_priors():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    prior = anonymize_cut(data, taxonomy=tax, level=1)
    with pytest.raises(ParameterError, match="priors"):
        anonymize_hghs(data, taxonomy=tax, k=2, m=2, public_taxonomy=True, priors=prior)


def test_public_taxonomy_infeasible_when_fewer_than_k_records_hold_codes():
    data = from_iterable([["a"], [], []])
    tax = Taxonomy.from_parent_map({"a": "R", "b": "R"})
    with pytest.raises(InfeasibleError, match="fewer than k"):
        cover_cut(data, tax, ["a", "b"], k=2, m=1)


@st.composite
def instances(draw):
    n_items = draw(st.integers(2, 9))
    n_rec = draw(st.integers(2, 14))
    records = [
        draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=min(5, n_items), unique=True))
        for _ in range(n_rec)
    ]
    data = from_iterable(records)
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    # random tree; internal nodes left without items are taxonomy leaves absent from the data
    n_int = draw(st.integers(1, 5))
    parent = {f"I{i}": f"I{int(rng.integers(0, i))}" for i in range(1, n_int)}
    for x in data.items:
        parent[x] = f"I{int(rng.integers(0, n_int))}"
    parent["absent"] = f"I{int(rng.integers(0, n_int))}"
    tax = Taxonomy.from_parent_map(parent)
    k = draw(st.integers(1, max(1, min(4, n_rec))))
    m = draw(st.one_of(st.none(), st.integers(1, 3)))
    return data, tax, k, m


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_public_taxonomy_hypothesis(inst):
    data, tax, k, m = inst
    for run in (anonymize_hghs, anonymize_mhghs):
        rel = run(data, taxonomy=tax, k=k, m=m, public_taxonomy=True)
        rep = KmAnonymity(k, m).audit(data, rel)
        assert rep.satisfied, str(rep)
        assert rel.n_suppressed == 0
        assert sorted(x for pi in rel.published_items for x in pi.members) == sorted(tax.leaves)
        # every published item is held by a record: none shows its codes absent
        assert np.bincount(rel.records.indices, minlength=rel.n_published_items).min() > 0
        # the generalization only coarsens the cut recoding: no published item splits a cut node
        assert set(rel.trace.cut) <= set(tax.nodes)
        assert cut_recoding(data, tax, rel.trace.cut).n_records == data.n_records


def test_cli_public_taxonomy(tmp_path):

    out = tmp_path / "r.json"
    args = ["anonymize", "liuwang_fig1", "-a", "hghs", "-k", "2", "-m", "2", "--taxonomy", "liuwang_fig1",
            "--param", "public_taxonomy=true", "-o", str(out)]
    res = cli(*args)
    assert res.exit_code == 0, res.output
    rel = load_release(out)
    assert rel.params["public_taxonomy"] is True and rel.n_suppressed == 0
    assert sorted(x for pi in rel.published_items for x in pi.members) == sorted(load_taxonomy("liuwang_fig1").leaves)
    res = cli("audit", "liuwang_fig1", out, "--model", "km", "-k", "2", "-m", "2")
    assert res.exit_code == 0 and "satisfied" in res.output


def test_audit_refuses_a_public_taxonomy_claim_that_suppresses():
    """Planted: a k^m-anonymous release that says public_taxonomy but suppresses a code, or shows one absent."""
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    honest = anonymize_hghs(data, taxonomy=tax, k=2, m=2, public_taxonomy=True)
    assert KmAnonymity(2, 2).audit(data, honest).satisfied
    suppressing = anonymize_hghs(data, taxonomy=tax, k=2, m=2)  # HgHs's own release: i suppressed
    assert KmAnonymity(2, 2).audit(data, suppressing).satisfied
    suppressing.params["public_taxonomy"] = True
    rep = KmAnonymity(2, 2).audit(data, suppressing)
    assert not rep.satisfied and "suppresses items" in str(rep.counterexamples[0])
    groups = [["K"], ["H", "i"], ["e", "Q"]]
    padded = public_taxonomy_recoding(data, tax.restrict(data.items), groups, algorithm="hghs")
    assert KmAnonymity(2, 2).audit(data, padded).satisfied
    extra = Taxonomy.from_parent_map({**{v: tax.parent(v) for v in tax.nodes if v != tax.root}, "absent": "T"})
    shown_absent = public_taxonomy_recoding(data, extra, [*groups, ["absent"]], algorithm="hghs")
    rep = KmAnonymity(2, 2).audit(data, shown_absent)
    assert not rep.satisfied and "no record holds" in str(rep.counterexamples)


def test_aa_and_cut_public_taxonomy(icd9, tmp_path):
    from graphanon.algorithms import anonymize_aa

    data, external, tax = icd9
    for rel in (anonymize_aa(data, taxonomy=tax, k=5, m=2, public_taxonomy=True),
                anonymize_cut(data, taxonomy=tax, level=2, public_taxonomy=True)):
        if rel.algorithm == "aa":
            assert KmAnonymity(5, 2).audit(data, rel).satisfied
        else:
            assert rel.params["level"] == 2
        assert rel.n_suppressed == 0 and rel.params["public_taxonomy"] is True
        assert sorted(x for pi in rel.published_items for x in pi.members) == sorted(tax.leaves)
        assert np.bincount(rel.records.indices, minlength=rel.n_published_items).min() > 0
        rel.save(tmp_path / f"{rel.algorithm}.json")  # the allowlist takes the new field
    # the default cut's members name the codes present in the data; the public one names every leaf
    plain = anonymize_cut(data, taxonomy=tax, level=2)
    assert sum(len(pi.members) for pi in plain.published_items) == data.n_items
    with pytest.raises(ParameterError, match="no suppression"):
        anonymize_cut(data, taxonomy=tax, level=1, suppress=[tax.level(1)[0]], public_taxonomy=True)
    with pytest.raises(ParameterError, match="public_taxonomy must be True or False"):
        anonymize_aa(data, taxonomy=tax, k=5, m=2, public_taxonomy="yes")


def test_cli_attack_runs_leaf_naming(tmp_path):
    from graphanon.readwrite.long_csv import write_long_csv

    data, external, tax = icd9_like(1500, rng=2)
    write_long_csv(data, tmp_path / "d.csv")
    write_long_csv(external, tmp_path / "e.csv")
    (tmp_path / "t.txt").write_text("\n".join(";".join([leaf, *map(str, tax.ancestors(leaf))]) for leaf in tax.leaves))
    for extra, above in (([], True), (["--param", "public_taxonomy=true"], False)):
        res = cli("anonymize", tmp_path / "d.csv", "-a", "hghs", "-k", "5", "-m", "2", "--taxonomy",
                  tmp_path / "t.txt", "-o", tmp_path / "r.json", *extra)
        assert res.exit_code == 0, res.output
        res = cli("attack", tmp_path / "d.csv", tmp_path / "r.json", "--taxonomy", tmp_path / "t.txt", "--param",
                  f"external={tmp_path / 'e.csv'}", "--json")
        doc = json.loads(res.output)
        (named,) = [a for a in doc["releases"][0]["attacks"] if a["attack"].startswith("leaf-naming")]
        assert (not named["within_bound"]) is above, named
        assert res.exit_code == (1 if above else 0)
    res = cli("attack", tmp_path / "d.csv", tmp_path / "r.json", "--json")
    assert any("leaf-naming: needs" in line for line in json.loads(res.output)["releases"][0]["skipped"])
