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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.counting.containment import record_supports
from graphanon.counting.rows import canonical_row_order
from graphanon.counting.support import generalize_matrix, minimal_infrequent_itemsets
from graphanon.errors import DataMismatchError, InfeasibleError, InternalError, ParameterError
from graphanon.release import check_same_data
from graphanon.release.fingerprint import same_fingerprint
from graphanon.release.link import ReleaseLink
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


def _check_data(data, priors: list[Prior], kind: str, method: str) -> None:
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
    _check_data(data, priors, "nonreciprocal", "nonreciprocal")
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


# ---------------------------------------------------------------------- global recodings: coarsen


def joint_item_classes(data, priors) -> tuple[np.ndarray, np.ndarray]:
    """Per item of ``data``, its joint class over the priors' global recodings.

    Returns
    -------
    joint : ndarray of int64 (n_items,)
        Items with the same published item in every prior share a class.
    suppressed : ndarray of bool (n_items,)
        Items every prior suppresses.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> d = from_iterable([["a", "c"], ["b", "d"]])
    >>> r1 = GlobalRecoding.from_mapping(d, {"a": "ab", "b": "ab", "c": "c", "d": "d"})
    >>> r2 = GlobalRecoding.from_mapping(d, {"a": "a", "b": "b", "c": "cd", "d": "cd"})
    >>> joint_item_classes(d, [r1, r2])[0].tolist()
    [0, 1, 2, 3]
    """
    codes = np.stack([p.release.code_for(data) for p in as_priors(priors)], axis=1)
    _, joint = np.unique(codes, axis=0, return_inverse=True)
    return joint.reshape(-1).astype(np.int64), np.all(codes < 0, axis=1)


def _km_violations(data, code: np.ndarray, k: int, m: int | None, what: str) -> tuple[int, str]:
    """Violations of k^m by the recoding ``code`` (item -> published index, -1 suppressed), by support counting, and their unit."""
    R = generalize_matrix(data.matrix, code, int(code.max()) + 1 if len(code) and code.max() >= 0 else 0)
    longest = int(np.diff(R.indptr).max()) if R.shape[0] else 0
    if m is None or m >= longest:
        sup = record_supports(R)
        return int(((np.diff(R.indptr) > 0) & (sup < k)).sum()), "published records"
    levels, _ = minimal_infrequent_itemsets(R, k, m, what=what, advice="ask for a smaller m")
    return sum(len(level) for level in levels), "itemsets"


def _check_joint_km(data, joint: np.ndarray, suppressed: np.ndarray, k: int, m: int | None) -> None:
    """Refuse when the priors' common refinement is not k^m-anonymous (support counting)."""
    bad, what = _km_violations(data, np.where(suppressed, -1, joint), k, m,
                               f"the priors' common refinement (k={k}, m={m})")  # fmt: skip
    if bad:
        raise InfeasibleError(
            f"the priors together are not k^m-anonymous for k={k}, m={'inf' if m is None else m} ({bad} {what} "
            "below k in their common refinement): no release composed with them can be; ask for a smaller k or m"
        )


def coarsened_cut(data, priors, *, taxonomy, cut, suppressed=(), k: int | None = None,
                  m: int | None = None) -> tuple[list, list]:  # fmt: skip
    """A cut (and suppressed nodes) raised until its recoding is a function of the priors' joint item classes.

    Parameters
    ----------
    data : TransactionData
    priors : release, Prior or a sequence of them
        Global recodings of ``data`` (fingerprints checked).
    taxonomy : Taxonomy
    cut, suppressed : sequences of nodes
        The cut a method chose and its suppressed nodes.
    k, m : int or None
        When ``k`` is given, the priors' common refinement must be
        k^m-anonymous (else :class:`~graphanon.errors.InfeasibleError`).

    Returns
    -------
    cut, suppressed : lists of nodes
        The new cut, in taxonomy order, and its suppressed nodes: items
        every prior suppresses stay suppressed; a joint class spread over
        several nodes moves to their lowest common ancestor. With ``k``
        (every function of a k^m-anonymous refinement is k^m-anonymous) the
        nodes the method suppressed may be published again, and a cut node
        that mixes items every prior suppresses with others is split below
        it rather than suppressed whole. Without ``k`` (no claim; a user's
        cut) the cut only moves up: the asked-for suppressed nodes stay
        suppressed, a joint class with a suppressed member is suppressed
        whole, and a merged node covering a suppressed one is suppressed.
        :func:`graphanon.algorithms.hierarchy.cut.recode_to_priors` builds the release.

    Notes
    -----
    Complexity: each round O(items x depth) for the lowest common ancestors; the cut
    only moves up, so at most the taxonomy's height times its nodes rounds.

    Examples
    --------
    >>> from graphanon.algorithms.hierarchy.cut import anonymize_cut
    >>> from graphanon.datasets import load, load_taxonomy
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> prior = anonymize_cut(data, taxonomy=tax, cut=["P", "Q", "e", "i"])
    >>> coarsened_cut(data, prior, taxonomy=tax, cut=tax.level(2))
    (['P', 'Q', 'e', 'i'], [])
    """
    priors = as_priors(priors)
    _check_data(data, priors, "global_recoding", "global-recoding")
    joint, jointly_suppressed = joint_item_classes(data, priors)
    if k is not None:
        _check_joint_km(data, joint, jointly_suppressed, k, m)
    # With k, the refinement was just checked to be k^m-anonymous, and any recoding that is a function of
    # it is a coarsening of it (classes merged, some suppressed), so k^m-anonymous too: the method's own
    # suppressed nodes may be published again (generalize_first). Without k there is no claim to keep,
    # but the nodes a user asked to suppress stay suppressed.
    raised, hidden = _coarsened_cut(taxonomy, list(data.items), joint, jointly_suppressed, list(cut), set(suppressed),
                                    generalize_first=k is not None)  # fmt: skip
    raised = _in_taxonomy_order(taxonomy, raised)
    return raised, [v for v in raised if v in hidden]


