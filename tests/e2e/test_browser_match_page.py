"""The match page follows a running match without a reload (static/js/match_live.js),
and the room page's header folds behind a menu on a phone instead of scrolling
sideways. Both under the strict CSP, with no console error."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, expect
from table_helpers import PHONE, open_player

from game.models import Membership, Room
from game.models.matches import Match
from game.services import clock, matches

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def port_of(live_server) -> int:
    return int(live_server.url.rsplit(":", 1)[1])


def base_of(live_server) -> str:
    """open_player's session cookie and CSP route are for 127.0.0.1, not localhost."""
    return f"http://127.0.0.1:{port_of(live_server)}"


def play_until(match: Match, done: int, limit: float = 60.0) -> None:
    """The sweep, as the scheduler would run it (live_server has none), until `done`
    games are finished."""
    give_up = time.monotonic() + limit
    while Match.objects.get(pk=match.pk).games_finished < done:
        assert time.monotonic() < give_up, "the match does not get on"
        clock.expire_due_games()


def test_the_match_page_follows_a_running_match_without_a_reload(
    browser: Browser, live_server, alice, settings
):
    settings.CELERY_BROKER_URL = ""
    room = Room.objects.create(name="arena", owner=alice, seat_count=4)
    match = matches.start_match(room, alice, games=2, cpu_level="easy")
    viewer = open_player(browser, port_of(live_server), alice, "alice", PHONE)
    page = viewer.page
    live_fetches: list[str] = []
    page.on("request", lambda r: "part=live" in r.url and live_fetches.append(r.url))
    page.goto(f"{base_of(live_server)}{match.get_absolute_url()}")
    page.evaluate("window.__sameDocument = true")
    progress = page.get_by_test_id("match-progress")
    expect(progress).to_have_attribute("data-status", "running")
    expect(page.get_by_test_id("standing-row")).to_have_count(0)

    play_until(match, 1)
    # Within a few seconds, without a reload: the bar, the standings, the games.
    expect(page.locator("#match-live progress")).to_have_attribute(
        "value", re.compile("^[12]$"), timeout=10_000)
    expect(page.get_by_test_id("standing-row")).to_have_count(4)
    expect(page.get_by_test_id("match-game").first).to_contain_text(re.compile(r"\S"))

    play_until(match, 2)
    expect(progress.or_(page.get_by_test_id("match-progress"))).to_have_attribute(
        "data-status", "finished", timeout=10_000)
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    # Once it shows a finished game, it asks only for the games after it (issue 20).
    assert any("after=" in url for url in live_fetches), live_fetches
    expect(page.get_by_test_id("match-game")).to_have_count(2)
    # Over: the page stops asking.
    asked = len(live_fetches)
    page.wait_for_timeout(4000)
    assert len(live_fetches) == asked
    assert viewer.errors == [] and viewer.csp_violations() == []


def test_the_room_header_folds_behind_a_menu_on_a_phone(browser: Browser, live_server, alice):
    room = Room.objects.create(name="金曜の卓", owner=alice, seat_count=4)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    viewer = open_player(browser, port_of(live_server), alice, "alice", PHONE)
    page = viewer.page
    page.goto(f"{base_of(live_server)}{room.get_absolute_url()}")
    toggle = page.get_by_test_id("menu-toggle")
    logout = page.locator(".site-header").get_by_role("button", name="ログアウト")
    english = page.locator(".site-header").get_by_role("button", name="English")
    expect(toggle).to_be_visible()
    expect(logout).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    for item in (logout, english):
        expect(item).to_be_visible()
        box = item.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.keyboard.press("Escape")
    expect(logout).to_be_hidden()
    # live_server speaks plain HTTP: the table's socket is refused, nothing else may fail.
    assert [e for e in viewer.errors if "WebSocket" not in e] == []
    assert viewer.csp_violations() == []
