"""The one error every layer that carries out an operator's or the desk's
action raises: what cannot be done, as a kind of refusal and a sentence the
person who asked can act on (host/sentences.py: a message id and its
values, said in either language).  The kind says what happened (the input, a
thing that is not there, the state as it is, the host now); the web side
alone chooses the status it answers with (host/web/http.py
``refusal_status``).  Nothing else may catch it silently."""

from __future__ import annotations

import enum

from baulk.host.sentences import Message


class Refusal(enum.Enum):
    """What kind of refusal an action met."""

    BAD_INPUT = "bad input"  # what was asked is not something the action takes
    NOT_FOUND = "not found"  # it names a table, session, correction or item that is not there
    CONFLICT = "conflict"  # the state as it is refuses it (the table changed, a session closed)
    UNAVAILABLE = "unavailable"  # not now: the store cannot write, too much waits for the table
    FAILED = "failed"  # the host failed at it (the store's writer narrowed a bug down to the row)


class ActionError(Exception):
    """An operator action that cannot be carried out: its kind and its
    sentence (a :class:`Message`, by its id; ``text`` is its English)."""

    def __init__(self, kind: Refusal, message: Message | str) -> None:
        super().__init__(str(message))
        self.kind = kind
        self.message = message
        self.text = str(message)
