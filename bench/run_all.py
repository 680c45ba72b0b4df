"""Run every benchmark script in bench/ and print their figures one after another.

.venv/bin/python bench/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Scripts that run inside MicroPython or are shared helpers are not entry points.
SKIP_PREFIXES = ("mp_", "protocol_common", "protocol_encode_mp", "run_all")


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("*.py")):
        if script.stem.startswith(SKIP_PREFIXES) or script.stem.endswith("_common"):
            continue
        print(f"\n## {script.name}\n", flush=True)
        done = subprocess.run([sys.executable, str(script)], check=False)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
