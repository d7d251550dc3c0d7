"""Releases made with priors (graphanon.algorithms.prior, `anonymize --prior`): the joint audit passes.

Every release made with priors is audited jointly with them by the
independent joint audit (graphanon.privacy.joint); the refusals (a stronger
requirement than the priors', priors that differ, a missing or foreign link,
a method that cannot compose) are one clear error each.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.hierarchy.aa import anonymize_aa
from graphanon.algorithms.hierarchy.cut import anonymize_cut, cut_recoding
from graphanon.algorithms.hierarchy.hghs import anonymize_hghs, anonymize_mhghs
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.algorithms.prior import Prior, coarsened_cut, joint_item_classes
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import DataMismatchError, InfeasibleError, ParameterError
from graphanon.privacy import KmAnonymity, LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.joint import audit_joint
from graphanon.release.publish import publish

from ..ebook_sessions import ebook_sessions


@pytest.fixture(scope="module")
def sessions():
    return ebook_sessions(600, 120, seed=5)


def _rows(release, link_rows):
    """Each record's published row as text (base, distance, threshold, label)."""
    return [release.render_record(int(j)) for j in link_rows]


# ---------------------------------------------------------------------- nonreciprocal reuse


def test_nr_prior_reuse_passes_the_joint_audit(sessions):
    first = anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow")
    again = anonymize_nonreciprocal(sessions, k=3, l=3, priors=first)
    # every record gets the same row content, under a fresh order, pseudonyms and fingerprint key
    assert _rows(first, first.link.row_of_record) == _rows(again, again.link.row_of_record)
    assert not np.array_equal(first.link.row_of_record, again.link.row_of_record)
    assert first.link.key != again.link.key and first.fingerprint != again.fingerprint
    for model in (LDiversity(3), NonreciprocalKAnonymity(3)):
        assert model.audit(sessions, again).satisfied
        rep = audit_joint(model, sessions, [first, again])
        assert rep.satisfied, rep
    rep = audit_joint(LDiversity(3), sessions, [first, again])
    assert rep.details["pinned_records"] == 0
    # a third release with both priors (same structure) and a weaker requirement
    third = anonymize_cahd(sessions, l=2, priors=[first, Prior(again, again.link)])
    assert audit_joint(LDiversity(3), sessions, [first, again, third]).satisfied


def test_unseeded_releases_without_priors_fail_where_reuse_passes(sessions):
    """The case --prior exists for: two independent nr l=3 releases pin records."""
    first = anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow")
    independent = anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow")
    rep = audit_joint(LDiversity(3), sessions, [first, independent])
    assert not rep.satisfied and rep.details["pinned_records"] > 0


def test_nr_prior_refusals(sessions):
    first = anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow")
    other = anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow")
    with pytest.raises(InfeasibleError, match="promises l=3"):
        anonymize_nonreciprocal(sessions, k=4, l=4, priors=first)
    with pytest.raises(InfeasibleError, match="promises l=3"):
        anonymize_cahd(sessions, l=4, priors=first)
    with pytest.raises(InfeasibleError, match="different rows"):
        anonymize_nonreciprocal(sessions, k=3, l=3, priors=[first, other])
    loaded_like = Prior(first, None)
    first_link = first.link
    first.link = None  # as a release loaded from a file
    try:
        with pytest.raises(ParameterError, match="private link"):
            anonymize_nonreciprocal(sessions, k=3, l=3, priors=loaded_like)
    finally:
        first.link = first_link
    with pytest.raises(DataMismatchError, match="not made with this release"):
        anonymize_nonreciprocal(sessions, k=3, l=3, priors=Prior(first, other.link))
    relabelled = from_iterable([sorted(r) for r in sessions.records()], record_ids=sessions.record_ids,
                               labels=["a new label", *sessions.labels[1:]])
    with pytest.raises(InfeasibleError, match="label counts differ"):
        anonymize_nonreciprocal(relabelled, k=3, l=3, priors=first)
    smaller = ebook_sessions(600, 120, seed=6)
    with pytest.raises(DataMismatchError):
        anonymize_nonreciprocal(smaller, k=3, l=3, priors=first)
    table = load("liuwang_fig1")
    with pytest.raises(ParameterError, match="compose only with nonreciprocal"):
        anonymize_nonreciprocal(table, k=2, priors=anonymize_cut(table, taxonomy=load_taxonomy("liuwang_fig1"), level=1))


