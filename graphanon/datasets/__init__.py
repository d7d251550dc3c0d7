"""Bundled datasets, loaded by name.

Real benchmark data (compressed package data) and every worked example of the
source papers:

========== ======================================================== ==========
name       what                                                     extras
========== ======================================================== ==========
bms1       BMS-WebView-1 click-stream sessions (KDD Cup 2000)
chess      UCI chess endgames as itemsets (FIMI repository)
mushroom   UCI mushroom as itemsets (FIMI repository)
groceries  one month of grocery baskets (Hahsler et al.)            taxonomy
coat_fig1  COAT paper, Fig. 1                                       constraints
liuwang_fig1 Liu & Wang, Fig. 1                                     taxonomy
nr_table1  nonreciprocal recoding paper, Table 1                    labels
swap_table1 swapping paper, Table 1
clump_food Clump paper's food taxonomy and LCG example records      taxonomy
========== ======================================================== ==========

Examples
--------
>>> from graphanon.datasets import load, load_taxonomy
>>> load("liuwang_fig1").n_records
8
>>> load_taxonomy("liuwang_fig1").leaf_count("P")
4
"""

from __future__ import annotations

import functools
import gzip
import io
import json
from importlib import resources

from graphanon.data import TransactionData, from_iterable
from graphanon.errors import ParameterError
from graphanon.formats import parse_fimi, parse_long_csv
from graphanon.taxonomy import Taxonomy

__all__ = ["list_datasets", "load", "load_constraints", "load_taxonomy"]

_REAL = {
    "bms1": ("bms1.dat.gz", "BMS-WebView-1 click-stream sessions (KDD Cup 2000, FIMI repository)"),
    "chess": ("chess.dat.gz", "UCI chess (king-rook vs king-pawn) endgames as itemsets (FIMI repository)"),
    "mushroom": ("mushroom.dat.gz", "UCI mushroom as itemsets (FIMI repository)"),
    "groceries": ("groceries.csv.gz", "one month of grocery point-of-sale baskets (Hahsler et al.), 3-level taxonomy"),
}


def _data_file(name: str):
    return resources.files(__package__).joinpath("data", name)


@functools.cache
def _examples() -> dict:
    return json.loads(_data_file("examples.json").read_text(encoding="utf-8"))


def _names() -> list[str]:
    return list(_REAL) + list(_examples())


def _check(name: str) -> None:
    if name not in _REAL and name not in _examples():
        raise ParameterError(f"no bundled dataset {name!r}; bundled: {', '.join(_names())}")


@functools.cache
def load(name: str) -> TransactionData:
    """Load a bundled dataset by name (cached; the data is immutable).

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the bundled ones).
    """
    _check(name)
    if name in _REAL:
        fname = _REAL[name][0]
        raw = gzip.decompress(_data_file(fname).read_bytes()).decode("utf-8")
        if fname.endswith(".dat.gz"):
            return parse_fimi(raw, source=f"bundled {name}", name=name)
        return parse_long_csv(raw, f"bundled {name}", name=name)
    ex = _examples()[name]
    return from_iterable(
        ex["records"], record_ids=ex["record_ids"], labels=ex.get("labels"), items=ex["items"], name=name
    )


@functools.cache
def load_taxonomy(name: str) -> Taxonomy:
    """The taxonomy bundled with a dataset (groceries, liuwang_fig1, clump_food)."""
    _check(name)
    if name == "groceries":
        import csv

        text = gzip.decompress(_data_file("groceries_taxonomy.csv.gz").read_bytes()).decode("utf-8")
        rows = list(csv.reader(io.StringIO(text)))[1:]
        return Taxonomy.from_level_table([r for r in rows if r], source="bundled groceries taxonomy")
    ex = _examples().get(name, {})
    if "taxonomy" not in ex:
        raise ParameterError(
            f"dataset {name!r} has no bundled taxonomy; build one with Taxonomy.balanced(data.items, fanout=5)"
        )
    return Taxonomy.from_parent_map(ex["taxonomy"])


def load_constraints(name: str) -> dict:
    """Privacy/utility constraints and parameters bundled with a worked example (coat_fig1)."""
    _check(name)
    ex = _examples().get(name, {})
    if "privacy_constraints" not in ex:
        raise ParameterError(f"dataset {name!r} has no bundled constraints")
    return {
        "privacy": [list(p) for p in ex["privacy_constraints"]],
        "utility": [list(u) for u in ex["utility_constraints"]],
        "k": ex["k"],
        "s": ex["s"],
    }


def list_datasets() -> list[dict]:
    """Name, description and extras of every bundled dataset."""
    out = []
    for name in _names():
        if name in _REAL:
            desc = _REAL[name][1]
            extras = ["taxonomy"] if name == "groceries" else []
        else:
            ex = _examples()[name]
            desc = ex["description"]
            extras = [e for e in ("taxonomy", "labels", "privacy_constraints") if e in ex]
        out.append({"name": name, "description": desc, "extras": extras})
    return out
