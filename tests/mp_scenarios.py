# Replays scenario files with --each and prints every state, framed by a
# header line per file.  The very same script runs under CPython and under
# MicroPython; the two outputs must be byte-identical.
import sys

from baulk.firmware import replay


def main(paths):
    write = sys.stdout.write
    for path in paths:
        try:
            events = replay.read_scenario(path)
        except replay.ScenarioError as why:
            write("== %s unreadable: %s\n" % (path, why.args[0]))
            continue
        lines = []
        status = replay.run(events, True, lines.append)
        write("== %s exit %d\n" % (path, status))
        for line in lines:
            write(line)


main(sys.argv[1:])
