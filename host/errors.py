"""The one error every layer that carries out an operator's or the desk's
action raises: what cannot be done, as an HTTP status and a sentence the
person who asked can act on.  The web side answers it; nothing else may
catch it silently."""

from __future__ import annotations


class ActionError(Exception):
    """An operator action that cannot be carried out (HTTP status and text)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
