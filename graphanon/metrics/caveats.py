"""Warnings that tell the truth about a release: safe but useless, or weaker than it looks.

A release can meet its privacy model and still be of no use (everything
generalized to the taxonomy's root), lose most of the data (heavy
suppression), or protect nobody (``k = 1``). Such releases are correct
behaviour of the method, not errors; :func:`release_warnings` names each case
in one line, with a method or parameter that would do better on this data.
The command line prints them on stderr after ``graphanon anonymize`` and puts
them in ``--json`` output (``"warnings"``) and in ``graphanon bench``'s report.

Examples
--------
>>> from graphanon.data import from_iterable
>>> from graphanon.release import GlobalRecoding
>>> data = from_iterable([["a", "b"], ["c"]])
>>> rel = GlobalRecoding.from_mapping(data, {"a": "*", "b": "*", "c": "*"}, algorithm="aa", params={"k": 2, "m": 2})
>>> [w.code for w in release_warnings(data, rel)]
['root']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphanon.metrics.clustering import ncp_lm
from graphanon.metrics.loss import ncp_taxonomy, suppression_ratio
from graphanon.release.global_recoding import GlobalRecoding
from graphanon.release.local_recoding import LocalRecoding
from graphanon.release.perturbed import PerturbedRelease

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.release.base import Release

__all__ = ["MAX_NCP", "MAX_SUPPRESSION", "ReleaseWarning", "release_warnings"]

#: A release whose NCP reaches this keeps almost nothing of its items.
MAX_NCP = 0.9
#: A release that suppresses more than this share of the item occurrences is flagged.
MAX_SUPPRESSION = 0.3


@dataclass(frozen=True)
class ReleaseWarning:
    """One warning: a short ``code`` (``root``, ``ncp``, ``suppression``, ``synthetic``, ``l-ranking``, ``k1``, ``l-all``) and its one-line ``message``."""

    code: str
    message: str

    def __str__(self) -> str:
        """The message."""
        return self.message


_COARSER = {  # method -> what to try when it generalizes (almost) everything
    "aa": "-a mhghs (it suppresses rare items instead of generalizing every item) or -a coat, or a smaller -m",
    "hghs": "-a mhghs (it suppresses rare items instead) or -a coat, or a smaller -m",
    "cut": "a lower cut (--param level=...) or -a mhghs",
    "mhghs": "a smaller -m or -k, or -a coat (privacy constraints on the itemsets that matter)",
    "clump": "a smaller -k, or -a partition",
    "partition": "a smaller -k, or -a clump (local generalization, one copy per item)",
}
_LESS_SUPPRESSION = {
    "mm": "-a aa or -a hghs (they generalize items instead of suppressing them), or a smaller -m",
    "mhghs": "a smaller -m or -k, or -a coat (it protects only the itemsets you list)",
    "coat": "-a aa or -a hghs with a taxonomy (they generalize instead), or fewer privacy constraints",
    "partsupp": "-a partswap (it swaps items between records instead of removing them)",
    "partswap": "fewer categories (--param categories=...), or -a fullswap",
    "fullswap": "fewer categories (--param categories=...)",
}


def _share(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def release_warnings(original: TransactionData, release: Release, *, max_ncp: float = MAX_NCP,
                     max_suppression: float = MAX_SUPPRESSION) -> list[ReleaseWarning]:
    """The warnings a release deserves on its data (empty when none).

    Parameters
    ----------
    original : TransactionData
        The data the release was made from.
    release : Release
        Any release kind.
    max_ncp : float
        A global or local recoding with NCP at least this is flagged (``ncp``;
        ``root`` when every published item is the taxonomy's root).
    max_suppression : float
        A release suppressing (global recoding) or removing (perturbed) more
        than this share of the item occurrences is flagged.

    Returns
    -------
    list of ReleaseWarning
        In the order root/ncp, suppression, k1, l-all (``ncp`` only when the
        suppression share is within bounds: heavy suppression alone is named
        as such). Each message is one line naming a method or parameter that
        would do better.

    Notes
    -----
    Complexity: the NCP and suppression share of :mod:`graphanon.metrics.loss`
    (O(occurrences)); the label count is O(records).

    References
    ----------
    Issue 32 ("Warnings that tell the truth"); docs/metrics.md (NCP).
    """
    out: list[ReleaseWarning] = []
    params, name = release.params, release.algorithm
    if isinstance(release, GlobalRecoding):

        items, universe = release.published_items, release.universe
        better = _COARSER.get(name, "a smaller -k or -m, or -a mhghs / -a coat")
        share = suppression_ratio(original, release)
        if items and universe > 1 and all(pi.leaves >= universe for pi in items):
            out.append(ReleaseWarning(
                "root", f"every item is generalized to the root {items[0].label!r} (NCP 1.0): the release tells only "
                        f"which records had any item at all; try {better}"))
        elif share <= max_suppression:  # otherwise the suppression warning says where the loss comes from
            loss = ncp_taxonomy(original, release)
            if loss >= max_ncp:
                out.append(ReleaseWarning("ncp", f"NCP {loss:.2f} >= {max_ncp}: the release keeps almost nothing of "
                                                 f"its items; try {better}"))
        if share > max_suppression:
            fix = _LESS_SUPPRESSION.get(name, "a method that generalizes instead (-a aa, -a hghs) or a smaller -k/-m")
            out.append(ReleaseWarning("suppression", f"{share:.0%} of the item occurrences are suppressed "
                                                     f"(> {max_suppression:.0%}); try {fix}"))
    elif isinstance(release, LocalRecoding):

        loss = ncp_lm(original, release)
        if loss >= max_ncp:
            better = _COARSER.get(name, "a smaller -k")
            out.append(ReleaseWarning("ncp", f"NCP {loss:.2f} >= {max_ncp}: the release keeps almost nothing of its "
                                             f"items; try {better}"))
    elif isinstance(release, PerturbedRelease):
        kept = release.records.nnz
        share = 1.0 - _share(kept, original.matrix.nnz)
        if share > max_suppression:
            fix = _LESS_SUPPRESSION.get(name, "a method that swaps instead of removing (-a partswap)")
            out.append(ReleaseWarning("suppression", f"{share:.0%} of the item occurrences are removed "
                                                     f"(> {max_suppression:.0%}); try {fix}"))
    elif release.kind == "synthetic" and release.n_records < max(1, original.n_records) * (1 - max_suppression):
        # the custodian's message, never the file's: it compares with the exact number of records
        out.append(ReleaseWarning(
            "synthetic", f"the synthetic dataset has {release.n_records} rows for {original.n_records} records: most "
                         f"partitions' noisy counts fell below the method's thresholds; a larger --epsilon, or a "
                         f"taxonomy of the public universe with fewer children per node, keeps more"))
    if (name == "nr" and params.get("l") and getattr(release, "labels", None) is not None
            and getattr(release, "label_groups", None) is None):  # the paper's construction: labels on postimages
        out.append(ReleaseWarning(
            "l-ranking", f"l={params['l']} holds in the paper's model (uniform possible worlds), not against an "
                         "adversary who compares contents: the row nearest a record's items carries its label more "
                         "often than 1/l (docs/attacks.md, (j)); publish labels in groups (the default "
                         "--param l_method=groups) or use -a cahd, and check with graphanon attack"))
    if params.get("k") == 1:
        out.append(ReleaseWarning("k1", "k=1 protects no one: a published row may be a single person's, and nothing "
                                        "bounds what a known item reveals; use -k 2 or more"))
    n_labels = len(set(original.labels)) if original.labels is not None else 0
    if params.get("l") and n_labels and params["l"] >= n_labels:
        out.append(ReleaseWarning(
            "l-all", f"l={params['l']} equals the number of distinct labels ({n_labels}): every record's candidate "
                     f"rows must carry every label, the strictest setting, which costs the most; l={n_labels - 1} "
                     "or fewer keeps more (and check that no label stands for a missing value: --missing-label)"))
    return out
