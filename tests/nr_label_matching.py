"""``nr`` l-diverse releases relabelled by a random l-diverse perfect matching (issue 30, item 1; measured, not adopted).

Not part of the package's ``nr``. It re-publishes an ``nr`` release made with ``l`` from the same
generalization graph (``release.trace``), with each record's label on the row
:func:`~graphanon.algorithms.nonreciprocal.label_draw.draw_label_matching` gives it instead of its own
postimage. Used by ``tests/algorithms/test_nr_label_matching.py`` and ``benchmarks/label_matching.py``, which
measure that the matching is nearly rigid on the l-diverse graphs and does not stop the ranking attack.
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal import members_matrix
from graphanon.algorithms.nonreciprocal.label_draw import draw_label_matching
from graphanon.release import NonreciprocalRelease, publish
from graphanon.utils.randomness import secret_generator


def matching_labelled_nr(data, release, *, avoid_own: bool = True, unsafe_secret_seed: int | None = None):
    """(new release, draw stats): ``release``'s graph republished with labels on a drawn diverse matching."""
    trace = release.trace
    A = np.asarray(trace.assignments)
    n = data.n_records
    l = int(release.params["l"])  # noqa: E741
    secret = secret_generator(unsafe_secret_seed)
    row_of_label, stats = draw_label_matching(A, data.labels, l, rng=secret, avoid_own=avoid_own)
    owner = np.empty(n, dtype=np.int64)
    owner[row_of_label] = np.arange(n)
    sigma = A[int(secret.integers(A.shape[0]))]
    labels = [data.labels[int(owner[j])] for j in sigma]
    aligned = NonreciprocalRelease.from_preimages(
        data, members_matrix(A, n), sigma, labels=labels, algorithm="nr", params=dict(release.params)
    )
    out = publish(data, aligned, secret=secret)
    out.trace = trace
    return out, stats
