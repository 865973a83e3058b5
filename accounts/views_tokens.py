"""The signed-in user's API tokens: list, create (the key is shown once), revoke."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts import tokens
from accounts.models import User


def _page(request: HttpRequest, user: User, new_key: str | None = None,
          error: str | None = None, status: int = 200) -> HttpResponse:
    context = {
        "tokens": tokens.tokens_of(user),
        "new_key": new_key,
        "error": error,
        "name_max": tokens.NAME_MAX,
        "max_active": tokens.MAX_ACTIVE_TOKENS,
    }
    return render(request, "accounts/tokens.html", context, status=status)


@never_cache  # the page that shows a new key must not be kept by any cache
@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    if request.method != "POST":
        return _page(request, user)
    try:
        new = tokens.create_token(user, request.POST.get("name", ""))
    except tokens.TokenError as exc:
        return _page(request, user, error=str(exc), status=400)
    # Rendered, not redirected: the key must not travel through the session.
    return _page(request, user, new_key=new.key)


@require_POST
@login_required
def revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = tokens.revoke_token(request.user, token_id)  # type: ignore[arg-type]
    messages.info(request, _("Token “%(name)s” is revoked.") % {"name": token.name})
    return redirect("accounts:tokens")
