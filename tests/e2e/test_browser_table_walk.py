"""The new-user walk-through: a colour tapped as a CPU dobon'd the wild (the late tap
gets no "no game is running" next to the settlement), and the waiting pill before a game
on a phone. Screens are shot at both sizes (into $DOBON_SHOTS when set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, english, open_player, shoot, two_player_room
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


def overlaps(page, selector: str) -> list[str]:
    """What of the waiting pill covers, or is covered by, `selector` (names, points,
    plates), as boxes that intersect."""
    return page.evaluate(
        """(selector) => {
          const pill = document.querySelector('[data-role=status]');
          if (!pill || pill.hidden || !pill.offsetWidth) return ['no pill'];
          const a = pill.getBoundingClientRect();
          const hits = [];
          for (const e of document.querySelectorAll(selector)) {
            const b = e.getBoundingClientRect();
            if (!b.width || !b.height) continue;
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
              hits.push(e.className + ': ' + e.textContent);
          }
          return hits;
        }""",
        selector,
    )


def test_the_waiting_pill_and_the_plates_do_not_cover_each_other_on_a_phone(
    tmp_path: Path, browser: Browser, alice, bob, carol, dave
):
    """Walk-through item 3: before a game, on a 390×844 phone, the "waiting for the game
    to start" pill sat on the bottom seat's plate and hid its name and points."""
    from game.models import Membership, Room

    require_stack()
    room = Room.objects.create(name="Before the game", owner=alice, seat_count=4)
    for index, person in enumerate((alice, bob, carol)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        b = open_player(browser, port, bob, "bob", PHONE)
        c = english(open_player(browser, port, carol, "carol", PHONE), port)
        a = open_player(browser, port, alice, "alice", PHONE)  # the owner: the start button
        # dave is new here: not seated, he sees alice's plate at the bottom of the felt.
        d = open_player(browser, port, dave, "dave", PHONE)
        e = english(open_player(browser, port, dave, "dave", PHONE), port)
        ja, en = "ゲーム開始を待っています", "Waiting for the game to start"
        for p, waiting in ((a, ja), (b, ja), (c, en), (d, ja), (e, en)):
            p.page.goto(url)
            expect(p.page.locator("[data-role=status]")).to_contain_text(waiting)
            expect(p.page.locator(".seat-plate")).to_have_count(3 if p in (a, b, c) else 4)
            p.page.wait_for_timeout(200)
            assert overlaps(p.page, ".seat-plate, .sit-prompt, .start-form > *") == [], p.name
        shoot(a, out, "walk-waiting-owner-ja")
        shoot(b, out, "walk-waiting-ja")
        shoot(c, out, "walk-waiting-en")
        shoot(d, out, "walk-waiting-newcomer-ja")
        shoot(e, out, "walk-waiting-newcomer-en")
        no_errors(a, b, c, d, e)
        close(a, b, c, d, e)


def test_the_create_form_makes_a_room_on_the_first_click(tmp_path: Path, browser: Browser, alice):
    """Walk-through item 4: the name field starts as "<username>のルーム", so the first
    click on 作成 makes the room (it used to say only 「このフィールドは必須です。」)."""
    require_stack()
    from game.models import Room

    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        a = open_player(browser, port, alice, "alice", PHONE)
        a.page.goto(f"http://127.0.0.1:{port}/rooms/new/")
        expect(a.page.locator("input[name=name]")).to_have_value("aliceのルーム")
        a.page.screenshot(path=str(out / "walk-create-form-ja-phone.png"), full_page=True)
        a.page.locator("form button[type=submit]").last.click()
        expect(a.page.get_by_test_id("live-table")).to_be_visible()
        assert Room.objects.get().name == "aliceのルーム"
        no_errors(a)
        close(a)
