"""Issue #34 in a real browser: ratings and ranks beside the names at the live table
(seat plates, from the room panel), in the lobby, on the rating leaderboard and the
profile's graph, at 390×844 and 1280×800, Japanese and English. Shots go to $DOBON_SHOTS
(else the test's tmp dir); DOBON_KEEP_SCREENSHOTS=1 copies them to docs/screenshots/."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, english, keep, open_player, outside_viewport, shoot

from game.models import Rating
from game.ratings.scale import displayed
from game.services.fixed_setups import FixedSetup
from tests.game.history_helpers import play_agari, play_dobon, play_return
from tests.game.play_helpers import make_room

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

SETUP = FixedSetup(hands=[["Y9", "G4", "B5", "R2"], ["R4", "B5"]], first_card="Y7",
                   deck=["G1", "G2", "G3"])
PLAYS = (play_agari, play_dobon, play_return)


def _rated_history(people) -> None:
    """12 rated games of the four: everyone established (≥ 10 games)."""
    room = make_room(*people)
    start = time.time() - 3600  # within the boards' 90 days
    for i in range(12):
        PLAYS[i % 3](room, people, now=start + 100 * i)


def test_ratings_at_the_table_lobby_board_and_profile(tmp_path: Path, browser: Browser,
                                                      alice, bob, carol, dave, settings):
    require_stack()
    from table_helpers import two_player_room

    people = [alice, bob, carol, dave]
    _rated_history(people)
    bob_line = Rating.objects.get(user=bob, game="dobon_uno", track="people")
    bob_shown = str(displayed(bob_line.mu, bob_line.sigma))
    alice_line = Rating.objects.get(user=alice, game="dobon_uno", track="people")
    alice_shown = str(displayed(alice_line.mu, alice_line.sigma))
    room = two_player_room("レート卓", alice, bob, SETUP, settings)
    out = Path(os.environ.get("DOBON_SHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    names = []
    with stack(tmp_path) as running:
        port = running.daphne()
        base = f"http://127.0.0.1:{port}"
        a = open_player(browser, port, alice, "alice", PHONE)
        a.page.goto(f"{base}/rooms/{room.pk}/")
        plate = a.page.locator(".seat-plate[data-name=bob] .seat-rating")
        expect(plate).to_contain_text(bob_shown)
        expect(plate).to_contain_text("級" if int(bob_shown) < 1800 else "段")
        # Your own seat has no plate: your rating and rank are on your bar below the felt.
        mine = a.page.get_by_test_id("me-rating")
        expect(mine).to_be_visible()
        expect(mine).to_contain_text(alice_shown)
        expect(mine).to_contain_text("級" if int(alice_shown) < 1800 else "段")
        assert shoot(a, out, "30-ratings-table") == []
        names += ["30-ratings-table-phone", "30-ratings-table-desktop"]
        for path, name, testid in (("/", "31-ratings-lobby", "my-ratings"),
                                   ("/ratings/", "32-ratings-board", "rating-board"),
                                   ("/u/alice/", "33-ratings-profile", "profile-ratings")):
            a.page.goto(base + path)
            section = a.page.get_by_test_id(testid)
            expect(section).to_be_visible()
            section.scroll_into_view_if_needed()
            assert shoot(a, out, name) == []
            names += [f"{name}-phone", f"{name}-desktop"]
        expect(a.page.get_by_test_id("rating-dobon_uno-people").locator("svg")).to_be_visible()
        english(a, port)
        a.page.goto(f"{base}/ratings/")
        board = a.page.get_by_test_id("rating-board")
        expect(board.locator("tbody tr")).to_have_count(4)
        expect(board).to_contain_text("kyu" if int(bob_shown) < 1800 else "dan")
        a.page.set_viewport_size(DESKTOP)
        a.page.screenshot(path=str(out / "34-ratings-board-en-desktop.png"))
        assert outside_viewport(a.page) == []
        names.append("34-ratings-board-en-desktop")
        assert a.errors == [] and a.csp_violations() == [], a.errors
        a.page.context.unroute_all(behavior="ignoreErrors")
        a.page.context.close()
    keep(out, names)


def test_a_new_player_at_an_unrated_table_sees_the_badge_and_a_provisional_bar(
        tmp_path: Path, browser: Browser, alice, bob, settings):
    """#34: a player with no rated game reads "?" on their own bar (the plates skip their
    seat), and an unrated room says 非レーティング in the table header, at 390×844."""
    require_stack()
    from table_helpers import two_player_room

    room = two_player_room("練習卓", alice, bob, SETUP, settings)
    room.rated = False
    room.save(update_fields=["rated"])
    out = Path(os.environ.get("DOBON_SHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    with stack(tmp_path) as running:
        port = running.daphne()
        a = open_player(browser, port, alice, "alice", PHONE)
        a.page.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/")
        expect(a.page.get_by_test_id("me-rating")).to_have_text("?")
        badge = a.page.get_by_test_id("table-unrated")
        expect(badge).to_be_visible()
        expect(badge).to_have_text("非レーティング")
        assert shoot(a, out, "35-unrated-table") == []
        keep(out, ["35-unrated-table-phone", "35-unrated-table-desktop"])
        assert a.errors == [] and a.csp_violations() == [], a.errors
