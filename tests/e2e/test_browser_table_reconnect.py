"""Issue 7: a dropped socket shows "reconnecting" and brings the exact table back; the
others see that seat go offline and come back; a refusal speaks near the hand in the
player's language and goes away by itself; the English log names every move; the
landing page and the how-to-play page read well on both sizes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, keep, open_player, shoot, two_player_room

from game.models import Game, Membership, Room
from game.rules import Game as Engine
from game.services.fixed_setups import FixedSetup

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

SETUP = FixedSetup(
    hands=[["R5", "B3", "G7"], ["R+2", "Y9", "B8"]], first_card="R7", deck=["G1", "G2", "G3", "G4"]
)


def test_reconnect_presence_refusals_and_the_english_log(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    require_stack()
    room = two_player_room("reconnect", alice, bob, SETUP, settings)
    out = tmp_path / "shots"
    out.mkdir()
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = open_player(browser, port, alice, "alice", PHONE)
        b = open_player(browser, port, bob, "bob", DESKTOP, locale="en-US")
        b.page.context.add_cookies(
            [{"name": "django_language", "value": "en", "url": f"http://127.0.0.1:{port}"}]
        )
        for p in (a, b):
            p.page.goto(url)
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(3)
        # Mid-game the panel offers no seat moves to the seated, and says why.
        expect(a.page.locator("[data-testid^=take-seat-]")).to_have_count(0)
        expect(a.page.locator("[data-role=seats-note]")).to_be_visible()
        bob_plate = a.page.locator(".seat-plate[data-seat='1'] .presence")
        expect(bob_plate).to_have_class("presence on")

        # Keyboard: the first Tab offers a skip to the hand; the next one is a card.
        b.page.keyboard.press("Tab")
        assert b.page.evaluate("document.activeElement.getAttribute('href')") == "#hand"
        b.page.keyboard.press("Enter")
        b.page.keyboard.press("Tab")
        assert b.page.evaluate("document.activeElement.dataset.card") in {"R+2", "Y9", "B8"}

        # A refusal near the hand, in bob's language, gone by itself (bob is not on turn).
        b.page.get_by_test_id("hand").locator("[data-card='R+2']").click()
        toast = b.page.locator("[data-role=toast]")
        expect(toast).to_have_text("It is not your turn")
        expect(toast).to_be_hidden(timeout=8000)

        # A dropped socket: "reconnecting" shows, then the same table comes back.
        b.page.evaluate("window.dobonTable.socket.drop()")
        expect(b.page.locator("[data-role=conn]")).to_have_text("Reconnecting…")
        problems = shoot(b, out, "20-reconnecting")
        expect(b.page.locator("[data-role=conn]")).to_have_text("")
        expect(b.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(3)

        # Bob leaves: alice sees his seat offline; he comes back: online again.
        b.page.goto("about:blank")
        expect(bob_plate).to_have_class("presence off")
        problems += shoot(a, out, "21-opponent-offline")
        b.page.goto(url)
        expect(bob_plate).to_have_class("presence on")

        # The English log names the move; alice's Japanese one too.
        a.page.get_by_test_id("hand").locator("[data-card=R5]").click()
        expect(b.page.locator("[data-role=log]")).to_contain_text("alice played red 5 (5 pts)")
        expect(a.page.locator("[data-role=log]")).to_contain_text("あなたが赤5を出した（5点）")
        expect(b.page.locator(".me-turn")).to_have_text("Your turn")
        engine = Engine.from_dict(Game.objects.get(room=room).state)
        assert engine.top == "R5"
        problems += shoot(b, out, "22-english")
        for p in (a, b):
            assert p.errors == [] and p.csp_violations() == [], (p.name, p.errors)
            p.page.context.close()

        # Signed out: the landing page, then how to play, on both sizes.
        visitor = open_player(browser, port, None, "visitor", PHONE)
        visitor.page.goto(f"http://127.0.0.1:{port}/")
        expect(visitor.page.get_by_test_id("landing-signup")).to_be_visible()
        shoot(visitor, out, "23-landing")
        visitor.page.get_by_test_id("landing-rules").click()
        expect(visitor.page.get_by_test_id("how-to-play")).to_contain_text("ドボン返し")
        shoot(visitor, out, "24-how-to-play")
        assert visitor.errors == [] and visitor.csp_violations() == []
        visitor.page.context.close()
        assert problems == [], problems
        keep(
            out,
            [
                "20-reconnecting-desktop",
                "21-opponent-offline-phone",
                "22-english-desktop",
                "23-landing-phone",
                "23-landing-desktop",
                "24-how-to-play-phone",
            ],
        )


def test_the_start_button_and_the_sit_prompt_follow_the_live_seating(
    tmp_path: Path, browser: Browser, alice, bob
):
    """The owner alone cannot start; when a second player sits down, the start button
    comes alive without a reload. A visitor who came in unseated is told to sit."""
    from django.db import connection

    from game.services import rooms

    require_stack()
    room = Room.objects.create(name="seating", owner=alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = open_player(browser, port, alice, "alice", DESKTOP)
        b = open_player(browser, port, bob, "bob", PHONE)
        for p in (a, b):
            p.page.goto(url)
        a.page.evaluate("window.__sameDocument = true")
        start = a.page.get_by_test_id("start-game")
        expect(start).to_be_disabled()
        expect(a.page.locator("[data-role=start-hint]")).to_be_visible()
        expect(a.page.get_by_test_id("sit-prompt")).to_have_count(0)  # alice sits already
        expect(b.page.get_by_test_id("sit-prompt")).to_be_visible()
        # No game, no hand: the first Tab stop does not offer a skip to it.
        expect(b.page.locator('.skip-link[href="#hand"]')).to_be_hidden()
        # In a thread of its own, as a request would be: sync Playwright keeps an event
        # loop in this one, where the service's after-commit push cannot run.
        def sit() -> None:
            try:
                rooms.take_seat(room, bob, 1)
            finally:
                connection.close()  # this thread's own connection, before the test db goes

        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(sit).result()
        expect(start).to_be_enabled()
        expect(a.page.locator("[data-role=start-hint]")).to_be_hidden()
        assert a.page.evaluate("window.__sameDocument === true")
        for p in (a, b):  # before this daphne stops: their routes would outlive it
            p.page.context.unroute_all(behavior="ignoreErrors")  # a seat-list fetch in flight
            p.page.context.close()
