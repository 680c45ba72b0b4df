"""A player's name as the registry knows it: one key for every way the same
name gets typed.

A venue's operators type names on different keyboards: a Persian layout
gives ``ی`` and ``ک``, an Arabic one ``ي`` and ``ك``; some put a zero-width
non-joiner (a half space) inside a compound name (``محمد‌رضا``), some a
space, some nothing;
digits come as ``۱۲``, ``١٢`` or ``12``; Latin names in any case, with or
without accents.  :func:`player_key` folds all of these into one key, so the
same player is found across matches.  The key has no spaces at all, because
``Mohammad Reza``, ``MohammadReza`` and ``محمد‌رضا`` are written all three
ways for one person; :func:`name_words` keeps the word breaks for a search
by any word of the name.

Only the standard library's Unicode database is used: the folding needed
here is a handful of letter variants on top of NFKD, which a Persian
text-processing toolkit would bring in with far more than it is needed for.
"""

from __future__ import annotations

import unicodedata

# Arabic letters that a Persian name writes with another code point (the
# same letter to a reader): yeh, kaf, heh and alef variants.  Hamza and madda
# marks are combining characters after NFKD and go with the other marks.
_LETTERS = str.maketrans(
    {
        "\u064a": "\u06cc",  # ARABIC LETTER YEH -> FARSI YEH
        "\u0649": "\u06cc",  # ALEF MAKSURA -> FARSI YEH
        "\u0643": "\u06a9",  # ARABIC LETTER KAF -> KEHEH
        "\u06aa": "\u06a9",  # SWASH KAF -> KEHEH
        "\u0629": "\u0647",  # TEH MARBUTA -> HEH
        "\u06c0": "\u0647",  # HEH WITH YEH ABOVE -> HEH
        "\u06c1": "\u0647",  # HEH GOAL -> HEH
        "\u06d5": "\u0647",  # AE -> HEH
        "\u0671": "\u0627",  # ALEF WASLA -> ALEF
        "\u0640": None,  # TATWEEL (a stretch of the line, not a letter)
    }
)

# Longest key kept (a name on the wire is at most 48 bytes of UTF-8).
MAX_KEY = 64


def name_words(name: str) -> str:
    """The name's words, folded (see the module's text), one space apart."""
    text = unicodedata.normalize("NFKD", name).casefold()
    out: list[str] = []
    for c in text:
        cat = unicodedata.category(c)
        if cat == "Mn" or cat == "Me":
            continue  # accents, harakat, hamza above: spelt or not
        if cat == "Nd":
            out.append(str(unicodedata.decimal(c)))  # ۱ ١ 1 alike
        elif c == "\u200c":
            out.append(" ")  # ZERO WIDTH NON-JOINER: the half space between parts of a name
        elif cat == "Cf":
            continue  # zero-width joiner, bidi marks
        elif cat[0] in "LN":
            out.append(c)
        else:
            out.append(" ")  # spaces, punctuation, symbols: a word break
    words = "".join(out).translate(_LETTERS).split()
    return " ".join(words)[:MAX_KEY]


def player_key(name: str) -> str:
    """The registry's key of a name: its folded words run together.  A name
    of nothing but punctuation keeps its own characters (still folded), so
    no key is empty."""
    key = name_words(name).replace(" ", "")
    if key:
        return key
    folded = unicodedata.normalize("NFKC", name).casefold()
    kept = "".join(c for c in folded if not c.isspace() and unicodedata.category(c) != "Cf")
    return kept[:MAX_KEY] or "?"
