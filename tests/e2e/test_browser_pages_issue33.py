"""Issue 33, the pages around the table that a newcomer's walk-through found wanting:
Back from a game shows the lobby as it is now, not as the browser kept it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def _log_in(page: Page, base: str, username: str, language: str = "ja") -> None:
    page.context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)


def test_back_from_a_game_shows_the_lobby_with_the_running_game(page: Page, live_server, alice):
    """A newcomer in an empty lobby starts a game against CPUs, then presses Back: the
    lobby lists that room with its game on (it used to come back from the browser's cache
    saying "you are not in any room yet")."""
    base = live_server.url
    page.set_viewport_size(PHONE)
    _log_in(page, base, "alice")
    page.goto(f"{base}/")
    expect(page.locator("#my-rooms .empty-state")).to_be_visible()
    page.get_by_test_id("play-cpu").click()
    page.wait_for_url("**/rooms/*/")
    page.go_back()
    page.wait_for_url(f"{base}/")
    rooms = page.locator("#my-rooms .room-item")
    expect(rooms).to_have_count(1)
    expect(rooms.locator(".badge-live")).to_be_visible()
    expect(page.locator("#my-rooms .empty-state")).to_have_count(0)
