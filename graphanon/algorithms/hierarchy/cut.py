"""Apply a user-given taxonomy cut (with optional suppression) as a global recoding.

The simplest hierarchy-based anonymizer, and a real tool in itself: a data
custodian chooses the level of detail to publish (say, product categories
instead of products), suppresses a few nodes, and audits the result.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (cuts and full-subtree recoding).
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2 (cut plus suppression scenario, LM cost).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

from graphanon.algorithms.prior import as_priors, coarsened_cut
from graphanon.errors import ParameterError, TaxonomyError
from graphanon.metrics.loss import ncp
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.labels import as_labels
from graphanon.utils.params import COMMON, ExactlyOne, Interval, validate_params
from graphanon.utils.progress import ProgressCallback, report

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["HierarchyTrace", "anonymize_cut", "cut_recoding"]


@dataclass(frozen=True)
class HierarchyTrace:
    """What a hierarchy method chose (``release.trace`` of cut, AA, HgHs, mHgHs and MM).

    In memory only, for drawings and experiments: the release file names no
    suppressed node (``params["n_suppressed_nodes"]`` counts them).

    Attributes
    ----------
    cut : tuple or None
        The full cut (taxonomy nodes, suppressed ones included); None for
        MM, which generalizes nothing.
    suppressed : tuple
        The suppressed cut nodes (MM: the suppressed items).
    search : HierarchySearch or None
        HgHs/mHgHs only: the search path (rounds, steps, evaluated children),
        with ``search.lattice()`` and ``search.enumeration_tree()`` for the
        drawings in :mod:`graphanon.viz.hierarchy`.
    """

    cut: tuple | None
    suppressed: tuple
    search: Any = field(default=None, repr=False)


def cut_recoding(
    data,
    taxonomy: Taxonomy,
    cut: Iterable[Hashable],
    suppress: Iterable[Hashable] = (),
    *,
    algorithm: str = "cut",
    params: dict | None = None,
) -> GlobalRecoding:
    """Recode ``data`` by the taxonomy ``cut``, suppressing the cut nodes in ``suppress``.

    A building block: the result is row-aligned with ``data`` and not yet
    published (anonymizers end with :func:`~graphanon.release.publish`).

    Parameters
    ----------
    data : TransactionData
        Items must be leaves of ``taxonomy``.
    taxonomy : Taxonomy
        The item hierarchy.
    cut : iterable of nodes
        Exactly one node on every root-to-leaf path (validated).
    suppress : iterable of nodes
        Cut nodes removed from every record (a suppression scenario).
    algorithm, params :
        Provenance recorded in the release.

    Returns
    -------
    GlobalRecoding
        Each leaf maps to its cut node (``leaves`` = the node's leaf count,
        ``universe`` = the taxonomy's leaf count, so that NCP is the LM cost).
        ``release.trace`` is a :class:`HierarchyTrace` (the full ``cut`` and
        the suppressed nodes), in memory only: a saved release names no
        suppressed node, ``params["n_suppressed_nodes"]`` counts them.

    Notes
    -----
    Complexity: O(nodes + occurrences).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = cut_recoding(data, tax, ["P", "f", "g", "M", "e", "i"], suppress=["i"])
    >>> rel.render_record(2)
    'P f M'
    """
    taxonomy.check_covers(data.items)
    cut = taxonomy.validate_cut(cut)
    suppress = list(as_labels(suppress, "taxonomy node"))
    cut_set = set(cut)
    for node in suppress:
        if node not in cut_set:
            raise TaxonomyError(f"cannot suppress {node!r}: it is not a node of the cut {cut}")
    suppressed = set(suppress)
    leaf_to_node = taxonomy.cut_map(cut)
    mapping = {item: (None if leaf_to_node[item] in suppressed else leaf_to_node[item]) for item in data.items}
    leaves = {node: taxonomy.leaf_count(node) for node in cut}
    rel = GlobalRecoding.from_mapping(
        data,
        mapping,
        leaves=leaves,
        universe=len(taxonomy.leaves),
        algorithm=algorithm,
        params={"n_suppressed_nodes": len(suppress), **(params or {})},
    )
    rel.trace = HierarchyTrace(cut=tuple(cut), suppressed=tuple(suppress))
    return rel


@validate_params(
    {"level": [Interval(Integral, 0, None), None], **COMMON},
    meanings={"level": "a taxonomy depth, 0 = the root"},
    rules=[ExactlyOne(("cut", "level"), "cut: a list of nodes, level: a taxonomy depth")],
)
@fill_doc(secret='the row shuffle')
def anonymize_cut(
    data: TransactionData,
    *,
    taxonomy: Taxonomy,
    cut: Iterable[Hashable] | None = None,
    level: int | None = None,
    suppress: Iterable[Hashable] = (),
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    priors=None,
) -> GlobalRecoding:
    """Publish ``data`` generalized to a cut given by nodes or by taxonomy depth.

    Parameters
    ----------
    data : TransactionData
    taxonomy : Taxonomy
    cut : iterable of nodes, optional
        The cut's nodes.
    level : int, optional
        Instead of ``cut``: the cut :meth:`Taxonomy.level` ``(level)``
        (0 = root only; the height = the leaves).
    suppress : iterable of nodes
        Cut nodes to suppress.
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
        Called once when the recoding is done.
    priors : release, Prior, or a sequence of them, optional
        Earlier global recodings of ``data``: the cut is raised to a function
        of the priors' common refinement
        (:func:`~graphanon.algorithms.prior.coarsened_cut`), so together
        they reveal no more than the priors.

    Returns
    -------
    GlobalRecoding
        Rows in a secret random order; ``release.link`` is the private link,
        ``release.trace`` a :class:`HierarchyTrace` (the full cut and the
        suppressed nodes).

    See Also
    --------
    graphanon.privacy.KmAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_aa : A cut found by search instead of given.
    graphanon.algorithms.anonymize_hghs : A cut plus suppression found by search.

    Notes
    -----
    Complexity: O(taxonomy nodes + occurrences).

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_cut(data, taxonomy=tax, level=1, unsafe_secret_seed=0)
    >>> rel.trace.cut, rel.n_records
    (('P', 'Q', 'e', 'i'), 8)

    This method makes no privacy promise by itself: audit its release (for
    example with :class:`~graphanon.privacy.KmAnonymity`) before publishing.
    """
    if level is not None:
        if level > taxonomy.height:
            raise ParameterError(f"level must be between 0 and the taxonomy height {taxonomy.height}, got {level}")
        cut = taxonomy.level(level)
    assert cut is not None  # exactly one of cut= and level= (which set it)
    rel = cut_recoding(data, taxonomy, cut, () if suppress is None else suppress, params={"level": level})
    report(progress, 1, 1, "cut recoding")
    if priors is not None:
        rel = recode_to_priors(data, rel, priors, taxonomy=taxonomy)
        rel.params["level"] = None  # the cut was raised: it is no longer that level
    return publish(data, rel, unsafe_secret_seed=unsafe_secret_seed)


def recode_to_priors(data, release: GlobalRecoding, priors, *, taxonomy: Taxonomy, k: int | None = None,
                     m: int | None = None) -> GlobalRecoding:  # fmt: skip
    """``release`` (a cut recoding, row-aligned) recoded again by its cut raised to the priors.

    The cut of ``release.trace`` goes through
    :func:`~graphanon.algorithms.prior.coarsened_cut` (so the recoding is a
    function of the priors' common refinement; with ``k``, the refinement
    must be k^m-anonymous). The method name is kept; the parameters become
    ``k``, ``m``, ``priors`` (their number), ``ncp`` and
    ``n_suppressed_nodes`` of the raised cut -- the method's search numbers
    described the cut before raising and are dropped. Not yet published.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> prior = anonymize_cut(data, taxonomy=tax, cut=["P", "Q", "e", "i"])
    >>> fine = cut_recoding(data, tax, tax.level(2))
    >>> recode_to_priors(data, fine, prior, taxonomy=tax).trace.cut
    ('P', 'Q', 'e', 'i')
    """
    trace = release.trace
    cut, suppressed = coarsened_cut(data, priors, taxonomy=taxonomy, cut=trace.cut, suppressed=trace.suppressed,
                                    k=k, m=m)  # fmt: skip
    params = {"k": k if k is not None else release.params.get("k"), "m": m if k is not None else release.params.get("m"),
              "priors": len(as_priors(priors))}  # fmt: skip
    rel = cut_recoding(data, taxonomy, cut, suppressed, algorithm=release.algorithm, params=params)
    rel.params["ncp"] = ncp(data, rel)
    return rel
