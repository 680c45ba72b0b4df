# Entry script for `baulk replay --engine micropython`: runs inside the
# MicroPython interpreter, with the firmware package mounted at /lib/baulk.
import sys

from baulk.firmware import replay

sys.exit(replay.main(sys.argv[1:], sys.stdout.write, sys.stderr.write))
