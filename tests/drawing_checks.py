"""Legibility checks shared by the drawing tests.

``figure_problems(fig)`` lists every problem of a drawn figure in words: overlapping labels within
an axes, titles (axes titles and the suptitle) overlapping each other or another axes' content,
texts leaving the figure, colours of data artists that no legend explains, and legends drawn over
the data (bars, markers, line vertices) or over a title.
"""

from matplotlib.colors import to_hex, to_rgba


def overlapping_labels(ax, tolerance: float = 0.5, *, drawn: bool = False) -> list:
    """Pairs of non-empty texts of ``ax`` whose rendered boxes overlap by more than ``tolerance`` pixels.

    Each check draws the figure first unless ``drawn`` says it was just drawn (``figure_problems``
    draws once for all its checks, which only read the figure).
    """
    if not drawn:
        ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts if t.get_text().strip()]
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1:] if _overlap(ba, bb, tolerance)]


def _overlap(a, b, t: float) -> bool:
    return a.x0 < b.x1 - t and b.x0 < a.x1 - t and a.y0 < b.y1 - t and b.y0 < a.y1 - t


def _visible_texts(fig):
    """Every non-empty text ``fig`` draws: axes texts and titles, tick and axis labels of axes that
    show their axes, legends, figure texts."""
    texts = list(fig.texts) + ([fig._suptitle] if fig._suptitle is not None else [])
    for legend in [ax.get_legend() for ax in fig.axes] + list(fig.legends):
        if legend is not None:
            texts += list(legend.get_texts()) + [legend.get_title()]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += list(ax.texts) + [ax.title, ax._left_title, ax._right_title]
        if ax.axison:  # only the ticks inside the view are drawn (get_*ticklabels also lists the others)
            for axis in (ax.xaxis, ax.yaxis):
                low, high = sorted(axis.get_view_interval())
                texts += [label for loc, label in zip(axis.get_ticklocs(), axis.get_ticklabels(), strict=False)
                          if low - 1e-9 * abs(high - low) <= loc <= high + 1e-9 * abs(high - low)]
            texts += [ax.xaxis.label, ax.yaxis.label]
    return [t for t in texts if t.get_visible() and str(t.get_text()).strip()]


def _titles(fig):
    titles = [ax.title for ax in fig.axes if ax.title.get_text().strip() and ax.title.get_visible()]
    titles += [t for ax in fig.axes for t in (ax._left_title, ax._right_title) if t.get_text().strip()]
    if fig._suptitle is not None and fig._suptitle.get_text().strip():
        titles.append(fig._suptitle)
    return titles


def _is_neutral(colour) -> bool:
    """Greys, black, white and fully transparent colours carry no meaning of their own."""
    r, g, b, a = to_rgba(colour)
    return a == 0 or (max(r, g, b) - min(r, g, b) < 0.06)


