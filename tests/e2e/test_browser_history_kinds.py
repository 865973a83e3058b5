"""Issue 33 item 2 in the browser: a room that played Dobon UNO, trump au and trump
standard shows on its history page each game's kind and preset, a standings table per
kind with its own order, and who dobon'd whom per kind (the trump dobon counted); the room
page's standings the same. On a phone (390×844, Japanese) and a desktop (1280×800,
English). Shots go to $DOBON_SHOTS when it is set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.page_helpers import log_in as _log_in
from tests.game.history_helpers import play_dobon
from tests.game.kind_helpers import play_standard_round, play_trump_au_dobon, switch
from tests.game.play_helpers import NOW, make_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
LABELS = {
    "ja": {"dobon_uno": "ドボン UNO", "trump_au": "トランプ・ドボン（au）",
           "trump_standard": "トランプ・ドボン（スタンダード）"},
    "en": {"dobon_uno": "Dobon UNO", "trump_au": "Trump Dobon (au)",
           "trump_standard": "Trump Dobon (standard)"},
}


@pytest.fixture(autouse=True)
def _quick(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def _shoot(page: Page, name: str) -> None:
    folder = os.environ.get("DOBON_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _fits(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize(("size", "language"), [(PHONE, "ja"), (DESKTOP, "en")])
def test_a_rooms_history_and_room_page_keep_the_game_kinds_apart(
    page: Page, live_server: Any, alice: Any, bob: Any, carol: Any, dave: Any,
    size: dict[str, int], language: str,
) -> None:
    people = [alice, bob, carol, dave]
    room = make_room(*people)
    play_dobon(room, people, now=NOW)  # bob dobons alice: +51
    play_trump_au_dobon(switch(room, "trump_dobon", "au"), people, NOW + 100)  # carol: +60
    room = switch(room, "trump_dobon", "standard")
    standard = play_standard_round(room, alice, NOW + 20000)
    lowest = min(zip(standard.result["deltas"], ("alice", "bob", "carol", "dave"),
                     strict=True))[1]
    labels = LABELS[language]
    device = "phone" if size is PHONE else "desktop"
    base = live_server.url
    page.set_viewport_size(size)
    _log_in(page, base, "alice", language)

    page.goto(f"{base}/rooms/{room.pk}/history/")
    badges = page.get_by_test_id("row-game")
    expect(badges).to_have_count(3)
    for kind, badge in zip(("trump_standard", "trump_au", "dobon_uno"), badges.all(),
                           strict=True):
        expect(badge).to_have_text(labels[kind])
        expect(badge).to_be_visible()
    kinds = page.get_by_test_id("standings-kind")
    expect(kinds).to_have_count(3)
    standard_table = page.locator('[data-testid="standings-kind"][data-kind="trump_standard"]')
    expect(standard_table.get_by_test_id("standings-kind-title")).to_contain_text(
        labels["trump_standard"])
    expect(standard_table.locator("tbody tr").first.locator("th")).to_contain_text(lowest)
    au_table = page.locator('[data-testid="standings-kind"][data-kind="trump_au"]')
    expect(au_table.locator("tbody tr").first).to_contain_text("carol")
    expect(au_table.locator("tbody tr").first.locator(".points")).to_have_text("+60")
    au_matrix = page.locator('[data-testid="dobon-matrix"][data-kind="trump_au"]')
    au_matrix.scroll_into_view_if_needed()
    expect(au_matrix).to_be_visible()
    expect(au_matrix.locator("tbody tr").first).to_contain_text("+60")
    expect(page.locator('[data-testid="dobon-matrix"][data-kind="dobon_uno"]')).to_contain_text(
        "+51")
    assert _fits(page)
    _shoot(page, f"33-history-kinds-{language}-{device}")

    page.goto(f"{base}{room.get_absolute_url()}")
    standings = page.locator("#standings")
    standings.scroll_into_view_if_needed()
    expect(standings.get_by_test_id("standings-kind")).to_have_count(3)
    expect(standings.get_by_test_id("standings-kind-title").first).to_contain_text(
        labels["trump_standard"])
    assert _fits(page)
    _shoot(page, f"33-room-standings-kinds-{language}-{device}")
