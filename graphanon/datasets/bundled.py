"""Loading the bundled datasets, their taxonomies and constraints (see :mod:`graphanon.datasets`).

Examples
--------
>>> from graphanon.datasets import load
>>> load("nr_table1").n_records
6
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
from typing import TYPE_CHECKING

from graphanon.data import TransactionData, from_iterable
from graphanon.datasets.catalog import REAL, check_name, data_file, examples
from graphanon.errors import ParameterError
from graphanon.readwrite.formats import parse_fimi, parse_long_csv

if TYPE_CHECKING:
    from graphanon.taxonomy.tree import Taxonomy

__all__ = ["load", "load_constraints", "load_taxonomy"]


@functools.cache
def load(name: str) -> TransactionData:
    """Load a bundled dataset by name (cached; the data is immutable).

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the bundled ones).
    """
    check_name(name)
    if name in REAL:
        fname = REAL[name][0]
        raw = gzip.decompress(data_file(fname).read_bytes()).decode("utf-8")
        if fname.endswith(".dat.gz"):
            return parse_fimi(raw, source=f"bundled {name}", name=name)
        return parse_long_csv(raw, f"bundled {name}", name=name)
    ex = examples()[name]
    return from_iterable(
        ex["records"], record_ids=ex["record_ids"], labels=ex.get("labels"), items=ex["items"], name=name
    )


@functools.cache
def load_taxonomy(name: str) -> Taxonomy:
    """The taxonomy bundled with a dataset (groceries, liuwang_fig1, clump_food)."""
    check_name(name)
    ex = {} if name == "groceries" else examples().get(name, {})
    if name != "groceries" and "taxonomy" not in ex:
        raise ParameterError(
            f"dataset {name!r} has no bundled taxonomy; build one with Taxonomy.balanced(data.items, fanout=5)"
        )
    # networkx, through the taxonomy: loaded by the jobs that use a taxonomy only
    from graphanon.taxonomy.tree import Taxonomy

    if name == "groceries":
        text = gzip.decompress(data_file("groceries_taxonomy.csv.gz").read_bytes()).decode("utf-8")
        rows = list(csv.reader(io.StringIO(text)))[1:]
        return Taxonomy.from_level_table([r for r in rows if r], source="bundled groceries taxonomy")
    return Taxonomy.from_parent_map(ex["taxonomy"])


def load_constraints(name: str) -> dict:
    """Privacy/utility constraints and parameters bundled with a worked example (coat_fig1)."""
    check_name(name)
    ex = examples().get(name, {})
    if "privacy_constraints" not in ex:
        raise ParameterError(f"dataset {name!r} has no bundled constraints")
    return {
        "privacy": [list(p) for p in ex["privacy_constraints"]],
        "utility": [list(u) for u in ex["utility_constraints"]],
        "k": ex["k"],
        "s": ex["s"],
    }
