# Deterministic JSON for the engine's state.
#
# CPython's and MicroPython's json modules differ in key order and spacing, but
# `baulk replay --engine micropython` must print the very same bytes as
# CPython.  So the engine writes its own JSON: objects are ordered pairs
# (``Obj``), spacing and escaping follow CPython's json.dumps defaults
# (", " / ": ", ASCII-only), which makes the output equal to
# ``json.dumps(obj.to_dict())`` on the host.

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
_HEX = "0123456789abcdef"


class Obj:
    """A JSON object whose keys keep the order they were added in."""

    def __init__(self, pairs):
        self.pairs = pairs

    def to_dict(self):
        return {k: plain(v) for k, v in self.pairs}


class Seq:
    """A JSON array whose items are made one at a time while it is written.

    The frame history grows with the match; writing it item by item keeps the
    heap needed to print a state the same for a 1-frame and a 35-frame match.
    """

    def __init__(self, length, item):
        self.length = length
        self.item = item

    def __len__(self):
        return self.length


def plain(value):
    """``value`` with every Obj and Seq turned into dicts and lists (host side)."""
    # Exact type tests: the shadow referee turns a state into a dict for
    # every batch of frames, and most values are plain ints and strings.
    kind = type(value)
    if kind is list:
        return [plain(v) for v in value]
    if kind is Obj:
        return value.to_dict()
    if kind is Seq:
        return [plain(value.item(i)) for i in range(value.length)]
    return value


def _u4(code):
    return (
        "\\u"
        + _HEX[(code >> 12) & 15]
        + _HEX[(code >> 8) & 15]
        + _HEX[(code >> 4) & 15]
        + _HEX[code & 15]
    )


def quote(text):
    parts = ['"']
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            parts.append(esc)
            continue
        code = ord(ch)
        if code < 0x20 or code > 0x7E:
            if code == 0x7F:
                parts.append(ch)
            elif code > 0xFFFF:
                # Outside the BMP: a UTF-16 surrogate pair, as json.dumps does.
                code -= 0x10000
                parts.append(_u4(0xD800 | (code >> 10)))
                parts.append(_u4(0xDC00 | (code & 0x3FF)))
            else:
                parts.append(_u4(code))
        else:
            parts.append(ch)
    parts.append('"')
    return "".join(parts)


class _Sink:
    # Lets _write stream to any write(str) callable without building a list.
    def __init__(self, write):
        self.append = write


def _write(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(quote(value))
    elif isinstance(value, Obj):
        out.append("{")
        first = True
        for key, item in value.pairs:
            if not first:
                out.append(", ")
            first = False
            out.append(quote(key))
            out.append(": ")
            _write(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        first = True
        for item in value:
            if not first:
                out.append(", ")
            first = False
            _write(item, out)
        out.append("]")
    elif isinstance(value, Seq):
        out.append("[")
        for i in range(value.length):
            if i:
                out.append(", ")
            _write(value.item(i), out)
        out.append("]")
    else:
        raise TypeError("cannot encode %r as JSON" % (value,))


def dumps(value):
    out = []  # type: list[str]
    _write(value, out)
    return "".join(out)


def dump(value, write):
    """Write ``value`` as JSON piece by piece to ``write`` (bounded memory)."""
    _write(value, _Sink(write))
