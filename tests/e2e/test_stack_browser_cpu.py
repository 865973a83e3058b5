"""Playing alone in the browser: from the lobby, "play now against CPU" starts a game with
three CPU players, and the person plays it to the settlement by clicking only their own
hand and buttons, while the CPUs move by themselves (daphne with its in-process sweep;
their thinking time shortened so that the test stays short)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError
from stack_helpers import require_stack, session_cookie, stack

from game.models import Game, Membership

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

# A game lasts up to a few hundred moves; with CPUs thinking at 25 % of 0.6–2 s and the
# person clicking at once, that is well under this.
GAME_TIME_LIMIT = 240


def signed_in(browser: Browser, port: int, user: Any) -> BrowserContext:
    name, value = session_cookie(user).split("=", 1)
    context = browser.new_context(locale="ja-JP")
    context.add_cookies([{"name": name, "value": value, "url": f"http://127.0.0.1:{port}"}])
    return context


# What the person presses, first match wins: chances that pay, a colour, a play (a table
# may offer a card pair as a selection to confirm with its "play" button), a playable
# card, then take / draw / pass, and declining what is left.
CHOICES = [
    "[data-testid=actions] button[data-action=return]",
    "[data-testid=actions] button[data-action=dobon]",
    "[data-testid=actions] button[data-color]",
    "[data-testid=actions] button[data-action=play]:not([disabled])",
    "[data-testid=hand] button[data-playable=true]",
    "[data-testid=actions] button[data-action=take]",
    "[data-testid=actions] button[data-action=draw]",
    "[data-testid=actions] button[data-action=pass]",
    "[data-testid=actions] button[data-action=decline]",
]


MOVES = {"play", "draw", "take", "pass", "color", "dobon", "return"}


def make_own_move(page: Page) -> bool:
    """Press the first offered button of CHOICES; False when nothing is offered."""
    for selector in CHOICES:
        button = page.locator(selector).first
        if button.count():
            try:
                button.click(timeout=1000)
            except PlaywrightError:  # the table changed under the click: look again
                return False
            return True
    return False


def test_play_now_against_cpu_reaches_the_settlement(tmp_path, browser: Browser, alice):
    require_stack()
    with stack(tmp_path, DOBON_INPROCESS_SCHEDULER="true", DOBON_CPU_DELAY_PERCENT="25") as running:
        port = running.daphne()
        page = signed_in(browser, port, alice).new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_test_id("play-cpu-level").select_option("strong")
        page.get_by_test_id("play-cpu").click()
        expect(page).to_have_url(re.compile(rf"http://127.0.0.1:{port}/rooms/\d+/$"))
        # One click: the game is running and the person holds their seven cards.
        expect(page.get_by_test_id("live-table")).to_be_visible()
        expect(page.get_by_test_id("hand").locator("[data-card]")).to_have_count(7)
        expect(page.locator("#seats [data-kind=cpu]")).to_have_count(3)
        game = Game.objects.get(room__owner=alice)
        assert list(game.players.values_list("cpu_level", flat=True)) == [
            None, "strong", "strong", "strong"
        ]

        clicks = 0
        settlement = page.get_by_test_id("settlement")
        end = time.monotonic() + GAME_TIME_LIMIT
        while not settlement.is_visible():
            assert time.monotonic() < end, "the game did not finish in time"
            if make_own_move(page):
                clicks += 1
            else:
                page.wait_for_timeout(100)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        expect(settlement).to_contain_text("点")

    # Every move of the person's seat came from a click (a click that lost a race with a
    # CPU is refused and changes nothing), none from a timeout; the CPUs moved by themselves.
    public = [e.data for e in game.events.filter(to_seat__isnull=True).order_by("seq")]
    assert not [e for e in public if e["type"] == "timeout"]
    own = [e for e in public if e["seat"] == 0 and e["type"] in MOVES]
    assert len(own) <= clicks
    assert {e["seat"] for e in public if e["type"] in MOVES} - {0}, "no CPU moved"
    assert sum(game.result["deltas"]) == 0
    points = dict(Membership.objects.filter(room=game.room).values_list("seat_index", "points"))
    assert [points[i] for i in range(4)] == game.result["deltas"]
