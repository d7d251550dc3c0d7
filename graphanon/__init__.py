"""graphanon: graph-centric anonymization of transaction (set-valued) data.

The flow is ``read -> TransactionData -> anonymize_<method>(...) -> Release ->
audit / evaluate / save / draw``. See the package README and ``docs/``.

The names below are imported on first use (:mod:`graphanon.utils.lazy`), so the
command line and light methods start without the heavy dependencies.
"""

from graphanon.utils.lazy import attach

__version__ = "0.1.0"

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.utils.memory": ("get_max_memory", "max_memory", "set_max_memory"),
    "graphanon.data": ("TransactionData", "from_iterable", "read_basket", "read_fimi", "read_long_csv"),
    "graphanon.errors": ("GraphanonError",),
    "graphanon.taxonomy": ("ItemGroups", "Taxonomy"),
})
__all__ += ["__version__"]
