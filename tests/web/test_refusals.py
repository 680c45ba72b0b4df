"""Every sentence the host or the table's device gives has its Persian in the
one catalogue (host/locale/fa/LC_MESSAGES/baulk.po, read by host/sentences.py):
every ``Message`` in the code names a msgid with its entry and gives exactly
its placeholders, every entry's Persian has the same placeholders as its
msgid and is used, and each sentence the device gives (firmware/engine.py,
firmware/app.py) is exactly one of the catalogue's device entries.  A
sweep of the host finds any refusal still given as plain text."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from baulk.firmware import names
from baulk.host import sentences as said
from baulk.host.handset import texts as handset_texts
from baulk.host.sentences import DEVICE, PAGES, Message, device_reason, placeholders, read_back, say
from baulk.host.staff import roles
from baulk.host.store import records, staff_schema
from baulk.host.venue.actions import table_refused
from baulk.host.web.request_models import every_sentence
from baulk.host.web.words import FSI, PDI

ROOT = Path(__file__).resolve().parents[2]
PERCENT = re.compile(r"%[sd]")
# The calls a refusal is given through, and where in them its sentence is.
REFUSING = {"error": 1, "ActionError": 1, "StaffError": 1, "StoreRefused": 1, "MoneyError": 0,
            "PrintError": 0, "refusal": 1}  # fmt: skip
# Where a ValueError's text reaches a person (a body's model, a name's rules,
# an account's checks): it must be a Message there too.
VALUE_ERRORS = (
    "host/web/request_models.py",
    "host/web/http.py",
    "host/staff/accounts.py",
    "host/name_rules.py",
)


def _plain_text(node: ast.expr) -> bool:
    """A sentence written as plain text: a string or an f-string with a space."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return " " in node.value
    return isinstance(node, ast.JoinedStr)


