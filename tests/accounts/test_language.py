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
