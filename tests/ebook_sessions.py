"""A seeded generator of e-book reading sessions with a sensitive label.

Not a dataset of the package: a stand-in for the e-book sessions the issue
was checked on, used by the attack tests and benchmarks/attacks.py.

Model: ``n_titles`` titles, each of one of ``n_genres`` genres, with Zipf
popularity (exponent ``zipf``). A session has a preferred genre (genre
weights are Zipf too); its length is ``1 + Poisson(mean_length - 1)``
distinct titles, each drawn from the preferred genre with probability
``affinity`` and from the whole catalogue otherwise, by popularity. The
sensitive label (say, a health topic the reader looked up) depends on the
preferred genre: with probability ``label_affinity`` the genre's own label,
otherwise uniform among ``n_labels``. So labels correlate with reading, as
in real data, while staying diverse enough for l-diversity up to ~4.
"""

from __future__ import annotations

import numpy as np

from graphanon.data import from_iterable


def ebook_sessions(
    n_sessions: int = 3000,
    n_titles: int = 300,
    *,
    n_genres: int = 8,
    n_labels: int = 6,
    mean_length: float = 4.0,
    zipf: float = 1.1,
    affinity: float = 0.7,
    label_affinity: float = 0.4,
    seed: int = 0,
):
    """Sessions as :class:`~graphanon.data.TransactionData` with labels (items ``"t001"``...)."""
    rng = np.random.default_rng(seed)
    genre_of = rng.integers(n_genres, size=n_titles)
    pop = 1.0 / np.arange(1, n_titles + 1) ** zipf
    pop = pop[rng.permutation(n_titles)]
    gw = 1.0 / np.arange(1, n_genres + 1) ** 0.8
    gw /= gw.sum()
    pref = rng.choice(n_genres, size=n_sessions, p=gw)
    lengths = np.minimum(1 + rng.poisson(mean_length - 1, size=n_sessions), n_titles // n_genres)
    by_genre = [np.flatnonzero(genre_of == g) for g in range(n_genres)]
    p_all = pop / pop.sum()
    records = []
    for s in range(n_sessions):
        inside = by_genre[pref[s]]
        p_in = pop[inside] / pop[inside].sum()
        chosen: set = set()
        while len(chosen) < lengths[s]:
            if rng.random() < affinity and len(inside):
                chosen.add(int(rng.choice(inside, p=p_in)))
            else:
                chosen.add(int(rng.choice(n_titles, p=p_all)))
        records.append([f"t{j + 1:03d}" for j in sorted(chosen)])
    own = pref % n_labels
    labels = np.where(
        rng.random(n_sessions) < label_affinity, own, rng.integers(n_labels, size=n_sessions)
    )
    return from_iterable(
        records,
        record_ids=[f"s{i + 1:05d}" for i in range(n_sessions)],
        labels=[f"topic{int(v)}" for v in labels],
        name=f"ebook-like sessions (seed {seed})",
    )
