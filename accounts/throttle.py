"""Throttling of logins (django-axes) and sign-ups (SignupAttempt rows).

Logins: after AXES_FAILURE_LIMIT failures for one username, or from one address, the
next attempts are refused for AXES_COOLOFF_TIME by the first authentication backend,
before any password is hashed, with the lockout page (HTTP 429). Admins see the
lockouts under "Axes" in the admin and lift one by deleting its access attempt.

Sign-ups: each sign-up form sent counts for its address; over DOBON_SIGNUP_LIMIT in
DOBON_SIGNUP_WINDOW the form is refused unread (HTTP 429), so a flood creates no
accounts and hashes no passwords.
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from accounts.models import SignupAttempt
from accounts.usernames import normalize_username

UNKNOWN_ADDRESS = "0.0.0.0"  # noqa: S104 (a placeholder, never bound to)


def client_ip(request: HttpRequest) -> str:
    """The client's address: the connection's, or behind DOBON_PROXY_COUNT proxies that
    append to X-Forwarded-For, the entry that many from the right (the ones further
    left were written by the client and prove nothing)."""
    return client_ip_of(
        request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", "")
    )


def client_ip_of(peer: str, forwarded_for: str) -> str:
    """`client_ip` from the connection's address and the X-Forwarded-For header (the
    websocket admission uses it too: game/live/admission.py)."""
    address = peer
    proxies = settings.DOBON_PROXY_COUNT
    if proxies > 0:
        chain = [a.strip() for a in forwarded_for.split(",")]
        chain = [a for a in chain if a]
        if len(chain) >= proxies:
            address = chain[-proxies]
    return _valid_ip(address)


def _valid_ip(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return UNKNOWN_ADDRESS


class ThrottledLoginBackend(AxesStandaloneBackend):  # type: ignore[misc]
    """django-axes' check, first in AUTHENTICATION_BACKENDS. Calls without a request
    (`Client.login` in tests, the shell) have no address to throttle and pass on."""

    def authenticate(self, request: HttpRequest | None, *args: Any, **kwargs: Any) -> None:
        if request is None:
            return None
        return super().authenticate(request, *args, **kwargs)  # type: ignore[no-any-return]


def signup_blocked(request: HttpRequest) -> bool:
    """Whether this address has used up its sign-up attempts for the window."""
    since = timezone.now() - settings.DOBON_SIGNUP_WINDOW
    recent = SignupAttempt.objects.filter(ip_address=client_ip(request), created_at__gte=since)
    return recent.count() >= settings.DOBON_SIGNUP_LIMIT


def record_signup_attempt(request: HttpRequest, username: str) -> None:
    """Count one sign-up form from this address, forgetting its expired attempts."""
    address = client_ip(request)
    since = timezone.now() - settings.DOBON_SIGNUP_WINDOW
    with transaction.atomic():
        SignupAttempt.objects.filter(ip_address=address, created_at__lt=since).delete()
        SignupAttempt.objects.create(ip_address=address, username=username[:150])


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """The page for a refused login (AXES_LOCKOUT_CALLABLE): 429, in the site's language."""
    minutes = max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    return render(request, "accounts/locked_out.html", {"minutes": minutes}, status=429)


def login_username(request: HttpRequest, credentials: Any = None) -> str:
    """The name failures count against (AXES_USERNAME_CALLABLE): NFKC and case-folded,
    so `ALICE` and full-width `ａｌｉｃｅ` wear down the same allowance as `alice`."""
    raw = (credentials or {}).get("username") or request.POST.get("username", "")
    return normalize_username(str(raw)).casefold()[:255]