def test_k_only_prior_without_labels_refuses_l(sessions):
    bare = from_iterable([sorted(r) for r in sessions.records()], record_ids=sessions.record_ids)
    first = anonymize_nonreciprocal(bare, k=4)
    with pytest.raises(InfeasibleError, match="promises l=None"):
        anonymize_nonreciprocal(sessions, k=3, l=3, priors=first)  # same records: the labels are not fingerprinted
    again = anonymize_nonreciprocal(bare, k=2, priors=first)
    assert again.params["k"] == 4  # the release is the prior's structure, and says so
    assert audit_joint(NonreciprocalKAnonymity(4), bare, [first, again]).satisfied


# ---------------------------------------------------------------------- global recodings: coarsening


@pytest.fixture(scope="module")
def groceries():
    return load("groceries"), load_taxonomy("groceries")


@pytest.mark.parametrize("method", ["hghs", "mhghs", "aa", "cut"])
def test_global_prior_passes_the_joint_audit(groceries, method, tmp_path):
    data, tax = groceries
    prior = anonymize_aa(data, taxonomy=tax, k=5, m=2)
    if method == "cut":
        new = anonymize_cut(data, taxonomy=tax, level=2, priors=prior)
    else:
        fn = {"hghs": anonymize_hghs, "mhghs": anonymize_mhghs, "aa": anonymize_aa}[method]
        new = fn(data, taxonomy=tax, k=5, m=2, priors=prior)
    km = KmAnonymity(5, 2)
    assert km.audit(data, new).satisfied
    rep = audit_joint(km, data, [prior, new])
    assert rep.satisfied, rep
    # the new recoding is a function of the prior's: the refinement has the prior's classes
    joint, _ = joint_item_classes(data, [prior])
    both, _ = joint_item_classes(data, [prior, new])
    assert len(np.unique(both)) == len(np.unique(joint))
    assert new.params["priors"] == 1 and new.algorithm == method
    assert "path" not in new.params and "rounds" not in new.params
    new.save(tmp_path / "new.json")  # every field it publishes is on the allowlist (release/base.py)


def test_hghs_without_priors_fails_jointly_with_aa(groceries):
    """Without priors the two recodings refine each other into violations (measured on groceries)."""
    data, tax = groceries
    aa = anonymize_aa(data, taxonomy=tax, k=5, m=2)
    hghs = anonymize_hghs(data, taxonomy=tax, k=5, m=2)
    assert not audit_joint(KmAnonymity(5, 2), data, [aa, hghs]).satisfied


def test_global_prior_refusals(groceries):
    data, tax = groceries
    prior = anonymize_aa(data, taxonomy=tax, k=5, m=2)
    with pytest.raises(InfeasibleError, match="common refinement"):
        anonymize_aa(data, taxonomy=tax, k=20, m=2, priors=prior)
    with pytest.raises(ParameterError, match="compose only with global recoding"):
        anonymize_cut(data, taxonomy=tax, level=1, priors=anonymize_cahd(load("nr_table1"), l=2))


def _random_cut(tax, rng):
    """A random cut: leaves, then random internal nodes generalized."""
    cut = [v for v in tax.nodes if tax.is_leaf(v)]
    for v in rng.permutation([v for v in tax.nodes if not tax.is_leaf(v)]).tolist():
        if rng.random() < 0.3 and any(tax.is_ancestor(v, c) for c in cut):
            cut = [c for c in cut if not tax.is_ancestor(v, c)] + [v]
    return cut


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_priors=st.integers(1, 3))
def test_coarsening_teaches_nothing_new(seed, n_priors):
    """Random prior cuts (with random suppressed nodes) on liuwang_fig1 and a random new cut:
    the coarsened release is a function of the priors' joint classes (so the composition's
    refinement is the priors'), never finer than the cut asked for, and it suppresses what
    every prior suppresses."""
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rng = np.random.default_rng(seed)
    priors = []
    for _ in range(n_priors):
        cut = _random_cut(tax, rng)
        suppress = [v for v in cut if rng.random() < 0.15]
        priors.append(anonymize_cut(data, taxonomy=tax, cut=cut, suppress=suppress))
    asked = _random_cut(tax, rng)
    new = anonymize_cut(data, taxonomy=tax, cut=asked, priors=priors)
    joint, suppressed = joint_item_classes(data, priors)
    code = new.code_for(data)
    for c in np.unique(joint):
        assert len(set(code[joint == c].tolist())) == 1
    assert (code[suppressed] < 0).all()
    # never finer than asked: items that share a node of the asked cut share one in the new cut
    asked_map = tax.cut_map(asked)
    new_map = tax.cut_map(new.trace.cut)
    for x in data.items:
        assert tax.is_ancestor(new_map[x], asked_map[x])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n_priors=st.integers(1, 2), k=st.integers(2, 3),
       m=st.sampled_from([1, 2, None]))
