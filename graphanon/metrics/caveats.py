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
from graphanon.release.relational import RelationalRelease

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.release.base import Release

__all__ = ["MAX_NCP", "MAX_SUPPRESSION", "Advice", "ReleaseWarning", "release_warnings"]

#: A release whose NCP reaches this keeps almost nothing of its items.
MAX_NCP = 0.9
#: A release that suppresses more than this share of the item occurrences is flagged.
MAX_SUPPRESSION = 0.3


@dataclass(frozen=True)
class ReleaseWarning:
    """One warning: a ``code`` and its one-line ``message``.

    Codes: ``root``, ``ncp``, ``suppression``, ``suppressed-named``, ``synthetic``, ``l-ranking``,
    ``l-order``, ``k1``, ``l-all``.
    """

    code: str
    message: str

    def __str__(self) -> str:
        """The message."""
        return self.message


@dataclass(frozen=True)
class Advice:
    """What a method's release warnings suggest instead, declared by the method (``MethodDeclaration.advice``).

    Metrics sit below the algorithms, so :func:`release_warnings` does not
    look a method up: its callers pass the advice of the method that made the
    release (``MethodDeclaration.release_advice()``). A field left None gets
    the generic suggestion.

    Attributes
    ----------
    coarser : str or None
        What to try when the release generalizes (almost) everything
        (warnings ``root`` and ``ncp``).
    less_suppression : str or None
        What to try when it suppresses or removes too much (``suppression``).
    label_ranking : str or None
        Set by a method whose l-diverse releases can carry each record's label
        on the row nearest its items (labels on the rows, no label groups):
        the ``l-ranking`` warning is given, with this advice. None: no such
        warning.
    public_taxonomy : bool
        Whether the method takes ``--param public_taxonomy=true`` (derived
        from its parameters by ``release_advice()``, not declared): the
        ``suppressed-named`` warning then tells to pass it.

    Examples
    --------
    >>> Advice(coarser="a smaller -m").coarser
    'a smaller -m'
    """

    coarser: str | None = None
    less_suppression: str | None = None
    label_ranking: str | None = None
    public_taxonomy: bool = False


#: The advice given for a release whose method declares none (or is unknown).
NO_ADVICE = Advice()


