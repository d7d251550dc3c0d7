"""nr with l publishes its labels in label groups (issue 30, item 1; l_method="groups", the default).

The label groups are drawn in secret (grouping="random", the default: the graph is the k-anonymous ring
over the whole order) or formed along the order (grouping="order": one k-regular ring per group); the
labels are published per group, dealt by a secret shuffle (tests/algorithms/test_nr_random_groups.py: the
grouping's likelihood against brute force).
Checked: the golden table, bundled data with skewed labels and hypothesis inputs pass every variant's
audit with and without the private link; the grouped audit against brute force (explicit possible
worlds, every perfect matching) on tiny data; planted broken releases (a group with a label over
1/l, groups whose labels are not their records', labels left on their own rows) are refused; the
ranking adversary stays at 1/l on correlated data; the CLI's params.
"""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.attacks import candidate_sets, label_inference, ranking_label_inference
from graphanon.data import TransactionData, from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.privacy import NonreciprocalKAnonymity
from graphanon.privacy.diversity import diversity_model
from graphanon.privacy.label_groups import grouped_label_distributions, variant_ok
from graphanon.release import NonreciprocalRelease, load_release
from tests.algorithms.test_nonreciprocal_ldiversity import feasible_labels
from tests.patients import patients

VARIANTS = [("distinct", None), ("entropy", None), ("recursive", 2.0)]


def audits(data, rel, l, diversity="distinct", c=None, k=None):  # noqa: E741
    """Every audit the release promises, with and without the private link."""
    model = diversity_model(l, diversity, c)
    rep = model.audit(data, rel)
    assert rep.satisfied, str(rep)
    assert rep.details["audited_with_link"]
    assert NonreciprocalKAnonymity(k or l).audit(data, rel).satisfied
    link, rel.link = rel.link, None
    try:
        rep = model.audit(data, rel)
        assert rep.satisfied and not rep.details["audited_with_link"], str(rep)
    finally:
        rel.link = link


def groups_of(rel):
    return [np.flatnonzero(rel.label_groups == g) for g in range(int(rel.label_groups.max()) + 1)]


def assert_graph(data, rel, k, grouping):
    """``order``: one ring per label group; ``random``: the k-anonymous ring over the whole order."""
    if grouping == "order":
        assert_rings_inside_groups(data, rel, k)
        return
    order = rel.trace.order
    expected = np.empty((data.n_records, k), dtype=np.int64)
    expected[order] = order[(np.arange(len(order))[:, None] + np.arange(k)[None, :]) % len(order)]
    assert rel.trace.graph.successors.tolist() == expected.tolist()


@pytest.mark.parametrize("grouping", ["random", "order"])
def test_golden_table(grouping):
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=2, rng=0, grouping=grouping)
    assert rel.params["l_method"] == "groups" and rel.params["label_group_size"] == 2
    assert rel.params["grouping"] == grouping
    assert sorted(map(str, rel.labels)) == sorted(map(str, data.labels))
    for g in groups_of(rel):  # CAHD groups of two distinct labels
        assert len(g) >= 2 and len({rel.labels[j] for j in g}) == len(g)
    audits(data, rel, 2)
    assert "drawn from label group" in rel.render_record(0)
    assert_graph(data, rel, 2, grouping)


def assert_rings_inside_groups(data, rel, k):
    """The generalization graph is one k-regular ring per label group: every edge stays in its group."""
    graph = rel.trace.graph
    assert graph.is_k_regular(k)
    group = rel.label_groups[rel.link.rows_for(data)]  # each record's group (that of its own row)
    assert (group[graph.successors] == group[:, None]).all()
    for g in np.unique(group):  # one ring: the members in the record order, each to itself and its k - 1 next
        members = np.flatnonzero(group == g)
        assert len(members) >= k
        position = np.argsort(rel.trace.order)[members]
        ring = members[np.argsort(position)]
        expected = ring[(np.arange(len(ring))[:, None] + np.arange(k)[None, :]) % len(ring)]
        assert graph.successors[ring].tolist() == expected.tolist()


def test_saved_file_keeps_the_groups(tmp_path):
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=2, rng=0)
    rel.save(tmp_path / "r.json")
    back = load_release(tmp_path / "r.json")
    assert back.label_groups.tolist() == rel.label_groups.tolist() and back.labels == rel.labels
    assert diversity_model(2).audit(data, back).satisfied
    # group numbers follow the published row order, not the order the groups were formed in
    first = [int(np.flatnonzero(rel.label_groups == g)[0]) for g in range(int(rel.label_groups.max()) + 1)]
    assert first == sorted(first)