def test_coarsened_cut_with_k_passes_alone_and_jointly(seed, n_priors, k, m):
    """With k: the raised cut (the method's suppressed nodes may come back) passes the independent
    k^m audit alone and jointly with the priors, or the request is refused exactly when the priors
    already fail jointly."""
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rng = np.random.default_rng(seed)
    priors = []
    for _ in range(n_priors):
        cut = _random_cut(tax, rng)
        priors.append(anonymize_cut(data, taxonomy=tax, cut=cut, suppress=[v for v in cut if rng.random() < 0.2]))
    asked = _random_cut(tax, rng)
    asked_suppressed = [v for v in asked if rng.random() < 0.2]
    model = KmAnonymity(k, m)
    priors_pass = audit_joint(model, data, priors).satisfied
    try:
        cut, suppressed = coarsened_cut(data, priors, taxonomy=tax, cut=asked, suppressed=asked_suppressed, k=k, m=m)
    except InfeasibleError:
        assert not priors_pass
        return
    assert priors_pass
    new = publish(data, cut_recoding(data, tax, cut, suppressed))
    assert model.audit(data, new).satisfied
    assert audit_joint(model, data, [*priors, new]).satisfied


# ---------------------------------------------------------------------- command line


def _one_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: "), res.output
    return lines[0]


def test_cli_prior_nonreciprocal(run):
    assert run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=3", "-o", "r1.json",
               "--link-out", "l1.json").exit_code == 0
    res = run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "-o", "r2.json",
              "--prior", "r1.json", "--prior-link", "l1.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "nr_table1", "r1.json", "r2.json", "--model", "ldiversity", "--param", "l=3", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"]
    line = _one_line(run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "-o", "r3.json",
                         "--prior", "r1.json"))
    assert "--prior-link" in line
    line = _one_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "4", "-o", "r3.json",
                         "--prior", "r1.json", "--prior-link", "l1.json"))
    assert "promises k=3" in line
    line = _one_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", "r3.json", "--prior-link", "l1.json"))
    assert "--prior-link goes with --prior" in line
    line = _one_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--seed", "3", "--param", "order=gray",
                         "-o", "r3.json", "--prior", "r1.json", "--prior-link", "l1.json"))
    assert "--seed, --param order" in line and "drop them" in line


def test_cli_prior_global_and_refusals(run):
    assert run("anonymize", "groceries", "-a", "aa", "-k", "5", "-m", "2", "-o", "g1.json").exit_code == 0
    res = run("anonymize", "groceries", "-a", "hghs", "-k", "5", "-m", "2", "-o", "g2.json", "--prior", "g1.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "groceries", "g1.json", "g2.json", "--model", "km", "-k", "5", "-m", "2")
    assert res.exit_code == 0, res.output
    line = _one_line(run("anonymize", "groceries", "-a", "aa", "-k", "20", "-m", "2", "-o", "g3.json",
                         "--prior", "g1.json"))
    assert "common refinement" in line
    line = _one_line(run("anonymize", "groceries", "-a", "mm", "-k", "5", "-m", "2", "-o", "g3.json",
                         "--prior", "g1.json"))
    assert "cahd, nr (reuse" in line and "aa, cut, hghs, mhghs (coarsened" in line and "'mm'" in line  # sorted names
    line = _one_line(run("anonymize", "groceries", "-a", "hghs", "-k", "5", "-m", "2", "-o", "g3.json",
                         "--prior", "g1.json", "--prior-link", "g1.json"))
    assert "not a graphanon-private-link/1 file" in line
    # without its link the prior is checked from the data (its rows must be the data's recodings) ...
    line = _one_line(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "g3.json",
                         "--prior", "g1.json"))
    assert "not made from this data" in line
    # ... and with it, by the keyed fingerprint
    assert run("anonymize", "groceries", "-a", "aa", "-k", "5", "-m", "2", "-o", "g4.json",
               "--link-out", "gl4.json").exit_code == 0
    line = _one_line(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "g3.json",
                         "--prior", "g4.json", "--prior-link", "gl4.json"))
    assert "--prior g4.json" in line and "not made from this data" in line
    res = run("anonymize", "groceries", "-a", "hghs", "-k", "5", "-m", "2", "-o", "g5.json", "--prior", "g4.json",
              "--prior-link", "gl4.json")
    assert res.exit_code == 0, res.output
