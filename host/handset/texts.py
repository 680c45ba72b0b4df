"""The handset's words in Persian, by their English text.

The firmware writes its screens in English (firmware/screens.py,
firmware/keypad_flow.py) and the Persian handset shows, in place of each
English text, the Persian one below, drawn at build time
(host/handset/font.py).  Spaces at either end of the English text do not
count.  A new screen's Persian is one line in :data:`FA`; the tests render
every screen in Persian and fail on any English text without its Persian.

Numbers stay out of the texts (the handset draws them in Persian digits), and
so do names: "FOUL 4>Reza" is the texts "FOUL" and ">" with the number 4 and
the name between them, each drawn right to left in its place.
"""

from __future__ import annotations

from baulk.firmware import keypad_flow, menu, names
from baulk.host.referee.stats_html import BALL_NAMES

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

FA = {
    # the score
    "no match": "مسابقه‌ای نیست",
    "MENU 1: new match, or wait for the host": "منو ۱: مسابقه نو، یا منتظر رایانه بمانید",
    ">": "»",  # the striker, and whom a foul's points go to (drawn mirrored: «)
    "-": "-",
    "F": "فریم",  # "F2 bo7": frame 2 of a best of 7
    "bo": "از",
    "baulk": "baulk",
    "on": "هدف",
    "nom": "اعلام",  # the colour the striker nominated: the ball on
    "colour": "رنگی",
    "=": "=",
    "R": "قرمز",
    "brk": "بریک",
    "snk": "اسنوکر",
    "rem": "باقی",
    "MATCH OVER": "پایان مسابقه",
    "wins": "برنده شد",
    # notices
    "FOUL": "خطا",
    "REPLACE? AGAIN?": "بازگردانی؟ دوباره؟",
    "AGAIN? FREE?": "دوباره؟ توپ آزاد؟",
    "FREE BALL": "توپ آزاد",
    "3RD MISS LOSES": "میس سوم: باخت فریم",
    "BLACK: TOSS": "سیاه: قرعه",
    "SPOT": "بچینید",
    "to": "روی جای",  # "pnk to blue": the pink goes on the blue's spot
    "behind": "پشت",
    "below": "پایین",
    "...stroke": "ضربه…",
    # the link
    "link up": "اتصال برقرار",
    "link down": "اتصال قطع",
    "LINK REFUSED": "اتصال رد شد",
    "#": "#",
    # flows: titles
    "FOUL: which?": "خطا: کدام؟",
    "MISS": "میس",
    "UNDO": "برگرداندن",
    "CONCEDE": "واگذاری",
    "NOMINATE": "اعلام توپ",
    "BALL OFF TABLE": "توپ بیرون از میز",
    "MENU": "منو",
    "BEST OF": "بهترین از",
    "REDS": "تعداد قرمزها",
    "WHO BREAKS?": "شروع با کی؟",
    "NEW MATCH": "مسابقه نو",
    "WHO PLAYS FIRST?": "اول کی بازی می‌کند؟",
    "AWARD": "اعطا",
    "AWARD TO": "اعطا به",
    "RE-RACK": "چیدن دوباره",
    "TOSS WON BY": "برنده قرعه",
    "SPOTS TAKEN": "جاهای گرفته",
    "CLAIM": "ادعای فریم",
    "EDGE BALL": "توپ لبه",
    "ORDER FOR": "ترتیب برای",
    "LINK": "اتصال",
    "POT": "گل",
    # flows: questions
    # (a no-break space keeps "(BACK: later)" on one line)
    "nominate a colour (BACK: later)": "رنگی را اعلام کنید (برگشت:\u00a0بعداً)",
    "take back the last action?": "آخرین کار برگردد؟",
    "which ball?": "کدام توپ؟",
    "ball concerned? (OK: none)": "کدام توپ؟ (تأیید: هیچ)",
    "concedes the frame? OK": "فریم را واگذار می‌کند؟",
    "concedes the match? OK": "مسابقه را واگذار می‌کند؟",
    "best of": "بهترین از",
    ",": "،",
    "reds? OK": "قرمز؟",
    "frame to": "فریم به",
    "match to": "مسابقه به",
    "? OK": "؟",
    "restart the frame? OK": "فریم از نو؟",
    "striker claims the frame? OK": "ضربه‌زن فریم را می‌خواهد؟",
    "replace all, replay? OK": "همه برگردد و دوباره؟",
    "which ball? (colour unclear)": "کدام توپ؟ (رنگ نامشخص)",
    # "red or brown?": the sensors' two likeliest balls, the ball names between
    "or": "یا",
    "?": "؟",
    "which ball went off?": "کدام توپ بیرون رفت؟",
    "colour keys: toggle a spot, WHITE: behind": "کلید هر رنگ: جایش گرفته است؛ سفید: پشت",
    "none": "هیچ",
    # flows: the link's figures
    "table": "میز",
    "boot": "شروع",
    "seq": "رویداد",
    "ack": "تأییدشده",
    "retx": "بازفرستی",
    "bad": "خراب",
    # flows: hints
    "OK send": "تأیید: فرستادن",
    "OK close": "تأیید: بستن",
    "OK yes  BACK no": "تأیید: بله   برگشت: نه",
    "ball key OK none": "کلید توپ   تأیید: هیچ",
    "ball key  BACK": "کلید توپ   برگشت",
    "ball=number BACK": "توپ = شماره   برگشت",
    "7 more...": "۷: بیشتر",
    # names
    "/": "و",  # between partners in doubles
    "side 0": "طرف اول",
    "side 1": "طرف دوم",
    "Player A": "بازیکن الف",
    "Player B": "بازیکن ب",
    # lists
    "miss": "میس",
    "clear ball": "میس باز",
    "the frame": "فریم",
    "the match": "مسابقه",
    "15 reds": "۱۵ قرمز",
    "10 reds": "۱۰ قرمز",
    "6 reds": "۶ قرمز",
    "new match": "مسابقه نو",
    "award frame": "برد فریم",
    "award match": "برد مسابقه",
    "re-rack": "چیدن نو",
    "toss": "قرعه",
    "spots": "جاها",
    "claim frame": "ادعای فریم",
    "edge replace": "لبه",
    "order (dbl)": "ترتیب تیم",
    "link info": "اتصال",
    # the device's own refusals
    "too many sensor events: check the sensors": "رویداد حسگر زیاد است: حسگرها را ببینید",
    "a pocket check is already running": "بررسی جیب‌ها همین حالا در جریان است",
    "no pocket check mid-frame: check before the match or between frames": (
        "بررسی جیب‌ها در میانه‌ی فریم نمی‌شود: پیش از مسابقه یا میان دو فریم"
    ),
    "a pot waits for the referee: name its ball first": "گلی منتظر داور است: اول توپش را بگویید",
    # the pocket check (firmware/pocket_check.py)
    "pocket check": "تست جیب",  # a list option: at most half a row
    "POCKET CHECK": "بررسی جیب‌ها",
    "drop the white": "توپ سفید را بیندازید",
    "into pocket": "در جیب",
    "OK unseen  BACK": "تأیید: دیده نشد   برگشت",
    "CHECK DONE": "بررسی تمام شد",
    "all pockets ok": "همه‌ی جیب‌ها سالم‌اند",
    "ok": "سالم",
    "weak": "ضعیف",
    "faulty": "خراب",
    "which ball? (pocket faulty)": "کدام توپ؟ (جیب خراب)",
}

