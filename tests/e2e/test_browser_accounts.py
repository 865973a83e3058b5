"""A newcomer signs up, creates a room and finds it in the lobby — on a laptop and on a
phone-sized screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from game.models import Room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "tangerine-umbrella-741"
PHONE = {"width": 375, "height": 667}


def _sign_up(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("form[action='/signup/'] button[type=submit]").click()
    expect(page).to_have_url(f"{base_url}/")
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)


def _create_room(page: Page, base_url: str, name: str) -> None:
    page.get_by_test_id("create-room").click()
    expect(page).to_have_url(f"{base_url}/rooms/new/")
    page.fill("#id_name", name)
    page.locator("form[action='/rooms/new/'] button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"{re.escape(base_url)}/rooms/\d+/$"))
    expect(page.locator("h1")).to_have_text(name)


def _fits_the_screen(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.browser_context_args(locale="ja-JP")
def test_sign_up_create_a_room_and_see_it_in_the_lobby(page: Page, live_server):
    base = live_server.url
    _sign_up(page, base, "erin")
    # Japanese for a Japanese browser (and by default).
    expect(page.locator("h1")).to_have_text("ロビー")
    expect(page.locator("#my-rooms .empty-state")).to_be_visible()

    _create_room(page, base, "Friday table")
    expect(page.locator("#seats li.seat-mine")).to_contain_text("erin")
    expect(page.get_by_test_id("invite-url")).to_have_value(re.compile(r"/join/[\w-]+/$"))

    page.get_by_role("link", name="ロビー").first.click()
    row = page.locator("#my-rooms .room-item", has_text="Friday table")
    expect(row).to_be_visible()
    expect(row).to_contain_text("1/4")
    assert Room.objects.get(name="Friday table").owner.username == "erin"


def test_the_same_flow_on_a_phone_in_english(browser: Browser, live_server):
    context = browser.new_context(viewport=PHONE, locale="en-US", has_touch=True)
    page = context.new_page()
    base = live_server.url
    try:
        # Japanese by default even for an English browser; the switcher changes that.
        page.goto(f"{base}/login/")
        expect(page.locator("html")).to_have_attribute("lang", "ja")
        # On a phone the header folds into its menu on every page (issue #33): open it.
        page.get_by_test_id("menu-toggle").click()
        page.get_by_role("button", name="English").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        _sign_up(page, base, "phoebe")
        expect(page.locator("h1")).to_have_text("Lobby")
        assert _fits_the_screen(page)

        _create_room(page, base, "Pocket room")
        assert _fits_the_screen(page)
        take_seat = page.get_by_test_id("take-seat-1")
        box = take_seat.bounding_box()
        assert box is not None and box["height"] >= 44  # a tap target, not a speck

        page.goto(f"{base}/")
        expect(page.locator("#my-rooms .room-item", has_text="Pocket room")).to_be_visible()
        assert _fits_the_screen(page)
    finally:
        context.close()


def test_keyboard_focus_is_visible(page: Page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")
