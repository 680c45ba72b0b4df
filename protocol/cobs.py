# Consistent Overhead Byte Stuffing: removes every 0x00 from a frame so that
# 0x00 can delimit frames on the serial line.  A receiver that lost sync (noise,
# a cable plugged in mid-frame) is back in step at the very next 0x00.
#
# Encoding is canonical (SPEC.md "Framing"): a block of 254 data bytes (code
# 0xFF) that ends the frame is not followed by an empty block.  Both functions
# work on caller-owned buffers so the device's hot path allocates nothing.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_FULL = const(0xFF)


def max_encoded_len(n):
    """Bytes that encode_into may write for n input bytes, delimiter included."""
    return n + n // 254 + 2


def encode_into(src, n, dst, start=0):
    """Stuff src[0:n] into dst[start:], append the 0x00 delimiter.

    Returns the index in dst just past the delimiter.  dst must have room for
    max_encoded_len(n) bytes from start.
    """
    code_at = start
    out = start + 1
    code = 1
    for i in range(n):
        if code == _FULL:  # block full: close it (no implied zero) and open another
            dst[code_at] = _FULL
            code_at = out
            out += 1
            code = 1
        b = src[i]
        if b == 0:
            dst[code_at] = code
            code_at = out
            out += 1
            code = 1
        else:
            dst[out] = b
            out += 1
            code += 1
    dst[code_at] = code
    dst[out] = 0
    return out + 1


def encode(data):
    """Stuffed copy of data with its trailing 0x00 delimiter (allocates)."""
    n = len(data)
    buf = bytearray(max_encoded_len(n))
    end = encode_into(data, n, buf)
    return bytes(buf[:end])


def decode_into(src, n, dst):
    """Unstuff src[0:n] (one frame, delimiter excluded) into dst.

    dst may be src itself: decoding in place is safe because the output never
    overtakes the input.  Returns the decoded length, or -1 when the stuffing is
    malformed (a 0x00 inside the frame, or a block running past the end).
    """
    i = 0
    out = 0
    while i < n:
        code = src[i]
        if code == 0:
            return -1
        end = i + code
        if end > n:
            return -1
        i += 1
        while i < end:
            b = src[i]
            if b == 0:
                return -1
            dst[out] = b
            out += 1
            i += 1
        if code != _FULL and i < n:
            dst[out] = 0
            out += 1
    return out


def decode(data):
    """Unstuffed copy of one frame (no delimiter); raises ValueError if malformed."""
    buf = bytearray(len(data))
    n = decode_into(data, len(data), buf)
    if n < 0:
        raise ValueError("malformed COBS")
    return bytes(buf[:n])
