"""Account events that end live sockets: logging out closes that session's sockets,
a new password or a deactivation closes all of the user's, the program sockets of its
API tokens included (game/services/access.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from accounts.models import deactivated, password_changed
from game.services import access


@receiver(user_logged_out, dispatch_uid="game.close_sockets_on_logout")
def close_sockets_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is None:
        return
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    access.notify_session_ended(user.pk, session_key)


@receiver(password_changed, dispatch_uid="game.close_sockets_on_password_change")
def close_sockets_on_password_change(sender: Any, user: Any, **kwargs: Any) -> None:
    access.notify_session_ended(user.pk, None)


@receiver(deactivated, dispatch_uid="game.close_sockets_on_deactivation")
def close_sockets_on_deactivation(sender: Any, user: Any, **kwargs: Any) -> None:
    """Issue 20: a deactivated user's open sockets (a token's too) stayed open."""
    access.notify_session_ended(user.pk, None)
