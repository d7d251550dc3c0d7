"""COAT's constraint sets: what they are, how they are generated and named on the command line.

Shared by the COAT anonymizer (:mod:`graphanon.algorithms.coat`), its audit
(:mod:`graphanon.privacy.constraints`) and the constraint graph
(:mod:`graphanon.graphs.constraints`), which may not import each other:

* :class:`KmConstraints` (all ``m``-itemsets, implicit),
  :func:`privacy_constraint_ids` (privacy constraints as item ids, checked)
  and :func:`as_utility_blocks` (a utility partition as item blocks);
* :func:`pgen`, the privacy constraints generated from the data (Loukides et
  al., Algorithm 4: the maximal infrequent records) -- the audit's
  ``privacy=pgen`` must regenerate exactly what the anonymizer protected;
* the text specs of ``--param privacy=... utility=... s=...``
  (:func:`parse_privacy`, :func:`parse_utility`, :func:`parse_fraction`);
  constraint files themselves are read by :mod:`graphanon.readwrite.constraints`.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 28(2), 2011, Sec. 3 (constraints) and Sec. 5.1 (Pgen).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import VerticalBitmaps, bitmap_supports
from graphanon.datasets import list_datasets, load_constraints
from graphanon.errors import ParameterError
from graphanon.readwrite.constraints import read_constraints
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.validation import check_k

__all__ = [
    "KmConstraints",
    "as_utility_blocks",
    "parse_fraction",
    "parse_privacy",
    "parse_utility",
    "pgen",
    "privacy_constraint_ids",
    "read_constraint_file",
]


@dataclass(frozen=True)
class KmConstraints:
    """The privacy constraint set of *all* ``m``-itemsets, kept implicit.

    With this set COAT enforces k^m-anonymity (Loukides et al., Sec. 3.2 and
    Sec. 6.2). The constraints are never listed: only the published itemsets
    of at most ``m`` items whose support lies in ``(0, k)`` can be
    unsatisfied, and those are found by level-wise search
    (:func:`graphanon.counting.support.minimal_infrequent_itemsets`) and re-found
    around each merged item.

    Parameters
    ----------
    m : int
        Attacker knowledge (number of items), >= 1.
    """

    m: int

    def __post_init__(self) -> None:
        """Refuse an ``m`` that is not a whole number >= 1."""
        if isinstance(self.m, bool) or not isinstance(self.m, (int, np.integer)) or self.m < 1:
            raise ParameterError(f"KmConstraints needs a whole number m >= 1, got {self.m!r}")


def privacy_constraint_ids(data, constraints) -> list[np.ndarray]:
    """Each privacy constraint of ``constraints`` as the sorted item ids of ``data`` (unknown items refused)."""
    out = []
    for n, p in enumerate(constraints):
        if isinstance(p, (str, bytes)) or not isinstance(p, Iterable):
            raise ParameterError(
                f"privacy constraint #{n} is {p!r}; each privacy constraint is an iterable of items, "
                f"e.g. [['a', 'b', 'c'], ['d', 'e']]"
            )
        labels = list(dict.fromkeys(p))
        if not labels:
            raise ParameterError(f"privacy constraint #{n} is empty; a privacy constraint names at least one item")
        unknown = [x for x in labels if not data.has_item(x)]
        if unknown:
            raise ParameterError(
                f"privacy constraint #{n} {labels[:8]} names item(s) not in the data: {unknown[:5]}"
            )
        out.append(np.array([data.item_id(x) for x in labels], dtype=np.int64))
    return out


def as_utility_blocks(data, utility_constraints) -> tuple[np.ndarray, list[list]]:
    """Block index of every item of ``data`` from a utility constraint set.

    Parameters
    ----------
    data : TransactionData
    utility_constraints : None, "all", ItemGroups, Taxonomy level groups, mapping or list of lists
        ``None`` or ``"all"``: one block holding every item (any merge is
        allowed). Otherwise a partition of the items; items of a block that
        do not occur in the data's vocabulary are ignored.

    Returns
    -------
    block : int array, shape (n_items,)
        Block of each item.
    blocks : list of lists of item labels
        The blocks (restricted to the data's items), in input order.

    Raises
    ------
    ParameterError
        When an item of the data is in no block or in two blocks.
    """
    if utility_constraints is None or (isinstance(utility_constraints, str) and utility_constraints == "all"):
        return np.zeros(data.n_items, dtype=np.int64), [list(data.items)]
    if isinstance(utility_constraints, str):
        raise ParameterError(
            f"utility constraints {utility_constraints!r}: give 'all', an ItemGroups, or a list of item lists"
        )
    if isinstance(utility_constraints, ItemGroups):
        groups = utility_constraints
    elif isinstance(utility_constraints, Mapping):
        groups = ItemGroups(utility_constraints)
    else:
        groups = ItemGroups.from_lists(utility_constraints)
    groups.check_covers(data.items, what="the data (utility constraints must partition the items)")
    block = np.full(data.n_items, -1, dtype=np.int64)
    blocks: list[list] = []
    for members in groups:
        present = [x for x in members if data.has_item(x)]
        if not present:
            continue
        b = len(blocks)
        blocks.append(present)
        block[data.item_ids(present)] = b
    return block, blocks


def pgen(data, k: int) -> list[tuple]:
    """Privacy constraints from the data: the maximal infrequent records (Algorithm 4).

    A distinct record is returned when no other distinct record contains it
    and fewer than ``k`` records hold it. Since a maximal record is contained
    only in its own copies, both tests reduce to comparing its support with
    its multiplicity: ``sup(T) == copies(T) < k``.

    Parameters
    ----------
    data : TransactionData
    k : int

    Returns
    -------
    list of tuples of item labels
        In decreasing size, ties in order of first occurrence.

    Notes
    -----
    Complexity: deduplication by sorting per-record hash keys (vectorized), then one
    bitmap support per distinct record of multiplicity < k, batched by size:
    O(sum |T| * n / 64) word operations, no pairwise record loop.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> pgen(from_iterable([["a", "c", "f"], ["a", "c"], ["b", "h"]]), 2)
    [('a', 'c', 'f'), ('b', 'h')]

    References
    ----------
    Loukides et al., COAT, Sec. 5.1, Definition 5.1 and Algorithm 4.
    """
    k = check_k(k, max(data.n_records, 1))
    X = data.matrix
    X = sp.csr_array(X)
    X.sort_indices()
    n = X.shape[0]
    if n == 0:
        return []
    lengths = np.diff(X.indptr)
    rng = np.random.default_rng(0x5EED)
    r1 = rng.integers(1, 2**63 - 1, size=max(X.shape[1], 1), dtype=np.int64).astype(np.uint64)
    r2 = rng.integers(1, 2**63 - 1, size=max(X.shape[1], 1), dtype=np.int64).astype(np.uint64)
    nonempty = lengths > 0
    h1 = np.zeros(n, dtype=np.uint64)
    h2 = np.zeros(n, dtype=np.uint64)
    starts = X.indptr[:-1][nonempty]
    if X.nnz:
        h1[nonempty] = np.add.reduceat(r1[X.indices], starts)
        h2[nonempty] = np.add.reduceat(r2[X.indices] * np.uint64(3) + np.uint64(1), starts)
    order = np.lexsort((np.arange(n), h2, h1, lengths))
    key_change = np.ones(n, dtype=bool)
    key_change[1:] = (
        (lengths[order][1:] != lengths[order][:-1]) | (h1[order][1:] != h1[order][:-1]) | (h2[order][1:] != h2[order][:-1])
    )
    # Exact check of equal keys (guards against hash collisions): compare item lists.
    grp_first = order[np.maximum.accumulate(np.where(key_change, np.arange(n), 0))]
    same = ~key_change
    if same.any():
        rows = order[same]
        firsts = grp_first[same]
        ln = lengths[rows]
        seg_a = np.repeat(X.indptr[rows], ln) + (np.arange(ln.sum()) - np.repeat(np.cumsum(ln) - ln, ln))
        seg_b = np.repeat(X.indptr[firsts], ln) + (np.arange(ln.sum()) - np.repeat(np.cumsum(ln) - ln, ln))
        mism = X.indices[seg_a] != X.indices[seg_b]
        if mism.any():
            bad_rows = np.unique(np.repeat(np.arange(len(rows)), ln)[mism])
            key_change[np.flatnonzero(same)[bad_rows]] = True  # treat as distinct (vanishingly rare)
    group_id = np.cumsum(key_change) - 1
    n_groups = int(group_id[-1]) + 1
    copies = np.bincount(group_id, minlength=n_groups)
    first_pos = np.full(n_groups, n, dtype=np.int64)
    np.minimum.at(first_pos, group_id, order)
    cand = np.flatnonzero(copies < k)
    reps = first_pos[cand]
    reps = reps[lengths[reps] > 0]
    cand_copies = copies[group_id[np.argsort(order)][reps]]
    sup = bitmap_supports(VerticalBitmaps(X).bits, [X.indices[X.indptr[r] : X.indptr[r + 1]] for r in reps.tolist()], n)
    keep = reps[sup == cand_copies]
    keep = keep[np.lexsort((keep, -lengths[keep]))]
    items = data.items
    return [tuple(items[j] for j in X.indices[X.indptr[r] : X.indptr[r + 1]]) for r in keep.tolist()]


def read_constraint_file(path: str, data) -> list[list]:
    """A constraint file (format: :mod:`graphanon.readwrite.constraints`), items matched to the data."""
    return read_constraints(path, data)

def bundled_constraints(data, which: str) -> list[list]:
    """The ``privacy`` or ``utility`` constraints shipped with the bundled example ``data.name``."""
    shipping = [d["name"] for d in list_datasets() if "privacy_constraints" in d["extras"]]
    if data.name not in shipping:
        raise ParameterError(
            f"--param {which}=bundled: dataset {data.name!r} ships no constraints "
            f"(bundled ones: {', '.join(shipping)}); give a constraint file instead"
        )
    return load_constraints(data.name)[which]


def parse_privacy(spec: str, data, k: int):
    """CLI privacy spec: ``pgen``, ``km:M``, ``bundled`` or a constraint file path."""
    if spec == "pgen":
        return pgen(data, k)
    if spec == "bundled":
        return bundled_constraints(data, "privacy")
    if spec.startswith("km:"):
        try:
            return KmConstraints(int(spec[3:]))
        except ValueError:
            raise ParameterError(f"--param privacy={spec!r}: km:M needs a whole number M") from None
    return read_constraint_file(spec, data)


def parse_utility(spec: str, data, taxonomy):
    """CLI utility spec: ``all``, ``bundled``, ``groups:FILE`` or ``taxonomy-level:N``."""
    if spec == "all":
        return None
    if spec == "bundled":
        return bundled_constraints(data, "utility")
    if spec.startswith("groups:"):
        return read_constraint_file(spec[len("groups:") :], data)
    if spec.startswith("taxonomy-level:"):
        if taxonomy is None:
            raise ParameterError("--param utility=taxonomy-level:N needs --taxonomy FILE")
        try:
            depth = int(spec[len("taxonomy-level:") :])
        except ValueError:
            raise ParameterError(f"--param utility={spec!r}: N must be a whole number") from None
        return taxonomy.groups_at(depth)
    raise ParameterError(f"--param utility={spec!r}: use all, bundled, groups:FILE or taxonomy-level:N")


def parse_fraction(text: str) -> float:
    """``0.005`` or ``0.5%`` -> 0.005."""
    text = text.strip()
    if text.endswith("%"):
        return float(text[:-1]) / 100.0
    return float(text)