@pytest.mark.parametrize("diversity,c", VARIANTS)
@pytest.mark.parametrize("k,grouping", [(None, "random"), (5, "random"), (5, "order")])
def test_bundled_data_with_skewed_labels(diversity, c, k, grouping):
    base = load("chess")
    n = 400
    rng = np.random.default_rng(0)
    labels = [f"s{v}" for v in rng.choice(5, size=n, p=[0.3, 0.3, 0.2, 0.1, 0.1])]
    data = TransactionData(base.matrix[:n].copy(), base.items, base.record_ids[:n], labels)
    rel = anonymize_nonreciprocal(data, l=3, k=k, diversity=diversity, c=c, order="gray", rng=1, grouping=grouping)
    assert rel.params["k"] == (k or 3)
    audits(data, rel, 3, diversity, c, k=k)
    assert_graph(data, rel, k or 3, grouping)  # order, k=5 > p: groups merged to 5 or more rows


@settings(max_examples=25, deadline=None)
@given(data=st.data(), l=st.integers(2, 4), m=st.integers(1, 6), variant=st.sampled_from(VARIANTS),
       grouping=st.sampled_from(["random", "order"]))
def test_hypothesis_releases_pass_audits(data, l, m, variant, grouping):  # noqa: E741
    diversity, c = variant
    n = l * m + data.draw(st.integers(0, l - 1))
    labels = feasible_labels(data.draw, n, l)
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    X = rng.random((n, 6)) < 0.4
    d = from_iterable([[f"i{j}" for j in np.flatnonzero(r)] for r in X], items=[f"i{j}" for j in range(6)],
                      labels=labels)
    try:
        rel = anonymize_nonreciprocal(d, l=l, diversity=diversity, c=c, order="gray", rng=int(rng.integers(1000)),
                                      grouping=grouping)
    except ParameterError as exc:  # recursive (c,l) the table itself cannot meet: refused up front
        assert diversity == "recursive", str(exc)
        return
    audits(d, rel, l, diversity, c)
    assert_graph(d, rel, l, grouping)


def _brute(data, rel):
    """Candidates by explicit possible worlds, viable rows by every perfect matching, group shares by loops."""
    index = {x: j for j, x in enumerate(rel.items)}
    X = np.zeros((data.n_records, len(rel.items)), dtype=bool)
    for i in range(data.n_records):
        X[i, [index[data.items[j]] for j in data.record_items(i)]] = True
    B, D = rel.base.toarray().astype(bool), rel.distance.toarray().astype(bool)
    n = rel.n_records
    fits = np.array([[bool(((X[i] ^ B[r]) & ~D[r]).sum() == 0 and ((X[i] ^ B[r]) & D[r]).sum() <= rel.threshold[r])
                      for r in range(n)] for i in range(data.n_records)])
    viable = np.zeros_like(fits)
    for p in itertools.permutations(range(n)):
        if all(fits[i, p[i]] for i in range(n)):
            viable[np.arange(n), list(p)] = True
    names = sorted(set(map(str, data.labels)) | set(map(str, rel.labels)))
    share = np.zeros((n, len(names)))
    for r in range(n):
        mates = [j for j in range(n) if rel.label_groups[j] == rel.label_groups[r]]
        for j in mates:
            share[r, names.index(str(rel.labels[j]))] += 1 / len(mates)
    return names, fits.astype(float) @ share, viable.astype(float) @ share


@pytest.mark.parametrize("seed", range(4))
def test_grouped_audit_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 7
    records = [[f"i{j}" for j in range(4) if rng.random() < 0.5] or ["i0"] for _ in range(n)]
    labels = [f"L{x}" for x in rng.permutation(np.arange(n) % 3)]
    data = from_iterable(records, labels=labels)
    rel = anonymize_nonreciprocal(data, l=2, k=2, order="gray", rng=seed, unsafe_secret_seed=seed)
    out = grouped_label_distributions(data, rel)
    names, cand, via = _brute(data, rel)
    perm = [list(map(str, out["names"])).index(x) for x in names]
    assert out["candidates"][:, perm] == pytest.approx(cand, abs=1e-12)
    assert out["viable"][:, perm] == pytest.approx(via, abs=1e-12)
    for diversity, c in VARIANTS:
        expected = bool(variant_ok(cand, 2, diversity, c).all() and variant_ok(via, 2, diversity, c).all())
        assert diversity_model(2, diversity, c).audit(data, rel).satisfied == expected


def _planted(rel, labels):
    return NonreciprocalRelease(rel.items, rel.base, rel.distance, rel.threshold, labels,
                                label_groups=rel.label_groups, algorithm="nr", params=rel.params)


