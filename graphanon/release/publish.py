"""The last step of every anonymizer: shuffle, fingerprint, keep the link private.

An anonymizer builds its release *row-aligned* -- row ``i`` stands for
original record ``i`` (for nonreciprocal releases: the published record the
chosen assignment matched to record ``i``). That order is the secret: with
it, row ``i`` is person ``i``. :func:`publish` turns the aligned release into
the one to hand out:

1. the rows are shuffled by a permutation from
   :func:`graphanon.utils.randomness.secret_generator` (operating-system entropy unless
   the caller passes ``unsafe_secret_seed``, for tests);
2. the release records the keyed fingerprint of the data
   (:func:`~graphanon.release.fingerprint.data_fingerprint`; the key comes
   from the same secret generator, so a fixed ``unsafe_secret_seed`` gives
   byte-identical files);
3. ``release.link`` receives the private :class:`~graphanon.release.ReleaseLink`
   (original record -> published row, the fingerprint's key and the data's
   counts), which ``release.save()`` never writes.

Examples
--------
>>> from graphanon.data import from_iterable
>>> from graphanon.release import GlobalRecoding
>>> data = from_iterable([["a"], ["b"], ["a", "b"]], record_ids=["ann", "bob", "cy"])
>>> aligned = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"})
>>> rel = publish(data, aligned, unsafe_secret_seed=1)
>>> rel.pseudonyms
('p1', 'p2', 'p3')
>>> [rel.render_record(int(rel.link.row_of_record[i])) for i in range(3)]   # each record's own row
['a', 'b', 'a b']
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from graphanon.errors import ParameterError
from graphanon.release.base import Release
from graphanon.release.fingerprint import (
    data_counts,
    data_fingerprint,
    new_data_key,
    ordered_digest,
)
from graphanon.release.link import ReleaseLink
from graphanon.utils.randomness import secret_generator

R = TypeVar("R", bound=Release)

__all__ = ["publish", "secret_shuffle"]


def publish(
    data,
    release: R,
    *,
    unsafe_secret_seed: int | None = None,
    secret: np.random.Generator | None = None,
) -> R:
    """Shuffle a row-aligned release, attach its data fingerprint and private link.

    Parameters
    ----------
    data : TransactionData
        The original data; row ``i`` of ``release`` stands for its record ``i``.
    release : Release
        The row-aligned release; it is shuffled in place and returned.
    unsafe_secret_seed : int, optional
        Tests only: a fixed shuffle (and fingerprint key). Anyone who knows it can undo
        the shuffle. Never written into the release.
    secret : numpy.random.Generator, optional
        A generator from :func:`~graphanon.utils.randomness.secret_generator` the
        anonymizer already drew secret choices from (for example the chosen
        assignment); exclusive with ``unsafe_secret_seed``.

    Returns
    -------
    Release
        ``release`` itself, rows shuffled, with ``fingerprint`` and ``link`` set.

    Notes
    -----
    Complexity: O(n + occurrences) for the shuffle, plus the fingerprint
    (O(occurrences + n log n)).
    """
    if release.n_records != data.n_records:
        raise ParameterError(
            f"the release has {release.n_records} rows but the data {data.n_records} records; "
            "publish a release row-aligned with the data it was made from"
        )
    if release.link is not None:
        raise ParameterError("this release is already published (it has a link); publish each release once")
    order, key = secret_shuffle(data.n_records, unsafe_secret_seed=unsafe_secret_seed, secret=secret)
    release._permute_rows(order)
    row_of_record = np.empty(data.n_records, dtype=np.int64)
    row_of_record[order] = np.arange(data.n_records)
    release.fingerprint = data_fingerprint(data, key=key)
    release.link = ReleaseLink(
        row_of_record,
        record_ids=data.record_ids,
        fingerprint=release.fingerprint,
        data_digest=ordered_digest(data, key=key),
        key=key,
        counts=data_counts(data),
    )
    return release


def secret_shuffle(
    n: int, *, unsafe_secret_seed: int | None = None, secret: np.random.Generator | None = None
) -> tuple[np.ndarray, str]:
    """The secret row order of a release of ``n`` records and its fingerprint's key.

    Published row ``j`` is aligned row ``order[j]``. Both come from
    :func:`~graphanon.utils.randomness.secret_generator` (or ``secret``), in
    this order, so a writer that publishes without :func:`publish` (the
    streamed AA release of :mod:`graphanon.algorithms.hierarchy.aa_dask`)
    draws the same ones for the same ``unsafe_secret_seed``.

    Returns
    -------
    order : ndarray of int64, shape (n,)
    key : str
        64 hexadecimal digits (:func:`~graphanon.release.fingerprint.new_data_key`); private.

    Examples
    --------
    >>> order, key = secret_shuffle(4, unsafe_secret_seed=0)
    >>> sorted(order.tolist()), len(key)
    ([0, 1, 2, 3], 64)
    """
    if secret is not None and unsafe_secret_seed is not None:
        raise ParameterError("give either secret= or unsafe_secret_seed=, not both")
    gen = secret if secret is not None else secret_generator(unsafe_secret_seed)
    order = gen.permutation(n)
    return order, new_data_key(gen)