def _unsaid() -> list[str]:
    """Every refusal in the host given as plain text rather than a Message."""
    found = []
    for path in sorted((ROOT / "host").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where.startswith(("host/cli/", "host/sim/")):
            continue  # a terminal's English, not a page's
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
                at = REFUSING.get(name)
                if name == "ValueError" and where.startswith(VALUE_ERRORS):
                    at = 0
                if at is not None and len(node.args) > at and _plain_text(node.args[at]):
                    found.append(f"{where}:{node.lineno}")
            # a refusal returned as (status, sentence)
            if (
                isinstance(node, ast.Tuple)
                and len(node.elts) == 2
                and isinstance(node.elts[0], ast.Constant)
                and node.elts[0].value in range(400, 600)
                and _plain_text(node.elts[1])
            ):
                found.append(f"{where}:{node.lineno}")
    return found


def test_no_refusal_is_given_as_plain_text() -> None:
    """A new sentence written as English text would have no id and no
    Persian: every refusal is a Message (and so has its entry)."""
    assert not _unsaid()


def outside_isolates(text: str) -> str:
    return re.sub(f"{FSI}[^{PDI}]*{PDI}", "", text)


def test_a_refusal_from_the_table_is_translated_with_its_reason() -> None:
    e = table_refused("the pink is not on the table")
    assert e.text == "the table refused: the pink is not on the table"
    assert say(e.message, "fa") == "میز نپذیرفت: توپ صورتی روی میز نیست"
    assert say(e.message, "en") == e.text
    assert say(device_reason("wrong_ball_first applies only after a red was potted"), "fa") == (
        "«برخورد اول به توپ نادرست» فقط پس از گل شدن قرمز پیش می‌آید"
    )
    assert say(device_reason("best_of is at most 35"), "fa") == "تعداد فریم‌ها حداکثر ۳۵ است"


def test_an_unknown_sentence_stays_whole_and_isolated() -> None:
    text = "a sentence nobody wrote yet"
    assert say(device_reason(text), "fa") == f"{FSI}{text}{PDI}"
    assert say(Message(text), "fa") == f"{FSI}{text}{PDI}"


def test_a_sentence_the_log_kept_in_english_is_read_back_in_persian() -> None:
    """The activity log keeps a refusal's English; its page reads it back by
    the catalogue's templates, a reason and a choice of roles in their turn."""
    refused = roles.refusal(frozenset({"owner", "desk"}), _referee(), None)
    assert refused is not None
    kept = str(refused[1])
    assert kept == "refused: this needs the owner or desk role, and Rana is referee"
    assert read_back(kept) == refused[1]
    assert say(read_back(kept), "fa") == (
        f"رد شد: این کار نقش مالک یا پیشخوان می‌خواهد و {FSI}Rana{PDI} داور است"
    )
    table = str(table_refused("the undo log is full").message)
    assert say(read_back(table), "fa") == "میز نپذیرفت: دفتر برگرداندن پر است"
    assert read_back("a sentence nobody wrote") == "a sentence nobody wrote"


def _referee() -> roles.Actor:
    return roles.Actor("Rana", "referee", None, "session", 1)


# ---------------------------------------------------------------------- the catalogue
CATALOGUE = list(said.catalogue())[1:]  # the header is the first
# The words a placeholder is said by (host/sentences.py NAMED), by context.
WORDS = {*said.NAMED.values(), "join"}


def _messages() -> list[tuple[str, ast.Call]]:
    """Every ``Message(...)`` call in the host's code, with its file (but
    the machinery's own, which makes the device's messages from its entries)."""
    found = []
    for path in sorted((ROOT / "host").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "sentences.py" or "Message(" not in text:
            continue  # (a file without the word has no call: parsed only when it may)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Message":
                found.append((str(path.relative_to(ROOT)), node))
    return found


MESSAGES = _messages()


def _msgid(where: str, call: ast.Call) -> str:
    first = call.args[0] if call.args else None
    assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
        f"{where}:{call.lineno}: a Message's id is a literal template"
    )
    return first.value


def _entry(msgid: str) -> str | None:
    found = said.catalogue().get(msgid)
    return found.string if found is not None and isinstance(found.string, str) else None


def _device() -> list[str]:
    """Every sentence the device refuses with: the rules engine's (a
    template's slots filled with a sample, a number for %d) and its own
    refusals of a pocket check (firmware/app.py pocket_check)."""
    out = []
    for node in ast.walk(ast.parse((ROOT / "firmware" / "engine.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rejected":
            arg = node.args[0]
            if isinstance(arg, ast.BinOp):
                arg = arg.left
            assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), ast.unparse(arg)
            out.append(PERCENT.sub(lambda m: "48" if m.group() == "%d" else "pink", arg.value))
    app = ast.parse((ROOT / "firmware" / "app.py").read_text(encoding="utf-8"))
    start = next(n for n in ast.walk(app) if getattr(n, "name", None) == "pocket_check")
    out += [
        n.value.value
        for n in ast.walk(start)
        if isinstance(n, ast.Return)
        and isinstance(n.value, ast.Constant)
        and isinstance(n.value.value, str)
    ]
    return sorted(set(out))


DEVICE_SENTENCES = _device()


# The sentences a module declares as data (host/sentences.py declared): the
# request models' rules and descriptions, listed by the models themselves.
DECLARED = every_sentence()


@pytest.mark.parametrize("text", DECLARED)
def test_every_declared_sentence_has_its_persian(text: str) -> None:
    assert _entry(text), f"no Persian for {text!r}"
    assert not placeholders(text), text


def test_only_the_request_models_declare_sentences() -> None:
    declaring = {
        w
        for path in sorted((ROOT / "host").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "declared"
        for w in [str(path.relative_to(ROOT))]
    }
    assert declaring == {"host/web/request_models.py"}


def test_the_messages_were_found() -> None:
    assert len(MESSAGES) >= 80
    assert len(DECLARED) >= 50
    assert len(DEVICE_SENTENCES) >= 60


@pytest.mark.parametrize(("where", "call"), MESSAGES, ids=[f"{w}:{c.lineno}" for w, c in MESSAGES])
def test_every_message_has_its_persian_and_its_values(where: str, call: ast.Call) -> None:
    msgid = _msgid(where, call)
    assert _entry(msgid), f"{where}:{call.lineno}: no Persian for {msgid!r}"
    given = {k.arg for k in call.keywords}
    if None not in given:  # a ``**values`` is checked where it is filled
        assert given == placeholders(msgid), f"{where}:{call.lineno}: {msgid!r} given {given}"


def test_every_entry_has_the_placeholders_of_its_id() -> None:
    # One test for the 1,100-odd entries, naming every one that fails (a
    # test item each cost the quick loop seconds).
    wrong = []
    for entry in CATALOGUE:
        msgid, fa = entry.id, entry.string
        if not (isinstance(msgid, str) and isinstance(fa, str) and fa):
            wrong.append((entry.context, msgid, "no Persian"))
        # Persian words and digits outside the placeholders: a Latin letter
        # left in would be English on a Persian page.
        elif placeholders(fa) != placeholders(msgid) or re.search(
            "[A-Za-z0-9]", outside_isolates(re.sub(r"\{\w+\}", "", fa))
        ):
            wrong.append((entry.context, msgid, fa))
    assert len(CATALOGUE) > 1000 and wrong == []


def test_each_entry_is_declared_once() -> None:
    """Babel keeps the last of two entries of one msgid; the file must not hold two."""
    text = said.CATALOGUE.read_text(encoding="utf-8")
    assert len(re.findall(r"^msgid ", text, re.M)) == len(CATALOGUE) + 1  # and the header's


def test_every_entry_is_used() -> None:
    """No entry the code no longer gives: each sentence is declared once."""
    given = {_msgid(w, c) for w, c in MESSAGES} | set(DECLARED)
    device = {m.msgid for m in map(device_reason, DEVICE_SENTENCES) if isinstance(m, Message)}
    unused = [
        e.id
        for e in CATALOGUE
        if e.context is None and e.id not in (device if DEVICE in e.flags else given)
    ]
    assert not unused, unused
    # and each context is a vocabulary or a page's word (host/sentences.py PAGES)
    contexts = {e.context for e in CATALOGUE if (e.context or "").partition(":")[0] not in PAGES}
    assert contexts <= WORDS | {handset_texts.HANDSET, None}


def _reads(template: str, text: str) -> bool:
    """Whether ``text`` is ``template`` filled in, by an independent
    reading (a pattern made from the template) to hold device_reason to."""
    parts = re.split(r"\{\w+\}", template)
    return re.fullmatch("(.+)".join(map(re.escape, parts)), text) is not None


@pytest.mark.parametrize("text", DEVICE_SENTENCES)
def test_every_sentence_of_the_device_is_exactly_one_entry(text: str) -> None:
    found = device_reason(text)
    assert isinstance(found, Message), f"no entry of the device for {text!r}"
    assert str(found) == text
    assert DEVICE in said.catalogue()[found.msgid].flags
    readers = [e.id for e in CATALOGUE if DEVICE in e.flags and _reads(str(e.id), text)]
    assert readers == [found.msgid], (text, readers)


def test_every_ball_foul_kind_and_option_is_named() -> None:
    for ball in names.BALLS:
        assert _word(ball, "ball"), ball
    for kind in names.FOUL_KINDS:
        assert _word(kind, "foul"), kind
    for option in handset_texts.REFUSAL_VALUES["option"]:
        assert _word(option, "option"), option


def test_every_kind_of_row_the_store_refuses_is_named() -> None:
    kinds = {*records.OTHER_KINDS.values(), staff_schema.StaffWrite.KIND}
    for kind in kinds:
        assert _word(kind, "row"), kind


def _word(word: str, context: str) -> str | None:
    return said.word_in(word, context)
