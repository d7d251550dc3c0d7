"""AA on Dask, written as it is made: the release file without the records on the client.

:func:`~graphanon.algorithms.hierarchy.aa.anonymize_aa` returns the whole
release, so its client holds every record (the data and the published rows).
:func:`write_aa_release` writes the same file, byte for byte, with the
records kept on the workers from the start:

1. the records are read into row blocks on the workers
   (:func:`graphanon.distributed.read_parquet_blocks`), or given as
   :class:`graphanon.distributed.Blocks`; the client gathers only the item
   supports and the longest record;
2. AA's passes count on the blocks (:class:`._aa_counts.BlockCounts`), as
   ``anonymize_aa(..., client=)`` does; the client keeps the cut;
3. the secret row order and fingerprint key are drawn as
   :func:`~graphanon.release.publish.publish` draws them
   (:func:`~graphanon.release.publish.secret_shuffle`);
4. the fingerprint is a keyed multiset hash (:mod:`graphanon.release.multiset_hash`):
   each worker sums the keyed hashes of its block's records (under the
   record key, never the release's key) and returns one 256-bit number;
   the client adds one number per block and finishes the digest
   (:func:`~graphanon.release.fingerprint.fingerprint_from_sums`);
5. each block is recoded by the cut on its worker, and the published rows
   are fetched a run at a time in the secret order and written
   (:meth:`~graphanon.release.Release.save_rows`);
6. with ``link_out``, the private link's ordered digest and file are made
   the same way (the record ids come from the workers too).

The client holds the permutation (8 bytes a record) and two runs of rows
(with ``link_out``, the record lengths too); never the records.
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.hierarchy._aa_counts import BlockCounts
from graphanon.algorithms.hierarchy._index import HierarchyIndex
from graphanon.algorithms.hierarchy.aa import aa_cut, aa_recoding
from graphanon.counting.rows import bool_csr
from graphanon.counting.support import generalize_matrix
from graphanon.data import TransactionData
from graphanon.errors import ParameterError
from graphanon.readwrite.files import IntRows
from graphanon.release.fingerprint import (
    canonical_rows,
    canonical_vocabulary,
    fingerprint_from_sums,
    json_strings,
    ordered_digest_from_parts,
)
from graphanon.release.link import save_link_runs
from graphanon.release.multiset_hash import multiset_sum, record_key
from graphanon.release.publish import secret_shuffle
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.params import COMMON, MEANINGS, K, M, validate_params
from graphanon.utils.progress import ProgressCallback, report
from graphanon.utils.validation import check_k

__all__ = ["write_aa_release"]

#: rows fetched per run while the fingerprint, the release and the link are written
RUN_ROWS = 1 << 17


class _Counted:
    """What AA's index and NCP read of the data, counted on the workers: items, supports, records, occurrences."""

    def __init__(self, items: tuple, supports: np.ndarray, n_records: int) -> None:
        self.items = tuple(items)
        self.n_items = len(self.items)
        self.n_records = int(n_records)
        self._supports = supports
        self.matrix = types.SimpleNamespace(nnz=int(supports.sum()))  # boolean records: occurrences

    def supports(self) -> np.ndarray:
        return self._supports


def _canonical(X) -> sp.csr_array:
    """A block in the one boolean CSR form (:func:`graphanon.counting.rows.bool_csr`, no copy when it is)."""
    return bool_csr(X, copy=False)


