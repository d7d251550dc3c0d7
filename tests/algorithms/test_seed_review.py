"""What a shared --seed gives a holder of the data, per method (docs/privacy.md, "Seeds").

The seed may fix only what the model lets an adversary know: re-running with it must not narrow any
record's candidate rows below the model's bound."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from graphanon.algorithms.grouping.clump import anonymize_clump
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.datasets import load, load_taxonomy

from ..ebook_sessions import ebook_sessions


def test_clump_seed_reveals_a_group_of_at_least_k_identical_rows():
    """The seed fixes Clump's groups; a seed holder finds each record's group, but its rows are >= k
    identical copies, so the best row guess is still right with probability <= 1/k."""
    data, tax = load("groceries").subset(np.arange(600)), load_taxonomy("groceries")
    k = 4
    release = anonymize_clump(data, taxonomy=tax, k=k, rng=9)
    rerun = anonymize_clump(data, taxonomy=tax, k=k, rng=9)
    copies = collections.Counter(release.render_record(j) for j in range(release.n_records))
    true_text = [release.render_record(int(j)) for j in release.link.row_of_record]
    guess_text = [rerun.render_record(int(j)) for j in rerun.link.row_of_record]
    assert guess_text == true_text  # the seed does reproduce every record's group ...
    success = np.array([1.0 / copies[text] for text in guess_text])
    assert success.max() <= 1.0 / k  # ... and each group has at least k identical rows
    assert success.mean() <= 1.0 / k


def test_l_diverse_nr_same_seed_gives_the_same_candidate_labels_only():
    """With l, the seed fixes the l-diverse graph, and labels sit on published records: two releases
    with one seed show every record the same candidate labels, though their assignments differ."""
    data = ebook_sessions(600, 120, seed=2)
    a = anonymize_nonreciprocal(data, l=3, order="gray", l_method="flow", rng=4)
    b = anonymize_nonreciprocal(data, l=3, order="gray", l_method="flow", rng=4)
    assert np.array_equal(a.trace.graph.successors, b.trace.graph.successors)
    lab = np.asarray(data.labels)
    cands = [sorted(lab[a.trace.graph.successors[i]].tolist()) for i in range(data.n_records)]
    assert cands == [sorted(lab[b.trace.graph.successors[i]].tolist()) for i in range(data.n_records)]
    assert all(len(set(c)) == 3 for c in cands)
    # the secret part differs between the two runs
    assert not np.array_equal(a.trace.assignments, b.trace.assignments)


def test_randswap_pairs_do_not_come_from_the_seed():
    """RandSwap's pairs depend only on n and the draw: from a seed they would tell a seed holder which
    input position swapped with which. They are secret: RandSwap takes no rng, and runs differ."""
    from graphanon.algorithms.swapping import anonymize_randswap

    data = load("bms1").subset(np.arange(400))
    with pytest.raises(TypeError, match="rng"):
        anonymize_randswap(data, rng=3)
    runs = [anonymize_randswap(data).trace.pairs for _ in range(3)]
    assert len(set(runs)) == 3
    fixed = [anonymize_randswap(data, unsafe_secret_seed=8).trace.pairs for _ in range(2)]
    assert fixed[0] == fixed[1] and len(fixed[0]) == data.n_records // 2
