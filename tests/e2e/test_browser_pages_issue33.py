"""Issue 33, what a newcomer's walk-through found wanting around the table: Back from a
game shows the lobby as it is now, not as the browser kept it; a refused start stays on
screen until read."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.page_helpers import log_in as _log_in
from tests.game.play_helpers import make_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}



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


def test_a_refused_start_stays_on_screen_until_read(page: Page, live_server, alice, bob):
    """A standard room (§T1: 3 to 6 players) with two seated: Start is refused, and the
    reason stays on the screen — it used to fade away after 4 s like a success toast."""
    room = make_room(alice, bob, seat_count=4, game_kind="trump_dobon", trump_preset="standard")
    base = live_server.url
    page.set_viewport_size(PHONE)
    _log_in(page, base, "alice")
    page.goto(f"{base}{room.get_absolute_url()}")
    page.get_by_test_id("start-game").click()
    refusal = page.locator("[data-role=toast]")
    expect(refusal).to_contain_text("3")
    page.wait_for_timeout(5000)  # an ordinary toast is gone after 4 s
    expect(refusal).to_be_visible()
    opacity = "getComputedStyle(document.querySelector('[data-role=toast]')).opacity"
    assert page.evaluate(opacity) == "1"
    page.get_by_test_id("toast-close").click()
    expect(refusal).to_be_hidden()


DESKTOP = {"width": 1280, "height": 800}
SMALL = {"width": 320, "height": 568}


@pytest.mark.parametrize("size", [SMALL, PHONE])
def test_the_header_folds_into_a_menu_on_every_page_of_a_phone(page: Page, live_server, alice,
                                                                 size):
    """Item 4: the header folded behind its menu button on the room page only; on the
    lobby, the rules, the leaderboard, the profile and the settings pages it wrapped over
    two or three rows of the first screen."""
    base = live_server.url
    page.set_viewport_size(size)
    _log_in(page, base, "alice")
    for path in ("/", "/how-to-play/", "/leaderboard/", "/u/alice/", "/account/tokens/",
                 "/rooms/new/"):
        page.goto(f"{base}{path}")
        toggle = page.get_by_test_id("menu-toggle")
        rules = page.locator(".site-header").get_by_test_id("nav-rules")
        expect(toggle).to_be_visible()
        expect(rules).to_be_hidden()
        header = page.locator(".site-header").bounding_box()
        assert header and header["height"] <= 64, path  # one row
        toggle.click()
        expect(rules).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path


def test_the_header_stays_one_open_row_on_a_desktop(page: Page, live_server, alice):
    base = live_server.url
    page.set_viewport_size(DESKTOP)
    _log_in(page, base, "alice")
    for path in ("/", "/how-to-play/"):
        page.goto(f"{base}{path}")
        expect(page.get_by_test_id("menu-toggle")).to_be_hidden()
        expect(page.locator(".site-header").get_by_test_id("nav-rules")).to_be_visible()
