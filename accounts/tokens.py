"""API tokens for program clients (the bot API, docs/bots-api.md).

A token is `dobon_` + 43 URL-safe random characters (`secrets.token_urlsafe(32)`,
256 bits). Only its SHA-256 is stored, so a leaked database does not leak keys; a
fast hash is enough because the key is random, not a password someone chose.

Verbs: `create_token` (returns the key once), `revoke_token`, `tokens_of`, `token_of`;
`user_for_key` is what the websocket's token middleware asks.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import ApiToken, User

log = logging.getLogger(__name__)

KEY_PREFIX = "dobon_"
PREFIX_SHOWN = len(KEY_PREFIX) + 6
NAME_MAX = ApiToken._meta.get_field("name").max_length or 60
# `last_used_at` is written at most this often per token (one UPDATE, not one per socket).
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(Exception):
    """A refused token request; the message is for the person, in their language."""


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    key: str  # shown once, never stored


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def tokens_of(user: User) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (a user never sees anyone else's)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def check_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise TokenError(_("Give the token a name."))
    if len(name) > NAME_MAX:
        raise TokenError(_("The name is too long."))
    return name


def create_token(user: User, name: str) -> NewToken:
    """A new active token for `user`, and its key (to be shown once)."""
    name = check_name(name)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one count at a time
        active = tokens_of(user).filter(revoked_at__isnull=True)
        if active.count() >= settings.DOBON_MAX_ACTIVE_API_TOKENS:
            raise TokenError(
                _("You already have %(count)d active tokens: revoke one first.")
                % {"count": settings.DOBON_MAX_ACTIVE_API_TOKENS}
            )
        # Revoked tokens stay listed: without this, create-and-revoke grows the table
        # (and the page) without end.
        since = timezone.now() - timedelta(days=1)
        today = tokens_of(user).filter(created_at__gte=since).count()
        if today >= settings.DOBON_API_TOKENS_PER_DAY:
            raise TokenError(
                _("You have created %(count)d tokens in the last 24 hours: try again tomorrow.")
                % {"count": settings.DOBON_API_TOKENS_PER_DAY}
            )
        # Two active tokens named alike cannot be told apart when one is to be revoked.
        if active.filter(name__iexact=name).exists():
            raise TokenError(
                _("You already have an active token named “%(name)s”: choose another name.")
                % {"name": name}
            )
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(
            user=user, name=name, key_hash=hash_key(key), prefix=key[:PREFIX_SHOWN]
        )
    return NewToken(token, key)


def token_of(user: User, token_id: int) -> ApiToken:
    """One of `user`'s tokens; someone else's is refused like one that does not exist."""
    token = ApiToken.objects.filter(pk=token_id, user=user).first()
    if token is None:
        raise PermissionDenied
    return token


def revoke_token(user: User, token_id: int) -> ApiToken:
    """Revoke one of `user`'s tokens; its open sockets close (4401) after the commit.
    Someone else's token is refused exactly like one that does not exist."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id).first()
        if token is None or token.user_id != user.pk:
            raise PermissionDenied
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            user_id, revoked = user.pk, token.pk
            transaction.on_commit(lambda: notify_revoked(user_id, revoked))
    return token


def revoke_all_tokens(user: User) -> int:
    """Revoke every active token of `user` (a new password, by default): programs must be
    given a new key. Their sockets close with the password change's own notice."""
    now = timezone.now()
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now)


def notify_revoked(user_id: int, token_id: int) -> None:
    """Every socket of the user hears it; those opened with this token close."""
    from game.live import sender  # game depends on accounts, not back
    from game.live.groups import user_group

    try:
        sender.send([(user_group(user_id), {"type": "token.revoked", "token": token_id})])
    except Exception:  # the socket still closes at its next check; log and go on
        log.exception("could not tell the sockets of user %s about a revoked token", user_id)


def user_for_key(key: str) -> tuple[User, int] | None:
    """The active user an active token's key belongs to, with the token's id; None for
    an unknown or revoked key, or an inactive account."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_key(key), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user, token.pk