def _stats(X, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """A block's item supports and its longest record (as a one-element array, so blocks add up by max)."""
    return np.bincount(X.indices, minlength=n_items).astype(np.int64), np.array([np.diff(X.indptr).max(initial=0)])


def _lengths(X) -> np.ndarray:
    """A block's record lengths."""
    return np.diff(X.indptr).astype(np.int32)


def _published(X, code: np.ndarray, n_published: int) -> sp.csr_array:
    """A block recoded by the cut (published item per item), indices sorted."""
    G = generalize_matrix(X, code, n_published)
    G.sort_indices()
    return G


def _ids_json(ids, a: int, b: int, sep: str) -> str:
    """The JSON text of the record ids ``ids[a:b]`` of a block (strings), separated by ``sep``."""
    return json_strings(ids.slice(a, b - a).to_pylist(), sep)


@validate_params({"k": K, "m": M, **COMMON}, meanings=MEANINGS)
def write_aa_release(
    source,
    output: str | os.PathLike,
    *,
    taxonomy: Taxonomy,
    k: int,
    m: int | None = None,
    client,
    link_out: str | os.PathLike | None = None,
    tid: str = "tid",
    item: str = "item",
    n_partitions: int | None = None,
    unsafe_secret_seed: int | None = None,
    progress: ProgressCallback | None = None,
) -> dict:
    """Run AA on Dask and write its release file (and private link) without holding the records.

    The file is the one ``anonymize_aa(data, taxonomy=..., k=..., m=...,
    unsafe_secret_seed=...).save(output)`` writes for ``data =
    read_parquet(source)`` (``link.save(link_out)`` for the link): same cut,
    parameters, fingerprint and rows in the same secret order.

    Parameters
    ----------
    source : str, path or graphanon.distributed.Blocks
        A Parquet file every worker can open (long ``tid, item`` or list
        form, each record's rows contiguous, as
        :func:`graphanon.distributed.read_parquet_blocks` reads it), or
        record blocks already on the workers (their ``items`` set; record
        ids ``ids``, else ``0..n-1`` as ``TransactionData`` numbers them).
    output : str or path
        The release file (``.json`` or ``.json.gz``), written atomically.
    taxonomy : Taxonomy
        The item hierarchy (every item a leaf).
    k, m : int
        As :func:`~graphanon.algorithms.hierarchy.aa.anonymize_aa`.
    client : dask.distributed.Client
    link_out : str or path, optional
        Also write the PRIVATE link here (mode 0600); never publish it.
    tid, item : str
        Column names of the Parquet file.
    n_partitions : int, optional
        Record blocks for a Parquet file (default one per worker, at most
        one per row group).
    unsafe_secret_seed : int, optional
        Tests only: the secret row order and fingerprint key ``anonymize_aa`` draws for it.
    progress : callable(done, total, message), optional
        Reports the read, AA's passes and each run of rows written.

    Returns
    -------
    dict
        ``records``, ``published_items``, ``cut`` (its size) and the
        release's ``params``; nothing secret.

    Raises
    ------
    ParameterError, DataFormatError, TaxonomyError, InfeasibleError
        As ``anonymize_aa`` and ``read_parquet_blocks``.

    See Also
    --------
    graphanon.algorithms.anonymize_aa : The release in memory.

    Notes
    -----
    Complexity: AA's counting as ``anonymize_aa(client=)``; then one
    pass over the records on the workers for the fingerprint (one keyed
    hash per record; the client receives one 256-bit sum per block), and
    each record crosses the network once for the release (and twice for
    the link: its digest and its ids). Client memory: the permutation and
    the row-of-record link (8 bytes a record each), the record lengths with
    the link (4 bytes a record), and two runs of :data:`RUN_ROWS` rows.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from dask.distributed import Client, LocalCluster
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.readwrite.parquet import write_parquet
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_parquet(load("liuwang_fig1"), folder / "d.parquet")
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
    ...     info = write_aa_release(folder / "d.parquet", folder / "r.json", taxonomy=load_taxonomy("liuwang_fig1"),
    ...                             k=2, m=2, client=client)
    >>> info["records"], info["cut"]
    (8, 1)

    References
    ----------
    Terrovitis, Mamoulis, Kalnis. PVLDB 2008, Sec. 4 (the method).
    """
    import graphanon.distributed as distributed

    if isinstance(source, distributed.Blocks):
        if source.items is None:
            raise ParameterError("write_aa_release: the blocks carry no item labels (Blocks.items); "
                                 "read them with graphanon.distributed.read_parquet_blocks")
        blocks = source
    else:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        blocks = distributed.read_parquet_blocks(source, client, tid=tid, item=item, progress=progress,
                                                 n_partitions=n_partitions or workers, record_ids=link_out is not None)
    items = tuple(blocks.items or ())
    X = distributed.map_blocks(blocks, client, _canonical)
    n = blocks.n_records
    check_k(k, n)
    distributed.round_trip("count")
    stats = client.gather([client.submit(_stats, f, blocks.n_items, pure=False) for f in X.futures])
    sup = np.zeros(blocks.n_items, dtype=np.int64)
    for s_b, _ in stats:
        sup += s_b
    counted = _Counted(items, sup, n)
    longest = max((int(m_b[0]) for _, m_b in stats), default=0)
    index = HierarchyIndex(counted, taxonomy)
    counts = BlockCounts(index, client, None, progress, blocks=X)
    cut, params = aa_cut(index, counts, k=k, m=m, max_len=longest, progress=progress)
    del counts  # the extended blocks and bitmaps leave the workers
    empty = TransactionData(sp.csr_array((0, blocks.n_items), dtype=bool), items)
    release = aa_recoding(empty, taxonomy, index, cut, params)
    order, key = secret_shuffle(n, unsafe_secret_seed=unsafe_secret_seed)

    rank, vocabulary = canonical_vocabulary(items)
    report(progress, 0, n, "fingerprint: keyed multiset hash on the workers")
    distributed.round_trip("rows")
    rkey = record_key(key)
    sums = client.gather([client.submit(multiset_sum, f, rank, rkey, pure=False) for f in X.futures])
    fp, data_counts = fingerprint_from_sums(key=key, shape=(n, blocks.n_items), vocabulary=vocabulary,
                                            nnz=int(sup.sum()), sums=sums)
    report(progress, n, n, "fingerprint: keyed multiset hash on the workers")
    release.fingerprint = fp
    code = release.code_for(counted)
    G = distributed.map_blocks(X, client, _published, code, release.n_published_items,
                               n_items=release.n_published_items)
    rows = _runs(distributed.take_rows(G, client, order, chunk=RUN_ROWS), n, progress, "writing the release")
    release.save_rows(output, n_records=n, rows=(IntRows(np.r_[0, np.cumsum(ln)], v) for ln, v in rows))
    del G
    if link_out is not None:
        distributed.round_trip("rows")
        parts = client.gather([client.submit(_lengths, f, pure=False) for f in X.futures])
        lengths = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        row_of_record = np.empty(n, dtype=np.int64)
        row_of_record[order] = np.arange(n)
        del order
        digest = ordered_digest_from_parts(
            key=key, shape=(n, blocks.n_items), vocabulary=vocabulary,
            lengths=(lengths[a : a + RUN_ROWS] for a in range(0, n, RUN_ROWS)),
            rows=_indices(_runs(distributed.take_rows(X, client, None, canonical_rows, rank, chunk=RUN_ROWS),
                                n, progress, "private link digest")),
            id_runs=_id_runs(client, blocks, ", "))
        save_link_runs(link_out, fingerprint=fp, data_digest=digest, key=key, counts=data_counts, row_of_record=row_of_record,
                       id_runs=_id_runs(client, blocks, ","))
    return {"records": n, "published_items": release.n_published_items, "cut": len(cut), "params": release.params}


def _runs(runs: Iterator, n: int, progress: ProgressCallback | None, message: str) -> Iterator:
    """``runs`` passed through, reporting the rows done."""
    done = 0
    report(progress, 0, n, message)
    for run in runs:
        done += len(run[0])
        report(progress, done, n, message)
        yield run


def _indices(runs: Iterator) -> Iterator[np.ndarray]:
    return (indices for _, indices in runs)


def _id_runs(client, blocks, sep: str) -> Iterator[str]:
    """The record ids as runs of JSON text in record order: from the workers (``blocks.ids``), else ``0..n-1``.

    Numbered records are JSON numbers in the link (``sep=","``, as
    ``json_label`` writes them) and text in the digest, as
    ``TransactionData``'s default ids are written.
    """
    from graphanon.distributed import round_trip

    if blocks.ids is None:
        n = blocks.n_records
        for a in range(0, n, RUN_ROWS):
            b = min(n, a + RUN_ROWS)
            yield ",".join(map(str, range(a, b))) if sep == "," else json_strings(range(a, b), sep)
        return
    for blk, fut in enumerate(blocks.ids):
        size = int(blocks.n_rows[blk])
        for a in range(0, size, RUN_ROWS):
            round_trip("rows")
            yield client.submit(_ids_json, fut, a, min(size, a + RUN_ROWS), sep, pure=False).result()
