"""Layout helpers shared by the drawings and the interactive views (numpy/scipy; matplotlib only when called)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

__all__ = ["declutter_labels", "separate_discs"]


def separate_discs(centre: np.ndarray, radius: np.ndarray, *, gap: float = 0.5, iterations: int = 80) -> np.ndarray:
    """Push discs apart until none overlaps (or ``iterations`` passes): a post-pass on a force layout.

    Each pass finds the overlapping pairs with k-d trees (the small discs among themselves by one
    ``query_pairs``; the few large discs, above four times the median radius, against every disc)
    and moves both discs of a pair half the overlap apart along their centre line.

    Parameters
    ----------
    centre : array of shape (n, 2)
        Disc centres (e.g. a force layout).
    radius : array of shape (n,)
        Disc radii, in the units of ``centre``.
    gap : float
        Free space left between two discs.
    iterations : int
        Passes at most.

    Returns
    -------
    ndarray of shape (n, 2)
        The moved centres.

    Examples
    --------
    >>> import numpy as np
    >>> pos = separate_discs(np.zeros((2, 2)), np.ones(2), gap=0.0)
    >>> bool(np.hypot(*(pos[0] - pos[1])) >= 2 - 1e-9)
    True

    References
    ----------
    Dwyer, Marriott, Stuckey. Fast node overlap removal. Graph Drawing 2005 (the problem; this
    is the simple pairwise push, not their constraint solver).
    """
    pos = np.array(centre, dtype=np.float64)
    is_big = radius > 4 * np.median(radius)
    big, small = np.flatnonzero(is_big), np.flatnonzero(~is_big)
    small_reach = 2 * float(radius[small].max(initial=0.0)) + gap
    rng = np.random.default_rng(0)  # coincident centres get a fixed, tiny nudge
    for _ in range(iterations):
        pairs = small[cKDTree(pos[small]).query_pairs(small_reach, output_type="ndarray").reshape(-1, 2)]
        if len(big):
            near = cKDTree(pos).query_ball_point(pos[big], radius[big] + radius.max() + gap)
            other = np.concatenate([np.asarray(js, dtype=np.int64) for js in near])
            mine = np.repeat(big, [len(js) for js in near])
            once = ~is_big[other] | (other > mine)  # big-small pairs, and each big-big pair once
            pairs = np.r_[pairs, np.c_[mine, other][once]]
        i, j = pairs[:, 0], pairs[:, 1]
        delta = pos[j] - pos[i]
        dist = np.hypot(delta[:, 0], delta[:, 1])
        need = radius[i] + radius[j] + gap
        over = dist < need - 1e-9
        if not over.any():
            break
        i, j, delta, dist, need = i[over], j[over], delta[over], dist[over], need[over]
        still = dist < 1e-9
        delta[still] = rng.normal(size=(int(still.sum()), 2))
        dist[still] = np.hypot(delta[still, 0], delta[still, 1])
        step = (0.5 * (need - dist) / dist)[:, None] * delta
        for axis in (0, 1):
            pos[:, axis] += np.bincount(j, step[:, axis], len(pos)) - np.bincount(i, step[:, axis], len(pos))
    return pos


def declutter_labels(ax, labels, alternatives=((0, 1), (0, -1))) -> int:
    """Keep ``labels`` from overlapping: move a label to another offset, else hide it.

    ``labels`` are matplotlib annotations (placed with ``textcoords="offset points"``) in priority
    order: the first is always kept where it is. Each next label that overlaps a kept one is tried
    at its offset shifted by each of ``alternatives`` (in units of its font size, points), and is
    hidden when none is free. Call it once the axes has its final size: positions are measured in
    display space.

    Parameters
    ----------
    ax : matplotlib Axes
        The axes holding the labels.
    labels : sequence of matplotlib.text.Annotation
        The labels, most important first.
    alternatives : sequence of (dx, dy)
        Offsets to try, in font sizes.

    Returns
    -------
    int
        How many labels were hidden (say so on the drawing).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set(xlim=(0, 1), ylim=(0, 1))
    >>> a = ax.annotate("first", (0.5, 0.5), xytext=(0, 0), textcoords="offset points")
    >>> b = ax.annotate("second", (0.5, 0.5), xytext=(0, 0), textcoords="offset points")
    >>> declutter_labels(ax, [a, b], alternatives=((0, 2),)), b.get_visible(), b.xyann
    (0, True, (0.0, 20.0))
    >>> plt.close(fig)
    """
    fig = ax.figure
    get_renderer = getattr(fig.canvas, "get_renderer", None)
    if get_renderer is None:  # a bare Figure(): measure with the Agg canvas, as savefig would draw
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        get_renderer = FigureCanvasAgg(fig).get_renderer
    renderer = get_renderer()
    ax.autoscale_view()  # the data limits as they will be drawn (matplotlib applies them lazily)
    kept: list = []
    hidden = 0

    def free(box) -> bool:
        return not any(box.overlaps(other) for other in kept)

    for label in labels:
        box = label.get_window_extent(renderer)
        if free(box):
            kept.append(box)
            continue
        x0, y0 = label.xyann
        size = label.get_fontsize()
        for dx, dy in alternatives:
            label.xyann = (x0 + dx * size, y0 + dy * size)
            box = label.get_window_extent(renderer)
            if free(box):
                kept.append(box)
                break
        else:
            label.xyann = (x0, y0)
            label.set_visible(False)
            hidden += 1
    return hidden
