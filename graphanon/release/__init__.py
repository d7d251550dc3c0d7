"""Releases: what an anonymizer publishes.

Every release kind implements the :class:`~graphanon.release.base.Release`
protocol: save/load (``graphanon-release/1``, JSON or JSON.gz), text
rendering, COUNT-query estimation over its possible worlds, and a match graph
against the original data.

Kinds
-----
GlobalRecoding
    Every original item maps to one published item (a taxonomy node or a set
    of items) or is suppressed.
"""

from graphanon.release.base import FORMAT_TAG, Release, load_release, release_kinds
from graphanon.release.global_recoding import GlobalRecoding, PublishedItem

__all__ = [
    "FORMAT_TAG",
    "GlobalRecoding",
    "PublishedItem",
    "Release",
    "load_release",
    "release_kinds",
]
from graphanon.release.nonreciprocal import NonreciprocalRelease  # noqa: E402

__all__ += ["NonreciprocalRelease"]
