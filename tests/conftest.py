"""Settings shared by every test folder."""

from __future__ import annotations

from hypothesis import settings

# Hypothesis's per-example deadline is a wall-clock limit: on a machine whose
# cores are busy with other work a fast example can take 10x its usual time
# and fail for that alone.  Tests wait for events, never for a time, so the
# deadline is off everywhere (speed lives in bench/).
settings.register_profile("baulk", deadline=None)
settings.load_profile("baulk")
