"""A seeded retail-like transaction generator (for memory and scale measurements).

Retail basket data (e.g. the public Belgian retail set: 88,162 baskets,
16,470 items, mean length 10.3) has a long-tailed item popularity and short
baskets. This generator draws record lengths ``1 + NegativeBinomial(2, 2/(mean_length + 1))``
(mean ``mean_length``, a long tail like real baskets)
and, per record, distinct items with probability proportional to
``rank^-zipf`` (Zipf popularity), all from one seeded numpy Generator, so
the same arguments always give the same data.

Usage::

    python benchmarks/retail_like.py -o retail_like.dat      # FIMI file, 20,000 records

    from benchmarks.retail_like import retail_like
    data = retail_like(n_records=20_000, seed=0)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphanon.data import TransactionData  # noqa: E402
from graphanon.readwrite.files import atomic_write  # noqa: E402


def retail_like(
    n_records: int = 20_000,
    n_items: int = 16_000,
    mean_length: float = 10.0,
    zipf: float = 1.0,
    seed: int = 0,
) -> TransactionData:
    """Retail-like data: Zipf item popularity, long-tailed record lengths, items labelled ``"1".."n_items"``.

    Complexity: O(n_records * mean_length) draws (one vectorized pass, then
    duplicate items within a record are dropped, so lengths are at most the
    drawn ones).
    """
    rng = np.random.default_rng(seed)
    p = np.arange(1, n_items + 1, dtype=np.float64) ** -zipf
    p /= p.sum()
    lengths = 1 + rng.negative_binomial(2, 2 / (mean_length + 1), size=n_records)  # mean = mean_length
    rows = np.repeat(np.arange(n_records), lengths)
    cols = rng.choice(n_items, size=int(lengths.sum()), p=p)
    X = sp.csr_array((np.ones(len(rows), dtype=bool), (rows, cols)), shape=(n_records, n_items))
    X.sum_duplicates()
    used = np.flatnonzero(np.bincount(X.indices, minlength=n_items))
    return TransactionData(X[:, used], [str(j + 1) for j in used], name=f"retail-like (seed {seed})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", required=True, help="FIMI file to write")
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=16_000)
    parser.add_argument("--mean-length", type=float, default=10.0)
    parser.add_argument("--zipf", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = retail_like(args.records, args.items, args.mean_length, args.zipf, args.seed)
    X = data.matrix
    lines = (" ".join(data.items[j] for j in X.indices[X.indptr[r] : X.indptr[r + 1]]) for r in range(X.shape[0]))
    atomic_write(args.output, "\n".join(lines) + "\n")  # FIMI: one record per line, items by number
    print(data.summary())


if __name__ == "__main__":
    main()
