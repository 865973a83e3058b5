"""The signed-in user's API tokens: list, create (the key is shown once), revoke."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import tokens
from accounts.models import ApiToken, User

# A new key goes from the POST that made it to the one GET that shows it (a reload then
# shows the list, not a second token) split in two halves that are useless apart: the
# session row (in the database) holds the key XOR a random pad, the browser holds the pad
# in a short-lived cookie. Neither the database nor the cookie alone reveals the key
# (issue 20: it waited in clear in the session row, readable without SECRET_KEY).
NEW_KEY = "new_api_token_sealed"
PAD_COOKIE = "dobon_token_pad"
PAD_SECONDS = 300


def _seal(key: str) -> tuple[str, str]:
    """(key XOR pad, pad), both hex: a one-time pad, as long as the key."""
    raw = key.encode()
    pad = secrets.token_bytes(len(raw))
    return bytes(a ^ b for a, b in zip(raw, pad, strict=True)).hex(), pad.hex()


def _unseal(sealed: str | None, pad: str | None) -> str | None:
    try:
        raw, mask = bytes.fromhex(sealed or ""), bytes.fromhex(pad or "")
    except ValueError:
        return None
    if not raw or len(raw) != len(mask):
        return None
    return bytes(a ^ b for a, b in zip(raw, mask, strict=True)).decode("ascii", "replace")


def _page(request: HttpRequest, user: User, new_key: str | None = None,
          error: str | None = None, name: str = "", status: int = 200) -> HttpResponse:
    context = {
        "tokens": tokens.tokens_of(user),
        "new_key": new_key,
        "error": error,
        "name": name,
        "name_max": tokens.NAME_MAX,
        "max_active": settings.DOBON_MAX_ACTIVE_API_TOKENS,
    }
    return render(request, "accounts/tokens.html", context, status=status)


@never_cache  # the page that shows a new key must not be kept by any cache
@login_required
@require_http_methods(["GET", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    if request.method == "POST":
        return _create(request, user)
    new_key = _unseal(request.session.pop(NEW_KEY, None), request.COOKIES.get(PAD_COOKIE))
    response = _page(request, user, new_key=new_key)
    if PAD_COOKIE in request.COOKIES:
        response.delete_cookie(PAD_COOKIE, path=request.path, samesite="Strict")
    return response


def _create(request: HttpRequest, user: User) -> HttpResponse:
    name = request.POST.get("name", "")
    try:
        new = tokens.create_token(user, name)
    except tokens.TokenError as exc:
        return _page(request, user, error=str(exc), name=name, status=400)
    sealed, pad = _seal(new.key)
    request.session[NEW_KEY] = sealed
    response = redirect("accounts:tokens")
    response.set_cookie(PAD_COOKIE, pad, max_age=PAD_SECONDS, path=request.path,
                        secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Strict")
    return response


@login_required
@require_http_methods(["GET", "POST"])
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET asks (naming the token by name and key prefix), POST revokes."""
    user: User = request.user  # type: ignore[assignment]
    token = tokens.token_of(user, token_id)  # someone else's: 403
    if request.method == "POST":
        tokens.revoke_token(user, token_id)
        messages.success(request, _("Token “%(name)s” (%(prefix)s…) is revoked.")
                         % {"name": token.name, "prefix": token.prefix})
        return redirect("accounts:tokens")
    if not token.is_active:
        messages.info(request, _("Token “%(name)s” is already revoked.") % {"name": token.name})
        return redirect("accounts:tokens")
    return _confirm_revoke(request, token)


def _confirm_revoke(request: HttpRequest, token: ApiToken) -> HttpResponse:
    context = {
        "title": _("Revoke this token?"),
        "question": _("The token “%(name)s”, whose key starts with %(prefix)s…, stops working "
                      "at once.") % {"name": token.name, "prefix": token.prefix},
        "note": _("Programs using it are disconnected. This cannot be undone."),
        "action": reverse("accounts:revoke_token", args=[token.pk]),
        "button": _("Revoke"),
        "cancel_url": reverse("accounts:tokens"),
    }
    return render(request, "game/confirm.html", context)
