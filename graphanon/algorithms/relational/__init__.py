"""Methods for relational-transaction data: (k, k^m)-anonymity (``docs/relational.md``)."""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.relational.rt": ("RTTrace", "anonymize_rt", "anonymize_rt_naive"),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {"rt": "graphanon.algorithms.relational.rt:RT",
                       "rt-naive": "graphanon.algorithms.relational.rt:RT_NAIVE"}
