# The catalogue's text accessors (protocol/messages.py) under MicroPython,
# as on a board: no host_catalogue loaded, so the device's own text alone.
# CPython (tests/protocol/test_wire_catalogue_text.py) writes what the host's
# views say into a JSON file; this reads it and prints one line per
# disagreement, then "checked N".
#   micropython mp_catalogue.py EXPECTED.json
import json
import sys

from baulk.protocol import messages as M


def plain(v):
    # tuples (a names table, items,lo,hi) as lists, as JSON has them
    if type(v) is tuple or type(v) is list:
        return [plain(x) for x in v]
    return v


want = json.load(open(sys.argv[1]))
n = 0
for mtype, t in want["types"]:
    n += 1
    got = M.type_of(mtype)
    if plain(got) != t:
        print("FAIL type %s: %s, not %s" % (mtype, got, t))
    if M.is_reliable(mtype) != (t is not None and t[2]):
        print("FAIL is_reliable %s" % mtype)
for mtype, keys in want["schemas"]:
    n += 1
    got = M.schema(mtype)
    got = None if got is None else [[k, plain(got[k])] for k in sorted(got)]  # no order on MP
    if got != keys:
        print("FAIL schema %s: %s, not %s" % (mtype, got, keys))
for name, key, entry in want["raw"]:
    n += 1
    if plain(M._raw(name)) != [key, entry]:
        print("FAIL raw %s: %s" % (name, M._raw(name)))
    if plain(M._raw_at(key)) != entry:
        print("FAIL raw key %d: %s" % (key, M._raw_at(key)))
for name in want["not_raw"]:
    n += 1
    if M._raw(name) is not None:
        print("FAIL %r found as a raw key" % name)
for key in want["not_raw_keys"]:
    n += 1
    if M._raw_at(key) is not None:
        print("FAIL %r found as a raw key" % key)
print("checked %d" % n)
