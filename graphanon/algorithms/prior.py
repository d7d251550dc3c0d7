"""Releases made with earlier releases of the same data in mind (``--prior``).

Publishing a dataset twice hands the adversary both releases
(:mod:`graphanon.privacy.joint` audits what they reveal together). A release
made with ``priors=`` is built so that it teaches nothing the priors did not:

**Nonreciprocal releases** (``nr``, ``cahd``) *reuse* the priors' structure.
Every record gets again the row (base, distance, threshold, label) the prior
published for it -- the producer reads it from the prior's private link -- in
a fresh secret row order under fresh pseudonyms and a fresh fingerprint
key. Each record's candidates are then the same rows as in the prior, so
the composition is the prior itself: a new release with a requirement no
stronger than the prior's (``k``, ``l`` in its parameters) meets it jointly.
A stronger requirement cannot be met by any release composed with the
prior (the joint candidates are a subset of the prior's), and is refused.
Several priors must publish the same row for every record (as releases made
with ``priors=`` do); priors with different structures already reveal more
together than each, and a new release cannot undo that.

**Global recodings on a taxonomy** (``cut``, ``aa``, ``hghs``, ``mhghs``) are
*coarsened to the priors' common refinement*: an item's joint class is the
tuple of its published items over the priors, and the method's cut is raised
until its recoding is a function of the joint class -- items every prior
suppresses stay suppressed, and the nodes a joint class spreads over move to
their lowest common ancestor (:func:`coarsened_cut`). The composition's
common refinement is then the priors' own. That refinement must be
k^m-anonymous for the new ``k`` and ``m`` (checked by support counting);
when it is not, no release composed with the priors can be, and the request
is refused. When it is, every function of it is a coarsening of it (classes
merged, some suppressed), so the new release is k^m-anonymous alone too, and
nodes the method suppressed may be published again under an ancestor. A
``cut`` (no ``k``: no claim) keeps the nodes the user asked to suppress: a
joint class with a suppressed member is then suppressed whole. Any release
composed with the priors reveals at least their refinement, so a coarser
new release buys no privacy; the finest composable release is the
refinement itself (for one prior: the prior's cut again).

Other methods refuse ``priors=`` (:data:`PRIOR_METHODS` names those that
take it).

References
----------
Ganta, Kasiviswanathan, Smith. Composition attacks and auxiliary information
in data privacy. KDD 2008.
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3.
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity; generalizing further keeps it).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.prior_base import Prior, as_priors, check_prior_data
from graphanon.algorithms.prior_coarsen import coarsened_cut, joint_item_classes
from graphanon.errors import DataMismatchError, InfeasibleError, InternalError, ParameterError
from graphanon.release.fingerprint import same_fingerprint
from graphanon.release.publish import publish

__all__ = ["Prior", "as_priors", "coarsened_cut", "data_changed", "joint_item_classes",
           "prior_methods_text", "reuse_priors"]

def __getattr__(name: str):
    """``PRIOR_METHODS``: the methods that take priors, and how -- read from their declarations."""
    if name == "PRIOR_METHODS":
        from graphanon.algorithms.registry import (
            PRIOR_METHODS,  # the registry reads the method modules, which import this one
        )

        return PRIOR_METHODS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prior_methods_text() -> str:
    """One line naming the methods that take priors."""
    from graphanon.algorithms.registry import (
        PRIOR_METHODS,  # the registry reads the method modules, which import this one
    )

    reuse = [m for m, how in PRIOR_METHODS.items() if how.startswith("reuses")]
    coarse = [m for m in PRIOR_METHODS if m not in reuse]
    return (f"{', '.join(reuse)} (reuse the prior's rows; give each prior's private link) and "
            f"{', '.join(coarse)} (coarsened to the priors' common refinement)")


# ---------------------------------------------------------------------- nonreciprocal: reuse


def reuse_priors(
    data, priors, *, k: int | None, l: int | None = None, unsafe_secret_seed: int | None = None  # noqa: E741
):
    """A nonreciprocal release that gives every record the row the priors gave it.

    Parameters
    ----------
    data : TransactionData
        The data the priors were made from (fingerprints checked).
    priors : release, Prior, (release, link) or a sequence of them
        Nonreciprocal releases with their private links; they must publish
        the same row for every record.
    k, l : int or None
        The requirement of the new release; each must be at most the
        priors' own (``params["k"]``, ``params["l"]``).
    unsafe_secret_seed : int, optional
        Tests only: fixes the fresh row shuffle and fingerprint key.

    Returns
    -------
    NonreciprocalRelease
        The priors' rows, reshuffled, with their method name and parameters;
        ``release.link`` the new private link.

    Raises
    ------
    InfeasibleError
        When a requirement exceeds the priors', or the priors publish
        different rows for the same record.
    ParameterError, DataMismatchError
        A prior without its link, of another kind, or of other data.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> table = load("nr_table1")
    >>> first = anonymize_cahd(table, l=3)
    >>> again = reuse_priors(table, first, k=2, l=2)
    >>> sorted(map(again.render_record, range(6))) == sorted(map(first.render_record, range(6)))
    True
    """
    # the bit-voting kernels (numba) load only when a nonreciprocal prior is reused
    from graphanon.release.nonreciprocal import NonreciprocalRelease

    priors = as_priors(priors)
    changed = _added_records(data, priors)
    if changed is not None:
        return _reuse_with_additions(data, priors[0], changed, k=k, l=l, unsafe_secret_seed=unsafe_secret_seed)
    check_prior_data(data, priors, "nonreciprocal", "nonreciprocal")
    rows = []
    for i, p in enumerate(priors, 1):
        link = p.private_link
        if link is None:
            raise ParameterError(
                f"prior {i}: reusing a nonreciprocal prior needs its private link (anonymize --link-out; "
                "CLI --prior-link FILE, Python Prior(release, link))"
            )
        if link.fingerprint is not None and p.release.fingerprint is not None and not same_fingerprint(
                link.fingerprint, p.release.fingerprint):
            raise DataMismatchError(f"prior {i}: the private link belongs to another release (its fingerprint differs); "
                                    "give each prior the link written with it")
        rows.append(link.rows_for(data))
    first, rows0 = priors[0].release, rows[0]
    base, dist = first.base[rows0], first.distance[rows0]
    thr = np.asarray(first.threshold)[rows0]
    labels = None if first.labels is None else [first.labels[j] for j in rows0]
    groups = _groups_of(first, rows0)
    for i, (p, r) in enumerate(zip(priors[1:], rows[1:], strict=True), 2):
        rel = p.release
        same = (
            tuple(rel.items) == tuple(first.items)
            and (rel.base[r] != base).nnz == 0
            and (rel.distance[r] != dist).nnz == 0
            and np.array_equal(np.asarray(rel.threshold)[r], thr)
            and (labels is None) == (rel.labels is None)
            and (labels is None or [rel.labels[j] for j in r] == labels)
            and _same_partition(_groups_of(rel, r), groups)
        )
        if not same:
            raise InfeasibleError(
                f"priors 1 and {i} publish different rows for the same records: together they already reveal "
                "more than each (audit them with graphanon audit DATA R1 R2 ...); a new release can only reuse "
                "one structure, so it cannot undo that. Reuse one prior, or publish no more"
            )
    if labels is not None and data.labels is not None and Counter(map(str, labels)) != Counter(map(str, data.labels)):
        # (per record the labels need not agree: an l-diverse nr row carries the label of the record it is
        # centred on, which the chosen assignment gives to another record)
        raise InfeasibleError(
            "the data's labels are not the ones prior 1 published (the label counts differ): reusing the prior "
            "would publish the old labels; a labelled release of the new labels composes with the prior like an "
            "independent one (audit them together with graphanon audit DATA PRIOR NEW)"
        )
    for name, wanted in (("l", l), ("k", k)):
        have = first.params.get(name)
        if wanted is not None and (have is None or int(have) < int(wanted)):
            raise InfeasibleError(
                f"the prior promises {name}={have}: a release composed with it cannot give {name}={wanted} (each "
                f"record's joint candidates are among its candidates in the prior); ask for {name} <= {have}"
            )
    aligned = NonreciprocalRelease(
        first.items, base, dist, thr, labels, algorithm=first.algorithm, params=dict(first.params),
        label_groups=groups,
    )
    return publish(data, aligned, unsafe_secret_seed=unsafe_secret_seed)


def _groups_of(release, rows: np.ndarray) -> np.ndarray | None:
    """The label group of each of ``rows`` (None: the release publishes no label groups)."""
    groups = getattr(release, "label_groups", None)
    return None if groups is None else np.asarray(groups, dtype=np.int64)[rows]


def _same_partition(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two group numberings of the same rows split them alike (both None: no groups)."""
    if a is None or b is None:
        return a is None and b is None
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def data_changed(data, priors) -> bool:
    """Whether ``data`` holds other records (by id) than a nonreciprocal prior's private link names.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.data import from_iterable
    >>> d = from_iterable([["a"], ["b"], ["a"], ["b"]], labels="xyyx", record_ids=["p0", "p1", "p2", "p3"])
    >>> first = anonymize_cahd(d.subset([0, 1]).drop_unused_items(), l=2)
    >>> data_changed(d, first), data_changed(d.subset([0, 1]), first)
    (True, False)
    """
    for p in as_priors(priors):
        link = p.private_link
        if getattr(p.release, "kind", None) == "nonreciprocal" and link is not None:
            if set(link.record_ids) != set(data.record_ids):
                return True
    return False


