"""The joint audit's propagation: each release's match graph on the joint record classes, shrunk to a fixpoint.

:func:`release_graphs` refines every release's class-compressed match graph
(:func:`~graphanon.privacy.match_graph.match_classes`) to the *joint* record
classes (records identical in every release's columns); :func:`propagate`
removes, release after release, the labels no perfect matching of a release's
graph restricted to the labels still possible gives a record (viable edges,
:func:`~graphanon.privacy.matchings.viable_edges`), until nothing changes.
Every label removed is impossible in every joint world. What the fixpoint
leaves is settled by the exact step (:mod:`graphanon.privacy.joint_exact`);
the sets are read by :func:`graphanon.privacy.joint_labels.joint_label_sets`
and audited by :class:`graphanon.privacy.joint.JointAudit`.

References
----------
Régin. A filtering algorithm for constraints of difference in CSPs. AAAI
1994 (viable edges: the filtering step of the propagation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphanon.privacy.joint_groups import group_quota, grouped_step
from graphanon.privacy.match_graph import match_classes
from graphanon.privacy.matchings import k_factor_flow, viable_edges

__all__ = ["ReleaseGraph", "propagate", "release_graphs"]


@dataclass
class ReleaseGraph:
    """One release's match graph on the joint record classes: class edges, row sizes and labels."""

    ea: np.ndarray  # joint record class of each edge
    eb: np.ndarray  # row class of each edge
    row_size: np.ndarray
    label: np.ndarray | None  # global label code of each edge's row (None: no labels on rows)
    present: np.ndarray  # per joint record class: its records are in this release's data
    group: np.ndarray | None = None  # label groups: the group of each edge's row (then label is None)
    quota: np.ndarray | None = None  # label groups: published label count per (group, global label code)

    @property
    def labelled(self) -> bool:
        """Whether the release publishes labels (on its rows, or in label groups)."""
        return self.label is not None or self.group is not None




def release_graphs(original, releases, by_record: bool, members=None):
    """Per release, its class-compressed match graph refined to the joint record classes.

    ``members[r]`` (None: every record) lists the records of ``original`` the
    release was made from, in that data's order; a joint class is then also
    split by the releases its records are in.
    """
    n = original.n_records
    members = [None] * len(releases) if members is None else list(members)
    cols, mcs = [], []
    for r, m in zip(releases, members, strict=True):
        sub = original if m is None else original.subset(m)
        if _grouped(r):  # row classes split by label group (the labels printed on rows tell nothing more)
            mc = match_classes(sub, _GroupKeyed(r), by_label=True)
        else:
            mc = match_classes(sub, r, by_label=r.labels is not None)
        mcs.append(mc)
        if m is None:
            cols.append(mc.record_class.astype(np.int64))
        else:
            col = np.full(n, -1, dtype=np.int64)
            col[np.asarray(m, dtype=np.int64)] = mc.record_class
            cols.append(col)
    if by_record:
        joint, size = np.arange(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    else:
        _, joint = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)
        joint = joint.reshape(-1).astype(np.int64)
        size = np.bincount(joint).astype(np.int64)
    nj = len(size)
    rep = np.empty(nj, dtype=np.int64)
    rep[joint[::-1]] = np.arange(n)[::-1]
    values = set().union(*(set(r.labels) for r in releases if r.labels is not None))
    codes = {x: c for c, x in enumerate(sorted(values, key=str))}
    graphs = []
    for release, mc, col in zip(releases, mcs, cols, strict=True):
        a_of_joint = col[rep]  # the release's record class of each joint class (-1: not in its data)
        present = a_of_joint >= 0
        inside = np.flatnonzero(present)
        a_in = a_of_joint[inside]
        order = inside[np.argsort(a_in, kind="stable")]
        ptr = np.zeros(len(mc.record_size) + 1, dtype=np.int64)
        np.cumsum(np.bincount(a_in, minlength=len(mc.record_size)), out=ptr[1:])
        count = ptr[mc.edge_record + 1] - ptr[mc.edge_record]
        start = np.repeat(ptr[mc.edge_record] - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
        ea = order[start]
        eb = np.repeat(mc.edge_row, count)
        label = None
        if _grouped(release) and mc.row_label is not None and mc.labels is not None:
            group_of_code = np.asarray(mc.labels, dtype=np.int64)  # the group values by code
            quota = group_quota(release, codes)[1]
            graphs.append(ReleaseGraph(ea, eb, mc.row_size, None, present, group_of_code[mc.row_label[eb]], quota))
            continue
        if mc.row_label is not None and mc.labels is not None:  # set together (by_label=True)
            global_code = np.array([codes[x] for x in mc.labels], dtype=np.int64)
            label = global_code[mc.row_label[eb]]
        graphs.append(ReleaseGraph(ea, eb, mc.row_size, label, present))
    return joint, size, graphs, tuple(codes)


def _grouped(release) -> bool:
    return getattr(release, "labels", None) is not None and getattr(release, "label_groups", None) is not None


class _GroupKeyed:
    """A grouped release seen with its label groups in place of its labels (for :func:`match_classes`)."""

    def __init__(self, release) -> None:
        self.items, self.base, self.distance = release.items, release.base, release.distance
        self.threshold, self.n_records = release.threshold, release.n_records
        self.labels = [int(x) for x in release.label_groups]


def propagate(allowed: np.ndarray, size: np.ndarray, graphs, max_rounds: int = 10_000):
    """Shrink ``allowed`` (classes x labels) to the fixpoint; None when some release has no matching.

    Returns ``(allowed, candidates, rounds)``: ``candidates[r, c]`` the rows of
    release ``r`` a record of class ``c`` gets in some perfect matching of the
    release's graph restricted to the allowed labels.
    """
    allowed = allowed.copy()
    candidates = np.zeros((len(graphs), len(size)), dtype=np.int64)
    stable = [False] * len(graphs)
    rounds = 0
    while not all(stable) and rounds < max_rounds:
        rounds += 1
        for r, g in enumerate(graphs):
            if stable[r]:
                continue
            if g.group is not None:  # label groups (graphanon.privacy.joint_groups)
                step = grouped_step(allowed, size, g)
                if step is None:
                    return None
                viable, reach = step
                candidates[r] = np.bincount(g.ea[viable], weights=g.row_size[g.eb[viable]], minlength=len(size))
                stable[r] = True
                if (allowed & ~reach).any():
                    allowed &= reach
                    stable = [False] * len(graphs)
                    stable[r] = True
                continue
            keep = np.ones(len(g.ea), dtype=bool) if g.label is None else allowed[g.ea, g.label]
            ea, eb = g.ea[keep], g.eb[keep]
            left = np.where(g.present, size, 0)
            flow = k_factor_flow(left, g.row_size, ea, eb, 1)
            if not flow.full or left.sum() != g.row_size.sum():
                return None
            viable = viable_edges(left, g.row_size, ea, eb, flow, 1)
            candidates[r] = np.bincount(ea[viable], weights=g.row_size[eb[viable]], minlength=len(size))
            stable[r] = True
            if g.label is None:
                continue
            reach = np.repeat(~g.present[:, None], allowed.shape[1], axis=1)  # records not in its data: free
            reach[ea[viable], g.label[keep][viable]] = True
            if (allowed & ~reach).any():
                allowed &= reach
                stable = [False] * len(graphs)
                stable[r] = True
    return allowed, candidates, rounds
