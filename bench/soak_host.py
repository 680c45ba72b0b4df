"""Soak of the host: 16 tables x 200 frames into ``baulk run``, RSS sampled
(tests/chaos/soak.py).

.venv/bin/python bench/soak_host.py [--tables 16] [--frames 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.soak import host_rss


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        f = host_rss(Path(tmp), a.tables, a.frames, a.seed)
    print(json.dumps(f))
    return 1 if f["lost"] or f["doubled"] or f["log_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
