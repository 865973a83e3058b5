"""Issue 11: settings and headers that hold in production.

The findings: SECURE_PROXY_SSL_HEADER was always trusted; DEBUG=false accepted the
development SECRET_KEY silently; the websocket origin check ignored scheme and port;
no Content-Security-Policy; signed-in pages lacked `Cache-Control: private`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from dobon_site.security import check_origins, default_websocket_origins, proxy_ssl_header
from game.services import rooms

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x7!" + "k3Vq9pL2mN8rT5wY1zB4cD6fH0jS" * 2,
    "ALLOWED_HOSTS": "dobon.example",
    "CSRF_TRUSTED_ORIGINS": "https://dobon.example",
}


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DJANGO_", "SECURE_", "DOBON_")) and k not in PRODUCTION}
    clean.update(env, DJANGO_SETTINGS_MODULE="dobon_site.settings")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean,
                          capture_output=True, text=True)


def _setting(name: str, **env: str) -> str:
    done = _run(f"from django.conf import settings; print(repr(settings.{name}))", **env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# -- the development key ------------------------------------------------------------------------


def test_production_refuses_to_start_with_the_development_key():
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    done = _run("import django; django.setup()", **env)
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr and "ImproperlyConfigured" in done.stderr
    done = _run("import django; django.setup()", **{**env, "SECRET_KEY": ""})
    assert done.returncode != 0


@pytest.mark.parametrize("key", ["x", "a" * 80, "short-but-random-9f3Kq"])
def test_production_refuses_a_short_or_repetitive_key(key):
    """Issue 20: a one-character SECRET_KEY was accepted in production."""
    done = _run("import django; django.setup()", **{**PRODUCTION, "SECRET_KEY": key})
    assert done.returncode != 0
    assert "SECRET_KEY is weak" in done.stderr


def test_production_starts_with_its_own_key_and_development_with_the_committed_one():
    assert _run("import django; django.setup()", **PRODUCTION).returncode == 0
    assert _run("import django; django.setup()", DEBUG="true").returncode == 0


def test_check_deploy_is_clean_behind_a_proxy_too():
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, capture_output=True, text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
             **PRODUCTION, "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
             "DJANGO_SETTINGS_MODULE": "dobon_site.settings"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


# -- the proxy's HTTPS header -----------------------------------------------------------------


def test_the_proxy_header_is_trusted_only_when_configured():
    assert _setting("SECURE_PROXY_SSL_HEADER", **PRODUCTION) == "None"
    configured = _setting("SECURE_PROXY_SSL_HEADER", **PRODUCTION,
                          SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert configured == "('HTTP_X_FORWARDED_PROTO', 'https')"


def test_proxy_header_values_parse():
    assert proxy_ssl_header("") is None
    assert proxy_ssl_header("X-Forwarded-Proto") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert proxy_ssl_header("X-Forwarded-Ssl: on") == ("HTTP_X_FORWARDED_SSL", "on")


@pytest.mark.django_db
def test_a_plain_http_client_cannot_claim_https(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = None
    response = client.get(reverse("accounts:login"), HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 301 and response.url.startswith("https://")
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = client.get(reverse("accounts:login"), HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200


# -- websocket origins ------------------------------------------------------------------------


def test_production_origins_are_https_on_the_configured_hosts_only():
    origins = _setting("DOBON_WS_ALLOWED_ORIGINS", **PRODUCTION)
    assert origins == "['https://dobon.example']"


def test_development_origins_include_the_dev_servers_port():
    origins = default_websocket_origins(["localhost", ".example.com", "*"], [], True, 8123)
    assert "http://localhost:8123" in origins and "https://localhost" in origins
    assert not any("example.com" in o or "*" in o for o in origins)
    assert default_websocket_origins(["dobon.example"], ["https://play.dobon.example"],
                                     False, 8000) == ["https://play.dobon.example",
                                                      "https://dobon.example"]


def test_configured_origins_must_name_a_scheme():
    from django.core.exceptions import ImproperlyConfigured

    assert check_origins(["https://dobon.example/"]) == ["https://dobon.example"]
    with pytest.raises(ImproperlyConfigured):
        check_origins(["dobon.example"])
    done = _run("import django; django.setup()", **PRODUCTION,
                DOBON_WS_ALLOWED_ORIGINS="dobon.example")
    assert done.returncode != 0 and "DOBON_WS_ALLOWED_ORIGINS" in done.stderr


# -- Content-Security-Policy ---------------------------------------------------------------


def _csp(response) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/login/", "/signup/", "/admin/login/"])
def test_every_page_sends_a_policy_without_inline_script(client, url):
    policy = _csp(client.get(url))
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert "ws://testserver" in policy["connect-src"]
    assert "unsafe" not in " ".join(policy.values())


TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style\b", re.I), "inline <style>"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "event handler attribute"),
    (re.compile(r"\sstyle\s*=", re.I), "style attribute"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_templates_hold_nothing_the_policy_would_block(template):
    text = template.read_text(encoding="utf-8")
    found = [what for pattern, what in INLINE if pattern.search(text)]
    assert found == []


# -- caching ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_signed_in_pages_are_private_to_caches(client, alice, bob):
    room = rooms.create_room(alice, name="Tea")
    client.force_login(alice)
    for url in (reverse("game:lobby"), room.get_absolute_url(),
                reverse("accounts:profile", args=["bob"]), reverse("accounts:password_change")):
        cache_control = client.get(url).headers.get("Cache-Control", "")
        assert "private" in cache_control, url
        assert "public" not in cache_control


@pytest.mark.django_db
def test_anonymous_pages_are_not_marked_private(client):
    assert "private" not in client.get(reverse("accounts:signup")).headers.get("Cache-Control", "")
