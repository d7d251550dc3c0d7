"""What is bundled: names, descriptions, sizes and extras, without loading any data.

``graphanon datasets`` and the CLI's name lookup read this module only, so
they start without numpy, scipy or networkx; :mod:`graphanon.datasets.bundled`
loads the data. The sizes of the real datasets are stated here and checked
against the loaded data by ``tests/package/test_imports.py``.

Examples
--------
>>> from graphanon.datasets.catalog import list_datasets
>>> [d["records"] for d in list_datasets() if d["name"] in ("bms1", "liuwang_fig1")]
[59602, 8]
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from graphanon.errors import ParameterError

__all__ = ["REAL", "check_name", "data_file", "examples", "list_datasets", "names"]

#: name -> (file, description, records, items, occurrences) of the real datasets
REAL = {
    "bms1": ("bms1.dat.gz", "BMS-WebView-1 click-stream sessions (KDD Cup 2000, FIMI repository)",
             59602, 497, 149639),
    "chess": ("chess.dat.gz", "UCI chess (king-rook vs king-pawn) endgames as itemsets (FIMI repository)",
              3196, 75, 118252),
    "mushroom": ("mushroom.dat.gz", "UCI mushroom as itemsets (FIMI repository)", 8124, 112, 170604),
    "groceries": ("groceries.csv.gz", "one month of grocery point-of-sale baskets (Hahsler et al.), 3-level taxonomy",
                  9835, 169, 43367),
}


def data_file(name: str):
    """The bundled file ``name`` (a :class:`importlib.resources.abc.Traversable`)."""
    return resources.files("graphanon.datasets").joinpath("data").joinpath(name)


@functools.cache
def examples() -> dict:
    """The worked examples of the source papers (``examples.json``), by name."""
    return json.loads(data_file("examples.json").read_text(encoding="utf-8"))


def names() -> list[str]:
    """The names of the bundled datasets, real ones first."""
    return list(REAL) + list(examples())


def check_name(name: str) -> None:
    """Raise :class:`~graphanon.errors.ParameterError` (listing the bundled names) for an unknown name."""
    if name not in REAL and name not in examples():
        raise ParameterError(f"no bundled dataset {name!r}; bundled: {', '.join(names())}")


def list_datasets() -> list[dict]:
    """Name, description, extras, records, items and mean record length of every bundled dataset.

    Notes
    -----
    Complexity: O(size of the worked examples); the real datasets are not read.
    """
    out = []
    for name in names():
        if name in REAL:
            _, desc, records, items, occurrences = REAL[name]
            extras = ["taxonomy"] if name == "groceries" else []
        else:
            ex = examples()[name]
            desc = ex["description"]
            extras = [e for e in ("taxonomy", "labels", "privacy_constraints") if e in ex]
            records, items = len(ex["records"]), len(ex["items"])
            occurrences = sum(len(set(r)) for r in ex["records"])
        out.append({"name": name, "description": desc, "extras": extras, "records": records, "items": items,
                    "mean_length": occurrences / records if records else 0.0})
    return out
