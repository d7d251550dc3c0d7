"""An earlier release given to a method (``priors=``, ``--prior``), and the checks that it was made from the data.

:class:`Prior` pairs a release with its private link; :func:`as_priors`
reads what a user passes as ``priors=``. How a method composes with its
priors: :mod:`graphanon.algorithms.prior` (nonreciprocal reuse) and
:mod:`graphanon.algorithms.prior_coarsen` (global recodings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import canonical_row_order
from graphanon.counting.support import generalize_matrix
from graphanon.errors import DataMismatchError, ParameterError
from graphanon.release import check_same_data
from graphanon.release.link import ReleaseLink

__all__ = ["Prior", "as_priors", "check_prior_data"]


@dataclass(frozen=True)
class Prior:
    """An earlier release of the same data, with its private link when the producer has it.

    Parameters
    ----------
    release : Release
    link : ReleaseLink, optional
        The prior's private link (``anonymize --link-out``); nonreciprocal
        reuse needs it, and it holds the key that verifies the prior was
        made from the data (:func:`~graphanon.release.check_same_data`).
        Default: ``release.link`` (set on a release made in this session).
    """

    release: Any
    link: ReleaseLink | None = None

    @property
    def private_link(self) -> ReleaseLink | None:
        """The prior's private link: the one given, else the release's own."""
        return self.link if self.link is not None else getattr(self.release, "link", None)


def as_priors(priors) -> list[Prior]:
    """``priors`` (a release, a :class:`Prior`, a ``(release, link)`` pair, or a sequence of them) as a list."""
    if priors is None:
        return []
    if isinstance(priors, (Prior, tuple)) or hasattr(priors, "kind"):
        priors = [priors]
    out = []
    for p in priors:
        if isinstance(p, Prior):
            out.append(p)
        elif isinstance(p, tuple) and len(p) == 2:
            out.append(Prior(p[0], p[1]))
        elif hasattr(p, "kind"):
            out.append(Prior(p))
        else:
            raise ParameterError(f"a prior is a release, a Prior or a (release, link) pair, got {type(p).__name__}")
    if not out:
        raise ParameterError("priors= is empty; give at least one prior release (or None)")
    return out


def check_prior_data(data, priors: list[Prior], kind: str, method: str) -> None:
    """Refuse priors of another release kind than ``kind``, or not made from ``data`` (by fingerprint or recoding)."""
    for i, p in enumerate(priors, 1):
        if getattr(p.release, "kind", None) != kind:
            raise ParameterError(
                f"prior {i} is a {getattr(p.release, 'kind', type(p.release).__name__)} release; {method} "
                f"releases compose only with {kind.replace('_', ' ')} priors"
            )
        if not check_same_data(data, p.release, link=p.private_link) and kind == "global_recoding":
            _check_recodes(data, p.release, i)


def _check_recodes(data, release, i: int) -> None:
    """Without the key, check a global-recoding prior from the data: its rows must be the data's recodings.

    The multiset of published rows must equal the multiset of the records
    recoded by the prior's public recoding (compared exactly after sorting
    both by :func:`~graphanon.counting.rows.row_hashes`). What generalization
    hides (records that differ only inside a published item) passes, as it
    does for any reader of the rows.
    """
    if release.n_records != data.n_records:
        raise DataMismatchError(f"prior {i}: the release was not made from this data (it has {release.n_records} "
                                f"rows, the data {data.n_records} records); give priors made from this data")
    recoded = sp.csr_array(generalize_matrix(data.matrix, release.code_for(data), release.n_published_items))
    published = sp.csr_array(release.records)
    a = recoded[canonical_row_order(recoded)]
    b = published[canonical_row_order(published)]
    a.sort_indices()
    b.sort_indices()
    if not (np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)):
        raise DataMismatchError(f"prior {i}: the release was not made from this data (its rows are not the data's "
                                "recodings); give priors made from this data")
