"""Site-wide security wiring: which origins may open a websocket, the proxy's HTTPS
header, the refusal of the development key in production, and the
Content-Security-Policy header.

The helpers at the top are plain functions the settings module calls; the validator
and the middleware read the settings when they run, never at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlparse

from channels.security.websocket import OriginValidator
from django.conf import settings
from django.core.exceptions import DisallowedHost, ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

# -- used by settings.py ------------------------------------------------------------------


# Django's own bar for a strong key (security.W009, which `check --deploy` only warns
# about): at least 50 characters, at least 5 different ones.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE = 5


def check_secret_key(secret_key: str, development_key: str, debug: bool) -> None:
    """Refuse to start a production process (DEBUG off) with the key committed in the
    repository, with none, or with a short one (a one-character key was accepted):
    anyone who guesses it could forge sessions and signed data."""
    if debug:
        return
    if not secret_key or secret_key == development_key:
        raise ImproperlyConfigured(
            "DEBUG is off but SECRET_KEY is the development key (or empty): "
            "set SECRET_KEY to a long random value in production."
        )
    if len(secret_key) < SECRET_KEY_MIN_LENGTH or len(set(secret_key)) < SECRET_KEY_MIN_UNIQUE:
        raise ImproperlyConfigured(
            f"DEBUG is off but SECRET_KEY is weak: it needs at least {SECRET_KEY_MIN_LENGTH} "
            f"characters, {SECRET_KEY_MIN_UNIQUE} of them different (e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )


def proxy_ssl_header(raw: str) -> tuple[str, str] | None:
    """SECURE_PROXY_SSL_HEADER from `X-Forwarded-Proto` or `X-Forwarded-Proto: https`.

    Unset means "not behind a proxy that sets it": then a client's own header must not
    make a plain-HTTP request look secure."""
    raw = raw.strip()
    if not raw:
        return None
    name, _sep, value = raw.partition(":")
    name, value = name.strip(), (value.strip() or "https")
    if not name:
        raise ImproperlyConfigured("SECURE_PROXY_SSL_HEADER needs a header name.")
    return "HTTP_" + name.upper().replace("-", "_"), value


def check_networks(name: str, values: Iterable[str]) -> list[str]:
    """Addresses and networks (`127.0.0.0/8`, `::1`, `10.1.2.3`), each checked: a typo
    must stop the process, not open or close an endpoint silently."""
    import ipaddress

    checked = []
    for value in values:
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {value!r} is not an address or a network (e.g. 10.0.0.0/8, ::1)"
            ) from None
        checked.append(value)
    return checked


def _is_concrete_host(host: str) -> bool:
    # "*" and ".example.com" are patterns for Host checks, not origins a browser sends.
    return bool(host) and host != "*" and not host.startswith(".")


def default_websocket_origins(
    allowed_hosts: Iterable[str],
    csrf_trusted_origins: Iterable[str],
    debug: bool,
    dev_port: int,
) -> list[str]:
    """The origins a page of this site is served from, with scheme and port.

    Production: every CSRF trusted origin, and https on the default port for every
    allowed host. DEBUG adds plain http on the development server's port (and on port
    80, the test client's `http://testserver`)."""
    origins = list(csrf_trusted_origins)
    for host in filter(_is_concrete_host, allowed_hosts):
        origins.append(f"https://{host}")
        if debug:
            origins += [f"http://{host}:{dev_port}", f"http://{host}"]
    return list(dict.fromkeys(origins))


def check_origins(origins: Iterable[str]) -> list[str]:
    """Every allowed websocket origin names its scheme and host (a bare host would let
    any scheme and port through)."""
    checked = []
    for origin in origins:
        parsed = urlparse(origin)
        if parsed.scheme not in {"http", "https"} or not parsed.hostname:
            raise ImproperlyConfigured(
                f"DOBON_WS_ALLOWED_ORIGINS: {origin!r} is not an origin like https://host[:port]"
            )
        checked.append(origin.rstrip("/").lower())
    return checked


# -- websockets ------------------------------------------------------------------------------


class SiteOriginValidator(OriginValidator):  # type: ignore[misc]
    """Accept a websocket only from an origin in `DOBON_WS_ALLOWED_ORIGINS`, comparing
    scheme, host and port (channels' AllowedHostsOriginValidator compares the host only,
    so `http://localhost:1234` passed)."""

    def __init__(self, application: Any) -> None:
        super().__init__(application, [])

    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return False
        return any(
            self.match_allowed_origin(parsed_origin, pattern)
            for pattern in settings.DOBON_WS_ALLOWED_ORIGINS
        )


# -- HTTP --------------------------------------------------------------------------------------


def content_security_policy(request: HttpRequest) -> str:
    """The policy for one response: `DOBON_CSP`, with this host's websocket origin added
    to connect-src (older Safari does not count ws: under 'self')."""
    directives = dict(settings.DOBON_CSP)
    try:
        host = request.get_host()
    except DisallowedHost:  # the 400 page for a bad Host header: no socket to allow
        host = ""
    if host:
        scheme = "wss" if request.is_secure() else "ws"
        sources = directives.get("connect-src", "'self'")
        directives["connect-src"] = f"{sources} {scheme}://{host}"
    return "; ".join(f"{name} {value}".strip() for name, value in directives.items())


class ContentSecurityPolicyMiddleware:
    """Send the Content-Security-Policy header on every response that has none."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response.headers:
            response.headers["Content-Security-Policy"] = content_security_policy(request)
        return response
