"""After a game, a player finds it from the room page, opens the game page and steps
through the replay with the arrow keys (issue 8). Screenshots at phone and laptop sizes
go to $DOBON_SCREENSHOTS when it is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import PASSWORD
from tests.game.history_helpers import play_agari, play_dobon
from tests.game.play_helpers import NOW, make_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


def _log_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)


def _shoot(page: Page, name: str) -> None:
    folder = os.environ.get("DOBON_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _fits_the_screen(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_player_steps_through_the_replay_with_arrow_keys(page: Page, live_server, alice, bob,
                                                         carol, dave, size):
    people = [alice, bob, carol, dave]
    room = make_room(*people)
    play_agari(room, people, now=NOW)
    game = play_dobon(room, people, now=NOW + 100)
    page.set_viewport_size(SIZES[size])
    base = live_server.url

    _log_in(page, base, "bob")
    page.goto(f"{base}{room.get_absolute_url()}")
    expect(page.get_by_test_id("standings")).to_contain_text("bob")
    page.get_by_test_id("room-history-link").click()
    expect(page.get_by_test_id("game-list")).to_be_visible()
    _shoot(page, f"{size}-room-history")
    assert _fits_the_screen(page)
    page.locator(f"a[href='{game.get_absolute_url()}']").click()

    # Step 1: the deal (every hand face up). alice holds R5 G7; the top card is R3.
    table = page.get_by_test_id("replay-table")
    expect(page.get_by_test_id("replay-step")).to_have_text("1 / 3")
    expect(table.locator(".replay-top [data-card]")).to_have_attribute("data-card", "R3")
    expect(page.get_by_test_id("replay-hand-0").locator("[data-card]")).to_have_count(2)
    _shoot(page, f"{size}-game-start")

    page.keyboard.press("ArrowRight")  # alice plays R5
    expect(page.get_by_test_id("replay-step")).to_have_text("2 / 3")
    expect(table.locator(".replay-top [data-card]")).to_have_attribute("data-card", "R5")
    expect(page.get_by_test_id("replay-hand-0").locator("[data-card]")).to_have_count(1)
    expect(page.get_by_test_id("replay-lines").locator("[data-card]")).to_have_attribute(
        "data-card", "R5"
    )

    page.keyboard.press("ArrowRight")  # bob: DOBON
    expect(page.get_by_test_id("replay-step")).to_have_text("3 / 3")
    expect(page.get_by_test_id("replay-phase")).to_have_text("ゲーム終了")
    expect(table.locator(".replay-seat.is-target")).to_have_attribute("data-seat", "0")
    expect(page.get_by_test_id("replay-lines")).to_contain_text("ドボン")
    _shoot(page, f"{size}-game-end")
    assert _fits_the_screen(page)

    page.keyboard.press("ArrowRight")  # the last step stays
    expect(page.get_by_test_id("replay-step")).to_have_text("3 / 3")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("replay-step")).to_have_text("1 / 3")
    expect(page.get_by_test_id("replay-hand-0").locator("[data-card]")).to_have_count(2)

    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-step")).to_have_text("2 / 3")
    expect(page.get_by_test_id("settlement")).to_contain_text("+51")

    page.goto(f"{base}/u/bob/")
    expect(page.get_by_test_id("profile-stats")).to_be_visible()
    _shoot(page, f"{size}-profile")
    assert _fits_the_screen(page)
    page.goto(f"{base}/leaderboard/")
    expect(page.get_by_test_id("leaderboard-empty")).to_be_visible()  # nobody has 5 games
    _shoot(page, f"{size}-leaderboard")
    assert _fits_the_screen(page)
