"""The browser table for real: two people in Chromium against a daphne process (with
PostgreSQL and Redis), the owner presses "start", the first player draws by clicking a
button the server offered, and the other sees the new card count — never the card."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, expect
from stack_helpers import require_stack, session_cookie, stack

from game.models import Game, Membership, Room
from game.rules import Game as Engine

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def signed_in(browser: Browser, port: int, user: Any) -> BrowserContext:
    name, value = session_cookie(user).split("=", 1)
    context = browser.new_context(locale="ja-JP")
    context.add_cookies([{"name": name, "value": value, "url": f"http://127.0.0.1:{port}"}])
    return context


def committed_after(game: Game, version: int, timeout: float = 10) -> Game:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        fresh = Game.objects.get(pk=game.pk)
        if fresh.version > version:
            return fresh
        time.sleep(0.05)
    raise AssertionError("the click changed nothing")


def test_two_players_play_through_the_browser_table(tmp_path, browser: Browser, alice, bob):
    require_stack()
    room = Room.objects.create(name="browser table", owner=alice, timeout_seconds=60)
    for index, person in enumerate((alice, bob)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        pages = {}
        for person in (alice, bob):
            page = signed_in(browser, port, person).new_page()
            page.goto(url)
            expect(page.locator("[data-role=status]")).to_have_text("ゲーム開始を待っています")
            pages[person.username] = page
        pages["alice"].get_by_test_id("start-game").click()
        for page in pages.values():
            expect(page.get_by_test_id("hand").locator(".card")).to_have_count(7)
        game = Game.objects.get(room=room)
        engine = Engine.from_dict(game.state)
        # Bob, the owner's left neighbour, plays first (§R3.2); alice has no buttons.
        on_turn = "bob" if engine.turn == 1 or engine.chooser == 1 else "alice"
        waiting = "alice" if on_turn == "bob" else "bob"
        expect(pages[waiting].get_by_test_id("actions").locator("button")).to_have_count(0)
        buttons = pages[on_turn].get_by_test_id("actions").locator("button")
        # The first action offered: the optional draw, a first-card stack to take, or red
        # when a first-card W asks.
        draw = buttons.filter(has_text=re.compile(r"^(1枚引く|\d+枚引き取る|赤)$"))
        expect(draw).to_have_count(1)
        draw.click()
        after = Engine.from_dict(committed_after(game, version=0).state)
        seat = 1 if on_turn == "bob" else 0
        expect(pages[waiting].locator("[data-role=players]")).to_contain_text(
            f"{len(after.hand(seat))}枚"
        )
        # Each page shows exactly its own seat's cards (sorted by colour, then number),
        # whatever the other holds.
        for name, page in pages.items():
            own = 1 if name == "bob" else 0
            cards = page.get_by_test_id("hand").locator(".card")
            expect(cards).to_have_count(len(after.hand(own)))
            shown = sorted(c.get_attribute("data-card") for c in cards.all())
            assert shown == sorted(after.hand(own))
        for page in pages.values():
            page.context.close()
