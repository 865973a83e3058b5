"""The new-user walk-through: a colour tapped as a CPU dobon'd the wild (the late tap
gets no "no game is running" next to the settlement), and the waiting pill before a game
on a phone. Screens are shot at both sizes (into $DOBON_SHOTS when set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, open_player, shoot, two_player_room
from test_browser_table_issue21 import act, close, no_errors, shots

from game.services.fixed_setups import FixedSetup

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

# alice plays W (30) and must choose a colour; bob's R9 B9 G9 Y3 make 30: he dobons
# while her colour picker is open.
WILD = FixedSetup(
    hands=[["W", "G4", "B5"], ["R9", "B9", "G9", "Y3"]], first_card="Y7", deck=["G1", "G2"]
)


def test_a_colour_tapped_after_a_dobon_on_the_wild_is_no_error(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    require_stack()
    room = two_player_room("Wild night", alice, bob, WILD, settings)
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = open_player(browser, port, alice, "alice", PHONE)
        b = open_player(browser, port, bob, "bob", DESKTOP)
        for p in (a, b):
            p.page.goto(url)
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(
                len(WILD.hands[0 if p is a else 1])
            )
        act([a, b], room, a.page.get_by_test_id("hand").locator("[data-card=W]").click)
        picker = a.page.get_by_test_id("actions").locator("[data-color]")
        expect(picker).to_have_count(4)
        expect(b.page.locator(".chance-dobon")).to_be_visible()
        act([a, b], room, b.page.get_by_test_id("actions").locator("[data-action=dobon]").click)
        expect(a.page.get_by_test_id("settlement")).to_be_visible()
        # The game is over: the picker (and every prompt) is gone.
        expect(a.page.get_by_test_id("actions").locator(".chance, [data-color]")).to_have_count(0)
        # The toast's own state (on a phone the settlement may cover it, on a desktop it
        # sits next to it).
        toast = (
            "(() => { const t = document.querySelector('[data-role=toast]');"
            " return t.hidden ? '' : t.textContent; })()"
        )
        # A late tap: the colour the picker offered, tapped after the end arrived. Nothing
        # is sent, nothing refused on screen ...
        a.page.evaluate("window.dobonTable.act({type: 'color', color: 'R'})")
        a.page.wait_for_timeout(800)
        assert a.page.evaluate(toast) == ""
        # ... nor when the server's "no game is running" arrives after the end (a tap sent
        # just before it).
        a.page.evaluate(
            "window.dobonTable.receive({type: 'error', code: 'no_game',"
            " message: 'このルームでは進行中のゲームがありません。'})"
        )
        a.page.wait_for_timeout(300)
        assert a.page.evaluate(toast) == ""
        expect(a.page.get_by_test_id("settle-how")).to_contain_text("bobがaliceの")
        shoot(a, out, "walk-late-colour-tap-ja")
        no_errors(a, b)
        close(a, b)
