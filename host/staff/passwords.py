"""Passwords and PINs, hashed with argon2id (argon2-cffi).

The parameters make one hash cost about 100–250 ms on the venue's PC (the
README has the figure, from bench/signin_bench.py): slow enough that a copy
of the store is costly to guess through, quick enough for a sign-in.  One
lane: the daemon checks one sign-in at a time on one core
(host/web/auth.py), so the other core stays with the tables.

Nothing here raises on what a client sent: a hash or a secret that cannot
be checked is a wrong one.
"""

from __future__ import annotations

import functools

from argon2 import PasswordHasher
from argon2.exceptions import Argon2Error

TIME_COST = 3
MEMORY_KIB = 64 * 1024
LANES = 1

HASHER = PasswordHasher(time_cost=TIME_COST, memory_cost=MEMORY_KIB, parallelism=LANES)


def hash_secret(secret: str) -> str:
    return HASHER.hash(secret)


@functools.cache
def _stand_in() -> str:
    """A hash of nothing anyone knows: checked against when a name has no
    account (or no PIN), so such a sign-in costs what a real one does."""
    return HASHER.hash("no account has this secret: it stands in for a missing hash")


def verify_secret(hashed: str | None, secret: str) -> bool:
    """Whether ``secret`` is the one hashed; False for anything else, a
    missing or broken hash included (and then the same work is done)."""
    try:
        return bool(HASHER.verify(hashed or _stand_in(), secret)) and hashed is not None
    except (Argon2Error, ValueError, TypeError, UnicodeError):
        return False
