"""What a name may hold (a player's, the operator's, a payer's) and what a
line of free text may hold (a reason, an item), and how a name that came
from elsewhere (a table's match event) is shown when it breaks them.

A name is written on the boards, the console, receipts and, drawn by the
host, on the referee's 1-bit handset.  It may not hold what would hide in
it or change the text around it: controls, invisible format characters
(zero-width spaces, direction overrides and isolates such as U+202E),
fillers that draw nothing (the Hangul fillers U+3164, U+115F, U+1160 and
U+FFA0, the braille blank U+2800, the combining grapheme joiner U+034F,
variation selectors and every other default-ignorable character), spaces
other than the plain one, line and paragraph separators, private-use,
unassigned and surrogate code points.  Nor emoji and other pictures
(symbols, enclosing marks, symbols outside ASCII): the boards' fonts and
the handset cannot draw them.  It must hold a letter or a digit.  The
zero-width non-joiner stays: Persian writes names with it.

Free text follows the same rules, but may also hold currency and
mathematical signs ("refund 5 €", "2 × 45 min").
"""

from __future__ import annotations

import unicodedata

from baulk.host.sentences import Message

NAME_BYTES = 48  # the device's limit for a name (UTF-8)
# A line of free text (a reason, a payer's note): the desk's and the request
# models' bound, declared here so the club and the web side share it.
TEXT_BYTES = 200
# The name the configured operator_token acts under (the bootstrap owner):
# no account may take it, and pages and receipts say it in their language.
OPERATOR = "operator"
ZWNJ = "\u200c"
SHOWN_UNREADABLE = "?"  # a table's name with nothing left to show

_NOT_TEXT = frozenset(("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"))
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) that
# are not already Cf or Cn: letters and marks that draw nothing.
_IGNORABLE = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors (an emoji's presentation)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
_BLANK = frozenset(("\u2800",))  # drawn as nothing: the braille blank
_PICTURES = frozenset(("So", "Me"))  # emoji, dingbats, keycaps and other enclosing marks
_SIGNS = frozenset(("Sk", "Sm", "Sc"))  # outside ASCII: modifiers (skin tones), math, currency


def _ignorable(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def refused_char(c: str, free_text: bool = False) -> str | None:
    """Why a character may not be in a name (or in free text), or None."""
    if c == ZWNJ:
        return None
    cat = unicodedata.category(c)
    cp = ord(c)
    if cat in _NOT_TEXT or _ignorable(cp) or c in _BLANK or (cat == "Zs" and c != " "):
        return "invisible"
    if cat in _PICTURES or (cp > 0x7F and cat in _SIGNS and not (free_text and cat != "Sk")):
        return "picture"
    return None


def problem(text: str, what: str, free_text: bool = False) -> Message | None:
    """The sentence that says why ``text`` breaks the rules, or None."""
    for c in text:
        why = refused_char(c, free_text)
        if why == "invisible":
            return Message(
                "{what} must not hold control, invisible or direction characters ({text})",
                what=what,
                text=f"U+{ord(c):04X}",
            )
        if why == "picture":
            return Message(
                "{what} must not hold emoji or symbols ({text}): "
                "the boards and the handset cannot draw them",
                what=what,
                text=f"U+{ord(c):04X}",
            )
    if not free_text and not any(unicodedata.category(c)[0] in "LN" for c in text):
        return Message("{what} must hold a letter or a digit", what=what)
    return None


def shown_name(name: object) -> str:
    """A name that came from elsewhere (a table's match event, which the host
    cannot refuse), as it is shown: without the characters the rules refuse,
    spaces run together, within NAME_BYTES; ``SHOWN_UNREADABLE`` when no
    letter or digit is left."""
    text = name if isinstance(name, str) else str(name)
    kept = "".join(" " if c.isspace() else c for c in text if c.isspace() or not refused_char(c))
    kept = " ".join(kept.split())
    while len(kept.encode()) > NAME_BYTES:
        kept = kept[:-1]
    kept = kept.strip()
    if not any(unicodedata.category(c)[0] in "LN" for c in kept):
        return SHOWN_UNREADABLE
    return kept


def shown_players(players: object) -> object:
    """A match's players (two names, or two pairs) as they are shown."""
    if not isinstance(players, list):
        return players
    return [
        [shown_name(p) for p in side] if isinstance(side, list) else shown_name(side)
        for side in players
    ]
