"""Relational-transaction methods on the command line: ``-a rt`` and ``-a rt-naive``.

Both read relational-transaction data: the transactions (``INPUT``) joined by
record id with ``--relational FILE`` on the ``--qi`` columns; the adapter
receives a :class:`~graphanon.relational.RTData`.
"""

from __future__ import annotations

from graphanon.cli.registry import AlgorithmSpec, Param, taxonomy_runner

__all__ = ["RT", "RT_NAIVE"]

_TRANSACTION = Param("transaction", str, "aa", "the k^m method run on each group's transactions: aa, mhghs (both "
                     "need --taxonomy) or coat")
_RT_PARAMS = (
    _TRANSACTION,
    Param("delta", float, 0.5, "largest relational information loss (mean NCP over records and QIs, 0..1) "
          "the merging of clusters may reach"),
    Param("merge", str, "rmerge_r", "how clusters are merged: rmerge_r (relationally closest), rmerge_t "
          "(transactionally closest), rtmerge (both ranks), none"),
)

RT = AlgorithmSpec(
    name="rt", summary="(k, k^m)-anonymity of relational-transaction data: relational clusters merged under "
    "delta, items k^m-anonymized per group (Poulis et al. 2013; needs --relational FILE --qi COLUMNS)",
    adapter=taxonomy_runner("rt", _RT_PARAMS, m=True), privacy_model="rt", params=_RT_PARAMS,
)
RT_NAIVE = AlgorithmSpec(
    name="rt-naive", summary="baseline: relational k-anonymity and a k^m method on the items, each alone (NOT "
    "(k, k^m)-anonymous; shows why rt is needed; needs --relational FILE --qi COLUMNS)",
    adapter=taxonomy_runner("rt-naive", (_TRANSACTION,), m=True), privacy_model="rt", params=(_TRANSACTION,),
)
