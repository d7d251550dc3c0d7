"""COAT: constraint-based, hierarchy-free anonymization of transactions.

* :func:`anonymize_coat` (:mod:`.engine`): the greedy merge/suppress loop
  (Algorithms 1-3) over the run state of :mod:`.state` (supports, UL);
* :mod:`.policies`: the privacy/utility policies of the paper's experiments
  (km, PP1-PP9, UP1-UP4) as generators;
* the constraint sets themselves -- :class:`KmConstraints`,
  :func:`as_utility_blocks`, :func:`pgen` (Algorithm 4) and the spec/file
  parsers -- live in :mod:`graphanon.taxonomy.constraint_sets`, because the
  ``constraints`` audit and the constraint graph need them too.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 28(2), 2011.
"""

from graphanon.algorithms.coat.engine import CoatTrace, MergeStep, anonymize_coat
from graphanon.taxonomy.constraint_sets import KmConstraints, as_utility_blocks, pgen

__all__ = ["CoatTrace", "KmConstraints", "MergeStep", "anonymize_coat", "as_utility_blocks", "pgen"]

#: The family's method: name -> its declaration (read by :mod:`graphanon.algorithms.registry`).
METHOD_DECLARATIONS = {"coat": "graphanon.algorithms.coat.engine:COAT"}
