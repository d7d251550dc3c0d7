"""Methods for relational-transaction data: (k, k^m)-anonymity (``docs/relational.md``)."""

from graphanon.algorithms.relational.rt import RTTrace, anonymize_rt, anonymize_rt_naive

__all__ = ["RTTrace", "anonymize_rt", "anonymize_rt_naive"]
