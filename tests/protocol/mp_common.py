# Shared by the scripts that run under MicroPython (and CPython): JSON <->
# CBOR values with their types kept, as vectors.json writes them.
from baulk.protocol import cbor


def to_json(v):
    t = type(v)
    if t is dict:
        keys = sorted(v, key=cbor.key_rank)
        return {"map": [[to_json(k), to_json(v[k])] for k in keys]}
    if t is list:
        return [to_json(x) for x in v]
    if t is bytes:
        return {"bytes": "".join("%02x" % b for b in v)}
    return v


def from_json(v):
    t = type(v)
    if t is dict:
        if "map" in v:
            d = {}
            for k, x in v["map"]:
                d[from_json(k)] = from_json(x)
            return d
        return bytes.fromhex(v["bytes"])
    if t is list:
        return [from_json(x) for x in v]
    return v
