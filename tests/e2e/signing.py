"""The staff sign-in form every page shares (host/web/static/js/signin.js),
as a person fills it in: the operator token, a name and password, or a
desk clerk's name and PIN, or a one-time code from the owner."""

from __future__ import annotations

from typing import Any

from tests.e2e.chromium import page_errors


def fill_sign_in(page: Any, secret: str, name: str | None = None, kind: str | None = None) -> None:
    """Fill the visible sign-in form and send it.  Without ``name`` it is
    the operator token (or ``kind`` "code"); with one, a password unless
    ``kind`` is "pin"."""
    page.wait_for_selector("#signin-kind:visible")
    page.select_option("#signin-kind", kind or ("password" if name else "token"))
    if name is not None:
        page.fill("#signin-name", name)
    page.fill("#signin-secret", secret)
    page.click("#signin-submit")


def signed_in_page(
    context: Any, url: str, secret: str, name: str | None = None, kind: str | None = None
) -> tuple[Any, list[str]]:
    """A new page of ``context`` at ``url``, signed in on its form as
    :func:`fill_sign_in` does it, and the list its script errors go to."""
    page = context.new_page()
    errors = page_errors(page)
    page.set_default_timeout(60_000)
    page.goto(url)
    fill_sign_in(page, secret, name=name, kind=kind)
    return page, errors
