"""Wrong operator tokens, counted per client address and over all addresses.

The right token is always taken.  A throttle that refused it after ten wrong
ones would let anyone sharing the operator's address (a club's one NAT
address, a guest on the Wi-Fi) lock the desk out.  Wrong tokens past a budget,
from one address or from all of them together (guesses spread over many
addresses), are answered 429 after a pause, so guessing stays slow however
many addresses try; with tokens of the length the config asks for, guessing
is hopeless at that pace anyway.
"""

from __future__ import annotations

import time
from collections import deque

PER_CLIENT = 10  # wrong tokens from one address within WINDOW_S before 429s
IN_ALL = 100  # ... and from every address together
WINDOW_S = 60.0
PAUSE_S = 1.0  # a 429 for a wrong token waits this long before it is sent
CLIENTS = 4096  # addresses remembered at most (memory stays bounded)


class AuthThrottle:
    def __init__(
        self,
        per_client: int = PER_CLIENT,
        in_all: int = IN_ALL,
        window_s: float = WINDOW_S,
        clients: int = CLIENTS,
    ) -> None:
        self.per_client = per_client
        self.in_all = in_all
        self.window_s = window_s
        self.clients = clients
        self.failures: dict[str, deque[float]] = {}
        self.everyone: deque[float] = deque(maxlen=in_all)
        self.refused = 0  # wrong tokens answered 429

    def _recent(self, times: deque[float], now: float) -> deque[float]:
        while times and now - times[0] >= self.window_s:
            times.popleft()
        return times

    def failed(self, client: str, now: float | None = None) -> float:
        """Count a wrong token; returns 0 while the budgets hold, else the
        seconds until the client's (or everyone's) oldest failure leaves the
        window: the caller answers 429 with that as Retry-After."""
        now = time.monotonic() if now is None else now
        times = self.failures.get(client)
        if times is None:
            if len(self.failures) >= self.clients:  # forget the oldest address
                del self.failures[next(iter(self.failures))]
            times = self.failures[client] = deque(maxlen=self.per_client)
        mine = self._recent(times, now)
        everyone = self._recent(self.everyone, now)
        over = []
        if len(mine) >= self.per_client:
            over.append(mine[0] + self.window_s - now)
        if len(everyone) >= self.in_all:
            over.append(everyone[0] + self.window_s - now)
        mine.append(now)
        everyone.append(now)
        if not over:
            return 0.0
        self.refused += 1
        return max(over)