# The rules engine's refusals (firmware/engine.py, class Engine), shown on the
# handset when a keypad entry or an operator's command is refused.
REFUSALS = {
    "no match has been set up: send a match event first": (
        "مسابقه‌ای تعریف نشده: اول مسابقه را بسازید"
    ),
    "the undo log is full": "فهرست برگرداندن پر است",
    "nothing to undo": "چیزی برای برگرداندن نیست",
    "the match is over": "مسابقه تمام شده است",
    "a stroke is already being played: waiting for the balls to come to rest": (
        "ضربه‌ای در جریان است: صبر تا توپ‌ها بایستند"
    ),
    "the balls are still moving: wait until they are at rest": (
        "توپ‌ها هنوز حرکت می‌کنند: صبر کنید تا بایستند"
    ),
    "too many events in one stroke": "رویدادهای یک ضربه بیش از حد است",
    "unknown event": "رویداد ناشناخته",
    "no red is left on the table": "قرمزی روی میز نمانده است",
    "no red was on the table in this stroke": "در این ضربه قرمزی روی میز نبود",
    "the cue ball has already left the table in this stroke": (
        "توپ سفید در این ضربه پیش‌تر از میز بیرون رفته است"
    ),
    "a ball is forced off only during a stroke: strike first": (
        "توپ فقط در ضربه بیرون می‌رود: اول ضربه بزنید"
    ),
    "there is no stroke to call a foul on": "ضربه‌ای برای اعلام خطا نیست",
    "hitting two reds at once is not a foul (R3.8)": "زدن هم‌زمان دو قرمز خطا نیست (قانون ۳.۸)",
    "hitting the free ball and the ball on together is not a foul (R3.8)": (
        "زدن هم‌زمان توپ آزاد و توپ هدف خطا نیست (قانون ۳.۸)"
    ),
    "free_ball_snooker applies only to a free ball stroke": (
        "اسنوکر آزاد فقط در ضربهٔ توپ آزاد است"
    ),
    "snookering behind the free ball is no foul with only pink and black left (R3.11.3)": (
        "با صورتی و سیاه تنها، اسنوکر پشت توپ آزاد خطا نیست (قانون ۳.۱۱.۳)"
    ),
    "outside_d applies only when the cue ball was in hand": "بیرون دی فقط وقتی سفید در دست بود",
    "there is no stroke to call a miss on": "ضربه‌ای برای اعلام میس نیست",
    "a miss is called with a foul: call the foul first": (
        "میس همراه خطا اعلام می‌شود: اول خطا را بگویید"
    ),
    "a miss has already been called on this stroke": "میس این ضربه پیش‌تر اعلام شده است",
    "a miss is not called when only the black remains (R3.15)": (
        "با سیاه تنها میس اعلام نمی‌شود (قانون ۳.۱۵)"
    ),
    "no stroke is being played: rest comes after a strike": (
        "ضربه‌ای در جریان نیست: ایست پس از ضربه می‌آید"
    ),
    "a free ball has already been declared": "توپ آزاد پیش‌تر اعلام شده است",
    "there is no free ball with only the black left": "با سیاه تنها توپ آزاد نیست",
    "the cue ball cannot be nominated": "توپ سفید اعلام نمی‌شود",
    "a red cannot be the free ball": "قرمز توپ آزاد نمی‌شود",
    "after a red the ball on is a colour (R3.4a)": "پس از قرمز، هدف یک رنگی است (قانون ۳.۴ الف)",
    "nothing to nominate: the ball on is a red": "چیزی برای اعلام نیست: هدف قرمز است",
    "replace needs a foul and a miss on the last stroke": (
        "بازگردانی خطا و میس ضربهٔ قبل را می‌خواهد"
    ),
    "edge_replace must follow the stroke it replaces": "بازگردانی لبه باید درست پس از آن ضربه باشد",
    "a frame can be claimed only when just the black remains": "ادعای فریم فقط با سیاه تنها است",
    "the striker must lead by more than 7 points to claim the frame": (
        "برای ادعای فریم، ضربه‌زن باید بیش از ۷ امتیاز جلو باشد"
    ),
    "a toss is made only for a re-spotted black": "قرعه فقط برای سیاه دوباره‌چیده است",
    "the re-spotted black has already been played": "سیاه دوباره‌چیده پیش‌تر بازی شده است",
    "player is given only in doubles": "بازیکن فقط در بازی دونفره گفته می‌شود",
    "no colour is waiting to be spotted": "رنگی منتظر چیدن نیست",
    "the order of partners applies only in doubles": "ترتیب هم‌تیمی‌ها فقط در بازی دونفره است",
    "the order of play is fixed once the frame has started (R3.18.1)": (
        "پس از شروع فریم ترتیب بازی ثابت است (قانون ۳.۱۸.۱)"
    ),
}

