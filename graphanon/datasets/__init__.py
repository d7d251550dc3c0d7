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

The package imports nothing on its own: :mod:`~graphanon.datasets.catalog`
lists the datasets without reading them, :mod:`~graphanon.datasets.bundled`
loads them, :mod:`~graphanon.datasets.synthetic` generates Quest-style data.

Examples
--------
>>> from graphanon.datasets import load, load_taxonomy
>>> load("liuwang_fig1").n_records
8
>>> load_taxonomy("liuwang_fig1").leaf_count("P")
4
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.datasets.bundled": ("load", "load_constraints", "load_taxonomy"),
    "graphanon.datasets.catalog": ("list_datasets",),
})