def _share(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def release_warnings(original: TransactionData, release: Release, *, advice: Advice | None = None, taxonomy=None,
                     max_ncp: float = MAX_NCP, max_suppression: float = MAX_SUPPRESSION) -> list[ReleaseWarning]:
    """The warnings a release deserves on its data (empty when none).

    Parameters
    ----------
    original : TransactionData
        The data the release was made from.
    release : Release
        Any release kind.
    advice : Advice, optional
        The advice of the method that made ``release`` (its declaration's
        ``release_advice()``); None: the generic suggestions, and no
        ``l-ranking`` warning.
    taxonomy : Taxonomy, optional
        The taxonomy the release was made with: a global recoding, or a
        relational-transaction release (``rt``), that suppressed items
        without ``public_taxonomy`` is then flagged (``suppressed-named``).
    max_ncp : float
        A global or local recoding with NCP at least this is flagged (``ncp``;
        ``root`` when every published item is the taxonomy's root).
    max_suppression : float
        A release suppressing (global recoding) or removing (perturbed) more
        than this share of the item occurrences is flagged.

    Returns
    -------
    list of ReleaseWarning
        In the order root/ncp, suppression, suppressed-named, l-ranking,
        l-order, k1, l-all (``ncp`` only when the suppression share is within bounds: heavy
        suppression alone is named as such). Each message is one line naming
        a method or parameter that would do better.

    Notes
    -----
    Complexity: the NCP and suppression share of :mod:`graphanon.metrics.loss`
    (O(occurrences)); the label count is O(records).

    References
    ----------
    Issue 32 ("Warnings that tell the truth"); docs/metrics.md (NCP);
    docs/attacks.md, (i) naming the suppressed codes and (j) ranking the
    candidates.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import Taxonomy
    >>> data = from_iterable([["a", "b"], ["a", "b"], ["c"]])
    >>> tax = Taxonomy.from_parent_map({"a": "*", "b": "*", "c": "*"})
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": None}, params={"k": 2, "m": 2})
    >>> [w.code for w in release_warnings(data, rel, taxonomy=tax, advice=Advice(public_taxonomy=True))]
    ['suppressed-named']
    """
    advice = NO_ADVICE if advice is None else advice
    out: list[ReleaseWarning] = []
    params = release.params
    if isinstance(release, GlobalRecoding):

        items, universe = release.published_items, release.universe
        better = advice.coarser or "a smaller -k or -m, or a method that suppresses rare items instead"
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
            fix = advice.less_suppression or "a method that generalizes instead (with a taxonomy) or a smaller -k/-m"
            out.append(ReleaseWarning("suppression", f"{share:.0%} of the item occurrences are suppressed "
                                                     f"(> {max_suppression:.0%}); try {fix}"))
        if taxonomy is not None and release.n_suppressed and not params.get("public_taxonomy"):
            out.append(_suppressed_named(release.n_suppressed, advice))
    elif isinstance(release, LocalRecoding):

        loss = ncp_lm(original, release)
        if loss >= max_ncp:
            better = advice.coarser or "a smaller -k"
            out.append(ReleaseWarning("ncp", f"NCP {loss:.2f} >= {max_ncp}: the release keeps almost nothing of its "
                                             f"items; try {better}"))
    elif isinstance(release, PerturbedRelease):
        kept = release.records.nnz
        share = 1.0 - _share(kept, original.matrix.nnz)
        if share > max_suppression:
            fix = advice.less_suppression or "a method that swaps items instead of removing them"
            out.append(ReleaseWarning("suppression", f"{share:.0%} of the item occurrences are removed "
                                                     f"(> {max_suppression:.0%}); try {fix}"))
    elif isinstance(release, RelationalRelease):
        # rt: each group's items recoded alone; a label lists only the codes rows hold unless public_taxonomy
        if taxonomy is not None and release.n_suppressed and not params.get("public_taxonomy"):
            out.append(_suppressed_named(release.n_suppressed, advice, in_groups=True))
    elif release.kind == "synthetic" and release.n_records < max(1, original.n_records) * (1 - max_suppression):
        # the custodian's message, never the file's: it compares with the exact number of records
        out.append(ReleaseWarning(
            "synthetic", f"the synthetic dataset has {release.n_records} rows for {original.n_records} records: most "
                         f"partitions' noisy counts fell below the method's thresholds; a larger --epsilon, or a "
                         f"taxonomy of the public universe with fewer children per node, keeps more"))
    if (advice.label_ranking and params.get("l") and getattr(release, "labels", None) is not None
            and getattr(release, "label_groups", None) is None):  # labels on the rows, not in groups
        out.append(ReleaseWarning(
            "l-ranking", f"l={params['l']} holds in the paper's model (uniform possible worlds), not against an "
                         "adversary who compares contents: the row nearest a record's items carries its label more "
                         f"often than 1/l (docs/attacks.md, (j)); {advice.label_ranking}, and check with "
                         "graphanon attack"))
    if (params.get("l") and getattr(release, "labels", None) is not None and release.kind == "nonreciprocal"
            and params.get("grouping", "order") == "order" and params.get("l_method") in (None, "groups")):
        # groups formed along the public order (nr's and cahd's grouping=order, and files made before it was
        # recorded): which rows a group skipped depends on their labels
        out.append(ReleaseWarning(
            "l-order", f"l={params['l']} is not kept against an adversary who holds every record's items: the "
                       "groups are formed along the public record order, and which records a group skipped tells "
                       "their labels (docs/attacks.md, (j), group skips: 0.51 against 1/3 for nr's grouping=order "
                       "on e-book sessions); use the default grouping=random (nr's label groups, or cahd's members, "
                       "drawn in secret), or publish without --label"))
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


def _suppressed_named(n_suppressed: int, advice: Advice, *, in_groups: bool = False) -> ReleaseWarning:
    """The ``suppressed-named`` warning: the file lists what it kept, so the taxonomy's holder reads what it lost.

    ``in_groups``: a relational-transaction release, whose groups recode their items apart: the count is of
    items suppressed in some group, and ``public_taxonomy`` goes with the transaction methods that take it.
    """
    if advice.public_taxonomy:
        needs = " with --param transaction=mhghs or aa" if in_groups else ""
        fix = f"pass --param public_taxonomy=true{needs} (it generalizes instead of suppressing, so the file names no code)"
    else:
        fix = "use a method that takes --param public_taxonomy=true (see graphanon algorithms), or suppress nothing"
    what = "1 item is" if n_suppressed == 1 else f"{n_suppressed} items are"
    where = " in some group" if in_groups else ""
    return ReleaseWarning(
        "suppressed-named", f"{what} suppressed{where} and the file lists the items it kept: whoever holds the "
                            "taxonomy can name the suppressed ones (the leaves no published item covers, ranked by their "
                            f"frequency elsewhere: docs/attacks.md, (i)); {fix}")