def _coarsened_cut(taxonomy, items: list, joint: np.ndarray, jointly_suppressed: np.ndarray, cut: list,
                   suppressed: set, *, generalize_first: bool) -> tuple[list, set]:  # fmt: skip
    """A cut (with suppressed nodes) at or above ``cut`` on which every joint class has one value.

    An item's value is its cut node, or None when that node is suppressed.
    Items every prior suppresses stay suppressed (their nodes are suppressed).
    With ``generalize_first``, the method's other suppressed nodes are
    published again, a node mixing items every prior suppresses with others
    is first split into its children (down to nodes holding only such items,
    suppressed, or none), and every joint class spread over several nodes
    moves to their lowest common ancestor (a function of the joint classes,
    hence k^m-anonymous when their refinement is). Otherwise a joint class with a suppressed
    member has all its nodes suppressed, and one spread over several
    published nodes moves to their lowest common ancestor, suppressed when it
    covers a suppressed node: a coarsening of the method's recoding, so its
    k^m-anonymity holds. Each step only raises or suppresses nodes, so the
    loop ends.
    """
    if generalize_first:
        cut, suppressed = _carve_out(taxonomy, cut, {items[j] for j in np.flatnonzero(jointly_suppressed)},
                                     set(items))  # fmt: skip
    while True:
        node_of = taxonomy.cut_map(cut)
        nodes = [node_of[x] for x in items]
        hide = {nodes[j] for j in np.flatnonzero(jointly_suppressed)} - suppressed
        if hide:  # items every prior suppresses: their nodes are suppressed, never merged
            suppressed |= hide
            continue
        values: dict[int, set] = {}
        for j in np.flatnonzero(~jointly_suppressed).tolist():
            values.setdefault(int(joint[j]), set()).add(nodes[j])
        merge = []
        for group in values.values():
            if len(group) < 2:
                continue
            if group & suppressed:
                hide |= group - suppressed
            else:
                merge.append(taxonomy.lca(*group))
        if not hide and not merge:
            return cut, suppressed
        suppressed |= hide
        for top in merge:
            covered = [v for v in cut if taxonomy.is_ancestor(top, v)]
            if not covered:  # already under a higher node merged this round
                continue
            if any(v in suppressed for v in covered):
                suppressed.add(top)
            suppressed.difference_update(covered)
            cut = [v for v in cut if v not in covered] + [top]


def _carve_out(taxonomy, cut: list, hidden_items: set, data_items: set) -> tuple[list, set]:
    """``cut`` with every node that mixes items every prior suppresses with others split into children, down to nodes that hold only such items (suppressed) or none of them; the method's own suppressed nodes are published again."""
    out, suppressed, stack = [], set(), list(cut)
    while stack:
        node = stack.pop()
        leaves = [x for x in taxonomy.leaves_under(node) if x in data_items]
        hidden = [x for x in leaves if x in hidden_items]
        if not hidden:
            out.append(node)
        elif len(hidden) == len(leaves):
            out.append(node)
            suppressed.add(node)
        else:
            stack.extend(taxonomy.children(node))
    return out, suppressed


def _in_taxonomy_order(taxonomy, nodes: Sequence) -> list:
    wanted = set(taxonomy.validate_cut(nodes))
    return [v for v in taxonomy.nodes if v in wanted]
