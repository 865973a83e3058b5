"""Japanese by default, English on request, switched from the header."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_pages_are_japanese_by_default(client):
    html = client.get(reverse("accounts:login")).content.decode()
    assert '<html lang="ja">' in html
    assert "ログイン" in html


def test_an_english_browser_still_gets_japanese_until_english_is_chosen(client):
    """Japanese by default: the browser's Accept-Language does not switch the site."""
    html = client.get(reverse("accounts:login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="ja">' in html
    client.post(reverse("set_language"), {"language": "en", "next": "/login/"})
    html = client.get(reverse("accounts:login"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="en">' in html
    assert "Log in" in html


def test_an_unknown_language_cookie_falls_back_to_japanese(client, settings):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "xx"
    assert '<html lang="ja">' in client.get(reverse("accounts:login")).content.decode()


def test_language_switcher_posts_to_set_language(client):
    html = client.get(reverse("accounts:login")).content.decode()
    assert f'action="{reverse("set_language")}"' in html
    response = client.post(reverse("set_language"), {"language": "en", "next": "/login/"})
    assert response.status_code == 302
    assert '<html lang="en">' in client.get(reverse("accounts:login")).content.decode()


def test_room_pages_are_translated(client, alice):
    client.force_login(alice)
    html = client.get(reverse("game:lobby")).content.decode()
    assert "ロビー" in html
    assert "ルームを作る" in html


def test_validation_errors_are_japanese_too(client):
    response = client.post(
        reverse("accounts:signup"), {"username": "", "password1": "a", "password2": "b"}
    )
    assert "このフィールドは必須です。" in response.content.decode()


def _log_in(client, user, password):
    return client.post(reverse("accounts:login"), {"username": user.username, "password": password})


def test_the_language_chosen_while_signed_in_follows_the_account_to_a_new_browser(
    client, alice, password
):
    """Issue #33: English chosen on one browser is kept at the next log-in on another (a
    new browser has no language cookie) — it used to fall back to Japanese."""
    from django.test import Client

    client.force_login(alice)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    alice.refresh_from_db()
    assert alice.language == "en"

    other = Client()
    response = _log_in(other, alice, password)
    assert response.status_code == 302
    assert response.cookies[settings_cookie_name()].value == "en"
    assert '<html lang="en">' in other.get(reverse("game:lobby")).content.decode()


def test_a_choice_made_just_before_logging_in_wins_and_is_kept(client, alice, password):
    """The latest explicit choice wins: switched to English on the log-in page, the
    person stays in English and the account remembers it."""
    alice.language = "ja"
    alice.save(update_fields=["language"])
    client.post(reverse("set_language"), {"language": "en", "next": "/login/"})
    _log_in(client, alice, password)
    alice.refresh_from_db()
    assert alice.language == "en"
    assert '<html lang="en">' in client.get(reverse("game:lobby")).content.decode()


def test_the_language_cookie_outlives_the_browser_session(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert int(response.cookies[settings_cookie_name()]["max-age"]) >= 30 * 24 * 3600


def test_a_failed_log_in_changes_no_account_language(client, alice):
    client.post(reverse("set_language"), {"language": "en", "next": "/login/"})
    client.post(reverse("accounts:login"), {"username": "alice", "password": "wrong"})
    alice.refresh_from_db()
    assert alice.language == ""


def settings_cookie_name() -> str:
    from django.conf import settings

    return settings.LANGUAGE_COOKIE_NAME
