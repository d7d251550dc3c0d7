"""Relational-transaction data: a table of relational attributes joined by record id with transactions.

* :class:`RelationalTable` and :func:`read_relational_csv`: one row per record,
  numeric or categorical columns, clear errors for missing values and mixed types;
* :class:`RTData`: the table joined with a :class:`~graphanon.data.TransactionData`,
  the quasi-identifier columns and their hierarchies;
* :class:`AttributeHierarchy`: numeric intervals or categorical trees, the
  published text of a generalized value (``[lo-hi]``, a node name, ``*``) and its NCP.

See ``docs/relational.md``.
"""

from graphanon.relational.hierarchy import (
    SUPPRESSED,
    AttributeHierarchy,
    interval_label,
    parse_interval,
)
from graphanon.relational.table import (
    RelationalTable,
    RTData,
    join_relational,
    read_relational_csv,
    read_rt_table,
)

__all__ = [
    "SUPPRESSED",
    "AttributeHierarchy",
    "RTData",
    "RelationalTable",
    "interval_label",
    "join_relational",
    "parse_interval",
    "read_relational_csv",
    "read_rt_table",
]
