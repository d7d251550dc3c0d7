"""A seeded generator of patient-like records with a skewed label correlated with the items.

Not a dataset of the package: a stand-in for the diagnosis-code data with an
income category that issue 30 (item 1) was checked on, used by the ranking
attack's tests and ``benchmarks/label_ranking.py``.

Model: ``n_codes`` diagnosis codes in ``n_chapters`` chapters (contiguous
blocks), code popularity Zipf (exponent ``zipf``) inside a chapter. A
patient has a main chapter (chapter weights Zipf too) and ``1 +
Poisson(mean_length - 1)`` distinct codes, each from the main chapter with
probability ``affinity``, else from a uniformly drawn chapter. The sensitive
label is one of ``n_labels`` categories with skewed base rates ``p_i ~
skew^i``; with probability ``label_affinity`` it is instead the main
chapter's own category (``chapter mod n_labels``). So the label follows the
codes, the way income follows diagnoses in real data.
"""

from __future__ import annotations

import numpy as np

from graphanon.data import from_iterable


def patients(
    n_patients: int = 3000,
    n_codes: int = 400,
    *,
    n_chapters: int = 17,
    n_labels: int = 5,
    mean_length: float = 5.0,
    zipf: float = 1.0,
    affinity: float = 0.75,
    label_affinity: float = 0.5,
    skew: float = 0.6,
    seed: int = 0,
):
    """Patients as :class:`~graphanon.data.TransactionData`, items ``"c0001"``..., labels ``"income0"``...

    Examples
    --------
    >>> data = patients(200, 60, seed=1)
    >>> data.n_records, len(set(data.labels)) <= 5
    (200, True)
    """
    rng = np.random.default_rng(seed)
    chapter_of = np.sort(rng.integers(n_chapters, size=n_codes))
    chapter_of[:n_chapters] = np.arange(n_chapters)  # every chapter holds a code
    chapter_of = np.sort(chapter_of)
    by_chapter = [np.flatnonzero(chapter_of == c) for c in range(n_chapters)]
    pop = [1.0 / np.arange(1, len(b) + 1) ** zipf for b in by_chapter]
    pop = [p / p.sum() for p in pop]
    cw = 1.0 / np.arange(1, n_chapters + 1) ** 0.7
    cw = cw[rng.permutation(n_chapters)]
    cw /= cw.sum()
    main = rng.choice(n_chapters, size=n_patients, p=cw)
    lengths = np.minimum(1 + rng.poisson(mean_length - 1, size=n_patients), min(len(b) for b in by_chapter))
    records = []
    for s in range(n_patients):
        chosen: set = set()
        while len(chosen) < lengths[s]:
            c = main[s] if rng.random() < affinity else int(rng.integers(n_chapters))
            chosen.add(int(rng.choice(by_chapter[c], p=pop[c])))
        records.append([f"c{j + 1:04d}" for j in sorted(chosen)])
    base = skew ** np.arange(n_labels)
    base /= base.sum()
    labels = np.where(rng.random(n_patients) < label_affinity, main % n_labels,
                      rng.choice(n_labels, size=n_patients, p=base))
    return from_iterable(records, labels=[f"income{int(x)}" for x in labels])
