"""Information loss of local recodings: GGD and both NCP conventions.

Every original item occurrence is either represented by a published node or
suppressed. Its cost is the project's ``ncp`` cost ``(s_x - 1)/(N - 1)``
(``s_x`` of the data's ``N`` items under ``x``; ``docs/metrics.md``), the
taxonomy LM ``(M_x - 1)/(M - 1)`` (the Clump paper's GGD; ``ncp_taxonomy``)
or He & Naughton's ``NCP_HN(x)`` (0 for a leaf, ``M_x / M`` otherwise); a
suppressed occurrence costs 1 in all three. Totals are divided by the number
of original occurrences. The first two agree when every taxonomy leaf is an
item of the data (all bundled datasets).

* ``"one"`` reading (Clump): each copy of a node represents one occurrence,
  the other occurrences of the record were suppressed.
* ``"some"`` reading (Partition): each occurrence is represented by the
  published node above it (nothing suppressed), so the costs need the
  record behind each row: the release's private link.

Examples
--------
>>> from graphanon.datasets import load, load_taxonomy
>>> from graphanon.algorithms import anonymize_clump
>>> data, tax = load("clump_food"), load_taxonomy("clump_food")
>>> rel = anonymize_clump(data, taxonomy=tax, k=9, unsafe_secret_seed=0)
>>> rel.render_record(0), round(ggd_total(data, rel), 4)   # 9 (2/7 + 1) + 22 - 18 = 109/7
('Food Fruit', 15.5714)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["ggd_per_record", "ggd_total", "local_ncp", "ncp_he_naughton", "ncp_lm"]


def _node_costs(release, convention: str, original=None) -> np.ndarray:
    m = release.universe
    leaves = np.array([nd.leaves for nd in release.nodes], dtype=float)
    if convention == "lm":  # the project's ncp: data items under the node, over the data's items
        n = original.n_items
        size = np.asarray(release.member_matrix(original.items).sum(axis=0), dtype=float).ravel()
        return np.maximum(size - 1, 0) / (n - 1) if n > 1 else np.zeros(len(leaves))
    if convention == "taxonomy":  # the Clump paper's LM (GGD): taxonomy leaves
        return (leaves - 1) / (m - 1) if m > 1 else np.zeros(len(leaves))
    if convention == "hn":
        return np.where(leaves <= 1, 0.0, leaves / m)
    raise ParameterError(f"convention must be 'lm', 'taxonomy' or 'hn', got {convention!r}")


def _linked_lengths(original, release) -> np.ndarray:
    link = getattr(release, "link", None)
    if link is None:
        raise ParameterError(
            "per-record costs of a local recoding need the private link (release.link, or load it with "
            "graphanon.release.load_link and set release.link)"
        )
    if original.n_records != release.n_records:
        raise ParameterError(f"the original has {original.n_records} records, the release {release.n_records}")
    return np.diff(original.matrix.indptr)[np.asarray(link.record_of_row, dtype=np.int64)]


def _row_costs(original, release, convention: str) -> np.ndarray:
    """Cost of each published row's original occurrences (represented + suppressed)."""
    cost = _node_costs(release, convention, original)
    recs = sp.csr_array(release.records, dtype=np.float64)
    lengths = _linked_lengths(original, release)
    if release.reading == "one":
        copies = np.asarray(recs.sum(axis=1)).ravel()
        return recs @ cost + (lengths - copies)
    member = sp.csr_array(release.member_matrix(original.items), dtype=np.float64)
    X = sp.csr_array(original.matrix, dtype=np.float64)[np.asarray(release.link.record_of_row, dtype=np.int64)]
    have = sp.csr_array((X @ member).multiply(recs > 0))
    covered = np.asarray(have.sum(axis=1)).ravel()
    return have @ cost + (lengths - covered)


def ggd_per_record(original: TransactionData, release) -> np.ndarray:
    """GGD share of each published row: LM of its represented occurrences plus its suppressed ones."""
    return _row_costs(original, release, "taxonomy")


def _total(original, release, convention: str) -> float:
    if release.reading == "one":  # copies are occurrences: no link needed
        recs = sp.csr_array(release.records, dtype=np.float64)
        copies = float(recs.sum())
        return float((recs @ _node_costs(release, convention, original)).sum() + original.matrix.nnz - copies)
    return float(_row_costs(original, release, convention).sum())


def ggd_total(original: TransactionData, release) -> float:
    """Total GGD (sum over groups of ``GGD(S, t)``); ``"one"`` releases need no link.

    For a ``"some"`` release it is the same occurrence-weighted LM loss
    (every occurrence costs the LM of the node above it).

    Complexity: O(nnz of the release) (plus O(occurrences) with the link).
    """
    return _total(original, release, "taxonomy")


def local_ncp(original, release, convention: str = "lm") -> float:
    """Loss per original occurrence under ``convention``.

    ``"lm"`` (the project's ``ncp``, ``docs/metrics.md``), ``"taxonomy"`` (LM over taxonomy
    leaves, = GGD / occurrences) or ``"hn"`` (He & Naughton).
    """
    occ = original.matrix.nnz
    return _total(original, release, convention) / occ if occ else 0.0


def ncp_lm(original: TransactionData, release) -> float:
    """The project's ``ncp`` of a local recoding (``docs/metrics.md``: a node costs ``(s - 1)/(N - 1)`` with ``s`` of the data's ``N`` items under it; suppressed occurrences cost 1)."""
    return local_ncp(original, release, "lm")


def ncp_he_naughton(original: TransactionData, release) -> float:
    """He & Naughton's NCP (0 for a leaf, ``leaves/M`` otherwise; suppressed occurrences cost 1)."""
    return local_ncp(original, release, "hn")
