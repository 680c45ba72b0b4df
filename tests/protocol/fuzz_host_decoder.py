"""Coverage-guided fuzzing of the host decoder with atheris (run by hand; the
hypothesis fuzz tests in test_wire_host_decoder.py run in every `make test`).

    .venv/bin/pip install atheris
    .venv/bin/python tests/protocol/fuzz_host_decoder.py -atheris_runs=200000

Each input is fed to decode_frame, to parse, and as a byte stream, in pieces,
to a StreamDecoder followed by one good frame, which must come out intact.
Any exception out of the decoder, or a lost good frame, is a crash.
"""

from __future__ import annotations

import contextlib
import sys

import atheris

with atheris.instrument_imports():
    from baulk.protocol import frame, host_codec
    from baulk.protocol import messages as M

GOOD_BODY = M.event_body({"ev": "pot", "ball": "red", "pocket": "tl"}, [45, 120])
GOOD = frame.encode_frame(M.EVENT, frame.FLAG_REL, 41, GOOD_BODY)


def one_input(data: bytes) -> None:
    f = host_codec.decode_frame(data)
    assert isinstance(f, host_codec.Frame)
    with contextlib.suppress(host_codec.FrameError):
        host_codec.parse(data)
    s = host_codec.StreamDecoder()
    cut = data[0] if data else 0
    out = s.feed(data[:cut]) + s.feed(data[cut:]) + s.feed(b"\x00" + GOOD)
    assert s.pending() < frame.MAX_WIRE
    last = out[-1]
    assert last.error is None and last.body == GOOD_BODY and last.seq == 41, out[-3:]


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
