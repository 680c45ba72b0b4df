"""The desk's refusals in Persian: table sessions, bills, items and the daily
report (host/club/sessions.py, host/club/money.py, host/web/desk.py).  The
patterns join host/web/refusals.py's, read the same way: ``n`` becomes
Persian digits, ``reason`` is translated in its turn, anything else (an id,
an amount, a name) is kept as it is, isolated."""

from __future__ import annotations

_FIELDS = {"reason": "دلیل", "payer": "پرداخت‌کننده"}

DESK_RULES: list[tuple[str, str]] = [
    (r"the table changed: look again", "میز تغییر کرده است: دوباره نگاه کنید"),
    (
        r"the table changed: look again \(table '(?P<id>.*)' has session (?P<n>\d+) open\)",
        "میز تغییر کرده است: دوباره نگاه کنید (میز {id} جلسهٔ {n} باز دارد)",
    ),
    (
        r"table '(?P<id>.*)' has no tariff: give it one in a \[\[tariff\]\] of the config",
        "میز {id} تعرفه ندارد: در پیکربندی برایش تعرفه بگذارید",
    ),
    (
        r"table '(?P<id>.*)' has session (?P<n>\d+) open: close it before reopening this one",
        "میز {id} جلسهٔ {n} باز دارد: پیش از باز کردن دوبارهٔ این جلسه آن را ببندید",
    ),
    (r"there is no session '?(?P<id>[^']*)'?", "جلسهٔ {id} وجود ندارد"),
    (r"there is no correction '(?P<id>.*)'", "اصلاح {id} وجود ندارد"),
    (r"there is no item '(?P<id>.*)'", "قلم {id} وجود ندارد"),
    (r"session (?P<n>\d+) is closed", "جلسهٔ {n} بسته است"),
    (r"session (?P<n>\d+) is already closed", "جلسهٔ {n} پیش‌تر بسته شده است"),
    (r"session (?P<n>\d+) is open", "جلسهٔ {n} باز است"),
    (
        r"session (?P<n>\d+) is open: correct its bill instead",
        "جلسهٔ {n} باز است: به جای بازپرداخت، صورت‌حسابش را اصلاح کنید",
    ),
    (
        r"session (?P<n>\d+) is closed: items go on an open one",
        "جلسهٔ {n} بسته است: اقلام به جلسهٔ باز افزوده می‌شوند",
    ),
    (
        r"session (?P<n>\d+) is void: nothing on it changes",
        "جلسهٔ {n} باطل است: چیزی از آن تغییر نمی‌کند",
    ),
    (r"session (?P<n>\d+) is not void", "جلسهٔ {n} باطل نیست"),
    (r"session (?P<n>\d+) needs no confirmation", "جلسهٔ {n} تأیید لازم ندارد"),
    (r"session (?P<n>\d+) has no correction (?P<id>\d+)", "جلسهٔ {n} اصلاح {id} ندارد"),
    (r"session (?P<n>\d+) has no item (?P<id>\d+)", "جلسهٔ {n} قلم {id} ندارد"),
    (r"correction (?P<n>\d+) is already taken back", "اصلاح {n} پیش‌تر برگردانده شده است"),
    (r"item (?P<n>\d+) is already taken back", "قلم {n} پیش‌تر برگردانده شده است"),
    (
        r"a correction needs a reason: say why the bill changes",
        "اصلاح دلیل می‌خواهد: بنویسید چرا صورت‌حساب تغییر می‌کند",
    ),
    (
        r"a refund needs a reason: say why money goes back",
        "بازپرداخت دلیل می‌خواهد: بنویسید چرا پول پس داده می‌شود",
    ),
    (
        r"a reversal needs a reason: say why it is taken back",
        "برگرداندن دلیل می‌خواهد: بنویسید چرا",
    ),
    (
        r"a void needs a reason: say why nothing is to pay",
        "باطل کردن دلیل می‌خواهد: بنویسید چرا پرداختی ندارد",
    ),
    (
        r"undoing a void needs a reason: say why the bill stands",
        "برگرداندن ابطال دلیل می‌خواهد: بنویسید چرا صورت‌حساب برقرار است",
    ),
    (r"reason must be text", "دلیل باید متن باشد"),
    (
        r"payer must be a player's name, or left out for the table",
        "پرداخت‌کننده باید نام یکی از بازیکنان باشد، یا خالی برای میز",
    ),
    (
        r"reason must be one line of at most (?P<n>\d+) bytes of text",
        "دلیل باید یک سطر و حداکثر {n} بایت باشد",
    ),
    (r"payer must be one line of at most (?P<n>\d+) bytes", "پرداخت‌کننده حداکثر {n} بایت است"),
    (r"payer is longer than (?P<n>\d+) bytes", "پرداخت‌کننده بیش از {n} بایت است"),
    (
        r"amount must not be 0: a correction changes the bill",
        "مبلغ نباید صفر باشد: اصلاح صورت‌حساب را تغییر می‌دهد",
    ),
    (
        r"amount is missing: the sum to add \(or, negative, to take off\)",
        "مبلغ نیامده است: مبلغی که افزوده (یا، منفی، کسر) می‌شود",
    ),
    (r"amount must be a number, not (?P<text>.*)", "مبلغ باید عدد باشد، نه {text}"),
    (
        r"amount must be a plain decimal number such as 12\.50, not (?P<text>.*)",
        "مبلغ باید عددی ساده باشد، مانند ۱۲٫۵۰، نه {text}",
    ),
    (
        r"amount (?P<text>.*) has more than (?P<n>\d+) decimals for (?P<id>.*)",
        "مبلغ {text} برای {id} بیش از {n} رقم اعشار دارد",
    ),
    (r"amount must be from (?P<text>\S+) to (?P<id>\S+)", "مبلغ باید از {text} تا {id} باشد"),
    (r"amount (?P<reason>.+)", "مبلغ: {reason}"),
    (
        r"this would take the bill below zero: its total is (?P<text>.*)",
        "این کار جمع صورت‌حساب را زیر صفر می‌برد: جمع آن {text} است",
    ),
    (
        r"this would take the table's share below zero: it is (?P<text>.*)",
        "این کار سهم میز را زیر صفر می‌برد: سهم آن {text} است",
    ),
    (
        r"this would take the share of '(?P<id>.*)' below zero: it is (?P<text>.*)",
        "این کار سهم {id} را زیر صفر می‌برد: سهم او {text} است",
    ),
    (
        r"item must be the name of an item of the price list",
        "قلم باید یکی از اقلام فهرست قیمت باشد",
    ),
    (
        r"this table is billed in (?P<id>\S+), and the item is priced in (?P<text>\S+)",
        "صورت‌حساب این میز به {id} است و قیمت این قلم به {text}",
    ),
    (
        r"quantity must be a whole number from 1 to (?P<n>\d+)",
        "تعداد باید عددی درست از ۱ تا {n} باشد",
    ),
    (
        r"version must be the bill's version as the desk was shown it",
        "نسخهٔ صورت‌حساب همان باید باشد که پیشخوان نشان داده است",
    ),
    (
        r"no receipt printer is set up: add \[printer\] to the config",
        "چاپگر رسید تعریف نشده است: آن را در پیکربندی بگذارید",
    ),
    (r"the receipt printer did not print: (?P<text>.*)", "چاپگر رسید چاپ نکرد: {text}"),
    (r"lang must be 'en' or 'fa'", "زبان باید انگلیسی یا فارسی باشد"),
    (
        r"date must be a day written YYYY-MM-DD \(Gregorian, (?P<n>\S+) to (?P<m>\S+)\)",
        "روز باید به صورت سال-ماه-روز میلادی نوشته شود (از {n} تا {m})",
    ),
    (
        r"jdate must be a day of the Solar Hijri calendar, YYYY-MM-DD "
        r"\((?P<n>\S+) to (?P<m>\S+)\)",
        "روز باید یکی از روزهای تقویم خورشیدی باشد، سال-ماه-روز (از {n} تا {m})",
    ),
    (
        r"expect must be the match id the console showed, or null",
        "شناسهٔ مسابقه باید همان باشد که کنسول نشان داده است",
    ),
    (
        r"version must be the board's events as the console showed them",
        "نسخه باید شمار رویدادهای تابلو باشد، همان که کنسول نشان داده است",
    ),
    (
        r"expect must be the players the console showed",
        "نام‌ها باید همان بازیکنانی باشند که کنسول نشان داده است",
    ),
]
# A reason or a payer held to the rules of names (host/web/request_models.py).
for _en, _fa in _FIELDS.items():
    DESK_RULES += [
        (_en + r" must be a non-empty name", f"{_fa} لازم است"),
        (_en + r" is longer than (?P<n>\d+) bytes", f"{_fa} بیش از {{n}} بایت است"),
        (
            _en + r" must not hold control, invisible or direction characters \(U\+[^)]*\)",
            f"{_fa} نویسه‌ای نامرئی، کنترلی یا جهت‌دار دارد",
        ),
    ]
