"""The guessing cap: how often a sign-in may be checked, per account and in
all, however many addresses and connections the attempts come from.

A guess is only worth something when it is checked, so the cap decides
*before* the check, and an attempt it holds back is answered 429 unchecked:
the right password then gets the same 429 as a wrong one, and a guesser
learns nothing (the old throttle let a right guess through at 252 tries a
second).  Each account has its own growing delay: a few failures are free,
then each one more doubles the wait before the next check, up to a ceiling;
the failures are forgotten after an hour without one.  Every check from a
browser the account never signed in from also takes a token from one bucket
for the whole server, so spraying many accounts is capped as well, and the
one core the checks run on (argon2, host/staff/passwords.py) stays mostly
free for the tables.

A browser an account has signed in from before carries a device cookie
(host/web/auth.py): its attempts for that account are counted apart, with
their own budget, so a stranger's guesses never shut the real person out on
his own phone.  A PIN (a desk clerk's on the shared tablet) is held harder:
fewer free failures, a longer first delay, and after ten failures in a row
the PIN is refused until the account signs in with its password or the
owner sets a new PIN.  Memory stays bounded: state is kept per real account
and per trusted device, never per address or per name tried.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Schedule:
    free: int  # failures that cost no wait; the next attempt waits
    first_s: float  # the wait after the first failure past them; doubles with each one
    most_s: float  # the longest wait
    lock_after: int = 0  # failures in a row that lock it (0: never)
    forget_s: float = 3600.0  # an hour without a failure clears the count


PASSWORD = Schedule(free=5, first_s=2.0, most_s=600.0)
TRUSTED = Schedule(free=10, first_s=2.0, most_s=600.0)
PIN = Schedule(free=3, first_s=30.0, most_s=3600.0, lock_after=10)
BUCKET = 30  # checks from unknown browsers the whole server makes at once ...
REFILL_PER_S = 0.5  # ... and then one every two seconds
KEYS_MOST = 10_000  # accounts and trusted devices remembered at most
LOCKED = math.inf


@dataclass
class _State:
    failures: int = 0
    last_s: float = 0.0
    checking: bool = False


class Guessing:
    def __init__(
        self,
        bucket: int = BUCKET,
        refill_per_s: float = REFILL_PER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bucket = bucket
        self.refill_per_s = refill_per_s
        # Seconds, monotonic; a test holds it still, so that a hold lasts as
        # long as the test needs on a machine too busy to keep to 2 s.
        self.clock = clock
        self.tokens = float(bucket)
        self.filled_s = clock()
        self.states: dict[str, _State] = {}
        self.checked = 0  # attempts let through to a check
        self.held = 0  # attempts answered 429 unchecked

    def _state(self, key: str) -> _State:
        s = self.states.get(key)
        if s is None:
            if len(self.states) >= KEYS_MOST:  # the oldest idle one goes
                idle = next((k for k, v in self.states.items() if not v.checking), None)
                if idle is not None:
                    del self.states[idle]
            s = self.states[key] = _State()
        return s

    def _refill(self, now: float) -> None:
        gained = max(0.0, now - self.filled_s) * self.refill_per_s
        self.tokens = min(self.bucket, self.tokens + gained)
        self.filled_s = max(now, self.filled_s)

    @staticmethod
    def _wait(s: _State, plan: Schedule, now: float) -> float:
        if s.failures and now - s.last_s >= plan.forget_s and not plan.lock_after:
            s.failures = 0
        if plan.lock_after and s.failures >= plan.lock_after:
            return LOCKED
        past = s.failures - plan.free + 1  # the failure that used the last free one waits
        if past <= 0:
            return 0.0
        delay: float = min(plan.first_s * 2.0 ** (past - 1), plan.most_s)
        return max(0.0, s.last_s + delay - now)

    def waiting(self, key: str, plan: Schedule, now: float | None = None) -> float:
        """How long ``key`` is held back, without counting anything."""
        s = self.states.get(key)
        if s is None:
            return 0.0
        return self._wait(s, plan, self.clock() if now is None else now)

    def begin(self, key: str, plan: Schedule, trusted: bool, now: float | None = None) -> float:
        """May an attempt for ``key`` be checked now?  0: yes, and it is
        marked as being checked until :meth:`end`; else the seconds to wait
        (``LOCKED``: until a password sign-in or a new PIN)."""
        now = self.clock() if now is None else now
        s = self._state(key)
        wait = self._wait(s, plan, now)
        if wait == 0 and s.checking:
            wait = 1.0  # one check of an account at a time
        if wait == 0 and not trusted:
            self._refill(now)
            if self.tokens < 1:
                wait = (1 - self.tokens) / self.refill_per_s
            else:
                self.tokens -= 1
        if wait > 0:
            self.held += 1
            return wait
        s.checking = True
        self.checked += 1
        return 0.0

    def end(self, key: str, ok: bool, now: float | None = None) -> None:
        """The check of an attempt :meth:`begin` let through came out ``ok``."""
        now = self.clock() if now is None else now
        s = self._state(key)
        s.checking = False
        if ok:
            s.failures = 0
        else:
            s.failures += 1
            s.last_s = now

    def failed(self, key: str, now: float | None = None) -> None:
        """A failure checked without :meth:`begin` (a wrong bearer token)."""
        self._state(key).failures += 1
        self._state(key).last_s = self.clock() if now is None else now

    def clear(self, key: str) -> None:
        """Forget a key's failures (a PIN set anew, a password sign-in)."""
        self.states.pop(key, None)
