"""NCP / LM information loss and suppression ratio of global recodings.

One definition for every method (see ``docs/metrics.md``): a published item
that stands for ``s`` of the ``N`` items of the ORIGINAL data costs
``(s - 1) / (N - 1)`` per original occurrence of its members, a suppressed
item costs 1 per occurrence, and ``ncp`` is the total cost divided by the
original occurrences. The denominator ``N`` is the original data's item
vocabulary, whatever the method and whatever taxonomy it used, so ``ncp``
compares across methods on the same data.

The convention of the hierarchy papers, with taxonomy leaves in place of
data items (``(leaves(x) - 1) / (leaves(root) - 1)``), is offered under its
own name, :func:`ncp_taxonomy`; the two agree when every taxonomy leaf is an
item of the data.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2 (IL_G, IL_S weighted by occurrences).
Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 5 (NCP of a generalized item).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphanon.release.base import Release

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["RecodingLoss", "ncp", "ncp_taxonomy", "recoding_loss", "suppression_ratio"]


@dataclass(frozen=True)
class RecodingLoss:
    """Information loss of a global recoding, weighted by original occurrences.

    Attributes
    ----------
    generalization : float
        Sum over original occurrences of published items of
        ``(s - 1) / (universe - 1)`` (``IL_G``), ``s`` = the number of
        universe items the published item stands for.
    suppression : float
        Occurrences of suppressed items (each costs 1 = ``IL_G + IL_S`` of the root).
    occurrences : int
        Total item occurrences in the original data.
    universe : int
        The ``N`` of the LM denominator ``N - 1``.
    """

    generalization: float
    suppression: float
    occurrences: int
    universe: int = 0

    @property
    def total(self) -> float:
        """Generalization plus suppression loss."""
        return self.generalization + self.suppression

    @property
    def ncp(self) -> float:
        """Total cost per original occurrence, in [0, 1]."""
        return self.total / self.occurrences if self.occurrences else 0.0


def check_order_of_arguments(original, release, func: str) -> None:
    """Raise ``TypeError`` when a metric got ``(release, original)``.

    Metrics, like audits, take the original data first.
    """
    if isinstance(original, Release) and not isinstance(release, Release):
        raise TypeError(f"{func}(original, release): the arguments are swapped -- pass the original data first")


def _loss(original, code: np.ndarray, width: np.ndarray, universe: int) -> RecodingLoss:
    occ = original.supports().astype(float)
    cost = np.append((width - 1) / max(universe - 1, 1), 0.0)
    kept = code >= 0
    gen = float((occ[kept] * cost[code[kept]]).sum())
    sup = float(occ[~kept].sum())
    return RecodingLoss(gen, sup, int(original.matrix.nnz), int(universe))


def recoding_loss(original: TransactionData, release) -> RecodingLoss:
    """The canonical LM loss of a :class:`~graphanon.release.GlobalRecoding` on ``original``.

    A published item standing for ``s`` of the ``N = original.n_items`` data
    items costs ``(s - 1)/(N - 1)`` per original occurrence of its members;
    a suppressed item costs 1 per occurrence. On Liu & Wang's Fig. 1 the cut
    {P,f,g,M,e,i} with {i} suppressed costs 3.6 + 2 = 5.6 (every leaf of
    that taxonomy is an item of the data).

    Complexity: O(items + published items).

    See Also
    --------
    ncp : Its ``ncp`` field alone.
    suppression_ratio : Its suppressed share alone.
    graphanon.metrics.evaluate_release : Every metric that applies to a release.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "b"], ["a", "c"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "(b,c)", "c": "(b,c)"})
    >>> loss = recoding_loss(data, rel)
    >>> loss.generalization, loss.ncp      # b and c: (2 - 1)/(3 - 1) per occurrence
    (1.0, 0.25)
    """
    check_order_of_arguments(original, release, "recoding_loss")
    code = release.code_for(original)
    width = np.bincount(code[code >= 0], minlength=release.n_published_items)
    return _loss(original, code, width, original.n_items)


def ncp(original: TransactionData, release) -> float:
    """NCP of a global recoding: canonical LM cost per original item occurrence (see the module docstring).

    See Also
    --------
    recoding_loss : NCP with its generalization and suppression parts.
    ncp_taxonomy : The hierarchy papers' convention over taxonomy leaves.
    graphanon.metrics.evaluate_release : Every metric that applies to a release.
    """
    return recoding_loss(original, release).ncp


def ncp_taxonomy(original: TransactionData, release) -> float:
    """NCP with taxonomy leaves as the universe (the hierarchy papers' convention).

    A published taxonomy node costs ``(leaves(x) - 1)/(leaves(root) - 1)``
    per original occurrence, counting leaves that no record holds. This is
    the per-occurrence objective HgHs, mHgHs and AA minimize; it equals
    :func:`ncp` when every taxonomy leaf is an item of the data, and for
    set-based methods (their universe is the data's items).

    See Also
    --------
    ncp : The same loss with the items of the data as the universe.
    graphanon.algorithms.anonymize_hghs : A method whose greedy search is driven by this cost.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms import anonymize_cut
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> rel = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    >>> round(ncp_taxonomy(data, rel), 6) == round(ncp(data, rel), 6) == round(5.6 / 23, 6)
    True
    """
    check_order_of_arguments(original, release, "ncp_taxonomy")
    width = np.array([pi.leaves for pi in release.published_items], dtype=np.int64)
    return _loss(original, release.code_for(original), width, release.universe).ncp


def suppression_ratio(original: TransactionData, release) -> float:
    """Fraction of original item occurrences that the release suppresses.

    See Also
    --------
    recoding_loss : The loss of generalization and suppression together.
    graphanon.algorithms.anonymize_mm : Suppression only.
    """
    loss = recoding_loss(original, release)
    return loss.suppression / loss.occurrences if loss.occurrences else 0.0
