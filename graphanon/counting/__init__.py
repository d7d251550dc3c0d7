"""Counting of the bottom layer: itemset supports, bitmaps, containment, packed rows.

* :mod:`.support` -- item, pair and itemset supports, minimal infrequent itemsets;
* :mod:`.bitmaps` -- vertical bitmaps and their support counts;
* :mod:`.containment` -- how many records contain each record or itemset;
* :mod:`.bitset` -- packed bit layouts and the bit vote (numba kernels in :mod:`._bitset_kernels`);
* :mod:`.rows` -- boolean CSR matrices and order-free row hashes.

The audits and the anonymizers count with these; neither imports the other's counting.
"""
