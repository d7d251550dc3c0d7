"""Partition (LG): He & Naughton's top-down local generalization for transactional k-anonymity.

Every record starts generalized to the root. A partition repeatedly expands
the one node of its hierarchy cut whose expansion gains the most information
(He & Naughton's NCP, summed over the partition's occurrences), distributes
its records into buckets by the set of that node's children they hold, keeps
buckets of at least ``k`` records as sub-partitions (cut refined), and
*balances*: records of smaller buckets go to a leftover partition that keeps
the parent's cut; if the leftover has fewer than ``k`` records, records of
least gain from the big buckets join it (a whole bucket when taking one
would leave it below ``k``). A partition stops when no cut node it holds can
be expanded.

Choices the paper leaves open, and ours: the leftover partition marks the
failed node as *frozen* (it cannot be expanded again, which is what ends the
recursion; sub-partitions keep their parent's frozen nodes); ties of gain go
to the node first in depth-first order; buckets are keyed by a 64-bit hash of
the sorted child list (a collision would merge two patterns into one group,
which the transactional k-anonymity audit would report).

A published record is the set of cut nodes its items fall under, each node
standing for a non-empty set of the record's items (``reading="some"``: no
item is suppressed, except in records published empty, see
:func:`_empty_records`).

Notes
-----
Complexity: O(sum over partitions of their occurrences + records log records); every
occurrence is visited once per level of the recursion it passes through.

References
----------
He, Naughton. Anonymization of set-valued data via top-down, local
generalization. PVLDB 2(1), 2009, Sec. 4 (Algorithm 1, Example 2, Table 2).
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import Advice, MethodDeclaration
from graphanon.algorithms.grouping._partition_frontier import partition_groups
from graphanon.algorithms.grouping.trace import GroupingTrace
from graphanon.distributed._blocks import n_blocks
from graphanon.distributed.tasks import map_batched
from graphanon.graphs.lcg import NodeIndex, groups_to_lcg
from graphanon.release.local_recoding import LocalRecoding, local_recoding_from_counts
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, MEANINGS, NO_VALIDATION, Interval, K, validate_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["anonymize_partition", "ancestor_table"]


def ancestor_table(index: NodeIndex, matrix) -> np.ndarray:
    """Per item occurrence (CSR order of ``matrix``), its ancestor at each depth.

    Column ``d`` holds the ancestor at depth ``d`` (the leaf itself below its depth).
    Complexity: O(occurrences * height).
    """
    height = int(index.depth.max())
    item_table = np.empty((len(index.item_node), height + 1), dtype=np.int64)
    node = index.item_node.copy()
    for d in range(height, -1, -1):
        item_table[:, d] = node
        up = index.depth[node] >= d
        node = np.where(up & (index.parent[node] >= 0), index.parent[node], node)
    return item_table[matrix.indices]


def _empty_records(lengths: np.ndarray, k: int) -> np.ndarray:
    """Records published empty: the empty ones, topped up to ``k`` with the shortest others.

    The paper's records are non-empty. An empty record shares no pattern
    with others, so empty records form their own group; when there are
    ``0 < e < k`` of them, the ``k - e`` shortest records (ties: first) are
    published empty too -- their items suppressed, the only suppression
    Partition does -- and if fewer than ``k`` records would remain, all are.
    """
    empty = lengths == 0
    e = int(empty.sum())
    if 0 < e < k:
        order = np.argsort(lengths, kind="stable")
        empty[order[:k]] = True
    if 0 < len(lengths) - int(empty.sum()) < k:
        empty[:] = True
    return empty


@validate_params({"k": K, **COMMON, "n_partitions": [None, Interval(Integral, 1, None)], "client": NO_VALIDATION,
                  "taxonomy": [Taxonomy]},
                 meanings=MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_partition(
    data: TransactionData,
    *,
    taxonomy,
    k: int,
    n_partitions: int | None = None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
    client=None,
) -> LocalRecoding:
    """Transactional k-anonymity by He & Naughton's Partition (top-down local generalization).

    Parameters
    ----------
    data : TransactionData
        Records over the leaves of ``taxonomy``.
    taxonomy : Taxonomy
        The hierarchy whose cuts generalize the records.
    k : int
        Group size: each published record is shared by ``k`` or more records (1 <= k <= n).
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
    client : dask.distributed.Client, optional
        Finish the recursion on Dask: the top levels run here until every
        partition has fewer than ``n / n_partitions`` records; those
        partitions are independent, and they are finished on the workers in
        consecutive batches of about that many records, all sent in one
        round trip and gathered in another
        (:func:`graphanon.distributed.tasks.map_batched`). Their groups are
        renumbered in the order the whole recursion makes them, so the
        release (and ``release.trace``) equals the one-process one.
    n_partitions : int, optional
        With ``client``: the size below which a partition is sent to the
        workers is ``n_records / n_partitions`` (default twice the workers).

    Returns
    -------
    LocalRecoding
        ``reading="some"``, rows in a secret random order. ``params`` holds
        ``ncp_hn`` (He & Naughton's NCP), ``ncp_taxonomy`` (taxonomy LM per occurrence) and
        ``ggd_lcg`` (total GGD of the groups had they been published as
        their LCG, to compare groupings with Clump). ``release.trace`` is a :class:`GroupingTrace`.

    See Also
    --------
    graphanon.privacy.TransactionalKAnonymity : The audit of its releases.
    graphanon.algorithms.anonymize_clump : Bottom-up groups of similar records.

    Notes
    -----
    Complexity: see the module notes.

    Examples
    --------
    The paper's Table 2 (k=2):

    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import Taxonomy
    >>> tax = Taxonomy.from_parent_map({"a1": "A", "a2": "A", "b1": "B", "b2": "B", "A": "ALL", "B": "ALL"})
    >>> data = from_iterable([["a1"], ["a1", "a2"], ["b1", "b2"], ["b1", "b2"], ["a1", "a2", "b2"],
    ...                       ["a1", "a2", "b2"], ["a1", "a2", "b1", "b2"]])
    >>> rel = anonymize_partition(data, taxonomy=tax, k=2, unsafe_secret_seed=0)
    >>> [rel.render_record(int(rel.link.row_of_record[i])) for i in range(7)]
    ['A', 'A', 'b1 b2', 'b1 b2', 'a1 a2 B', 'a1 a2 B', 'a1 a2 B']
    """
    k = check_k(k, data.n_records)
    index = NodeIndex(taxonomy, data.items)
    if progress:
        progress(0, 1, "partitioning")
    n = data.n_records
    lengths = np.diff(data.matrix.indptr)
    empty = _empty_records(lengths, k)
    rest = np.flatnonzero(~empty)
    X = sp.csr_array(data.matrix[rest])
    group = np.zeros(n, dtype=np.int64)
    rec, cur = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(rest):
        args = (X.indptr.astype(np.int64), ancestor_table(index, X), index.depth, index.is_leaf,
                index.ncp_hn.astype(np.float64), int(k))
        if client is None:  # numpy, breadth first: the same groups as the compiled kernel, without numba
            sub_group, cur = partition_groups(*args, index.n_nodes)
        else:
            sub_group, cur = _groups_on_client(*args, client=client, n_partitions=n_partitions, progress=progress)
        group[rest] = sub_group + (1 if empty.any() else 0)
        rec = np.repeat(rest, np.diff(X.indptr))
    pattern = sp.csr_array((np.ones(len(cur), np.int64), (rec, cur)), shape=(n, index.n_nodes))
    pattern.sum_duplicates()
    pattern.data[:] = 1
    occ = data.matrix.nnz
    # suppressed occurrences (records published empty) cost 1 in both conventions
    n_supp = int(lengths[empty].sum())
    counts = sp.csr_array(index.counts(data.matrix), dtype=np.int64)
    _, ggd_groups = groups_to_lcg(index, counts, group)
    params = {
        "k": k,
        "ncp_hn": float((index.ncp_hn[cur].sum() + n_supp) / occ) if occ else 0.0,
        "ncp_taxonomy": float((index.lm[cur].sum() + n_supp) / occ) if occ else 0.0,
        "ggd_lcg": float(ggd_groups.sum()),
    }
    release = local_recoding_from_counts(index, data, pattern, reading="some", algorithm="partition", params=params)
    release.trace = GroupingTrace(groups=int(group.max()) + 1 if n else 0, ggd_per_group=ggd_groups)
    if progress:
        progress(1, 1, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


def _groups_on_client(o_ptr, anc, depth, is_leaf, ncp, k: int, *, client, n_partitions, progress):
    """``partition_groups`` with the partitions below ``n / n_partitions`` records finished on Dask.

    The recursion runs here with deferral (:func:`partition_run`); the
    deferred partitions are cut, in order, into tasks of about that many
    records, each the partitions' records, occurrences, cut nodes and frozen
    lists (:func:`run_deferred`), all scattered in one round trip and
    gathered in one (:func:`map_batched`): a run waits for the workers three
    times (the worker count when ``n_partitions`` is None, the scatter, the
    gather), whatever the number of partitions and splits. A deferred partition held one group number
    (its placeholder); it becomes the run of numbers of the groups it split
    into, and every later number moves up accordingly.
    """
    from graphanon.algorithms.grouping._partition_kernel import partition_run, run_deferred

    n = len(o_ptr) - 1
    n_partitions = n_blocks(client, n_partitions)
    size = -(-n // int(n_partitions))
    cur = np.zeros(o_ptr[n], dtype=np.int64)
    group, rows, deferred, (f_ptr, frozen) = partition_run(
        o_ptr, anc, depth, is_leaf, ncp, k, len(depth), cur, np.array([0, n], dtype=np.int64),
        np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64), size,
    )
    lens = deferred[:, 2] - deferred[:, 1]
    task_of = (np.cumsum(lens) - lens) // size  # consecutive partitions, about `size` records a task
    cuts = np.flatnonzero(np.r_[True, task_of[1:] != task_of[:-1], True]) if len(lens) else np.zeros(1, np.int64)

    def members(t: int):
        a, b = int(cuts[t]), int(cuts[t + 1])
        recs = np.concatenate([rows[s:e] for s, e in deferred[a:b, 1:3]])
        starts, lengths = o_ptr[recs], o_ptr[recs + 1] - o_ptr[recs]
        sub_ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
        occ = np.arange(sub_ptr[-1], dtype=np.int64) - np.repeat(sub_ptr[:-1] - starts, lengths)
        return a, b, recs, sub_ptr, occ

    def task(t: int):
        a, b, _, sub_ptr, occ = members(t)
        bounds = np.r_[0, np.cumsum(lens[a:b])].astype(np.int64)
        fp = f_ptr[a : b + 1] - f_ptr[a]  # deferred partition d has frozen list d
        return sub_ptr, anc[occ], cur[occ], bounds, fp, frozen[f_ptr[a] : f_ptr[b]], depth, is_leaf, ncp, k

    n_tasks = len(cuts) - 1
    extra = np.zeros(len(deferred), dtype=np.int64)  # groups a deferred partition split into, minus 1
    local = np.zeros(n, dtype=np.int64)  # a deferred record's group within its partition
    results = map_batched(run_deferred, (task(t) for t in range(n_tasks)), client=client, progress=progress,
                          message="finishing sub-partitions", kind="partition")
    for t, (sub_group, sub_cur) in enumerate(results):
        a, b, recs, _, occ = members(t)
        cur[occ] = sub_cur
        first = np.minimum.reduceat(sub_group, np.r_[0, np.cumsum(lens[a : b - 1])])  # partitions' groups are runs
        extra[a:b] = np.r_[first[1:], sub_group.max() + 1] - first - 1
        local[recs] = sub_group - np.repeat(first, lens[a:b])
    shift = np.r_[0, np.cumsum(extra)]
    placeholder = deferred[:, 0]
    new = group + shift[np.searchsorted(placeholder, group, side="left")]
    is_deferred = np.zeros(n, dtype=bool)
    for s, e in deferred[:, 1:3]:
        is_deferred[rows[s:e]] = True
    new[is_deferred] += local[is_deferred]
    return new, cur


PARTITION = MethodDeclaration(
    name="partition", family="grouping", function=anonymize_partition, privacy_model="transactional",
    summary="Partition/LG: top-down local generalization into groups of >= k identical records (He & Naughton 2009)",
    published=frozenset({"k", "ncp_hn", "ncp_taxonomy", "ggd_lcg"}),
    needs_taxonomy=True, needs_k=True, options=("k", "taxonomy", "scheduler"),
    advice=Advice(coarser="a smaller -k, or -a clump (local generalization, one copy per item)"),
)
