"""The handset's words in Persian, by their English text.

The firmware writes its screens in English (firmware/screens.py,
firmware/keypad_flow.py) and the Persian handset shows, in place of each
English text, its Persian from the one catalogue
(host/locale/fa/LC_MESSAGES/baulk.po, context ``handset``), drawn at build
time (host/handset/font.py).  Spaces at either end of the English text do
not count.  A new screen's Persian is an entry of that context; the tests
render every screen in Persian and fail on any English text without its
Persian.

Numbers stay out of the texts (the handset draws them in Persian digits), and
so do names: "FOUL 4>Reza" is the texts "FOUL" and ">" with the number 4 and
the name between them, each drawn right to left in its place.
"""

from __future__ import annotations

from baulk.firmware import keypad_flow, menu, names
from baulk.host.referee.stats_html import BALL_NAMES
from baulk.host.sentences import DEVICE, catalogue, placeholders

# The keys' legends (hardware/keypad.md), by keypad_flow.KEY_NAMES: English as
# printed on the caps, Persian as printed under it on a Persian handset's
# sheet (scripts/keypad_legends.py) and as the handset's hints name the keys.
KEYS = {
    "red": ("RED", "قرمز"),
    "yellow": ("YELLOW", "زرد"),
    "green": ("GREEN", "سبز"),
    "brown": ("BROWN", "قهوه‌ای"),
    "blue": ("BLUE", "آبی"),
    "pink": ("PINK", "صورتی"),
    "black": ("BLACK", "سیاه"),
    "white": ("WHITE", "سفید"),
    "foul": ("FOUL", "خطا"),
    "miss": ("MISS", "میس"),
    "free": ("FREE BALL", "توپ آزاد"),
    "again": ("PLAY AGN", "دوباره"),
    "replace": ("REPLACE", "بازگردانی"),
    "undo": ("UNDO", "برگرداندن"),
    "concede": ("CONCEDE", "واگذاری"),
    "menu": ("MENU", "منو"),
    "ok": ("OK", "تأیید"),
    "back": ("BACK", "برگشت"),
    "nom": ("NOM", "اعلام"),
    "off": ("OFF", "بیرون"),
}
# The balls' Persian names: one list for the reports and the handset.
BALLS = BALL_NAMES["fa"]
# screens.abbr: English shortens a ball's name to three letters; Persian need not.
ABBR = {"red": "red", "yel": "yellow", "grn": "green", "brn": "brown", "blu": "blue"}
ABBR.update({"pnk": "pink", "blk": "black", "wht": "white"})
POCKETS = {
    "tl": "بالا چپ",
    "tr": "بالا راست",
    "ml": "وسط چپ",
    "mr": "وسط راست",
    "bl": "پایین چپ",
    "br": "پایین راست",
}
# The foul list (keypad_flow.foul_label), two to a row: short words.
FOULS = {
    "double_hit": "دوبار زدن",
    "feet_off_floor": "پا از زمین",
    "out_of_turn": "بی‌نوبت",
    "outside_d": "بیرون دی",
    "no_contact": "بی‌برخورد",
    "in_off": "سفید گل",
    "free_ball_snooker": "اسنوکر آزاد",
    "jump": "پرش",
    "cue": "چوب",
    "conferring": "مشورت",
    "before_rest": "قبل ایست",
    "before_spot": "قبل چیدن",
    "pot_not_on": "گل ناهدف",
    "wrong_ball_first": "توپ اشتباه",
    "push": "هل دادن",
    "touch": "لمس توپ",
    "off_table": "بیرون میز",
    "two_balls": "دو توپ",
    "ball_off_table_used": "توپ بیرون",
    "measuring": "اندازه‌گیری",
    "red_after_red": "قرمز دوم",
    "non_cue_ball": "غیرسفید",
    "no_declaration": "بی‌اعلام",
    "foul_before_nomination": "قبل اعلام",
}

# The catalogue's context of the screens' texts.
HANDSET = "handset"


def _screens() -> dict[str, str]:
    """Each screen's Persian: the one catalogue's entries of context
    handset, by their English text."""
    return {
        e.id: e.string
        for e in catalogue()
        if e.context == HANDSET and isinstance(e.id, str) and isinstance(e.string, str)
    }


# The brand is its own name in both languages: no translation, so no entry.
FA = {"baulk": "baulk", **_screens()}

# The device's refusals (firmware/engine.py, class Engine; firmware/app.py's
# pocket check), shown on the handset when a keypad entry or an operator's
# command is refused: their Persian is the catalogue's, the same the web
# shows (host/sentences.py, its entries flagged "device").
# The values the engine puts into its templates, by placeholder.
REFUSAL_VALUES = {
    "ball": names.BALLS,
    "kind": ("red_after_red", "foul_before_nomination"),
    "option": ("a free ball", "play again"),
}
_CONTEXT = {"ball": "ball", "kind": "foul", "option": "option"}


def refusals() -> dict[str, str]:
    """Every refusal the device can show, with its Persian from the catalogue."""
    out: dict[str, str] = {}
    for entry in catalogue():
        if DEVICE not in entry.flags or not isinstance(entry.id, str):
            continue
        names_in = placeholders(entry.id)
        if not names_in:
            out[entry.id] = str(entry.string)
            continue
        if len(names_in) != 1 or next(iter(names_in)) not in REFUSAL_VALUES:
            continue  # a key or a text a client sent: never from the keypad
        name = next(iter(names_in))
        for value in REFUSAL_VALUES[name]:
            word = catalogue().get(value, context=_CONTEXT[name])
            said = word.string if word is not None else value
            out[entry.id.format(**{name: value})] = str(entry.string).format(**{name: said})
    return out


def entries() -> dict[str, str]:
    """Every English text of the handset with its Persian."""
    out: dict[str, str] = {}
    out.update(BALLS)
    for short, ball in ABBR.items():
        out[short] = BALLS[ball]
    out.update(POCKETS)
    for kind in names.FOUL_KINDS:
        out[keypad_flow.foul_text(kind)] = FOULS[kind]
    out.update(FA)
    out.update(refusals())
    return out


def list_labels() -> list[str]:
    """The English texts the handset shows as list options, two to a row."""
    flow = keypad_flow
    labels = [flow.foul_label(i) for i in range(len(flow.FOUL_ORDER))]
    labels += menu.MENU_ITEMS.split("|")
    labels += ["miss", "clear ball", "the frame", "the match", "15 reds", "10 reds"]
    labels += ["6 reds", "side 0", "side 1", "Player A", "Player B"]
    return labels
