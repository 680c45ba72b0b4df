"""Hypothesis strategies for bodies that fit the catalogue, built from
host_catalogue.SCHEMA itself, and for any value of the CBOR subset."""

from __future__ import annotations

from typing import Any

import cbor2
from hypothesis import strategies as st

from baulk.firmware import names
from baulk.protocol import frame
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M

U64 = 2**64 - 1


def text(max_bytes: int) -> st.SearchStrategy[str]:
    return st.text(max_size=max_bytes // 4 + 1).filter(lambda s: len(s.encode()) <= max_bytes)


def _name(table: tuple[str, ...]) -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(0, len(table) - 1), st.integers(0, M.CODE_LIMIT), text(32))


def value_for(kind: int, a: Any, b: Any) -> st.SearchStrategy[Any]:
    if kind == M.UINT:
        return st.integers(a, b)
    if kind == M.INT:
        return st.integers(a, b)
    if kind == M.TEXT:
        return text(a)
    if kind == M.BOOL:
        return st.booleans()
    if kind == M.BYTES:
        return st.binary(min_size=a, max_size=b)
    if kind == C.MARKS:
        return st.lists(st.binary(min_size=4, max_size=4), max_size=a).map(b"".join)
    if kind in (M.NAME, M.WARNING):
        return _name(a)
    if kind == M.BALL_ON:
        return st.one_of(st.just(M.ANY_COLOUR), _name(names.BALLS))
    if kind == M.NAMES:
        return st.lists(_name(a), max_size=b)
    if kind == M.UINTS:
        n, lo, hi = a
        return st.lists(st.integers(lo, hi), min_size=n, max_size=n)
    if kind == M.COLOURS:
        return st.one_of(st.integers(0, 63), st.lists(_name(names.BALLS), max_size=6))
    if kind == M.FOUL:
        return st.fixed_dictionaries(
            {0: st.integers(0, 1), 1: st.integers(0, 0xFFFF), 2: _name(names.FOUL_KINDS)}
        )
    if kind == M.PLAYERS:
        name = text(M.NAME_BYTES)
        team = st.lists(name, min_size=1, max_size=2)
        return st.one_of(
            st.lists(name, min_size=2, max_size=2), st.lists(team, min_size=2, max_size=2)
        )
    raise AssertionError(kind)


def body_for(mtype: int) -> st.SearchStrategy[dict[Any, Any]]:
    schema = C.SCHEMA[mtype]
    required = {}
    optional = {}
    for k, (_label, kind, a, b, presence) in schema.items():
        s = value_for(kind, a, b)
        if presence & M.NUL:
            s = st.one_of(st.none(), s)
        (required if presence & M.REQ else optional)[k] = s
    return st.fixed_dictionaries(required, optional=optional)


def fits_a_frame(body: dict[Any, Any]) -> bool:
    """The body fits a match's frame: every body but an update_data's longer
    ones, which only the update mode reads (SPEC.md 2)."""
    return len(cbor2.dumps(body, canonical=True)) <= frame.MAX_BODY


def message() -> st.SearchStrategy[tuple[int, int, int, dict[Any, Any]]]:
    """(type, flags, seq16, body) of any catalogued message, in a match's frame."""
    return st.sampled_from(sorted(C.SCHEMA)).flatmap(
        lambda t: st.tuples(
            st.just(t),
            st.just(1 if M.is_reliable(t) else 0),
            st.integers(0, 0xFFFF),
            body_for(t).filter(fits_a_frame),
        )
    )


# Any value of the CBOR subset (for the codec itself).
scalars = st.one_of(
    st.integers(-(2**64), U64),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.booleans(),
    st.none(),
)


def subset_values(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(
                st.one_of(st.integers(-(2**64), U64), st.text(max_size=10)), inner, max_size=5
            ),
        ),
        max_leaves=max_leaves,
    )


def depth(v: Any) -> int:
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    return 0
