# A firmware bundle, as `baulk firmware bundle` writes it and the table reads
# it: declared here once, for the host's builder and the device's reader.
#
#   MAGIC | manifest length (4 bytes, big-endian) | manifest (one CBOR map)
#         | every file's bytes, in the manifest's order, nothing between them
#
# The manifest names everything the slot will hold, each file with its size
# and SHA-256, so a file checked against it is checked against the release.
# The bundle itself is the same for every board of a kind; what makes a table
# accept it is a tag made with that table's own key, beside the bundle:
#
#   tag = HMAC-SHA256(device key, TAG_DOMAIN + manifest bytes)
#
# TAG_DOMAIN keeps a tag from ever being a checkpoint's MAC under the same
# key, and a checkpoint's MAC from ever being a tag (docs/LEDGER.md).
#
# Read on the table by stage.py (parse(): the bounds below, paths under lib/
# of the slot, no "..", no absolute path) and record.py.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


MAGIC = b"BKFW"
FORMAT = const(1)
TAG_DOMAIN = b"baulk firmware bundle 1\x00"
HEAD_BYTES = const(8)  # MAGIC and the manifest's length
MAX_MANIFEST = const(4096)  # a manifest is read whole: its bound
MAX_FILES = const(64)
MAX_PATH = const(64)  # bytes of a file's path inside the slot

# the manifest's keys
M_FORMAT = const(0)  # FORMAT
M_VERSION = const(1)  # the firmware's version, [major, minor, patch]
M_ENGINE = const(2)  # the rules engine's version, an integer
M_MPY = const(3)  # the .mpy ABI: version | sub-version << 8 (sys.implementation._mpy & 0x3FF)
M_ARCH = const(4)  # the .mpy's native architecture: "armv6m", "xtensawin"
M_BOARD = const(5)  # the board kind: "pico", "esp32"
M_FILES = const(6)  # [[path, size, sha256 (32 bytes)], ...], paths relative to the slot
M_SIZE = const(7)  # the files' bytes together: what follows the manifest
