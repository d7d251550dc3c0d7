"""Helpers for ``--param name=value`` pairs shared by algorithms and audit models (bottom layer)."""

from __future__ import annotations

__all__ = ["expand_params"]


def expand_params(params: dict, known: set) -> dict:
    """Accept ``--param h=0.4,p=2,private=a,b`` as well as separate ``--param`` pairs.

    A value holding ``,name=`` for a known ``name`` is split into several
    parameters; other commas stay (they separate the items of a list).

    Examples
    --------
    >>> expand_params({"h": "0.4,p=2,private=a,b"}, {"h", "p", "private"})
    {'h': '0.4', 'p': '2', 'private': 'a,b'}
    """
    out: dict = {}
    for name, value in params.items():
        current = name
        parts: dict = {current: []}
        for tok in str(value).split(","):
            key, sep, rest = tok.partition("=")
            if sep and key.strip() in known:
                current = key.strip()
                parts[current] = [rest]
            else:
                parts[current].append(tok)
        for key, toks in parts.items():
            out[key] = ",".join(toks)
    return out
