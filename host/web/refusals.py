"""What the server or the table refused, and why, in the operator's language.

The server's own checks and the device's rules engine give their reasons as
short English sentences (the engine runs on the table and carries no second
language).  The console shows them in Persian: each sentence the server or
the engine can give has a pattern here and its Persian text.  Parts taken
from the sentence are converted by the name of their group: ``ball`` and
``kind`` become the Persian ball and foul names, ``n`` Persian digits,
``reason`` is translated in its turn, and anything else (an id, a key, what
a client sent) is kept as it is, isolated so that it cannot reorder the
Persian words around it.  tests/web/test_refusals.py proves that every
sentence in the engine and the web app has its Persian text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from baulk.host.web.words import digits, isolate, word, words

_WHAT = r"(?P<what>player \d+(?:\.\d+)?|team \d+|who|referee|reason|payer|item)"
_KEY_FA = {
    "side": "طرف",
    "breaker": "شروع‌کننده",
    "player": "بازیکن",
    "first": "نفر اول",
    "match": "مسابقه",
    "clear": "دیدِ کامل",
    "ball": "توپ",
    "kind": "نوع خطا",
    # a query's and a body's keys (host/web/request_models.py)
    "limit": "حد فهرست",
    "seconds": "ثانیه‌ها",
    "passages": "شمار گذرها",
    "lang": "زبان",
}
_WHAT_FA = {
    "who": "نام اپراتور",
    "referee": "نام داور",
    "reason": "دلیل",
    "payer": "پرداخت‌کننده",
    "item": "قلم",
}
_FIELD_FA = {
    "name": "نام",
    "password": "گذرواژه",
    "pin": "رمز عددی",
    "PIN": "رمز عددی",
    "token name": "نام توکن",
    "operator token": "رمز اپراتور",
}
ROLE_FA = {"owner": "مالک", "desk": "پیشخوان", "referee": "داور"}
# The store's row kinds (host/store/records.py OTHER_KINDS), as its refusals name them.
_ROW_FA = {
    "link": "وضعیت اتصال",
    "raw frame": "قاب خام",
    "operator action": "کار اپراتور",
    "name correction": "اصلاح نام",
    "table session change": "تغییر نشست میز",
    "sensor health report": "گزارش حسگرها",
    "staff change": "تغییر کارکنان",
}
_RULE = "قانون"

# (pattern, Persian).  Patterns match the whole sentence.
_RULES: list[tuple[str, str]] = [
    # ------------------------------------------------------------- the web app
    (r"the table refused: (?P<reason>.+)", "میز نپذیرفت: {reason}"),
    (r"the table cannot take this: (?P<text>.+)", "میز این را نمی‌تواند بگیرد: {text}"),
    (
        r"operator actions are switched off: set operator_token in the config or BAULK_TOKEN",
        "کارهای اپراتور خاموش است: رمز اپراتور را در پیکربندی سرور بگذارید",
    ),
    (
        r"too many attempts with a wrong operator token; try again in (?P<n>\d+) s",
        "تلاش نادرست با رمز اپراتور بیش از اندازه شد؛ {n} ثانیه‌ی دیگر دوباره بکوشید",
    ),
    (
        r"this action needs the operator token \(Authorization: Bearer TOKEN\)"
        r"(?: or a console sign-in)?",
        "این کار رمز اپراتور لازم دارد: نخست وارد شوید",
    ),
    (r"the operator token is wrong", "رمز اپراتور نادرست است"),
    (r"token must be a string", "رمز اپراتور باید متن باشد"),
    (
        r"sign in first: there is no console sign-in, or it has ended",
        "نخست وارد شوید: ورودی در کار نیست یا زمانش تمام شده است",
    ),
    (
        r"refused: this action did not come from the console page \(CSRF token missing or wrong\)",
        "رد شد: این کار از صفحه‌ی کنسول نیامده است",
    ),
    (
        r"refused: this action came from another site \((?P<text>.*)\)",
        "رد شد: این کار از سایت دیگری آمده است ({text})",
    ),
    (r"the request body is over (?P<n>\d+) bytes", "درخواست بیش از {n} بایت است"),
    (r"the request body could not be read", "درخواست خوانده نشد"),
    (r"the body must be a JSON object(?:: .*)?", "درخواست ساختار درستی ندارد"),
    # a body's or a query's keys against their models (host/web/request_models.py)
    (
        r"(?P<key>\w+) must be a whole number from (?P<n>\d+) to (?P<m>\d+)",
        "{key} باید عددی درست از {n} تا {m} باشد",
    ),
    (r"kind must be a foul kind of /api/vocabulary", "نوع خطا باید یکی از خطاهای شناخته باشد"),
    (r"pocket must be one of: (?P<text>.*)", "جیب باید یکی از اینها باشد: {text}"),
    (
        r"occupied must be a list of spot names, each once",
        "خال‌های پر باید فهرستی از نام خال‌ها باشد، هر کدام یک بار",
    ),
    (
        r"q must be at most (?P<n>\d+) characters, none of them a control one",
        "جست‌وجو حداکثر {n} نویسه است و نویسه‌ی کنترلی نمی‌پذیرد",
    ),
    (r"the query gives (?P<key>\w+) more than once", "نشانی {key} را بیش از یک بار دارد"),
    (
        r"amount must be a plain decimal number such as 12\.50 \(as text\), or a whole number",
        "مبلغ باید عددی ساده باشد، مانند ۱۲٫۵۰ (به صورت متن)، یا عددی درست",
    ),
    (
        r"amount must be a plain decimal number above 0 such as 12\.50 \(as text\), "
        r"or a whole number",
        "مبلغ باید عددی ساده و بیش از صفر باشد، مانند ۱۲٫۵۰ (به صورت متن)، یا عددی درست",
    ),
    (r"amount is missing: the sum to give back", "مبلغ داده نشده است: مبلغی که پس داده می‌شود"),
    (_WHAT + r" must be a non-empty name", "{what}: نام لازم است"),
    (_WHAT + r" is longer than (?P<n>\d+) bytes", "{what}: نام بیش از {n} بایت است"),
    (
        _WHAT + r" must not hold control, invisible or direction characters \(U\+[^)]*\)",
        "{what}: نام نویسه‌ای نامرئی، کنترلی یا جهت‌دار دارد",
    ),
    (
        _WHAT + r" must not hold emoji or symbols \(U\+[^)]*\): "
        r"the boards and the handset cannot draw them",
        "{what}: شکلک و نماد نمی‌پذیرد؛ تابلوها و دستگاه دستی نمی‌توانند آن را نشان دهند",
    ),
    (_WHAT + r" must hold a letter or a digit", "{what}: باید دست‌کم یک حرف یا رقم داشته باشد"),
    (_WHAT + r" must be a non-empty text", "{what}: متن لازم است"),
    (
        r"too many live feeds from this address; close a board and try again",
        "از این نشانی تابلوهای زنده‌ی زیادی باز است؛ یکی را ببندید و دوباره بکوشید",
    ),
    (r"the request could not be read", "درخواست خوانده نشد"),
    (
        r"the server could not answer this request; the venue's log says why",
        "سرور نتوانست به این درخواست پاسخ دهد؛ چرایی‌اش در گزارش باشگاه هست",
    ),
    # the desk's bodies and queries (host/web/request_models.py), until the
    # models give their sentences as messages of the catalogue
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
        r"payer must be a player's name, or left out for the table",
        "پرداخت‌کننده باید نام یکی از بازیکنان باشد، یا خالی برای میز",
    ),
    (
        r"reason must be one line of at most (?P<n>\d+) bytes of text",
        "دلیل باید یک سطر و حداکثر {n} بایت باشد",
    ),
    (
        r"amount is missing: the sum to add \(or, negative, to take off\)",
        "مبلغ نیامده است: مبلغی که افزوده (یا، منفی، کسر) می‌شود",
    ),
    (
        r"item must be the name of an item of the price list",
        "قلم باید یکی از اقلام فهرست قیمت باشد",
    ),
    (
        r"version must be the bill's version as the desk was shown it",
        "نسخهٔ صورت‌حساب همان باید باشد که پیشخوان نشان داده است",
    ),
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
    # ------------------------------------------------------------- the store (host/store/edges.py)
    (
        r"the store cannot write: (?P<text>.+); nothing was changed",
        "رایانه‌ی باشگاه اکنون نمی‌تواند ذخیره کند ({text})؛ چیزی تغییر نکرد",
    ),
    (
        r"the store cannot keep this (?P<row>[a-z ]+): (?P<text>.+); nothing was changed",
        "رایانه‌ی باشگاه این {row} را نمی‌تواند نگه دارد ({text})؛ چیزی تغییر نکرد",
    ),
    (
        r"the store could not write this (?P<row>[a-z ]+): (?P<text>.+); nothing was changed",
        "رایانه‌ی باشگاه نتوانست این {row} را ذخیره کند ({text})؛ چیزی تغییر نکرد",
    ),
    (
        r"unknown key '(?P<key>[^']*)' \(allowed: (?P<text>.*)\)",
        "کلید ناشناخته‌ی {key} (کلیدهای مجاز: {text})",
    ),
    (
        r"players must be a list of two names \(or two teams of two names\)",
        "بازیکنان باید دو نام باشند، یا دو تیم دونفره",
    ),
    (r"team (?P<n>\d+) must have two players", "تیم {n} باید دو بازیکن داشته باشد"),
    (
        r"players must be two names or two teams, not a name and a team",
        "بازیکنان باید دو نام یا دو تیم باشند، نه یک نام و یک تیم",
    ),
    (r"best_of must be an odd integer from 1 to 35", "تعداد فریم‌ها باید عددی فرد از ۱ تا ۳۵ باشد"),
    (r"ev must be one of: (?P<text>.*)", "رویداد باید یکی از اینها باشد: {text}"),
    (
        r"a new match goes to POST (?P<text>.*)",
        "مسابقه‌ی تازه از راه شروع مسابقه فرستاده می‌شود ({text})",
    ),
    (r"there is no table '(?P<id>.*)'", "میز {id} وجود ندارد"),
    (r"'(?P<id>.*)' is not a table id", "{id} شناسه‌ی میز نیست"),
    (
        r"table must be a table id \(letters, digits, '-' or '_'\)",
        "شناسه‌ی میز فقط حرف و رقم و خط تیره و زیرخط دارد",
    ),
    (r"limit must be an integer", "حد فهرست باید عدد باشد"),
    (r"limit must be 1\.\.1000", "حد فهرست باید از ۱ تا ۱۰۰۰ باشد"),
    (r"skip_empty must be 0 or 1", "پرش از مسابقه‌های خالی باید ۰ یا ۱ باشد"),
    (r"there is no match '(?P<id>.*)'", "مسابقه‌ی {id} وجود ندارد"),
    (
        r"too many actions are waiting for this table; try again when it is online",
        "کارهای زیادی در انتظار این میز است؛ وقتی وصل شد دوباره بکوشید",
    ),
    (
        r"the table has not answered yet; it gets the action when it is online",
        "میز هنوز پاسخ نداده است؛ وقتی وصل شود آن را می‌گیرد",
    ),
    (r"there is no match on this table to correct", "روی این میز مسابقه‌ای برای اصلاح نیست"),
    (
        r"the names must keep the match's form: (?P<text>.*)",
        "نام‌ها باید به همان شکل مسابقه باشند: دو بازیکن، یا دو تیم دونفره",
    ),
    (
        r"name corrections need the venue's store: make them on the host of the table",
        "اصلاح نام‌ها روی رایانه‌ی همان میز انجام می‌شود",
    ),
    # ------------------------------------------------------------- staff and sign-in
    # (host/web/auth.py, host/staff/roles.py, accounts.py, registry.py, staff_pages.py)
    (
        r"sign in first: this needs a staff sign-in or an API token",
        "نخست وارد شوید: این کار ورود کارکنان یا توکن لازم دارد",
    ),
    (
        r"refused: this needs the (?P<roles>[a-z ]+?) role, and (?P<id>.*) is (?P<role>\w+)",
        "رد شد: این کار نقش {roles} می‌خواهد و {id} {role} است",
    ),
    (
        r"refused: (?P<id>.*) referees other tables, not '(?P<text>.*)'",
        "رد شد: {id} داور میزهای دیگری است، نه میز {text}",
    ),
    (
        r"refused: this route is not in the role table \(host/staff/roles\.py\), "
        r"so nobody may use it yet",
        "رد شد: این نشانی هنوز در جدول نقش‌ها نیامده است و کسی نمی‌تواند از آن استفاده کند",
    ),
    (
        r"too many wrong (?P<field>PIN|password|operator token)s: "
        r"sign in with the password, or ask the owner",
        "{field} بارها نادرست وارد شد: با گذرواژه وارد شوید یا از مالک بخواهید",
    ),
    (
        r"too many attempts with a wrong (?P<field>PIN|password|operator token); "
        r"try again in (?P<n>\d+) s",
        "تلاش نادرست با {field} بیش از اندازه شد؛ {n} ثانیه‌ی دیگر دوباره بکوشید",
    ),
    (r"the name or (?P<field>pin|password) is wrong", "نام یا {field} نادرست است"),
    (r"name and (?P<field>pin|password) must be text", "نام و {field} باید متن باشند"),
    (
        r"give name and password \(or pin\), a sign-in code, or the operator token",
        "نام و گذرواژه (یا رمز عددی) را بدهید، یا کد ورود، یا رمز اپراتور را",
    ),
    (
        r"that sign-in code is wrong, used already or out of date",
        "این کد ورود نادرست است، پیش‌تر به کار رفته یا از زمانش گذشته است",
    ),
    (
        r"(?P<text>.+) is disabled: enable the account first",
        "{text} غیرفعال است: نخست حساب را فعال کنید",
    ),
    (
        r"too many connections from your address: sign in, or close some",
        "اتصال‌های نشانی شما بیش از اندازه است: وارد شوید یا چندتایی را ببندید",
    ),
    (
        r"(?P<field>name|password|pin|token name) must be text"
        r"(?: \(it holds a broken character\))?",
        "{field} باید متن باشد",
    ),
    (r"(?P<field>name) must have 1 to (?P<n>\d+) characters", "{field} باید ۱ تا {n} نویسه باشد"),
    (
        r"(?P<field>name) may hold letters, digits, spaces and \. - _ ' only "
        r"\(not (?P<text>U\+\w+)\)",
        "{field} فقط حرف، رقم، فاصله و . - _ ' می‌پذیرد (نه {text})",
    ),
    (
        r"(?P<field>name) '(?P<text>.*)' is kept for the configured operator token",
        "{field} {text} برای رمز اپراتور کنار گذاشته شده است",
    ),
    (r"role must be one of: (?P<text>.*)", "نقش باید یکی از اینها باشد: {text}"),
    (
        r"password must have at least (?P<n>\d+) characters",
        "گذرواژه باید دست‌کم {n} نویسه باشد",
    ),
    (r"password must be at most (?P<n>\d+) bytes", "گذرواژه حداکثر {n} بایت است"),
    (
        r"pin must be (?P<n>\d+) to (?P<m>\d+) digits",
        "رمز عددی باید {n} تا {m} رقم باشد",
    ),
    (
        r"tables must be a list of 1 to 64 table ids, or null for every table",
        "میزها باید فهرستی از ۱ تا ۶۴ شناسه‌ی میز باشند، یا خالی برای همه‌ی میزها",
    ),
    (
        r"tables must be a list of table ids \(letters, digits, '-' or '_'\)",
        "میزها باید فهرستی از شناسه‌های میز باشند",
    ),
    (
        r"token name must be 1 to (?P<n>\d+) printable characters",
        "نام توکن باید ۱ تا {n} نویسه باشد",
    ),
    (r"only a referee is limited to tables", "فقط داور به میزهایی محدود می‌شود"),
    (
        r"the store cannot be read now; try again shortly",
        "اکنون پایگاه داده خوانده نمی‌شود؛ کمی بعد دوباره بکوشید",
    ),
    (
        r"this server keeps no staff accounts \(it has no store\)",
        "این سرور حساب کارکنان ندارد (پایگاه داده‌ای ندارد)",
    ),
    (
        r"the store could not save this now; nothing changed",
        "پایگاه داده اکنون نتوانست این را ذخیره کند؛ چیزی تغییر نکرد",
    ),
    (r"there is already an account '(?P<id>.*)'", "حساب {id} از پیش وجود دارد"),
    (
        r"an account needs a password \(and a desk clerk may have a PIN\)",
        "حساب گذرواژه لازم دارد (و کارمند پیشخوان می‌تواند رمز عددی هم داشته باشد)",
    ),
    (
        r"only a desk account signs in with a PIN",
        "فقط حساب پیشخوان با رمز عددی وارد می‌شود",
    ),
    (r"there is no account '(?P<id>.*)'", "حساب {id} وجود ندارد"),
    (r"there is no such account", "چنین حسابی وجود ندارد"),
    (r"disabled must be true or false", "غیرفعال باید بله یا نه باشد"),
    (
        r"nothing to change: give disabled, password, pin, role or tables",
        "چیزی برای تغییر نیست: غیرفعال، گذرواژه، رمز عددی، نقش یا میزها را بدهید",
    ),
    (r"there is no token (?P<id>.*) in use", "توکن {id} در کار نیست"),
    (r"table must be a table id", "میز باید شناسه‌ی میز باشد"),
    (
        r"who must be a name of at most (?P<n>\d+) characters",
        "نام حداکثر {n} نویسه است",
    ),
    (
        r"the account changed while signing in: sign in again",
        "حساب در میانه‌ی ورود تغییر کرد: دوباره وارد شوید",
    ),
    (
        r"give confirm: true to sign everyone out",
        "برای بیرون بردن همه از ورودشان، تأیید لازم است",
    ),
    (
        r"before must be the id of a row of the log",
        "«پیش از» باید شناسه‌ی یکی از ردیف‌های گزارش کارها باشد",
    ),
    # the activity log's summing-up of what strangers did (host/staff/activity.py)
    (
        r"(?P<n>\d+) more attempts in this minute, (?P<held>\d+) held back, "
        r"from (?P<m>\d+) addresses: not logged one by one",
        "{n} تلاش دیگر در این دقیقه، {held} تا نگه‌داشته با سقف حدس‌زدن، از {m} نشانی: "
        "یک‌به‌یک ثبت نشد",
    ),
    (
        r"(?P<n>\d+) more attempts under other names in this minute, (?P<held>\d+) held back, "
        r"from (?P<m>\d+) addresses: not logged one by one",
        "{n} تلاش دیگر با نام‌های دیگر در این دقیقه، {held} تا نگه‌داشته با سقف حدس‌زدن، "
        "از {m} نشانی: یک‌به‌یک ثبت نشد",
    ),
    (
        r"not logged one by one \(at most (?P<n>\d+) a minute\)",
        "یک‌به‌یک ثبت نشد (حداکثر {n} در دقیقه)",
    ),
    (
        r"no device keys to check with: set \[verify\] keys to a folder of TABLE\.key files",
        "کلید دستگاه‌ها برای بررسی در دست نیست: پوشه‌ی کلیدها را در پیکربندی بدهید",
    ),
    # ------------------------------------------------------------- the pocket check
    # (host/venue/actions.py, firmware/app.py's start_check: the device's own words)
    (
        r"the pocket check runs on the handset: drop the white into each pocket",
        "بررسی جیب‌ها روی دستگاه دستی در جریان است: توپ سفید را در هر جیب بیندازید",
    ),
    (
        r"no pocket check mid-frame: check before the match or between frames",
        "بررسی جیب‌ها در میانه‌ی فریم نمی‌شود: پیش از مسابقه یا میان دو فریم بررسی کنید",
    ),
    (r"a pocket check is already running", "بررسی جیب‌ها همین حالا در جریان است"),
    (
        r"the table is not online: a pocket check needs it connected",
        "میز وصل نیست: بررسی جیب‌ها میزِ وصل می‌خواهد",
    ),
    (
        r"the table is not online: a sensor capture needs it connected",
        "میز وصل نیست: ضبط حسگرها میزِ وصل می‌خواهد",
    ),
    (
        r"a pot waits for the referee: name its ball first",
        "گلی منتظر داور است: نخست توپش را روی دستگاه دستی بگویید",
    ),
    # ------------------------------------------------------------- the rules engine
    (
        r"no match has been set up: send a match event first",
        "مسابقه‌ای تعریف نشده است: نخست مسابقه را شروع کنید",
    ),
    (r"the undo log is full", "دفتر برگرداندن پر است"),
    (r"nothing to undo", "چیزی برای برگرداندن نیست"),
    (r"the match is over", "مسابقه تمام شده است"),
    (
        r"a stroke is already being played: waiting for the balls to come to rest",
        "ضربه‌ای در جریان است: بمانید تا توپ‌ها بایستند",
    ),
    (
        r"the balls are still moving: wait until they are at rest",
        "توپ‌ها هنوز در حرکت‌اند: بمانید تا بایستند",
    ),
    (r"too many events in one stroke", "رویدادهای یک ضربه بیش از اندازه است"),
    (r"unknown event", "رویداد ناشناخته"),
    (r"no red is left on the table", "قرمزی روی میز نمانده است"),
    (
        r"the cue ball has already left the table in this stroke",
        "توپ سفید در همین ضربه از میز بیرون رفته است",
    ),
    (r"the (?P<ball>\w+) is not on the table", "توپ {ball} روی میز نیست"),
    (r"no red was on the table in this stroke", "در این ضربه قرمزی روی میز نبود"),
    (
        r"the (?P<ball>\w+) was not on the table in this stroke",
        "توپ {ball} در این ضربه روی میز نبود",
    ),
    (
        r"a ball is forced off only during a stroke: strike first",
        "توپ فقط در جریان ضربه از میز بیرون می‌رود: نخست ضربه را ثبت کنید",
    ),
    (r"there is no stroke to call a foul on", "ضربه‌ای نیست که برایش خطا اعلام شود"),
    (
        r"hitting two reds at once is not a foul \(R3\.8\)",
        "برخورد هم‌زمان به دو قرمز خطا نیست ({rule} ۳٫۸)",
    ),
    (
        r"hitting the free ball and the ball on together is not a foul \(R3\.8\)",
        "برخورد هم‌زمان به توپ آزاد و توپ هدف خطا نیست ({rule} ۳٫۸)",
    ),
    (
        r"(?P<kind>\w+) applies only after a red was potted",
        "«{kind}» فقط پس از گل شدن قرمز پیش می‌آید",
    ),
    (
        r"(?P<kind>free_ball_snooker) applies only to a free ball stroke",
        "«{kind}» فقط در ضربه‌ی توپ آزاد پیش می‌آید",
    ),
    (
        r"snookering behind the free ball is no foul with only pink and black left \(R3\.11\.3\)",
        "وقتی فقط صورتی و سیاه مانده‌اند، اسنوکر پشت توپ آزاد خطا نیست ({rule} ۳٫۱۱٫۳)",
    ),
    (
        r"(?P<kind>outside_d) applies only when the cue ball was in hand",
        "«{kind}» فقط وقتی پیش می‌آید که توپ سفید در دست بود",
    ),
    (r"there is no stroke to call a miss on", "ضربه‌ای نیست که برایش میس اعلام شود"),
    (
        r"a miss is called with a foul: call the foul first",
        "میس همراه خطا اعلام می‌شود: نخست خطا را اعلام کنید",
    ),
    (r"a miss has already been called on this stroke", "برای این ضربه میس اعلام شده است"),
    (
        r"a miss is not called when only the black remains \(R3\.15\)",
        "وقتی فقط سیاه مانده است میس اعلام نمی‌شود ({rule} ۳٫۱۵)",
    ),
    (
        r"no stroke is being played: rest comes after a strike",
        "ضربه‌ای در جریان نیست: ایستادن توپ‌ها پس از ضربه می‌آید",
    ),
    (
        r"a free ball needs a foul on the last stroke",
        "توپ آزاد فقط پس از خطا در ضربه‌ی آخر داده می‌شود",
    ),
    (
        r"play again needs a foul on the last stroke",
        "«دوباره بازی کند» فقط پس از خطا در ضربه‌ی آخر ممکن است",
    ),
    (
        r"(?P<text>.+) needs a foul on the last stroke",
        "{text} فقط پس از خطا در ضربه‌ی آخر ممکن است",
    ),
    (r"a free ball has already been declared", "توپ آزاد پیش‌تر اعلام شده است"),
    (
        r"there is no free ball with only the black left",
        "وقتی فقط سیاه مانده است توپ آزاد داده نمی‌شود",
    ),
    (r"the cue ball cannot be nominated", "توپ سفید را نمی‌شود اعلام کرد"),
    (r"a red cannot be the free ball", "قرمز نمی‌تواند توپ آزاد باشد"),
    (r"the (?P<ball>\w+) is already the ball on", "توپ {ball} همین حالا توپ هدف است"),
    (
        r"after a red the ball on is a colour \(R3\.4a\)",
        "پس از قرمز، توپ هدف یکی از رنگی‌هاست ({rule} ۳٫۴ الف)",
    ),
    (r"nothing to nominate: the ball on is a red", "چیزی برای اعلام نیست: توپ هدف قرمز است"),
    (
        r"nothing to nominate: the colours are taken in order and the (?P<ball>\w+) is on",
        "چیزی برای اعلام نیست: رنگی‌ها به ترتیب بازی می‌شوند و اکنون {ball} هدف است",
    ),
    (
        r"replace needs a foul and a miss on the last stroke",
        "برگرداندن توپ‌ها فقط پس از خطا و میس در ضربه‌ی آخر ممکن است",
    ),
    (
        r"edge_replace must follow the stroke it replaces",
        "برگرداندن توپ لبه‌ی جیب باید درست پس از همان ضربه بیاید",
    ),
    (
        r"a frame can be claimed only when just the black remains",
        "فریم را فقط وقتی می‌شود گرفت که تنها سیاه مانده باشد",
    ),
    (
        r"the striker must lead by more than 7 points to claim the frame",
        "برای گرفتن فریم، بازیکن نوبت باید بیش از ۷ امتیاز جلو باشد",
    ),
    (r"a toss is made only for a re-spotted black", "قرعه فقط برای سیاهِ دوباره روی خال است"),
    (r"the re-spotted black has already been played", "سیاهِ دوباره روی خال بازی شده است"),
    (r"player is given only in doubles", "بازیکن فقط در بازی دونفره تعیین می‌شود"),
    (r"no colour is waiting to be spotted", "رنگی‌ای در انتظار برگشت به خال نیست"),
    (
        r"the order of partners applies only in doubles",
        "ترتیب هم‌تیمی‌ها فقط در بازی دونفره معنا دارد",
    ),
    (
        r"the order of play is fixed once the frame has started \(R3\.18\.1\)",
        "با شروع فریم ترتیب بازی ثابت می‌شود ({rule} ۳٫۱۸٫۱)",
    ),
    (r"(?P<key>\w+) must be 0 or 1", "{key} باید ۰ یا ۱ باشد"),
    (r"(?P<key>\w+) must be true or false", "{key} باید بله یا نه باشد"),
    (r"(?P<key>\w+) must be a ball name", "{key} باید نام یک توپ باشد"),
    (r"unknown ball '(?P<text>.*)'", "توپ ناشناخته: {text}"),
    (r"an event must be a JSON object", "رویداد ساختار درستی ندارد"),
    (r"the event has no 'ev' name", "رویداد نام ندارد"),
    (r"unknown event '(?P<text>.*)'", "رویداد ناشناخته: {text}"),
    (r"unknown key '(?P<key>.*)' for (?P<text>\w+)", "کلید ناشناخته‌ی {key} برای {text}"),
    (r"(?P<text>\w+) needs '(?P<key>\w+)'", "{text} به {key} نیاز دارد"),
    (
        r"t must be a non-negative integer of milliseconds",
        "زمان رویداد باید عددی نامنفی به میلی‌ثانیه باشد",
    ),
    (r"unknown pocket '(?P<text>.*)'", "جیب ناشناخته: {text}"),
    (r"unknown foul kind '(?P<text>.*)'", "نوع خطای ناشناخته: {text}"),
    (r"occupied must be a list of spot names", "خال‌های پر باید فهرستی از نام خال‌ها باشد"),
    (r"unknown spot '(?P<text>.*)'", "خال ناشناخته: {text}"),
    (r"spot '(?P<text>.*)' is listed twice", "خال {text} دو بار آمده است"),
    (r"each player name must be a non-empty string", "نام هر بازیکن لازم است"),
    (r"player names are at most (?P<n>\d+) bytes of UTF-8", "نام بازیکن حداکثر {n} بایت است"),
    (r"players must list the two sides", "بازیکنان باید هر دو طرف را داشته باشند"),
    (
        r"in doubles each side is a pair of player names",
        "در بازی دونفره هر طرف دو بازیکن دارد",
    ),
    (r"best_of must be a positive odd integer", "تعداد فریم‌ها باید عددی فرد و مثبت باشد"),
    (r"best_of is at most (?P<n>\d+)", "تعداد فریم‌ها حداکثر {n} است"),
    (r"reds must be 15, 10 or 6", "تعداد قرمزها باید ۱۵، ۱۰ یا ۶ باشد"),
]
_COMPILED = [(re.compile(p), fa) for p, fa in _RULES]


def _what(value: str) -> str:
    if value in _WHAT_FA:
        return _WHAT_FA[value]
    number = value.split(" ", 1)[1]
    if value.startswith("team"):
        return f"تیم {digits(number, 'fa')}"
    if "." in number:
        team, player = number.split(".")
        return f"تیم {digits(team, 'fa')}، بازیکن {digits(player, 'fa')}"
    return f"بازیکن {digits(number, 'fa')}"


def _ball(value: str) -> str:
    return word(value, "fa") if value in words()["fa"] else isolate(value)


def _kind(value: str) -> str:
    key = "foul_" + value
    return word(key, "fa") if key in words()["fa"] else isolate(value)


def _key(value: str) -> str:
    return _KEY_FA.get(value) or isolate(value)


def _roles(value: str) -> str:
    return " یا ".join(ROLE_FA.get(r, isolate(r)) for r in value.split(" or "))


_CONVERT: dict[str, Callable[[str], str]] = {
    "ball": _ball,
    "kind": _kind,
    "n": lambda v: digits(v, "fa"),
    "what": _what,
    "key": _key,
    "id": isolate,
    "text": isolate,
    "m": lambda v: digits(v, "fa"),
    "held": lambda v: digits(v, "fa"),
    "field": lambda v: _FIELD_FA.get(v) or isolate(v),
    "role": lambda v: ROLE_FA.get(v) or isolate(v),
    "roles": _roles,
    "row": lambda v: _ROW_FA.get(v) or isolate(v),
}


def persian(text: str) -> str | None:
    """The Persian for one of the known sentences, or None."""
    for pattern, fa in _COMPILED:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        parts = {"rule": _RULE}
        for name, value in m.groupdict().items():
            if value is None:
                continue
            if name == "reason":
                parts[name] = localise(value, "fa")
            else:
                parts[name] = _CONVERT[name](value)
        return fa.format(**parts)
    return None


def localise(text: str, lang: str) -> str:
    """``text`` in ``lang``; a sentence with no Persian yet stays English,
    isolated, rather than being lost."""
    if lang != "fa":
        return text
    return persian(text) or isolate(text)
