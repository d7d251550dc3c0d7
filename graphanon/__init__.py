"""graphanon: graph-centric anonymization of transaction (set-valued) data.

The flow is ``read -> TransactionData -> anonymize_<method>(...) -> Release ->
audit / evaluate / save / draw``. See the package README and ``docs/``.
"""

from graphanon._memory import get_max_memory, max_memory, set_max_memory
from graphanon.data import TransactionData, from_iterable, read_basket, read_fimi, read_long_csv
from graphanon.errors import GraphanonError
from graphanon.taxonomy import ItemGroups, Taxonomy

__version__ = "0.1.0"

__all__ = [
    "GraphanonError",
    "ItemGroups",
    "Taxonomy",
    "TransactionData",
    "from_iterable",
    "get_max_memory",
    "max_memory",
    "read_basket",
    "read_fimi",
    "read_long_csv",
    "set_max_memory",
    "__version__",
]
