"""What a new password does to the account's API tokens (docs/security.md, "Tokens")."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from accounts import tokens
from accounts.models import User, password_changed


@receiver(password_changed, dispatch_uid="accounts.revoke_tokens_on_password_change")
def revoke_tokens_on_password_change(sender: Any, user: User, **kwargs: Any) -> None:
    """Every path that sets a password (the page, the admin, `changepassword`) revokes
    the user's tokens, unless the password page was told to keep them."""
    if not getattr(user, "_keep_api_tokens", False):
        tokens.revoke_all_tokens(user)
    user._keep_api_tokens = False  # type: ignore[attr-defined]


@receiver(user_logged_in, dispatch_uid="accounts.note_log_in_for_language")
def note_log_in_for_language(sender: Any, request: Any, user: User, **kwargs: Any) -> None:
    """Tell the language middleware that this request logged someone in: it then brings
    the account's language to this browser, or keeps this browser's choice
    (accounts/middleware.py, `remember_language`)."""
    if request is not None:
        request.logged_in_now = True
