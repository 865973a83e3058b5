"""A newcomer plays trump Dobon in the browser (issue #18), one test per preset: from the
lobby they create a trump room, seat three CPU players, start, and play to the settlement
by clicking only what the page offers (the auction's bid, a suit for an 8 or a J, last
one, dobon, draws), while the CPUs move by themselves (daphne with its in-process sweep,
their thinking time shortened). After every step the hand and the usable buttons are in
the first viewport — at 390×844 every step, at 1280×800 every few steps — and no other
seat's hidden card is in the DOM."""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, open_player, outside_viewport

from game.models import Game, Room
from game.rules.registry import load

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

ROUND_TIME_LIMIT = 300

# What the newcomer presses, first match wins.
CHOICES = [
    "[data-testid=actions] button[data-action=return]",
    "[data-testid=actions] button[data-action^=dobon]",
    "[data-testid=actions] button[data-action=yaku]",
    "[data-testid=actions] .trump-choice button[data-action=play-last]",
    "[data-testid=actions] .trump-choice button[data-suit]",
    "[data-testid=actions] .trump-choice button[data-action=play]",
    "[data-testid=hand] button[data-playable=true]",
    "[data-testid=actions] button[data-action=last_one]",
    "[data-testid=actions] button[data-action=take]",
    "[data-testid=actions] button[data-action=draw]",
    "[data-testid=actions] button[data-action=decline]",
]


def own_move(page: Page) -> str | None:
    """Bid, or press the first offered button of CHOICES; what was pressed, or None."""
    bid = page.locator("[data-testid=bid-form] button[data-action=bid]:not([disabled])")
    try:
        if bid.count():
            page.locator("[data-role=bid-amount]").fill("3")
            bid.click(timeout=1000)
            return "bid"
        for selector in CHOICES:
            button = page.locator(selector).first
            if button.count():
                button.click(timeout=1000)
                return selector
    except PlaywrightError:  # the table changed under the click: look again
        return None
    return None


def hidden_cards(room_id: int) -> list[str]:
    """The cards in the other seats' hands that nobody has been shown."""
    game = Game.objects.filter(room_id=room_id, status=Game.Status.RUNNING).first()
    if game is None:
        return []
    view = load(game.game_kind, game.state).view(None)
    engine = load(game.game_kind, game.state)
    shown = {c for cards in (view.get("revealed") or []) if cards for c in cards}
    shown |= {c for cards in (view.get("exposed") or []) if cards for c in cards}
    # A standard pack has two jokers with one code: a JK hidden in another hand cannot be
    # told from the other JK shown in our own hand or on the table, so such a code is not
    # looked for (every other code is unique in the pack).
    public = json.dumps(view)
    shown |= {c for c in engine.hand(0)} | {c for c in ["JK"] if '"JK"' in public}
    return [c for seat in range(1, engine.players) for c in engine.hand(seat) if c not in shown]


def cards_drawn_in_dom(page: Page, codes: list[str]) -> list[str]:
    return page.evaluate(
        "(codes) => codes.filter((c) => document.querySelector(`[data-card=\"${c}\"]`))", codes
    )


def create_trump_room(page: Page, port: int, preset: str) -> int:
    page.goto(f"http://127.0.0.1:{port}/")
    page.get_by_test_id("create-room").click()
    page.fill("#id_name", f"trump {preset}")
    page.select_option("#id_game_kind", "trump_dobon")
    page.select_option("#id_trump_preset", preset)
    page.fill("#id_seat_count", "4")
    page.fill("#id_timeout_seconds", "20")
    page.locator("form[action='/rooms/new/'] button[type=submit]").click()
    # (The CSP route fetches the redirect itself, so the page keeps the form's URL.)
    expect(page.get_by_test_id("room-game").first).to_contain_text("トランプ")
    room_id = Room.objects.get(name=f"trump {preset}").pk
    for seat in (1, 2, 3):
        page.get_by_test_id(f"add-cpu-{seat}").click()
        expect(page.locator("#seats [data-kind=cpu]")).to_have_count(seat)
    # The room's own address again (the CSP route kept the last form's URL).
    page.goto(f"http://127.0.0.1:{port}/rooms/{room_id}/")
    page.get_by_test_id("start-game").click()
    return room_id


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_newcomer_plays_a_trump_round_against_cpus(tmp_path, browser: Browser, alice,
                                                      preset: str) -> None:
    require_stack()
    with stack(tmp_path, DOBON_INPROCESS_SCHEDULER="true",
               DOBON_CPU_DELAY_PERCENT="25") as running:
        port = running.daphne()
        player = open_player(browser, port, alice, "alice", PHONE)
        page = player.page
        room_id = create_trump_room(page, port, preset)
        # While the page kept a form's URL (the CSP route), its panel refresh fetched that
        # URL: not the table's doing.
        player.errors[:] = [e for e in player.errors if "405" not in e]
        expect(page.get_by_test_id("live-table")).to_have_attribute("data-game", "trump_dobon")
        expect(page.get_by_test_id("hand").locator("[data-card]")).to_have_count(5)
        page.screenshot(path=str(tmp_path / f"{preset}-start-phone.png"))

        settlement = page.get_by_test_id("settlement")
        end = time.monotonic() + ROUND_TIME_LIMIT
        steps, pressed = 0, []
        while not settlement.is_visible():
            assert time.monotonic() < end, "the round did not finish in time"
            what = own_move(page)
            if what is None:
                page.wait_for_timeout(150)
                continue
            pressed.append(what)
            steps += 1
            page.wait_for_timeout(200)
            if settlement.is_visible():
                break
            assert outside_viewport(page) == [], f"phone, step {steps}"
            assert cards_drawn_in_dom(page, hidden_cards(room_id)) == []
            if steps % 4 == 1:
                page.set_viewport_size(DESKTOP)
                page.wait_for_timeout(150)
                assert outside_viewport(page) == [], f"desktop, step {steps}"
                page.set_viewport_size(PHONE)
        game = Game.objects.get(room_id=room_id)
        assert game.status == Game.Status.FINISHED and game.preset == preset
        for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
            page.set_viewport_size(size)
            page.wait_for_timeout(150)
            page.screenshot(path=str(tmp_path / f"{preset}-settlement-{label}.png"))
            assert outside_viewport(page) == []
        expect(settlement).to_contain_text("第1回")
        # A reload (or a tab opened after the end) shows the same settlement, the hands
        # included: they come from the room panel's last result (§T21, public once over).
        hands_shown = settlement.locator(".settle-cards").count()
        assert hands_shown > 0
        page.set_viewport_size(PHONE)
        page.reload()
        expect(settlement).to_be_visible()
        expect(settlement.locator(".settle-cards")).to_have_count(hands_shown)
        page.screenshot(path=str(tmp_path / f"{preset}-settlement-reloaded-phone.png"))
        if preset == "standard":
            assert "bid" in pressed
        assert player.errors == [], player.errors
        assert player.csp_violations() == []

    public = [e.data for e in game.events.filter(to_seat__isnull=True).order_by("seq")]
    assert {e["seat"] for e in public if e["type"] in ("play", "draw", "take")} - {0}, \
        "no CPU moved"
    assert game.result["match"]["round"] in (1, 2)
