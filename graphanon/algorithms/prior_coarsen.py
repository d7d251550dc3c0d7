"""Global recodings made with earlier ones in mind: the method's cut coarsened to the priors' common refinement.

An item's joint class is the tuple of its published items over the priors
(:func:`joint_item_classes`); :func:`coarsened_cut` raises a method's cut
until its recoding is a function of the joint class (items every prior
suppresses stay suppressed; the nodes a joint class spreads over move to
their lowest common ancestor), after checking that the refinement is
k^m-anonymous for the new ``k`` and ``m``. Why this is the right release,
and what nonreciprocal methods do instead: :mod:`graphanon.algorithms.prior`.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity; generalizing further keeps it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphanon.algorithms.prior_base import as_priors, check_prior_data
from graphanon.counting.containment import record_supports
from graphanon.counting.support import generalize_matrix, minimal_infrequent_itemsets
from graphanon.errors import InfeasibleError

__all__ = ["coarsened_cut", "joint_item_classes"]


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
    check_prior_data(data, priors, "global_recoding", "global-recoding")
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
