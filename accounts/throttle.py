"""Throttling of logins (django-axes) and sign-ups (SignupAttempt rows).

Logins (docs/security.md, "Logins"), counted by `LoginThrottleHandler` over the failures
of the last AXES_COOLOFF_TIME:

- a (username, address) pair is refused after AXES_FAILURE_LIMIT failures;
- an address is refused after DOBON_LOGIN_ADDRESS_FAILURE_LIMIT failures, whatever the
  names tried; a success does not lower this count (only its own pair's), so logging in
  to one's own account between guesses buys nothing;
- a username is never locked for everyone: once it has DOBON_LOGIN_USERNAME_SLOWDOWN
  failures from all addresses together, each address that never signed in to it gets one
  try instead of AXES_FAILURE_LIMIT, while addresses its owner signed in from keep theirs.

A refused attempt is refused by the first authentication backend, before any password is
hashed, with the lockout page (HTTP 429). Admins see the attempts under "Axes" in the
admin and lift a lock by deleting them.

Sign-ups: each sign-up form sent counts for its address; over DOBON_SIGNUP_LIMIT in
DOBON_SIGNUP_WINDOW the form is refused unread (HTTP 429), so a flood creates no
accounts and hashes no passwords.
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet, Sum
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


class LoginThrottleHandler(AxesDatabaseHandler):  # type: ignore[misc]
    """django-axes' database handler with the site's policy (AXES_HANDLER): failures
    counted per (username, address) pair and per address, a slow-down instead of a lock
    for a username attacked from many addresses, and a success that forgets only its pair."""

    def get_failures(self, request: HttpRequest, credentials: Any = None) -> int:
        """AXES_FAILURE_LIMIT or more when this attempt is refused, else the pair's count
        (axes compares the answer with AXES_FAILURE_LIMIT, before and after a failure)."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address  # type: ignore[attr-defined]
        recent = _recent_failures(request)
        pair = _failures(recent.filter(username=username, ip_address=address))
        limit = settings.AXES_FAILURE_LIMIT
        from_address = _failures(recent.filter(ip_address=address))
        if from_address >= settings.DOBON_LOGIN_ADDRESS_FAILURE_LIMIT:
            return max(pair, limit)
        if pair and _slowed_down(recent, username, address):
            return max(pair, limit)  # one try per unknown address while the name is attacked
        return pair

    def reset_user_attempts(self, request: HttpRequest, credentials: Any = None) -> int:
        """A success forgets the failures of its own (username, address) pair only: the
        address's failures for other names still count."""
        username = get_client_username(request, credentials)
        pair = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address  # type: ignore[attr-defined]
        )
        count, _deleted = pair.delete()
        return int(count)


def _recent_failures(request: HttpRequest) -> QuerySet[AccessAttempt]:
    since = request.axes_attempt_time - settings.AXES_COOLOFF_TIME  # type: ignore[attr-defined]
    return AccessAttempt.objects.filter(attempt_time__gte=since)


def _failures(attempts: QuerySet[AccessAttempt]) -> int:
    return int(attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0)


def _slowed_down(recent: QuerySet[AccessAttempt], username: str | None, address: str) -> bool:
    """Whether `username` is under attack from many addresses and `address` is not one its
    owner signed in from (axes' AccessLog keeps each successful login)."""
    if _failures(recent.filter(username=username)) < settings.DOBON_LOGIN_USERNAME_SLOWDOWN:
        return False
    return not AccessLog.objects.filter(username__iexact=username, ip_address=address).exists()


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