def _added_records(data, priors: list[Prior]) -> np.ndarray | None:
    """Positions in ``data`` of the records a single prior's link does not name (None: the same records).

    Refuses data that lost records the prior holds, and several priors of changed data.
    """
    if not data_changed(data, priors):
        return None
    if len(priors) != 1:
        raise ParameterError(
            "the data holds other records than the priors: give one prior (the latest release, made with "
            "priors= the earlier ones, holds their rows for every record it shares with them)"
        )
    link = priors[0].private_link
    if link is None:  # pragma: no cover - data_changed reads a link
        raise InternalError("a prior of changed data without its link")
    ids = set(data.record_ids)
    gone = [rid for rid in link.record_ids if rid not in ids]
    if gone:
        raise InfeasibleError(
            f"{len(gone)} record(s) of the prior are not in the data (e.g. {gone[0]!r}): a release that drops them "
            "shows which rows were theirs (docs/updates.md); publish every record of the prior again, or audit an "
            "independent release with graphanon audit DATA PRIOR NEW --link L1 --link L2"
        )
    old = set(link.record_ids)
    return np.array([i for i, rid in enumerate(data.record_ids) if rid not in old], dtype=np.int64)


def _reuse_with_additions(data, prior: Prior, added: np.ndarray, *, k, l, unsafe_secret_seed):  # noqa: E741
    """The prior's rows for the records it holds, and a release of the added records alone for them."""
    from graphanon.release.nonreciprocal import NonreciprocalRelease
    from graphanon.release.private_link import release_data, release_members

    first, link = prior.release, prior.private_link
    if getattr(first, "kind", None) != "nonreciprocal":
        raise ParameterError(f"the prior is a {getattr(first, 'kind', type(first).__name__)} release; "
                             "nonreciprocal releases compose only with nonreciprocal priors")
    if link is None:
        raise ParameterError("reusing a nonreciprocal prior needs its private link (anonymize --link-out; CLI "
                             "--prior-link FILE, Python Prior(release, link))")
    old_pos = release_members(data, link, what="the prior")
    old = data.subset(old_pos)
    release_data(old, first, link, what="the prior")  # the records it holds are the ones it was made from
    if first.labels is not None and data.labels is not None and \
            Counter(map(str, first.labels)) != Counter(map(str, old.labels)):
        raise InfeasibleError("the labels of the prior's records are not the ones it published (the label counts "
                              "differ): reusing its rows would publish the old labels")
    for name, wanted in (("l", l), ("k", k)):
        have = first.params.get(name)
        if wanted is not None and (have is None or int(have) < int(wanted)):
            raise InfeasibleError(
                f"the prior promises {name}={have}: a release composed with it cannot give {name}={wanted}; ask "
                f"for {name} <= {have}"
            )
    new = data.subset(added).drop_unused_items()
    pk, pl = first.params.get("k"), first.params.get("l")
    try:
        if first.algorithm == "cahd":
            from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd

            part = anonymize_cahd(new, l=int(pl), unsafe_secret_seed=unsafe_secret_seed)
        else:
            from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal

            # the prior's own l-diverse construction (releases before label groups record flow or greedy-walk);
            # label groups: the added records in groups of their own, of the prior's variant
            method = {"l_method": first.params.get("l_method") or "flow"} if pl is not None else {}
            if method.get("l_method") == "groups":
                method["diversity"] = first.params.get("diversity", "distinct")
                method["grouping"] = first.params.get("grouping", "order")  # files before it: along the order
                if first.params.get("c") is not None:
                    method["c"] = float(first.params["c"])
            part = anonymize_nonreciprocal(new, k=int(pk) if pk else int(pl), l=None if pl is None else int(pl),
                                           unsafe_secret_seed=unsafe_secret_seed, **method)  # fmt: skip
    except (ParameterError, InfeasibleError) as exc:
        raise InfeasibleError(
            f"the {len(added)} added record(s) cannot be published on their own as the prior promises "
            f"({first.algorithm}, {', '.join(f'{n}={v}' for n, v in (('k', pk), ('l', pl)) if v)}): {exc}; wait "
            "for more new records"
        ) from None
    items = list(first.items) + [x for x in part.items if x not in set(first.items)]
    col = {x: j for j, x in enumerate(items)}
    cols = np.array([col[x] for x in part.items], dtype=np.int64)

    def widen(M, where=None):
        M = sp.csr_array(M)
        if where is None:
            return sp.csr_array((M.data, M.indices, M.indptr), shape=(M.shape[0], len(items)))
        M = M.tocoo()
        return sp.csr_array((M.data, (M.row, where[M.col])), shape=(M.shape[0], len(items)))

    r_old = link.rows_for(old.drop_unused_items())
    r_new = part.link.row_of_record
    n = data.n_records
    order = np.empty(n, dtype=np.int64)  # aligned row of each record: old ones first, then the added ones
    order[old_pos] = np.arange(len(old_pos))
    order[added] = len(old_pos) + np.arange(len(added))
    base = sp.vstack([widen(first.base[r_old]), widen(part.base[r_new], cols)], format="csr")[order]
    dist = sp.vstack([widen(first.distance[r_old]), widen(part.distance[r_new], cols)], format="csr")[order]
    thr = np.concatenate([np.asarray(first.threshold)[r_old], np.asarray(part.threshold)[r_new]])[order]
    labels = None
    if first.labels is not None:
        both = [first.labels[j] for j in r_old] + [part.labels[j] for j in r_new]
        labels = [both[j] for j in order]
    groups = None  # label groups: the prior's for its records, new groups (numbered after them) for the added
    old_groups, new_groups = _groups_of(first, r_old), _groups_of(part, r_new)
    if old_groups is not None:
        if new_groups is None:  # pragma: no cover - the part is made with the prior's l_method
            raise InternalError("the added records' release has no label groups")
        groups = np.concatenate([old_groups, new_groups + int(old_groups.max(initial=-1)) + 1])[order]
    aligned = NonreciprocalRelease(items, base, dist, thr, labels, algorithm=first.algorithm,
                                   params=dict(first.params), label_groups=groups)
    return publish(data, aligned, unsafe_secret_seed=unsafe_secret_seed)
