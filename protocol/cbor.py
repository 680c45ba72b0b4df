# The device's CBOR codec (RFC 8949), for exactly the subset SPEC.md "Body"
# allows: unsigned and negative integers up to 64 bits, byte and text strings,
# arrays, maps with integer or text keys, false, true and null, all of definite
# length.  No floats (boards differ in float width), no tags, no indefinite
# lengths, no duplicate keys.
#
# The encoder writes into a caller-owned bytearray and emits the deterministic
# form: shortest heads, map keys ordered by their encoded bytes, shorter first
# (the order cbor2 uses with canonical=True), so both implementations produce
# the same bytes for the same message.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


MAX_DEPTH = const(4)  # nested containers in one body (SPEC.md "Body")

_FALSE = const(0xF4)
_TRUE = const(0xF5)
_NULL = const(0xF6)


class EncodeError(ValueError):
    pass


class DecodeError(ValueError):
    pass


def _arg_len(arg):
    # Bytes a head takes for an argument (major type bits included).
    if arg < 24:
        return 1
    if arg < 0x100:
        return 2
    if arg < 0x10000:
        return 3
    if arg < 0x100000000:
        return 5
    return 9


def key_rank(key):
    """Sort key giving the deterministic map order for int and text keys."""
    if type(key) is int:
        if key >= 0:
            return (_arg_len(key), 0, key)
        return (_arg_len(-1 - key), 1, -1 - key)
    if type(key) is str:
        b = key.encode()
        return (_arg_len(len(b)) + len(b), 3, b)
    raise EncodeError("map keys are integers or text")


class Writer:
    """Encodes values into buf[pos:end]; raises EncodeError when they do not fit."""

    def __init__(self, buf, pos=0, end=-1):
        self.buf = buf
        self.mv = memoryview(buf)
        self.pos = pos
        self.end = len(buf) if end < 0 else end

    def head(self, major, arg):
        buf = self.buf
        p = self.pos
        mt = major << 5
        if arg < 24:
            if p + 1 > self.end:
                raise EncodeError("body too large")
            buf[p] = mt | arg
            self.pos = p + 1
            return
        if arg < 0x100:
            n = 1
            buf_info = 24
        elif arg < 0x10000:
            n = 2
            buf_info = 25
        elif arg < 0x100000000:
            n = 4
            buf_info = 26
        elif arg < 0x10000000000000000:
            n = 8
            buf_info = 27
        else:
            raise EncodeError("integer out of range")
        if p + 1 + n > self.end:
            raise EncodeError("body too large")
        buf[p] = mt | buf_info
        i = p + n
        while i > p:
            buf[i] = arg & 0xFF
            arg >>= 8
            i -= 1
        self.pos = p + 1 + n

    def raw(self, data):
        n = len(data)
        p = self.pos
        if p + n > self.end:
            raise EncodeError("body too large")
        self.mv[p : p + n] = data
        self.pos = p + n

    def value(self, obj, depth=0):
        if obj is None:
            self._byte(_NULL)
        elif obj is True:
            self._byte(_TRUE)
        elif obj is False:
            self._byte(_FALSE)
        else:
            t = type(obj)
            if t is int:
                if obj >= 0:
                    self.head(0, obj)
                else:
                    self.head(1, -1 - obj)
            elif t is str:
                b = obj.encode()
                self.head(3, len(b))
                self.raw(b)
            elif t is bytes or t is bytearray:
                self.head(2, len(obj))
                self.raw(obj)
            elif t is list or t is tuple:
                if depth >= MAX_DEPTH:
                    raise EncodeError("nested too deeply")
                self.head(4, len(obj))
                for x in obj:
                    self.value(x, depth + 1)
            elif t is dict:
                if depth >= MAX_DEPTH:
                    raise EncodeError("nested too deeply")
                self.head(5, len(obj))
                keys = sorted(obj, key=key_rank) if len(obj) > 1 else obj
                for k in keys:
                    if type(k) is not int and type(k) is not str:
                        raise EncodeError("map keys are integers or text")
                    self.value(k, depth + 1)
                    self.value(obj[k], depth + 1)
            else:
                raise EncodeError("cannot encode " + t.__name__)

    def _byte(self, b):
        p = self.pos
        if p + 1 > self.end:
            raise EncodeError("body too large")
        self.buf[p] = b
        self.pos = p + 1


def dumps(obj, limit=1024):
    """Deterministic encoding of obj as bytes (allocates; tests and tools)."""
    w = Writer(bytearray(limit))
    w.value(obj)
    return bytes(w.buf[: w.pos])


def _item(mv, p, end, depth):
    if p >= end:
        raise DecodeError("truncated")
    ib = mv[p]
    p += 1
    major = ib >> 5
    info = ib & 31
    if major == 7:
        if info == 20:
            return False, p
        if info == 21:
            return True, p
        if info == 22:
            return None, p
        raise DecodeError("floats, undefined and simple values are not allowed")
    if info < 24:
        arg = info
    elif info < 28:
        n = 1 << (info - 24)
        if p + n > end:
            raise DecodeError("truncated")
        arg = 0
        for i in range(p, p + n):
            arg = (arg << 8) | mv[i]
        p += n
    elif info == 31:
        raise DecodeError("indefinite lengths are not allowed")
    else:
        raise DecodeError("reserved additional information")
    if major == 0:
        return arg, p
    if major == 1:
        return -1 - arg, p
    if major == 2 or major == 3:
        if arg > end - p:
            raise DecodeError("truncated")
        q = p + arg
        if major == 2:
            return bytes(mv[p:q]), q
        try:
            return str(mv[p:q], "utf-8"), q
        except UnicodeError:
            raise DecodeError("text is not UTF-8")
    if major == 6:
        raise DecodeError("tags are not allowed")
    if depth >= MAX_DEPTH:
        raise DecodeError("nested too deeply")
    depth += 1
    if major == 4:
        if arg > end - p:  # every item takes at least one byte
            raise DecodeError("truncated")
        out = []
        for _ in range(arg):
            v, p = _item(mv, p, end, depth)
            out.append(v)
        return out, p
    # major 5: map
    if arg * 2 > end - p:
        raise DecodeError("truncated")
    d = {}
    for _ in range(arg):
        k, p = _item(mv, p, end, depth)
        if type(k) is not int and type(k) is not str:
            raise DecodeError("map keys are integers or text")
        if k in d:
            raise DecodeError("duplicate map key")
        v, p = _item(mv, p, end, depth)
        d[k] = v
    return d, p


def loads(data, start=0, end=-1):
    """Decode exactly one item from data[start:end]; raises DecodeError."""
    mv = memoryview(data)
    if end < 0:
        end = len(data)
    obj, p = _item(mv, start, end, 0)
    if p != end:
        raise DecodeError("trailing bytes after the body")
    return obj
