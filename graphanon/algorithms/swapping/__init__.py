"""Swapping to hide personal tendency: PartSwap, FullSwap and three baselines, one module per method.

A person's *tendency* is the category that dominates their record (Gunawan & Mambo 2019,
Sec. 3-4; :class:`Tendency` and :func:`tendencies` in :mod:`.tendency`). Laid out like
:mod:`graphanon.algorithms.hierarchy`: one module per method, each with its declaration, and the
shared machinery apart -- :mod:`._pairing` (PartSwap's and FullSwap's engine), :mod:`._moves`
(exchanges, splices, hosts), :mod:`.gifts` (gifts and receivers for the leftovers),
:mod:`.trace` (:class:`SwapTrace`), :mod:`._declared` (the shared ``--param`` texts).

Methods (SPEC §4):

PartSwap (:func:`anonymize_partswap`, :mod:`.partswap`, Sec. 4.1-4.3)
    Records with a tendency are visited in priority order. An unpaired
    record ``t`` takes as destination, among the other unpaired records
    with a tendency, those whose heaviest category differs (*true swap*) and
    that hold none of ``S(t)`` -- nor does ``t`` hold any of theirs (*no
    collision*, checked both ways so that no item is lost) -- the one of
    least Jaccard similarity; ties go to the partner of higher priority. The
    pair exchange their source items. **A record joins at most one pair**
    (our choice: the paper's Algorithm 2 outputs one destination per record
    and does not say whether a destination may be reused; reusing it would
    undo its own swap). A record that finds no admissible partner is left
    alone -- and keeps its tendency, which the audit reports (``unpaired="keep"``).
    By default (``unpaired="splice"``, not in the paper) such a *leftover* ``L``
    is spliced into an exchange ``A -> B`` of a pair, ``A -> L -> B``
    (:func:`._moves._splice`), or, when no exchange admits it (one category holds most
    tendency records), takes part of a paired record's source items
    (:func:`._moves._split_hosts`): its row is then, like every swapped row, its record
    minus its heaviest category plus other records' source items, so a row
    equal to a known record minus one category is not the sign of a leftover
    (:func:`graphanon.attacks.lost_items_attack`). A leftover that nothing
    admits receives part of what another swapped row received and hands its
    source items to a *receiver* row that holds none of them
    (:mod:`graphanon.algorithms.swapping.gifts`); only what no receiver admits is
    removed. ``unpaired="suppress"`` suppresses every leftover's source items
    instead: an adversary holding the record finds it.
FullSwap (:func:`anonymize_fullswap`, :mod:`.fullswap`, Sec. 4.4)
    PartSwap, plus *full swapping* of the records it cannot touch: records
    of length > 1 whose items all lie in one category are paired, by the same
    rule (different category, least similarity -- always 0, categories being
    disjoint) and exchange all their items.
RandSwap (:func:`anonymize_randswap`, :mod:`.randswap`, after Reiss 1984)
    All records are paired at random (a random perfect matching; with an odd
    count one record stays alone); in each pair each record gives a uniformly
    random ``ceil(|t| / 2)`` of its items to the other. An item given to a
    record that already holds it is lost (a *collision*), as in the paper.
PartSupp (:func:`anonymize_partsupp`, :mod:`.partsupp`, after Jia et al. 2014)
    Each record with a tendency loses its source items.
SplitPerson (:func:`anonymize_splitperson`, :mod:`.splitperson`, after Adar 2007)
    Each record becomes one record per category present in it (more rows
    than records; no item lost).

Priority and tie-breaking: the visiting order of the records -- also the
tie-break among partners of equal similarity -- is a permutation drawn from
``rng`` (``visit="random"``, the default) or the input order
(``visit="input"``, the paper's loop over ``D``). Both are *structure*
randomness: the same ``rng`` gives the same pairs. The published rows are
then shuffled by :func:`~graphanon.release.publish.publish` (secret), and
who swapped with whom stays in ``release.trace`` (a :class:`SwapTrace`, memory only)
and the private ``release.link``.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019.
Reiss, S. P. Practical data-swapping: the first steps. ACM TODS 9(1), 1984.
Jia, X. et al. rho-uncertainty, DASFAA 2014 (partial suppression).
Adar, E. User 4XXXXX9: anonymizing query logs. WWW Query Log Workshop, 2007.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.swapping.fullswap": ("anonymize_fullswap",),
    "graphanon.algorithms.swapping.partsupp": ("anonymize_partsupp",),
    "graphanon.algorithms.swapping.partswap": ("anonymize_partswap",),
    "graphanon.algorithms.swapping.randswap": ("anonymize_randswap",),
    "graphanon.algorithms.swapping.splitperson": ("anonymize_splitperson",),
    "graphanon.algorithms.swapping.tendency": ("Tendency", "tendencies"),
    "graphanon.algorithms.swapping.trace": ("SwapTrace",),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {
    "fullswap": "graphanon.algorithms.swapping.fullswap:FULLSWAP",
    "partsupp": "graphanon.algorithms.swapping.partsupp:PARTSUPP",
    "partswap": "graphanon.algorithms.swapping.partswap:PARTSWAP",
    "randswap": "graphanon.algorithms.swapping.randswap:RANDSWAP",
    "splitperson": "graphanon.algorithms.swapping.splitperson:SPLITPERSON",
}
