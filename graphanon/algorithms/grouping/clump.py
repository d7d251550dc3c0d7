"""Clump: transactional k-anonymity by clustering records into groups published as their LCG.

Design choices the paper leaves open (its text breaks off before them)
----------------------------------------------------------------------
* **LCG and GGD**: the optimal bottom-up fill of the laminar constraint,
  with the closed form ``GGD(S) = N_S - |S| sum_x d(x) c_S(x)``
  (:mod:`graphanon.graphs.lcg`, proof there).
* **Seeds**: unassigned records in order of decreasing length (ties in a
  random order drawn from ``rng``). Long records are the hardest to hide and
  lose the most when grouped late, from the leftovers of others; k-member's
  "furthest record" rule needs an all-pairs distance we avoid.
* **Identical records first**: a class of ``m >= k`` identical records is
  cut into groups of GGD 0 (optimal for them); the greedy works on the rest.
  Without this, ties in the similarity graph (identical records point to
  the same lowest-index duplicates) starve the candidate lists.
* **Growth**: add the candidate of least ``Delta GGD`` until the group has
  ``k`` records (k-member: groups of exactly k, so none grows larger than it
  must).
* **Candidates**: the unassigned duplicates and neighbours, in a ``neighbors``-nearest
  Jaccard similarity graph (:meth:`RecordSimilarityGraph.knn`, exact, by a
  pruned search that never forms the full product), of the
  group's members so far -- not all records. When none is left, the next
  ``pool`` unassigned records of a fixed random order (``rng``): cheap, and
  such records have no similar record left anyway. The graph is built only
  for and among the records left after the identical-record groups, which
  shrinks its sparse products. ``release.trace.similarity_graph`` is
  that graph (records of identical-record groups have no edges in it).
* **Leftovers** (fewer than ``k`` unassigned at the end): each joins the
  group of least ``Delta GGD`` among its graph neighbours' groups (all groups
  if none), as in k-member.

Notes
-----
Complexity: the similarity graph (a pruned exact top-k search, see ``RecordSimilarityGraph.knn``),
then O(n/k * k * C * L) for the greedy, with ``C <= k * neighbors``
candidates per step and ``L`` the length of a record's node-count row
(items times taxonomy height).

References
----------
Clump (transaction clustering for k-anonymity with least common
generalizations), SECRYPT 2010, Sec. 2-3; Byun et al., Efficient
k-anonymization using clustering techniques, DASFAA 2007 (k-member).
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import Advice, MethodDeclaration, Parameter
from graphanon.algorithms.grouping.trace import GroupingTrace
from graphanon.counting.rows import row_classes
from graphanon.graphs.lcg import NodeIndex, groups_to_lcg
from graphanon.graphs.similarity import RecordSimilarityGraph
from graphanon.release.local_recoding import LocalRecoding, local_recoding_from_counts
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.memory import release_free_memory
from graphanon.utils.params import (
    COMMON,
    MEANINGS,
    NO_VALIDATION,
    RNG,
    Interval,
    K,
    validate_params,
)
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.randomness import check_random_state
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.randomness import RandomLike

__all__ = ["anonymize_clump"]


def _identical_groups(X: sp.csr_array, k: int):
    """Classes of identical records; classes of >= k records become groups of GGD 0.

    Returns the initial group of each record (-1 when free), a representative
    per fixed group, and the classes as (class of record, CSR of members).
    A class of ``m >= k`` records is cut into ``m // k`` groups (the
    remainder spread over them): each costs nothing and no other grouping
    of these records can do better.
    """
    n = X.shape[0]
    cl_of = row_classes(X)
    order = np.argsort(cl_of, kind="stable")
    size = np.bincount(cl_of, minlength=int(cl_of.max()) + 1 if n else 0)
    cl_ptr = np.r_[0, np.cumsum(size)].astype(np.int64)
    group = np.full(n, -1, dtype=np.int64)
    big = np.flatnonzero(size >= k)  # the classes cut into groups, in class order
    members, parts = size[big], size[big] // k
    first = np.cumsum(parts) - parts  # each class's first group
    # each member of a big class: its class's slot, and its position in the class (stable order)
    slot = np.repeat(np.arange(len(big)), members)
    pos = np.arange(int(members.sum())) - np.repeat(np.cumsum(members) - members, members)
    group[order[cl_ptr[big][slot] + pos]] = first[slot] + pos % parts[slot]
    reps = np.repeat(order[cl_ptr[big]], parts).astype(np.int64)
    return group, reps, cl_of, cl_ptr, order.astype(np.int64)


@validate_params(
    {"k": K, "neighbors": [Interval(Integral, 1, None)], "pool": [Interval(Integral, 1, None)], "rng": RNG, **COMMON,
     "n_jobs": [None, Interval(Integral, 1, None)], "n_partitions": [None, Interval(Integral, 1, None)],
     "client": NO_VALIDATION, "taxonomy": [Taxonomy]},
    meanings=MEANINGS,
)
@fill_doc(secret='the row shuffle')
def anonymize_clump(
    data: TransactionData,
    *,
    taxonomy,
    k: int,
    neighbors: int = 50,
    pool: int = 64,
    n_jobs: int | None = None,
    n_partitions: int | None = None,
    rng: RandomLike = None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    client=None,
) -> LocalRecoding:
    """Transactional k-anonymity by Clump: groups of >= k similar records, each published as its LCG.

    Parameters
    ----------
    data : TransactionData
        Items must be leaves of ``taxonomy``.
    taxonomy : Taxonomy
    k : int
        Every published record equals at least ``k - 1`` others (1 <= k <= n).
    neighbors : int
        Neighbours per record in the similarity graph the candidates come from.
    pool : int
        Fallback candidates when a group has no unassigned neighbour left.
    rng : None, int or Generator
        Structure randomness (seed tie order, fallback pool order).
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
    n_jobs : int or None, default None
        Threads computing the similarity graph here (row blocks); the same
        graph, hence the same release, for every ``n_jobs``. None: every
        usable core when at least 5,000 records are left to group, else one.
    client : dask.distributed.Client, optional
        Compute the similarity graph's row blocks on Dask workers
        (:meth:`RecordSimilarityGraph.knn`); the same graph and release as
        without it. The greedy grouping runs here.
    n_partitions : int, optional
        With ``client``: row blocks (default twice the workers).

    Returns
    -------
    LocalRecoding
        ``reading="one"``; rows in a secret random order. ``params`` holds
        the total GGD (``ggd``, also as ``ggd_lcg`` like Partition's) and
        ``ncp_taxonomy`` (GGD per original occurrence).
        ``release.trace`` (a :class:`~graphanon.algorithms.grouping.trace.GroupingTrace`): ``groups`` (number), ``ggd_per_group``, and the
        ``similarity_graph`` (in memory only).

    Raises
    ------
    ParameterError
        Bad ``k`` (including ``k`` > number of records), ``neighbors`` or ``pool``.
    TaxonomyError
        Items that are not leaves of the taxonomy.

    See Also
    --------
    graphanon.privacy.TransactionalKAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_partition : Top-down local generalization.

    Notes
    -----
    Complexity: see the module notes.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("clump_food"), load_taxonomy("clump_food")
    >>> rel = anonymize_clump(data, taxonomy=tax, k=3, unsafe_secret_seed=0)
    >>> from graphanon.privacy import TransactionalKAnonymity
    >>> TransactionalKAnonymity(3).audit(data, rel).satisfied
    True
    """
    k = check_k(k, data.n_records)
    gen = check_random_state(rng)
    index = NodeIndex(taxonomy, data.items)
    counts = index.counts(data.matrix)
    counts = sp.csr_array(counts, dtype=np.int64)
    lengths = np.diff(data.matrix.indptr).astype(np.int64)
    if progress:
        progress(0, 2, "similarity graph")
    group, fixed_rep, cl_of, cl_ptr, cl_idx = _identical_groups(data.matrix, k)
    # neighbours only of and among the records the greedy still has to place
    free = np.flatnonzero(group < 0)
    keep = sp.diags_array((group < 0).astype(np.float64))
    release_free_memory()  # what loading the data and these steps freed, before the kNN search
    graph = RecordSimilarityGraph.knn(
        sp.csr_array(keep @ data.matrix), int(min(neighbors, max(data.n_records - 1, 1))), rows=free,
        n_jobs=None if n_jobs is None else int(n_jobs), client=client, n_partitions=n_partitions,
    )
    nb = graph.matrix
    release_free_memory()  # the kNN search's freed buffers and thread arenas, before the grouping's own
    tie = gen.permutation(data.n_records)
    seed_order = tie[np.argsort(-lengths[tie], kind="stable")]
    pool_order = gen.permutation(data.n_records)
    if progress:
        progress(1, 2, "greedy grouping")
    from graphanon.algorithms.grouping._clump_kernel import clump_groups

    # the graph's index arrays as they are (int32 on bms1: an int64 copy would add 8 bytes per edge)
    group = clump_groups(
        counts.indptr.astype(np.int64, copy=False), counts.indices.astype(np.int64, copy=False),
        counts.data.astype(np.int64, copy=False), lengths, index.delta.astype(np.float64, copy=False),
        nb.indptr, nb.indices, cl_of, cl_ptr, cl_idx, group, fixed_rep, seed_order.astype(np.int64, copy=False),
        pool_order.astype(np.int64, copy=False), int(k), int(pool),
    )
    release_free_memory()  # the grouping kernel's work arrays
    rows, ggd_groups = groups_to_lcg(index, counts, group)
    total = float(ggd_groups.sum())
    occ = int(lengths.sum())
    params = {
        "k": k, "neighbors": int(neighbors), "ggd": total, "ggd_lcg": total,
        "ncp_taxonomy": total / occ if occ else 0.0,
    }
    release_free_memory()  # the column minima's sort temporaries, before publication
    release = local_recoding_from_counts(index, data, rows, reading="one", algorithm="clump", params=params)
    release.trace = GroupingTrace(groups=int(group.max()) + 1, ggd_per_group=ggd_groups, similarity_graph=graph)
    if progress:
        progress(2, 2, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


CLUMP = MethodDeclaration(
    name="clump", family="grouping", function=anonymize_clump, privacy_model="transactional",
    summary="Clump: groups of >= k similar records published as their least common generalization",
    params=(
        Parameter("neighbors", int, 50, "neighbours per record in the similarity graph the candidates come from"),
        Parameter("pool", int, 64, "fallback candidates when a group has no unassigned neighbour left"),
    ),
    published=frozenset({"k", "neighbors", "ggd", "ggd_lcg", "ncp_taxonomy"}),
    needs_taxonomy=True, needs_k=True, options=("k", "taxonomy", "seed", "scheduler"),
    advice=Advice(coarser="a smaller -k, or -a partition"),
)
