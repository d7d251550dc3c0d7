"""The majority-label check of an l-diverse release: run by ``anonymize`` after the release is made, and by a study.

l-diversity bounds a record's label posterior by ``1/l`` for an adversary
who holds no knowledge tying items to labels (the proof of label groups,
``docs/attacks.md``, (j)). Where labels follow the items, an adversary who
takes the majority label of a record's candidate rows (attack (b),
:func:`graphanon.attacks.label_inference`) learns that tie from the rows'
labels themselves and can read more than ``1/l``: on 25,000 patient-like
records with a skewed label, ``nr -k 3 --param l=3`` gives 0.3603 against
``1/3`` + margin 0.0111 (``k=9``: 0.3416, within). The custodian, who holds
the data, measures it on the release at hand and is told in one line; the
release is still written (it meets its model), and the advice is a larger
``k``.

This check runs an attack, a layer above the release warnings of
:mod:`graphanon.metrics.caveats`; it lives here so that the command line
(``anonymize``'s warning) and the study (``graphanon compare``'s
``label_success``, ``label_bound``, ``label_within_bound`` columns and its
headline) read the same measurement.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SAMPLE_TARGETS", "label_majority_check", "label_majority_warning"]

#: Above this many records the check scores a uniform sample of targets (margin from the sample).
SAMPLE_TARGETS = 50_000


def label_majority_check(data, release):
    """Attack (b), the majority label of a record's candidate rows, on a release that promises ``l``.

    Parameters
    ----------
    data : TransactionData
        The data the release was made from, with its labels.
    release : Release
        A release that publishes labels and promises ``l`` (``params["l"]``).

    Returns
    -------
    AttackResult or None
        :func:`~graphanon.attacks.label_inference` with bound ``1/l`` on every
        record (a uniform sample of :data:`SAMPLE_TARGETS` above that many;
        the margin is the sample's); ``within_bound()`` is the verdict. None
        when the release promises no ``l`` or publishes no labels, or the data
        have none.

    Notes
    -----
    Complexity: that of :func:`~graphanon.attacks.label_inference` on at
    most :data:`SAMPLE_TARGETS` targets.

    References
    ----------
    D. Kifer. Attacks on privacy and de Finetti's theorem. SIGMOD 2009.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> label_majority_check(data, anonymize_nonreciprocal(data, k=2)) is None   # promises no l
    True
    >>> result = label_majority_check(data, anonymize_nonreciprocal(data, k=2, l=2, unsafe_secret_seed=0))
    >>> result.bound, result.n_targets
    (0.5, 6)
    """
    l = (getattr(release, "params", None) or {}).get("l")  # noqa: E741
    if not l or getattr(release, "labels", None) is None or data.labels is None:
        return None
    from graphanon.attacks.labels import label_inference

    targets = None
    if data.n_records > SAMPLE_TARGETS:
        targets = np.sort(np.random.default_rng(0).choice(data.n_records, SAMPLE_TARGETS, replace=False))
    return label_inference(data, release, l=int(l), targets=targets)


def label_majority_warning(data, release) -> str | None:
    """The ``l-majority`` warning when the majority adversary reads labels above ``1/l`` plus its margin.

    Parameters
    ----------
    data : TransactionData
        The data the release was made from, with its labels.
    release : Release
        A release that publishes labels and promises ``l`` (``params["l"]``).

    Returns
    -------
    str or None
        The warning's message; None when the release promises no ``l``,
        publishes no labels, or the adversary stays within its bound.

    Notes
    -----
    Complexity: that of :func:`label_majority_check` (0.4 s of CPU for
    25,000 records of an ``nr`` release with ``k = 3``).

    References
    ----------
    D. Kifer. Attacks on privacy and de Finetti's theorem. SIGMOD 2009
    (learning the tie of labels and items from the release itself).
    A. Machanavajjhala et al. l-Diversity: privacy beyond k-anonymity. ACM
    TKDD 1(1), 2007, Sec. 3-4 (the adversary with no such knowledge).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> label_majority_warning(data, anonymize_nonreciprocal(data, k=2)) is None   # promises no l
    True
    """
    result = label_majority_check(data, release)
    if result is None or result.within_bound():
        return None
    l = release.params["l"]  # noqa: E741
    return (f"l={l} is read above 1/l by an adversary who knows how the labels follow the items: the majority "
            f"label of a record's candidate rows is its own for {result.success:.4f} of the records (bound "
            f"{result.bound:.4f} + margin {result.margin:.4f}; always guessing the commonest label: "
            f"{result.baseline:.4f}). l-diversity bounds the posterior only for an adversary without that "
            "knowledge (docs/attacks.md, (j), members against non-members); a larger -k lowers it (k = 3l was "
            "within on 25,000 patients)")