# Refusals with a name in them: (English with %s, Persian with %s, the values
# the engine puts in, English to Persian).
REFUSAL_TEMPLATES = (
    ("the %s is not on the table", "%s روی میز نیست", BALLS),
    ("the %s was not on the table in this stroke", "%s در این ضربه روی میز نبود", BALLS),
    ("the %s is already the ball on", "%s همین حالا هدف است", BALLS),
    (
        "nothing to nominate: the colours are taken in order and the %s is on",
        "چیزی برای اعلام نیست: رنگی‌ها به ترتیب‌اند و هدف %s است",
        BALLS,
    ),
    (
        "%s applies only after a red was potted",
        "%s فقط پس از گل شدن قرمز است",
        {k: FOULS[k] for k in ("red_after_red", "foul_before_nomination")},
    ),
    (
        "%s needs a foul on the last stroke",
        "%s خطای ضربهٔ قبل را می‌خواهد",
        {"a free ball": "توپ آزاد", "play again": "دوباره زدن"},
    ),
)


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
    out.update(REFUSALS)
    for english, persian, values in REFUSAL_TEMPLATES:
        for word, word_fa in values.items():
            out[english % word] = persian % word_fa
    return out


def list_labels() -> list[str]:
    """The English texts the handset shows as list options, two to a row."""
    flow = keypad_flow
    labels = [flow.foul_label(i) for i in range(len(flow.FOUL_ORDER))]
    labels += menu.MENU_ITEMS.split("|")
    labels += ["miss", "clear ball", "the frame", "the match", "15 reds", "10 reds"]
    labels += ["6 reds", "side 0", "side 1", "Player A", "Player B"]
    return labels
