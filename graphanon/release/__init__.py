"""Releases: what an anonymizer publishes.

Every release kind implements the :class:`~graphanon.release.base.Release`
protocol: save/load (``graphanon-release/2``, JSON or JSON.gz), text
rendering by pseudonym, COUNT-query estimation over its possible worlds, and
a match graph against the original data. Anonymizers end with
:func:`publish`: rows shuffled by a secret permutation, a salted fingerprint
of the data (:func:`check_same_data`), and a private :class:`ReleaseLink`
that is never saved with the release (``docs/privacy.md``).

Kinds
-----
GlobalRecoding
    Every original item maps to one published item (a taxonomy node or a set
    of items) or is suppressed.
LocalRecoding
    Each record a multiset of taxonomy nodes; equal records form groups
    (Clump, Partition).
NonreciprocalRelease
    Bit-voting records (base, distance, threshold, label).
PerturbedRelease
    Plain transactions after items were swapped, removed or split (tendency hiding).
"""

from graphanon.release.base import FORMAT_TAG, Release, load_release, release_kinds
from graphanon.release.fingerprint import check_same_data, data_fingerprint
from graphanon.release.global_recoding import GlobalRecoding, PublishedItem
from graphanon.release.link import LINK_FORMAT_TAG, ReleaseLink, load_link
from graphanon.release.local_recoding import LocalRecoding, PublishedNode
from graphanon.release.nonreciprocal import NonreciprocalRelease
from graphanon.release.perturbed import PerturbedRelease, SplitLink, load_split_link
from graphanon.release.publish import publish

__all__ = [
    "FORMAT_TAG",
    "LINK_FORMAT_TAG",
    "GlobalRecoding",
    "LocalRecoding",
    "NonreciprocalRelease",
    "PerturbedRelease",
    "PublishedItem",
    "PublishedNode",
    "Release",
    "ReleaseLink",
    "SplitLink",
    "check_same_data",
    "data_fingerprint",
    "load_link",
    "load_release",
    "load_split_link",
    "publish",
    "release_kinds",
]
