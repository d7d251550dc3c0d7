"""``anonymize`` tells the custodian when an l-diverse release's labels are read above 1/l by the majority adversary.

l-diversity bounds the posterior for an adversary with no knowledge of how labels follow items; where they follow
them closely, the majority label of a record's candidate rows is its own far more often than 1/l (docs/attacks.md,
(j), members against non-members). The check runs attack (b) on the release just made.
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.attacks.label_majority import label_majority_warning
from graphanon.data import from_iterable


def topics(follow: bool, n: int = 600, seed: int = 0):
    """``n`` records of one topic item (of 8) and two noise items; the label (of 4) is the topic's with
    probability 0.9 when ``follow``, else uniform."""
    rng = np.random.default_rng(seed)
    records, labels = [], []
    for _ in range(n):
        t = int(rng.integers(8))
        records.append([f"t{t}"] + [f"x{j}" for j in rng.choice(30, 2, replace=False)])
        labels.append(f"L{t % 4}" if follow and rng.random() < 0.9 else f"L{int(rng.integers(4))}")
    return from_iterable(records, labels=labels)


def test_labels_that_follow_the_items_are_reported():
    data = topics(follow=True)
    release = anonymize_nonreciprocal(data, k=3, l=3, rng=1, unsafe_secret_seed=0)
    message = label_majority_warning(data, release)
    assert message is not None and message.startswith("l=3 is read above 1/l")
    success = float(message.split("is its own for ")[1].split()[0])
    assert success > 1 / 3 + 0.0727  # the bound and its margin at 600 targets, as the message says
    assert "larger -k" in message


def test_independent_labels_and_k_only_releases_pass():
    data = topics(follow=False)
    assert label_majority_warning(data, anonymize_nonreciprocal(data, k=3, l=3, rng=1, unsafe_secret_seed=0)) is None
    assert label_majority_warning(data, anonymize_nonreciprocal(data, k=3, rng=1)) is None  # no l promised


def test_anonymize_prints_it(run, tmp_path):
    from graphanon.readwrite.long_csv import write_long_csv

    path = tmp_path / "t.csv"
    write_long_csv(topics(follow=True), path)
    res = run("anonymize", path, "--label", "label", "-a", "nr", "-k", 3, "--param", "l=3", "--seed", 1,
              "-o", tmp_path / "r.json")
    assert res.exit_code == 0, res.output
    assert "is read above 1/l" in res.stderr and (tmp_path / "r.json").exists()