@pytest.fixture(scope="module")
def correlated():
    data = patients(600, 400, seed=0)
    return data, anonymize_nonreciprocal(data, l=3, rng=0)


def test_a_group_with_a_label_over_one_over_l_is_refused(correlated):
    data, rel = correlated
    labels = list(rel.labels)
    groups = groups_of(rel)
    # move one label between two groups: both keep their size, the label multiset is unchanged
    a = groups[0]
    b = next(g for g in groups[1:] if labels[g[0]] != labels[a[0]] and labels[g[0]] in {labels[j] for j in a[1:]})
    labels[a[0]], labels[b[0]] = labels[b[0]], labels[a[0]]
    bad = _planted(rel, labels)
    for with_link in (False, True):
        bad.link = rel.link if with_link else None
        rep = diversity_model(3).audit(data, bad)
        assert not rep.satisfied and rep.details["bad_groups"] >= 1, str(rep)


def test_groups_claiming_other_records_labels_are_refused_with_the_link(correlated):
    data, rel = correlated
    labels = list(rel.labels)
    groups = groups_of(rel)
    # two groups {a, b, x} and {a, b, y}: swapping x and y keeps both diverse and the multiset, but lies
    for g, h in itertools.combinations(groups, 2):
        sg, sh = {labels[j] for j in g}, {labels[j] for j in h}
        if len(sg - sh) == 1 and len(sh - sg) == 1:
            break
    x = next(j for j in g if labels[j] not in sh)
    y = next(j for j in h if labels[j] not in sg)
    labels[x], labels[y] = labels[y], labels[x]
    bad = _planted(rel, labels)
    assert diversity_model(3).audit(data, bad).satisfied  # without the link it cannot be seen
    bad.link = rel.link
    rep = diversity_model(3).audit(data, bad)
    assert not rep.satisfied and rep.details["inconsistent_groups"] == 2, str(rep)


def test_labels_left_on_their_own_rows_are_refused_with_the_link(correlated):
    """Passes the group, mixture and consistency checks; the pinpointing adversary reads every label."""
    data, rel = correlated
    rows = rel.link.rows_for(data)
    labels = [None] * data.n_records
    for i, r in enumerate(rows):
        labels[int(r)] = data.labels[i]
    bad = _planted(rel, labels)
    assert diversity_model(3).audit(data, bad).satisfied  # the same group multisets
    bad.link = rel.link
    rep = diversity_model(3).audit(data, bad)
    assert not rep.satisfied and rep.details["own_label_excess"], str(rep)
    assert rep.details["inconsistent_groups"] == 0
    # the honest release reads its own label about once per group
    honest = diversity_model(3).audit(data, rel)
    assert honest.satisfied and honest.details["own_label_rows"] < honest.details["own_label_limit"]


def test_the_ranking_adversary_stays_at_one_over_l(correlated):
    data, rel = correlated
    C = candidate_sets(data, rel)
    ranked = ranking_label_inference(data, rel, score="best", candidates=C)
    assert ranked.within_bound(), str(ranked)
    assert max(ranked.details["per_score"].values()) <= 1 / 3 + 0.03
    majority = label_inference(data, rel, candidates=C)
    assert majority.within_bound()
    # the majority over a record's candidate rows (one group's labels for its graph candidates)
    assert majority.details["majority_success"] <= 1 / 3 + majority.margin, majority.details
    # the paper's construction on the same data and order: the nearest row names the label
    paper = anonymize_nonreciprocal(data, l=3, l_method="flow", rng=0)
    assert not ranking_label_inference(data, paper, score="hamming").within_bound()


def test_refusals():
    data = load("nr_table1")
    skew = from_iterable([["a"], ["b"], ["a", "b"], ["c"], ["a", "c"], ["b", "c"]], labels=list("xxxyzw"))
    with pytest.raises(ParameterError, match="label 'x' is on 3 of 6 records, more than n/l = 2.0; lower l to at most 2"):
        anonymize_nonreciprocal(skew, l=3)
    with pytest.raises(ParameterError, match="needs at least 4 distinct"):
        anonymize_nonreciprocal(data, l=4)
    with pytest.raises(ParameterError, match="l_method=flow promises distinct l-diversity only"):
        anonymize_nonreciprocal(data, l=2, l_method="flow", diversity="entropy")
    with pytest.raises(ParameterError, match="needs c"):
        anonymize_nonreciprocal(data, l=2, diversity="recursive")
    with pytest.raises(ParameterError, match="c"):
        anonymize_nonreciprocal(data, l=2, c=2.0)
    # recursive (3, 2): groups of 2 - 1 + floor(1/3) + 1 = 2 distinct labels
    assert anonymize_nonreciprocal(data, l=2, diversity="recursive", c=3.0).params["label_group_size"] == 2


