"""NCP / LM information loss and suppression ratio of global recodings.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2 (IL_G, IL_S weighted by occurrences).
Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 5 (NCP of a generalized item).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RecodingLoss", "ncp", "recoding_loss", "suppression_ratio"]


@dataclass(frozen=True)
class RecodingLoss:
    """Information loss of a global recoding, weighted by original occurrences.

    Attributes
    ----------
    generalization : float
        Sum over original occurrences of published items of
        ``(leaves(x) - 1) / (universe - 1)`` (``IL_G``).
    suppression : float
        Occurrences of suppressed items (each costs 1 = ``IL_G + IL_S`` of the root).
    occurrences : int
        Total item occurrences in the original data.
    """

    generalization: float
    suppression: float
    occurrences: int

    @property
    def total(self) -> float:
        return self.generalization + self.suppression

    @property
    def ncp(self) -> float:
        """Total cost per original occurrence, in [0, 1]."""
        return self.total / self.occurrences if self.occurrences else 0.0


def recoding_loss(release, original) -> RecodingLoss:
    """LM-based loss of a :class:`~graphanon.release.GlobalRecoding` on ``original``.

    A published item standing for ``s`` leaves of a universe of ``U`` leaves
    costs ``(s - 1)/(U - 1)`` per original occurrence of its members; a
    suppressed item costs 1 per occurrence. On Liu & Wang's Fig. 1 the cut
    {P,f,g,M,e,i} with {i} suppressed costs 3.6 + 2 = 5.6.

    Complexity: O(items + published items).
    """
    occ = original.supports().astype(float)
    code = release.code_for(original)
    denom = max(release.universe - 1, 1)
    cost = np.array([(pi.leaves - 1) / denom for pi in release.published_items] + [0.0])
    kept = code >= 0
    gen = float((occ[kept] * cost[code[kept]]).sum())
    sup = float(occ[~kept].sum())
    return RecodingLoss(gen, sup, int(original.matrix.nnz))


def ncp(release, original) -> float:
    """NCP of a global recoding: LM cost per original item occurrence (Liu & Wang)."""
    return recoding_loss(release, original).ncp


def suppression_ratio(release, original) -> float:
    """Fraction of original item occurrences that the release suppresses."""
    loss = recoding_loss(release, original)
    return loss.suppression / loss.occurrences if loss.occurrences else 0.0
