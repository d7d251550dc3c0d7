"""(k, k^m)-anonymity of relational-transaction data: the RT method and the naive baseline.

A record has quasi-identifier values (age, gender, race, ...) and a set of
items (diagnosis codes). The adversary of Poulis et al. knows a record's QI
values and up to ``m`` of its items; (k, k^m)-anonymity asks that such
knowledge always matches at least ``k`` published rows. The RT method
(Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos, ECML PKDD 2013, Sec. 4;
SECRETA's bounding methods) runs in three steps:

1. **Relational clusters**: records are partitioned into clusters of >= k
   records on the QIs (Mondrian median cuts over the hierarchies' leaf order,
   :mod:`~graphanon.algorithms.relational._clusters`); each cluster publishes,
   per QI, the lowest hierarchy node covering its values.
2. **Merging** under ``delta``: clusters are merged (RMERGE_R, RMERGE_T or
   RTMERGE, :mod:`~graphanon.algorithms.relational._merge`) while the relational
   information loss (mean NCP over records and QIs) stays ``<= delta``,
   trading relational precision for transaction utility.
3. **Transactions per group**: the transactions of each final group are
   k^m-anonymized by the chosen transaction method (``aa``, ``mhghs`` or
   ``coat``) run on that group alone, so every m-itemset published in a group
   occurs 0 or >= k times in it; the group's rows share their relational
   values.

Why the result is (k, k^m)-anonymous: the rows an adversary cannot rule out
for a target include every row of the target's group (same relational values;
its items recoded by the group's recoding), which holds >= k rows, and any
m items of the target map to a published itemset of support >= k in the
group -- or to nothing published, which every row of the group matches.
Two groups that end with equal relational values only add candidates: a
sum of supports each 0 or >= k is 0 or >= k.

What the paper leaves open, decided here (``docs/relational.md``): the
relational clustering (Mondrian, deterministic); the merge seeds, partners
and the transaction-loss proxy (see ``_merge``); a group whose transaction
method finds no k^m-anonymous recoding (an AA or mHgHs group with fewer than
``k`` non-empty transactions) publishes no items for its rows (all its items
suppressed: empty item sets are all equal, so k^m holds); the transaction
method runs on each group with the whole item vocabulary and taxonomy, so a
published label means the same items in every group; the published rows
carry no cluster id, merge order or input order (shuffled by
:func:`~graphanon.release.publish.publish`).

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 ((k, k^m)-
anonymity), Sec. 4 (the clustering, anonymization and bounding framework).
Poulis, Gkoulalas-Divanis, Loukides, Skiadopoulos, Tryfonopoulos. SECRETA:
a system for evaluating and comparing relational and transaction
anonymization algorithms. EDBT 2014 (demo): RMERGEr, TMERGEr, RTMERGEr.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import MethodDeclaration, Parameter
from graphanon.algorithms.hierarchy._declared import PUBLIC_TAXONOMY
from graphanon.algorithms.relational._clusters import cluster_ncp, cluster_nodes, mondrian
from graphanon.algorithms.relational._merge import MERGE_RULES, merge_clusters
from graphanon.counting.support import generalize_matrix
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.relational import RTData
from graphanon.release.global_recoding import PublishedItem
from graphanon.release.publish import publish
from graphanon.release.relational import RelationalRelease
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, MEANINGS, Interval, K, M, StrOptions, validate_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.validation import check_k

__all__ = ["RTTrace", "anonymize_rt", "anonymize_rt_naive"]

TRANSACTION_METHODS = ("aa", "mhghs", "coat")
#: The transaction methods that generalize over an item taxonomy (refused without one).
_NEED_TAXONOMY = frozenset({"aa", "mhghs"})


@dataclass(frozen=True)
class RTTrace:
    """What the RT method found on the way (in memory only, never saved: it pins records to groups).

    Attributes
    ----------
    group : int array
        The final group of each original record (input order).
    stats : dict
        Clusters before merging, groups after, merges, relational loss.
    """

    group: np.ndarray
    stats: dict


def _check_data(data) -> RTData:
    if not isinstance(data, RTData):
        raise ParameterError(
            "rt anonymizes relational-transaction data: pass graphanon.relational.RTData (the transactions joined "
            "with their relational table; on the command line --relational FILE --qi COLUMNS)"
        )
    return data


def _transaction_recoding(tx, rows: np.ndarray, method: str, taxonomy: Taxonomy | None, k: int,
                          m: int | None, public_taxonomy: bool = False) -> tuple[dict, dict]:
    """The chosen k^m method run on the records ``rows``: (item -> label or None, label -> (members, leaves)).

    With ``public_taxonomy`` AA and mHgHs generalize instead of suppressing and a label's members are
    all its taxonomy leaves (:func:`~graphanon.algorithms.hierarchy.cut.public_taxonomy_recoding`).
    """
    from graphanon.algorithms.coat.engine import anonymize_coat
    from graphanon.algorithms.coat.policies import km_policy
    from graphanon.algorithms.hierarchy.aa import anonymize_aa
    from graphanon.algorithms.hierarchy.hghs import anonymize_mhghs

    sub = tx.subset(rows)
    try:
        if method == "aa":
            rel = anonymize_aa(sub, taxonomy=taxonomy, k=k, m=m, public_taxonomy=public_taxonomy)
        elif method == "mhghs":
            rel = anonymize_mhghs(sub, taxonomy=taxonomy, k=k, m=m, public_taxonomy=public_taxonomy)
        else:
            longest = int(np.diff(sub.matrix.indptr).max()) if sub.n_records else 1
            rel = anonymize_coat(sub, privacy=km_policy(max(m or longest, 1)), k=k, s=1.0, weights=taxonomy)
    except InfeasibleError:
        return dict.fromkeys(tx.items), {}
    mapping = rel.mapping
    return {x: mapping.get(x) for x in tx.items}, {pi.label: (pi.members, pi.leaves) for pi in rel.published_items}


def _group_rows(group: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """The records of each group (ascending), from one stable sort."""
    order = np.argsort(group, kind="stable")
    bounds = np.cumsum(np.bincount(group, minlength=n_groups))[:-1]
    return np.split(order, bounds)


def _build_release(data: RTData, group: np.ndarray, nodes: np.ndarray, recodings: list[tuple[dict, dict]],
                   *, universe: int, algorithm: str, params: dict, public_taxonomy: bool = False
                   ) -> RelationalRelease:
    """The row-aligned release: group ``g``'s rows get ``nodes[g]`` and its recoding ``recodings[g]``.

    A label is published only when some row holds it, and it lists as its
    members only the items some record of a group where it stands for them
    holds (so that every named item is shown by a row): a group's recoding
    also maps items the group does not hold, and naming those would name
    items that are suppressed in every group that holds them. With
    ``public_taxonomy`` a label lists every taxonomy leaf under it instead
    (the recodings' own members), present in the data or not, so the file
    tells no code of the data from an absent one.
    """
    tx = data.transactions
    hs = [data.hierarchies[c] for c in data.qi]
    every = sorted({str(label) for _, info in recodings for label in info})
    index = {label: j for j, label in enumerate(every)}
    leaves = np.zeros(len(every), dtype=np.int64)
    for _, info in recodings:
        for label, (_, lv) in info.items():
            leaves[index[str(label)]] = max(leaves[index[str(label)]], int(lv))
    suppressed = np.zeros(tx.n_items, dtype=bool)  # items some record holds where its group suppresses them
    rows_of = _group_rows(group, len(recodings))
    codes, done, pairs = [], {}, []
    for g, rows in enumerate(rows_of):
        key = id(recodings[g][0])
        if key not in done:  # the naive baseline shares one recoding among its groups
            done[key] = np.array([-1 if label is None else index[str(label)] for label in recodings[g][0].values()],
                                 dtype=np.int64)
        code = done[key]
        codes.append(code)
        held = np.unique(tx.matrix[rows].indices)  # the items some record of the group holds
        suppressed[held[code[held] < 0]] = True
        held = held[code[held] >= 0]
        pairs.append(code[held] * tx.n_items + held)
    shown = np.unique(np.concatenate(pairs)) if pairs else np.zeros(0, dtype=np.int64)  # label * n_items + item
    shown_label, shown_item = np.divmod(shown, max(tx.n_items, 1))
    used, starts = np.unique(shown_label, return_index=True)
    bounds = np.append(starts, len(shown))
    new_index = np.full(len(every) + 1, -1, dtype=np.int64)  # old label -> published position (-1: none)
    new_index[used] = np.arange(len(used))
    published = []
    every_members = {str(label): lm for _, info in recodings for label, (lm, _) in info.items()}
    for p, j in enumerate(used.tolist()):
        if public_taxonomy:  # every leaf of the node(s): the recodings' members
            members = tuple(sorted(str(x) for x in every_members[every[j]]))
        else:
            members = tuple(sorted(str(tx.items[x]) for x in shown_item[bounds[p]: bounds[p + 1]].tolist()))
        published.append(PublishedItem(every[j], members, max(int(leaves[j]), len(members))))
    parts, order = [], []
    for g, rows in enumerate(rows_of):
        parts.append(generalize_matrix(tx.matrix[rows], new_index[codes[g]], len(published)))
        order.append(rows)
    stacked = sp.csr_array(sp.vstack(parts, format="csr")) if parts else sp.csr_array((0, len(published)), dtype=bool)
    perm = np.empty(tx.n_records, dtype=np.int64)
    perm[np.concatenate(order)] = np.arange(tx.n_records)
    relational = np.stack([nodes[group, c] for c in range(len(hs))], axis=1)
    return RelationalRelease.from_codes(
        qi=data.qi, values=[h.labels for h in hs], codes=relational, published_items=published,
        records=stacked[perm], universe=universe, n_suppressed=int(suppressed.sum()),
        algorithm=algorithm, params=params, labels=tx.labels)


def _check_method(transaction: str, taxonomy: Taxonomy | None) -> None:
    if transaction in _NEED_TAXONOMY and taxonomy is None:
        raise ParameterError(f"transaction={transaction!r} generalizes over an item taxonomy: pass taxonomy= "
                             "(--taxonomy FILE), or use transaction='coat'")


@validate_params({"k": K, "m": M, "taxonomy": [None, Taxonomy], **COMMON,
                  "transaction": [StrOptions(TRANSACTION_METHODS)], "delta": [Interval(Real, 0, 1)],
                  "merge": [StrOptions(MERGE_RULES)], "public_taxonomy": ["boolean"]},
                 meanings={**MEANINGS, "delta": "the largest relational information loss (mean NCP over records "
                           "and QIs) merging may reach, in [0, 1]"})
@fill_doc(secret='the row shuffle')
def anonymize_rt(
    data: RTData,
    *,
    k: int,
    m: int | None = 2,
    taxonomy: Taxonomy | None = None,
    transaction: str = "mhghs",
    delta: float = 0.5,
    merge: str = "rmerge_r",
    public_taxonomy: bool = False,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> RelationalRelease:
    """(k, k^m)-anonymize relational-transaction data: relational clusters, merged under delta, items per group.

    Parameters
    ----------
    data : RTData
        The transactions joined with their relational table; its QIs and
        their hierarchies.
    k : int
        Every group holds >= k rows; every published itemset of <= m items
        occurs 0 or >= k times in a group.
    m : int or None
        The adversary's item knowledge (None: unbounded).
    taxonomy : Taxonomy, optional
        The item taxonomy (required by ``aa`` and ``mhghs``; ``coat`` uses it
        for its merge weights).
    transaction : {"mhghs", "aa", "coat"}, default "mhghs"
        The k^m method run on each group's transactions. ``aa`` (the default before
        2026-11-28) lifts every item to the taxonomy's root on a group of a few times ``k``
        sparse records: on the synthetic patients (3,000 and 300, seed 1; k = 2, 5, 10; m = 2)
        every published item was the root (item NCP 1.0), where ``mhghs`` kept item NCP at
        0.19-0.44 on 3,000 patients and 0.41-0.75 on 300 (suppressed items counted as 1;
        ``docs/relational.md``).
    delta : float
        Bound on the relational information loss (mean NCP), in [0, 1]: merging
        stops before exceeding it.
    merge : {"rmerge_r", "rmerge_t", "rtmerge", "none"}
        The bounding method (module notes of ``_merge``).
    public_taxonomy : bool
        The item taxonomy is public (e.g. ICD-9): each group's AA or mHgHs generalizes instead of
        suppressing, and each published label lists every taxonomy leaf under it, so the file names
        no code of the data (``docs/privacy.md``; ``docs/attacks.md``, (i) leaf naming). Without it,
        a label lists the codes rows hold, and a holder of the taxonomy reads which codes were
        suppressed. Needs ``transaction="mhghs"`` or ``"aa"``. A group with fewer than ``k``
        non-empty transactions still publishes no items (counted in ``n_suppressed``); its codes
        are listed by the other groups' labels, which cover every leaf. Published in the params.
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional
        Called once per group anonymized.

    Returns
    -------
    RelationalRelease
        Rows in a secret random order; ``params`` hold ``k``, ``m``,
        ``transaction``, ``delta``, ``merge``, ``groups`` (the number of
        relational groups, public anyway), ``ril`` (relational loss reached).
        ``release.trace`` is an :class:`RTTrace` (in memory only).

    Raises
    ------
    InfeasibleError
        When the relational clustering alone loses more than ``delta``.
    ParameterError
        For data that is not :class:`~graphanon.relational.RTData`, a bad
        ``k``, or ``aa``/``mhghs`` without a taxonomy.

    See Also
    --------
    anonymize_rt_naive : Each part anonymized alone (not (k, k^m)-anonymous).

    Notes
    -----
    Complexity: Mondrian O(n log n); merging O(C) numpy work per step for C
    clusters (about n / k), at most 2C steps; then the transaction method once
    per group (its own complexity, on the group's records).

    Examples
    --------
    >>> from graphanon.datasets.synthetic import patients_with_demographics
    >>> rt, tax = patients_with_demographics(300, seed=1)
    >>> rel = anonymize_rt(rt, k=5, m=2, taxonomy=tax)
    >>> rel.privacy_model, rel.n_records, rel.params["ril"] <= 0.5
    ('rt', 300, True)

    References
    ----------
    Poulis et al. ECML PKDD 2013, Sec. 4; SECRETA (EDBT 2014 demo).
    """
    data = _check_data(data)
    k = check_k(k, data.n_records)
    _check_method(transaction, taxonomy)
    if public_taxonomy and transaction not in _NEED_TAXONOMY:
        raise ParameterError(f"public_taxonomy=True generalizes over the taxonomy: it takes transaction='mhghs' or "
                             f"'aa', not {transaction!r}")
    if taxonomy is not None:
        taxonomy.check_covers(data.transactions.items)
    hs = [data.hierarchies[c] for c in data.qi]
    codes = data.qi_codes()
    cluster = mondrian(codes, hs, k)
    n_clusters = int(cluster.max()) + 1
    nodes = cluster_nodes(codes, cluster, n_clusters, hs)
    sizes = np.bincount(cluster, minlength=n_clusters)
    ril0 = float((sizes * cluster_ncp(nodes, hs)).sum() / (data.n_records * len(hs)))
    if ril0 > delta + 1e-12:
        raise InfeasibleError(
            f"the relational clusters of >= {k} records already lose {ril0:.3f} (mean NCP) > delta={delta}; "
            "raise delta, or give finer hierarchies"
        )
    group, stats = merge_clusters(cluster, nodes, data.transactions.matrix, hs, k=k, delta=delta, rule=merge)
    n_groups = int(group.max()) + 1
    gnodes = cluster_nodes(codes, group, n_groups, hs)
    recodings = []
    for g, rows in enumerate(_group_rows(group, n_groups)):
        recodings.append(_transaction_recoding(data.transactions, rows, transaction, taxonomy, k, m, public_taxonomy))
        if progress:
            progress(g + 1, n_groups, "transactions per group")
    gsizes = np.bincount(group, minlength=n_groups)
    ril = float((gsizes * cluster_ncp(gnodes, hs)).sum() / (data.n_records * len(hs)))
    params = {"k": k, "m": m, "transaction": transaction, "delta": float(delta), "merge": merge,
              "groups": n_groups, "ril": ril, **({"public_taxonomy": True} if public_taxonomy else {})}
    universe = len(taxonomy.leaves) if taxonomy is not None else data.transactions.n_items
    rel = _build_release(data, group, gnodes, recodings, universe=universe, algorithm="rt", params=params,
                         public_taxonomy=public_taxonomy)
    rel = publish(data.transactions, rel, unsafe_secret_seed=unsafe_secret_seed)
    rel.trace = RTTrace(group, {**stats, "groups": n_groups, "ril": ril})
    return rel


@validate_params({"k": K, "m": M, "taxonomy": [None, Taxonomy], **COMMON,
                  "transaction": [StrOptions(TRANSACTION_METHODS)]}, meanings=MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_rt_naive(
    data: RTData,
    *,
    k: int,
    m: int | None = 2,
    taxonomy: Taxonomy | None = None,
    transaction: str = "mhghs",
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> RelationalRelease:
    """The naive baseline: relational k-anonymity and a k^m method on the items, each alone.

    The QIs are k-anonymized by the same Mondrian clusters as :func:`anonymize_rt`
    and the items by the chosen transaction method on the *whole* data; the
    two are published side by side. Each part meets its own model, but the
    pair is in general **not** (k, k^m)-anonymous: inside a relational group an
    itemset k^m-anonymous in the whole data may occur fewer than k times. It
    exists to show that (``docs/relational.md``: the audit counts the records
    below k, the linking attack finds them).

    Parameters
    ----------
    data, k, m, taxonomy, transaction, unsafe_secret_seed, progress :
        As in :func:`anonymize_rt`.

    Returns
    -------
    RelationalRelease
        ``algorithm="rt-naive"``, rows in a secret random order.

    Notes
    -----
    Complexity: Mondrian O(n log n) plus one run of the transaction method.

    Examples
    --------
    >>> from graphanon.datasets.synthetic import patients_with_demographics
    >>> rt, tax = patients_with_demographics(300, seed=1)
    >>> anonymize_rt_naive(rt, k=5, m=2, taxonomy=tax).algorithm
    'rt-naive'

    References
    ----------
    Poulis et al. ECML PKDD 2013, Sec. 1 (why anonymizing each part alone fails).
    """
    data = _check_data(data)
    k = check_k(k, data.n_records)
    _check_method(transaction, taxonomy)
    hs = [data.hierarchies[c] for c in data.qi]
    codes = data.qi_codes()
    cluster = mondrian(codes, hs, k)
    n_clusters = int(cluster.max()) + 1
    nodes = cluster_nodes(codes, cluster, n_clusters, hs)
    whole = _transaction_recoding(data.transactions, np.arange(data.n_records), transaction, taxonomy, k, m)
    if progress:
        progress(1, 1, "transactions")
    universe = len(taxonomy.leaves) if taxonomy is not None else data.transactions.n_items
    params = {"k": k, "m": m, "transaction": transaction, "groups": n_clusters}
    rel = _build_release(data, cluster, nodes, [whole] * n_clusters, universe=universe, algorithm="rt-naive",
                         params=params)
    return publish(data.transactions, rel, unsafe_secret_seed=unsafe_secret_seed)


_TRANSACTION = Parameter("transaction", str, "mhghs", "the k^m method run on each group's transactions: mhghs "
                         "(the default), aa (both need --taxonomy; aa lifts every item to the root on small "
                         "groups) or coat")

RT = MethodDeclaration(
    name="rt", family="relational", function=anonymize_rt, privacy_model="rt",
    summary="(k, k^m)-anonymity of relational-transaction data: relational clusters merged under delta, items "
            "k^m-anonymized per group (Poulis et al. 2013; needs --relational FILE --qi COLUMNS)",
    params=(
        _TRANSACTION,
        PUBLIC_TAXONOMY,
        Parameter("delta", float, 0.5, "largest relational information loss (mean NCP over records and QIs, 0..1) "
                  "the merging of clusters may reach"),
        Parameter("merge", str, "rmerge_r", "how clusters are merged: rmerge_r (relationally closest), rmerge_t "
                  "(transactionally closest), rtmerge (both ranks), none"),
    ),
    published=frozenset({"k", "m", "transaction", "delta", "merge", "groups", "ril", "public_taxonomy"}),
    taxonomy_values={"transaction": _NEED_TAXONOMY}, needs_k=True, options=("k", "m", "taxonomy"),
)
RT_NAIVE = MethodDeclaration(
    name="rt-naive", family="relational", function=anonymize_rt_naive, privacy_model="rt",
    summary="baseline: relational k-anonymity and a k^m method on the items, each alone (NOT (k, k^m)-anonymous; "
            "shows why rt is needed; needs --relational FILE --qi COLUMNS)",
    params=(_TRANSACTION,),
    published=frozenset({"k", "m", "transaction", "groups"}),
    taxonomy_values={"transaction": _NEED_TAXONOMY}, needs_k=True, options=("k", "m", "taxonomy"),
)