@settings(max_examples=200, deadline=None)
@given(data=st.data(), p=st.integers(2, 5), n=st.integers(2, 40))
def test_label_groups_partition_whenever_the_histogram_allows(data, p, n):
    """Every feasible label multiset (no label on more than n/p rows) is split into groups of >= p distinct labels."""
    from collections import Counter

    from graphanon.algorithms.nonreciprocal.label_groups import label_groups

    labels = data.draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    counts = Counter(labels)
    if len(counts) < p or max(counts.values()) * p > n:
        with pytest.raises(ParameterError):
            label_groups(labels, p, np.arange(n))
        return
    order = np.array(data.draw(st.permutations(range(n))))
    g = label_groups(labels, p, order)
    assert sorted(set(g.tolist())) == list(range(int(g.max()) + 1))
    for gi in range(int(g.max()) + 1):
        members = [labels[i] for i in np.flatnonzero(g == gi)]
        assert len(members) >= p and len(set(members)) == len(members)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), p=st.integers(2, 4), k=st.integers(1, 7), n=st.integers(2, 40))
def test_ring_groups_reach_k_and_keep_shares(data, p, k, n):
    """Groups merged to k or more records keep every label's share at 1/p or less; each ring stays in its group."""
    from graphanon.algorithms.nonreciprocal.label_groups import grouped_ring, ring_groups

    if n < max(p, k):
        return
    labels = feasible_labels(data.draw, n, p)
    order = np.array(data.draw(st.permutations(range(n))))
    try:
        g = ring_groups(labels, p, k, order)
    except ParameterError:  # fewer than p labels occur
        assert len(set(labels)) < p
        return
    for x in np.unique(g):
        members = np.flatnonzero(g == x)
        assert len(members) >= max(k, p)
        assert np.unique([labels[i] for i in members], return_counts=True)[1].max() * p <= len(members)
    succ = grouped_ring(order, g, k)
    assert (g[succ] == g[:, None]).all()
    assert (np.bincount(succ.ravel(), minlength=n) == k).all() and (succ[:, 0] == np.arange(n)).all()


def test_progress_moves_in_every_stage():
    """Issue 35: no stage sits at 0/N while it works (nr with l, and cahd's grouping)."""
    from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd

    data = patients(600, 400, seed=0)
    for make in (lambda cb: anonymize_nonreciprocal(data, l=3, rng=0, progress=cb),
                 lambda cb: anonymize_cahd(data, l=3, progress=cb)):
        top: dict = {}

        def seen(done, total, message, top=top):
            top[message] = max(top.get(message, 0), done)

        make(seen)
        assert all(v > 0 for v in top.values()), top


def test_a_grouped_prior_is_reused_with_its_groups():
    """``priors=`` a grouped release of the same data: every record gets its prior row in its prior group, so
    the joint audit (which reads label groups) finds the pair no more revealing than the prior."""
    from graphanon.privacy import LDiversity
    from graphanon.privacy.joint import JointAudit

    data = load("nr_table1")
    first = anonymize_nonreciprocal(data, l=2, rng=0)
    again = anonymize_nonreciprocal(data, l=2, priors=first)
    assert again.label_groups is not None and again.params == first.params
    assert LDiversity(2).audit(data, again).satisfied
    # the same partition of the records into groups (read through the private links)
    g1 = np.asarray(first.label_groups)[first.link.rows_for(data)]
    g2 = np.asarray(again.label_groups)[again.link.rows_for(data)]
    assert len(set(zip(g1.tolist(), g2.tolist(), strict=True))) == len(set(g1.tolist())) == len(set(g2.tolist()))
    rep = JointAudit(LDiversity(2), exact=True).audit(data, [first, again])
    alone = JointAudit(LDiversity(2), exact=True).audit(data, [first, first])
    assert rep.satisfied and rep.details["records_by_joint_labels"] == alone.details["records_by_joint_labels"]


def test_cli_grouped_prior(run):
    """``anonymize -a nr --param l=2 --prior``: a grouped prior is reused (it used to be refused)."""
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "-o", "r1.json", "--link-out", "l1.json")
    assert res.exit_code == 0, res.output
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "-o", "r2.json", "--link-out", "l2.json",
              "--prior", "r1.json", "--prior-link", "l1.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "nr_table1", "r1.json", "r2.json", "--model", "ldiversity", "--param", "l=2", "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["details"]["label_groups"] == [True, True] and rep["details"]["pinned_records"] == 0
