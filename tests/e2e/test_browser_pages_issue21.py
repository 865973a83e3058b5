"""Issue 21, the pages around the table: the bot API is a page of the site (linked from
the footer and the token page), wide tables on a phone say that they scroll, the
leaderboard is linked, and a dead link shows the site's own 404 page, on both sizes and
in both languages. Shots go to $DOBON_SHOTS when it is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.page_helpers import log_in as _log_in
from tests.game.history_helpers import play_agari, play_dobon, play_return
from tests.game.play_helpers import NOW, make_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}



def _shoot(page: Page, name: str) -> None:
    folder = os.environ.get("DOBON_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _fits(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize(("size", "language"), [(PHONE, "en"), (DESKTOP, "ja")])
def test_the_bot_api_is_a_page_linked_from_the_footer_and_the_token_page(
    page: Page, live_server, alice, size, language
):
    """Item 5."""
    base = live_server.url
    page.set_viewport_size(size)
    _log_in(page, base, "alice", language)
    page.get_by_test_id("footer-bots").click()
    doc = page.get_by_test_id("doc-page")
    expect(doc.locator("h1")).to_contain_text("bot API")
    expect(doc.locator("h2").first).to_be_visible()
    expect(doc.locator("pre code").first).to_be_visible()
    assert _fits(page)
    _shoot(page, f"25-bots-doc-{language}-{'phone' if size is PHONE else 'desktop'}")
    # Its links lead to pages of the site, not to repository files.
    doc.locator("a[href='/docs/protocol/']").first.click()
    expect(page.get_by_test_id("doc-page").locator("h1")).to_contain_text("protocol")
    page.goto(f"{base}/account/tokens/")
    page.get_by_test_id("bots-doc-link").click()
    expect(page.get_by_test_id("doc-page")).to_be_visible()


def test_wide_tables_on_a_phone_say_that_they_scroll(
    page: Page, live_server, alice, bob, carol, dave
):
    """Item 6: the game page's points, the room's win/dobon counts, the leaderboard."""
    people = [alice, bob, carol, dave]
    room = make_room(*people)
    play_agari(room, people, now=NOW)
    play_return(room, people, now=NOW + 50)
    game = play_dobon(room, people, now=NOW + 100)
    base = live_server.url
    page.set_viewport_size(PHONE)
    _log_in(page, base, "alice")
    pages = {
        "game": game.get_absolute_url(),
        "room": room.get_absolute_url(),
        "leaderboard": "/leaderboard/",
    }
    scrolling = 0
    for name, url in pages.items():
        page.goto(f"{base}{url}")
        page.wait_for_timeout(200)
        boxes = page.locator(".table-scroll")
        for i in range(boxes.count()):
            box = boxes.nth(i)
            wide = box.evaluate("e => e.scrollWidth - e.clientWidth > 2")
            hint = box.evaluate("e => e.previousElementSibling")
            if not wide:
                continue
            scrolling += 1
            cue = page.get_by_test_id("scroll-hint").nth(i)
            assert hint is not None
            expect(cue).to_be_visible()
            assert "scrolls" in (box.get_attribute("class") or "")
            box.evaluate(
                "e => { e.scrollLeft = e.scrollWidth; e.dispatchEvent(new Event('scroll')); }"
            )
            # Scrolled to its end, the cue goes; back at the start, it returns.
            expect(cue).to_be_hidden()
            box.evaluate("e => { e.scrollLeft = 0; e.dispatchEvent(new Event('scroll')); }")
            expect(cue).to_be_visible()
        assert _fits(page), name
        page.evaluate(
            "() => { const t = document.querySelector('.table-scroll.scrolls');"
            " if (t) t.previousElementSibling.scrollIntoView(); }"
        )
        _shoot(page, f"26-scroll-cue-{name}-phone")
    assert scrolling >= 1, "no table was wider than the phone: the test shows nothing"


@pytest.mark.parametrize(("size", "language"), [(PHONE, "ja"), (DESKTOP, "en")])
def test_a_dead_link_shows_the_site_404_and_the_leaderboard_is_linked(
    page: Page, live_server, alice, size, language
):
    """Item 8: the site's 404 page (the test server runs with DEBUG off; the laptop
    default, DEBUG on, is tests/game/test_error_pages.py), the leaderboard in the footer."""
    base = live_server.url
    page.set_viewport_size(size)
    _log_in(page, base, "alice", language)
    response = page.goto(f"{base}/rooms/999999/")
    assert response is not None and response.status == 404
    expect(page.get_by_test_id("not-found")).to_be_visible()
    expect(page.locator(".site-header")).to_be_visible()
    assert _fits(page)
    _shoot(page, f"27-not-found-{language}-{'phone' if size is PHONE else 'desktop'}")
    page.get_by_test_id("footer-leaderboard").click()
    expect(page.get_by_test_id("leaderboard").or_(page.locator(".empty-state")).first).to_be_visible()
