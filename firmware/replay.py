# `baulk replay`: feed a JSON Lines scenario to the engine and print states.
#
# This driver runs under CPython (the host CLI) and under MicroPython (the
# `--engine micropython` path, from the source tree: it is not on the board),
# so the bytes it prints
# must not depend on the interpreter: the engine writes its own JSON.

import json

from .engine import Engine, Rejected

EXIT_OK = 0
EXIT_BAD_FILE = 2
EXIT_REJECTED = 3


class ScenarioError(Exception):
    """The file cannot be read or a line is not a JSON object (exit 2)."""


def parse_lines(text):
    """Return [(line_number, event_dict)] for every event line in ``text``."""
    events = []
    number = 0
    for raw in text.split("\n"):
        number += 1
        line = raw.strip()
        if not line or line[0] == "#":
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            raise ScenarioError("line %d: not valid JSON" % number)
        if not isinstance(ev, dict):
            raise ScenarioError("line %d: not a JSON object" % number)
        events.append((number, ev))
    return events


def read_scenario(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        raise ScenarioError("cannot read %s" % path)
    try:
        text = data.decode("utf-8")
    except UnicodeError:
        raise ScenarioError("%s is not UTF-8 text" % path)
    return parse_lines(text)


def run(events, each, write):
    """Feed ``events`` to a fresh engine; ``write`` gets each output line."""
    engine = Engine()
    rejected = []
    for number, ev in events:
        try:
            engine.apply(ev)
        except Rejected as why:
            rejected.append((number, str(why.args[0]) if why.args else "rejected"))
        if each:
            engine.write_json(write, rejected)
            write("\n")
    if not each:
        engine.write_json(write, rejected)
        write("\n")
    return EXIT_REJECTED if rejected else EXIT_OK


def main(argv, write, warn):
    """Command-line entry shared by both interpreters: replay PATH [--each]."""
    each = "--each" in argv
    paths = [a for a in argv if a != "--each"]
    if len(paths) != 1:
        warn("usage: replay FILE [--each]\n")
        return EXIT_BAD_FILE
    try:
        events = read_scenario(paths[0])
    except ScenarioError as why:
        warn("baulk replay: %s\n" % why.args[0])
        return EXIT_BAD_FILE
    return run(events, each, write)
