"""Legibility checks shared by the drawing tests."""


def overlapping_labels(ax, tolerance: float = 0.5) -> list:
    """Pairs of non-empty texts of ``ax`` whose rendered boxes overlap by more than ``tolerance`` pixels."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts if t.get_text().strip()]
    t = tolerance
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1:]
            if ba.x0 < bb.x1 - t and bb.x0 < ba.x1 - t and ba.y0 < bb.y1 - t and bb.y0 < ba.y1 - t]