def _artist_colours(artist) -> set:
    """Hex colours (no alpha) a data artist paints in (faces of patches/collections, lines)."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    colours = []
    if isinstance(artist, Line2D):
        colours = [artist.get_color()]
        if artist.get_marker() not in (None, "None", "", " "):
            colours.append(artist.get_markerfacecolor())
    elif isinstance(artist, Collection):
        colours = list(artist.get_facecolors()) + ([] if len(artist.get_facecolors()) else list(artist.get_edgecolors()))
    elif isinstance(artist, Patch):
        colours = [artist.get_facecolor()]
        if getattr(artist, "arrow_patch", None) is None and not artist.get_fill():
            colours = [artist.get_edgecolor()]
    return {to_hex(c, keep_alpha=False) for c in colours if not _is_neutral(c)}


def _legend_colours(fig) -> set:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    colours: set = set()
    for legend in legends:
        for handle in legend.legend_handles:
            colours |= _artist_colours(handle)
            if hasattr(handle, "get_edgecolor") and not hasattr(handle, "get_facecolors"):
                colours.add(to_hex(handle.get_edgecolor(), keep_alpha=False))
    return colours


def unexplained_colours(fig) -> set:
    """Meaningful colours painted by an axes that paints two or more of them, missing from every legend.

    A drawing in one colour needs no legend; as soon as colour distinguishes things, each colour
    must be named somewhere on the figure.
    """
    from matplotlib.legend import Legend

    explained = _legend_colours(fig)
    missing: set = set()
    for ax in fig.axes:
        if ax.get_legend() is not None and len(fig.axes) > 1 and not ax.has_data():
            continue  # an axes used only to hold a legend
        painted: set = set()
        for artist in ax.get_children():
            if artist.get_visible() and not isinstance(artist, Legend) and artist is not ax.patch \
                    and artist not in ax.spines.values():
                painted |= _artist_colours(artist)
        if len(painted) >= 2:
            missing |= painted - explained
    return missing


def _data_boxes_and_points(ax, renderer):
    """Window boxes of the bars/patches and window points of the markers and line vertices of ``ax``."""
    import numpy as np
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    boxes, points = [], []
    for artist in ax.get_children():
        if not artist.get_visible() or artist is ax.patch:
            continue
        if isinstance(artist, Rectangle):
            boxes.append(artist.get_window_extent(renderer))
        elif isinstance(artist, Line2D):
            xy = np.column_stack(artist.get_data()).astype(float)
            points.append(artist.get_transform().transform(xy))
        elif isinstance(artist, PathCollection) and len(artist.get_offsets()):
            points.append(artist.get_offset_transform().transform(artist.get_offsets()))
    return boxes, (np.concatenate(points) if points else np.empty((0, 2)))


def legends_over_data(fig, tolerance: float = 1.0, *, drawn: bool = False) -> list:
    """Legends covering a bar, a marker or a line vertex of their axes, or any title: as sentences."""
    if not drawn:
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    titles = [(t.get_text(), t.get_window_extent(renderer)) for t in _titles(fig)]
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        boxes, points = _data_boxes_and_points(ax, renderer)
        if any(_overlap(box, b, tolerance) for b in boxes if b.width > 0 and b.height > 0):
            problems.append(f"the legend of {ax.get_title()!r} covers a bar")
        inside = ((points[:, 0] > box.x0 + tolerance) & (points[:, 0] < box.x1 - tolerance)
                  & (points[:, 1] > box.y0 + tolerance) & (points[:, 1] < box.y1 - tolerance))
        if inside.any():
            problems.append(f"the legend of {ax.get_title()!r} covers {int(inside.sum())} data points")
        problems += [f"the legend of {ax.get_title()!r} overlaps title {text!r}" for text, tb in titles
                     if _overlap(box, tb, tolerance)]
    return problems


def overlapping_nodes(ax, tolerance: float = 0.5, *, drawn: bool = False) -> list:
    """Pairs (collection, i, j) of scatter markers (graph nodes) of ``ax`` whose discs overlap by more
    than ``tolerance`` pixels, the disc of a marker being ``sqrt(size)`` points wide."""
    import numpy as np
    from matplotlib.collections import PathCollection

    if not drawn:
        ax.figure.canvas.draw()
    px_per_pt = ax.figure.dpi / 72
    found = []
    for c, coll in enumerate(a for a in ax.collections if isinstance(a, PathCollection) and a.get_visible()):
        centres = coll.get_offset_transform().transform(coll.get_offsets())
        if len(centres) < 2:
            continue
        sizes = np.broadcast_to(np.asarray(coll.get_sizes(), dtype=float), (len(centres),))
        radius = np.sqrt(sizes) / 2 * px_per_pt
        d = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
        clash = d < radius[:, None] + radius[None, :] - tolerance
        i, j = np.nonzero(np.triu(clash, 1))
        found += [(c, int(a), int(b)) for a, b in zip(i, j)]
    return found


def hidden_series(ax, tolerance: float = 1.0, *, drawn: bool = False) -> list:
    """Labelled lines of ``ax`` drawn entirely under a later one: (hidden, by) label pairs.

    A line is hidden when each of its vertices lies within ``tolerance`` pixels of a vertex of
    one later line whose markers are filled and at least as large (a hollow, wider ring lets the
    line under it show).
    """
    import numpy as np
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D

    if not drawn:
        ax.figure.canvas.draw()
    lines = [a for a in ax.get_lines() if isinstance(a, Line2D) and a.get_visible()
             and not str(a.get_label()).startswith("_") and len(a.get_xdata())]
    found = []
    for i, low in enumerate(lines):
        mine = low.get_transform().transform(np.column_stack(low.get_data()).astype(float))
        for high in lines[i + 1:]:
            theirs = high.get_transform().transform(np.column_stack(high.get_data()).astype(float))
            covered = np.hypot(*(mine[:, None, :] - theirs[None, :, :]).transpose(2, 0, 1)).min(axis=1) <= tolerance
            face = high.get_markerfacecolor()
            filled = high.get_marker() not in (None, "None", "", " ") and to_rgba(face)[3] > 0
            if covered.all() and filled and high.get_markersize() >= low.get_markersize():
                found.append((str(low.get_label()), str(high.get_label())))
    return found


def figure_problems(fig, tolerance: float = 1.0, *, nodes: bool = False) -> list:
    """Everything illegible about ``fig``, as sentences (empty when the figure is clean).

    Checks: texts overlapping inside one axes; a title or the suptitle overlapping another title
    or another axes' drawing area; texts reaching outside the figure; unexplained colours; a
    legend over its axes' bars, markers or line vertices, or over a title; a labelled series drawn
    entirely under another; with ``nodes``, graph
    nodes (scatter markers) overlapping each other.

    The figure is drawn once and every check reads that drawing (the checks change nothing; they
    drew the figure again each, 2 + 2 x axes draws, most of the cost of the drawing tests).
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = [f"{ax.get_title()!r}: {a!r} overlaps {b!r}" for ax in fig.axes
                for a, b in overlapping_labels(ax, tolerance, drawn=True)]
    titles = _titles(fig)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in titles]
    problems += [f"title {a!r} overlaps title {b!r}" for i, (a, ba) in enumerate(boxes)
                 for b, bb in boxes[i + 1:] if _overlap(ba, bb, tolerance)]
    for title in titles:
        box = title.get_window_extent(renderer)
        own = title.axes
        for ax in fig.axes:
            if ax is not own and ax.get_visible() and ax.axison and _overlap(box, ax.get_window_extent(renderer), tolerance):
                problems.append(f"title {title.get_text()!r} overlaps the axes titled {ax.get_title()!r}")
    whole = fig.bbox
    for text in _visible_texts(fig):
        box = text.get_window_extent(renderer)
        if box.x0 < whole.x0 - tolerance or box.y0 < whole.y0 - tolerance or \
                box.x1 > whole.x1 + tolerance or box.y1 > whole.y1 + tolerance:
            problems.append(f"text {text.get_text()!r} leaves the figure")
    problems += [f"colour {c} has no legend entry" for c in sorted(unexplained_colours(fig))]
    problems += legends_over_data(fig, tolerance, drawn=True)
    problems += [f"{ax.get_title()!r}: series {a!r} is hidden under {b!r}" for ax in fig.axes
                 for a, b in hidden_series(ax, tolerance, drawn=True)]
    if nodes:
        problems += [f"{ax.get_title()!r}: nodes {i} and {j} overlap" for ax in fig.axes
                     for _, i, j in overlapping_nodes(ax, tolerance, drawn=True)]
    return problems
