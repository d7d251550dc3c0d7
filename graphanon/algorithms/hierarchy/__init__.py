"""Recoding along an item taxonomy: cut, AA, HgHs/mHgHs and MM (suppression).

Laid out like :mod:`graphanon.algorithms.nonreciprocal`: one module per method and the shared
machinery apart.

* :func:`anonymize_cut` (:mod:`.cut`): a user-given or level cut, and :class:`HierarchyTrace`, the
  trace of every method of the family;
* :func:`anonymize_aa` (:mod:`.aa`): the Apriori anonymization of Terrovitis et al. (counting in
  :mod:`._aa_counts`), and :func:`write_aa_release` (:mod:`.aa_dask`): its release written on Dask
  without the records on the client;
* :func:`anonymize_hghs`, :func:`anonymize_mhghs` (:mod:`.hghs`): generalization plus suppression
  (Liu & Wang), the search in :mod:`._search` and :mod:`._walk`;
* :func:`anonymize_mm` (:mod:`.mm`): suppression of minimal moles (Xu et al.);
* :mod:`._index` -- the taxonomy index and threat sets the family shares; numba kernels in
  :mod:`._kernels`.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.hierarchy.aa": ("anonymize_aa",),
    "graphanon.algorithms.hierarchy.aa_dask": ("write_aa_release",),
    "graphanon.algorithms.hierarchy.cut": ("HierarchyTrace", "anonymize_cut"),
    "graphanon.algorithms.hierarchy.hghs": ("HierarchySearch", "anonymize_hghs", "anonymize_mhghs"),
    "graphanon.algorithms.hierarchy.mm": ("anonymize_mm",),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {
    "aa": "graphanon.algorithms.hierarchy.aa:AA",
    "cut": "graphanon.algorithms.hierarchy.cut:CUT",
    "hghs": "graphanon.algorithms.hierarchy.hghs:HGHS",
    "mhghs": "graphanon.algorithms.hierarchy.hghs:MHGHS",
    "mm": "graphanon.algorithms.hierarchy.mm:MM",
}
