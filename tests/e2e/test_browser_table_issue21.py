"""Issue 21, the table a player would show a friend: the settlement says why you lost,
the owner's next-game button stays on screen, a big hand shows every card, stamps, and
the first-viewport check for the waiting player too. Every screen is shot at both sizes
(into $DOBON_SHOTS when set, else the test's tmp dir)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import (
    DESKTOP,
    PHONE,
    bars,
    english,
    open_player,
    shoot,
    two_player_room,
)

from game.models import Game, Membership, Room
from game.services.fixed_setups import FixedSetup

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

# alice plays Y9 (9); bob's R4 B5 make 9: he dobons. alice keeps G4 B5 R2 (11), no return.
DOBON = FixedSetup(
    hands=[["Y9", "G4", "B5", "R2"], ["R4", "B5"]], first_card="Y7", deck=["G1", "G2", "G3"]
)
TWENTY = [
    "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "B1",
    "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "G1", "G2",
]  # fmt: skip
BIG = FixedSetup(hands=[TWENTY, ["Y3", "Y4"]], first_card="Y7", deck=["G5", "G6", "G7"])


def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("DOBON_SHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def wait_version(players, version: int) -> None:
    for p in players:
        p.page.wait_for_function(
            "(v) => window.dobonTable && window.dobonTable.state"
            " && window.dobonTable.state.version >= v",
            arg=version,
        )


def act(players, room: Room, action) -> None:
    game = Game.objects.filter(room=room).order_by("-number").first()
    action()
    end = time.monotonic() + 10
    while (version := Game.objects.get(pk=game.pk).version) <= game.version:
        assert time.monotonic() < end, "the action changed nothing"
        time.sleep(0.05)
    wait_version(players, version)


def close(*players) -> None:
    """Close pages whose CSP route may still be fetching (a script of the last page)."""
    for p in players:
        p.page.context.unroute_all(behavior="ignoreErrors")
        p.page.context.close()


def no_errors(*players) -> None:
    for p in players:
        assert p.errors == [] and p.csp_violations() == [], (p.name, p.errors)


def test_the_settlement_says_who_dobond_whom_on_which_card_and_the_button_stays_in_view(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    """Items 1 and 2: the loser reads why (the card caught, in their hand's points, and
    the sum as the game's page writes it); the owner's next-game button is on screen in
    English on a phone; the waiting player's hand box is above the fold on a desktop."""
    require_stack()
    room = two_player_room("Friday night table", alice, bob, DOBON, settings)
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = english(open_player(browser, port, alice, "alice", PHONE, "en-US"), port)
        b = open_player(browser, port, bob, "bob", DESKTOP)
        for p in (a, b):
            p.page.goto(url)
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(
                len(DOBON.hands[0 if p is a else 1])
            )
        # alice acts, bob waits: both at both sizes.
        assert bars([a, b], "start") == []
        # Item 8: the room's name is whole in the table's bar on a phone.
        title = a.page.locator(".tbar-title")
        assert title.evaluate("e => e.scrollWidth <= e.clientWidth"), "the room name is cut"
        # Item 8: a refusal explains without a rule id ("(§R4.1)").
        b.page.get_by_test_id("hand").locator("[data-card=R4]").click()
        expect(b.page.locator("[data-role=toast]")).to_have_text("あなたの番ではありません")
        # Item 8: bob leaves (every socket closed): alice is told; he comes back.
        b.page.goto("about:blank")
        expect(a.page.locator("[data-role=log]")).to_contain_text("bob left the table")
        b.page.goto(url)
        expect(a.page.locator("[data-role=log]")).to_contain_text("bob is back")
        # Item 7: the keyboard help keeps the focus while open.
        a.page.locator("body").click(position={"x": 5, "y": 300})
        a.page.keyboard.press("?")
        for _ in range(4):
            a.page.keyboard.press("Tab")
            assert a.page.evaluate("!!document.activeElement.closest('[data-role=help]')")
        a.page.keyboard.press("Escape")
        expect(a.page.locator("[data-role=help]")).to_be_hidden()
        act([a, b], room, a.page.get_by_test_id("hand").locator("[data-card=Y9]").click)
        # Item 7: a screen reader hears the play in words, not only whose turn it is.
        expect(b.page.get_by_test_id("spoken")).to_contain_text("aliceが黄9を出した（9点）")
        expect(a.page.get_by_test_id("spoken")).to_contain_text("You played yellow 9 (9 pts)")
        expect(b.page.locator(".chance-dobon")).to_be_visible()
        assert bars([a, b], "dobon chance") == []
        act([a, b], room, b.page.get_by_test_id("actions").locator("[data-action=dobon]").click)
        for p in (a, b):
            expect(p.page.get_by_test_id("settlement")).to_be_visible()
        # In a sentence: who dobon'd whom, on which card.
        expect(a.page.get_by_test_id("settle-how")).to_have_text("bob dobon'd alice on yellow 9!")
        expect(b.page.get_by_test_id("settle-how")).to_have_text("bobがaliceの黄9にドボン！")
        # The caught card in alice's hand points, and the sum written out: 11 + 9 = 20.
        for p in (a, b):
            row = p.page.get_by_test_id("settlement").locator("tbody tr").first
            expect(row.locator(".caught[data-card=Y9], .caught")).to_have_count(1)
            expect(row.locator(".settle-points")).to_have_text("11 + 9 = 20")
        expect(a.page.get_by_test_id("settle-sum")).to_contain_text("T = 20 + 9 = 29")
        expect(b.page.get_by_test_id("settlement")).to_contain_text("alice → bob  29点（T × 1）")
        # Negative totals with a true minus, as on every other page.
        expect(a.page.get_by_test_id("settlement")).to_contain_text("−29")
        # Item 7: the keyboard is at the owner's next-game button, not 26 Tabs away.
        a.page.wait_for_function("document.activeElement.dataset.testid === 'next-game'")
        # Item 8: a reload keeps the log.
        b.page.reload()
        expect(b.page.locator("[data-role=log]")).to_contain_text("aliceが黄9を出した")
        expect(b.page.get_by_test_id("settlement")).to_be_visible()
        # ... and the settlement still says why, with the caught card.
        expect(b.page.get_by_test_id("settle-how")).to_have_text("bobがaliceの黄9にドボン！")
        expect(
            b.page.get_by_test_id("settlement").locator("tbody tr").first.locator(".settle-points")
        ).to_have_text("11 + 9 = 20")
        # Walk-through item 1: a fresh tab (nothing kept in sessionStorage) arriving after
        # the end gets the same settlement from the room's last result: the sentence, the
        # final hands with the caught card, the sum written out.
        c = open_player(browser, port, bob, "bob", PHONE)
        c.page.goto(url)
        expect(c.page.get_by_test_id("settle-how")).to_have_text("bobがaliceの黄9にドボン！")
        row = c.page.get_by_test_id("settlement").locator("tbody tr").first
        expect(row.locator(".settle-cards [data-card]")).to_have_count(4)
        expect(row.locator(".caught")).to_have_count(1)
        expect(row.locator(".settle-points")).to_have_text("11 + 9 = 20")
        expect(c.page.get_by_test_id("settle-sum")).to_contain_text("T = 20 + 9 = 29")
        shoot(c, out, "walk-settlement-fresh-tab-ja")
        no_errors(c)
        close(c)

        # Item 2: the owner's button inside the panel's visible box and the viewport.
        for size in (PHONE, DESKTOP):
            a.page.set_viewport_size(size)
            a.page.wait_for_timeout(150)
            inside = a.page.evaluate(
                """() => {
                  window.scrollTo(0, 0);
                  const rect = (id) => document.querySelector(`[data-testid=${id}]`)
                    .getBoundingClientRect();
                  const box = rect('settlement'), b = rect('next-game');
                  return b.top >= box.top && b.bottom <= box.bottom && b.bottom <= innerHeight
                         && b.right <= innerWidth && b.width > 0;
                }"""
            )
            assert inside, size
        a.page.set_viewport_size(PHONE)
        shoot(a, out, "21-settlement-en")
        shoot(b, out, "21-settlement-ja")
        no_errors(a, b)
        close(a, b)


def test_a_hand_of_twenty_cards_shows_every_card_at_both_sizes(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    """Item 3: at 14 cards and more the hand used to cut the last cards off. Every card's
    corner index must be visible (on top at that point) and inside the viewport."""
    require_stack()
    room = two_player_room("big hand", alice, bob, BIG, settings)
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        a = open_player(browser, port, alice, "alice", PHONE)
        a.page.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/")
        expect(a.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(20)
        for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
            a.page.set_viewport_size(size)
            a.page.wait_for_timeout(200)
            hidden = a.page.evaluate(
                """() => {
                  window.scrollTo(0, 0);
                  const bad = [];
                  for (const card of document.querySelectorAll('[data-testid=hand] [data-card]')) {
                    const r = card.getBoundingClientRect();
                    const x = r.left + 6, y = r.top + 8;  // the corner index
                    const top = document.elementFromPoint(x, y);
                    if (r.right > innerWidth || r.left < 0 || r.bottom > innerHeight
                        || !top || top.closest('[data-card]') !== card)
                      bad.push(card.dataset.card);
                  }
                  return bad;
                }"""
            )
            assert hidden == [], (label, hidden)
            a.page.screenshot(path=str(out / f"22-twenty-cards-{label}.png"))
        assert bars([a], "twenty cards") == []
        no_errors(a)
        close(a)


def test_stamps_are_sent_seen_limited_and_kept_from_watchers(
    tmp_path: Path, browser: Browser, alice, bob, mallory, settings
):
    """Stamps: alice sends one with a tap, bob and a watcher see it by her seat; a second
    one at once is refused politely; the watcher has no stamp bar; the room setting turns
    them off for everyone."""
    require_stack()
    room = two_player_room("stamps", alice, bob, DOBON, settings)
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        a = open_player(browser, port, alice, "alice", PHONE)
        b = english(open_player(browser, port, bob, "bob", DESKTOP, "en-US"), port)
        w = open_player(browser, port, mallory, "mallory", PHONE)
        for p in (a, b, w):
            p.page.goto(url)
            expect(p.page.locator("[data-role=status], .me-turn").first).to_be_attached()
            p.page.wait_for_function("() => window.dobonTable && window.dobonTable.state")
        bar = a.page.get_by_test_id("stamps")
        expect(bar.locator("button")).to_have_count(8)  # game/services/stamps.py STAMPS
        expect(b.page.get_by_test_id("stamps").locator("[data-stamp=nice]")).to_have_text("Nice!")
        # A watcher sees stamps but has nothing to send them with.
        expect(w.page.get_by_test_id("stamps")).to_be_hidden()

        bar.locator("[data-stamp=nice]").click()
        # The bar rests after a send, so that a double tap is not a refusal.
        expect(bar.locator("[data-stamp=wow]")).to_be_disabled()
        bubble = b.page.locator(".stamp-bubble[data-from=alice]")
        expect(bubble).to_have_text("Nice!")
        # By alice's seat: the bubble's middle is over her plate.
        near = b.page.evaluate(
            """() => {
              const rect = (sel) => document.querySelector(sel).getBoundingClientRect();
              const s = rect('.stamp-bubble[data-from=alice]');
              const p = rect('.seat-plate[data-name=alice]');
              const x = s.left + s.width / 2;
              return x >= p.left && x <= p.right && Math.abs(s.bottom - p.top) < 30;
            }"""
        )
        assert near
        expect(w.page.locator(".stamp-bubble[data-from=alice]")).to_have_text("ナイス!")
        expect(a.page.locator(".stamp-bubble[data-from=alice]")).to_have_text("ナイス!")
        expect(b.page.get_by_test_id("spoken")).to_contain_text("alice: Nice!")
        shoot(b, out, "23-stamp-seen-en")
        shoot(a, out, "23-stamp-sent-ja")

        # Two stamps forced through back to back: the second is refused, politely.
        a.page.evaluate(
            "() => { const s = window.dobonTable.socket;"
            " s.send({type: 'stamp', stamp: 'wow'}); s.send({type: 'stamp', stamp: 'wow'}); }"
        )
        expect(a.page.locator("[data-role=toast]")).to_contain_text("スタンプ")
        # Keyboard: Shift+2 once the bar rested (bob's first, so no limit in the way).
        b.page.locator("body").click(position={"x": 5, "y": 300})
        b.page.keyboard.press("Shift+Digit2")
        expect(a.page.locator(".stamp-bubble[data-from=bob]")).to_have_text("ナイス!")

        # The watcher's own socket is refused too (no bar, but a program could try).
        w.page.evaluate("window.dobonTable.socket.send({type: 'stamp', stamp: 'nice'})")
        expect(w.page.locator("[data-role=toast]")).to_contain_text("観戦")
        shoot(w, out, "23-stamp-watcher")
        no_errors(a, b, w)
        close(a, b, w)

        # The room setting: off, and the bar is gone for everyone.
        Room.objects.filter(pk=room.pk).update(stamps_enabled=False)
        c = open_player(browser, port, alice, "alice", DESKTOP)
        c.page.goto(url)
        c.page.wait_for_function("() => window.dobonTable && window.dobonTable.room")
        expect(c.page.get_by_test_id("stamps")).to_be_hidden()
        c.page.evaluate("window.dobonTable.socket.send({type: 'stamp', stamp: 'nice'})")
        expect(c.page.locator("[data-role=toast]")).to_contain_text("オフ")
        no_errors(c)
        close(c)


def test_the_settings_page_turns_stamps_off(tmp_path: Path, browser: Browser, alice, settings):
    require_stack()
    room = Room.objects.create(name="quiet", owner=alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    with stack(tmp_path) as running:
        port = running.daphne()
        a = open_player(browser, port, alice, "alice", PHONE)
        a.page.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/settings/")
        box = a.page.get_by_label("スタンプ")
        expect(box).to_be_checked()
        box.uncheck()
        a.page.locator("main form button[type=submit]").first.click()
        expect(a.page.get_by_test_id("live-table")).to_be_visible()
        room.refresh_from_db()
        assert room.stamps_enabled is False
        expect(a.page.get_by_test_id("stamps")).to_be_hidden()
        close(a)


SHARE_STUB = """
window.__shared = [];
Object.defineProperty(navigator, "share", {
  configurable: true,
  value: (data) => { window.__shared.push(data); return Promise.resolve(); },
});
"""


def test_a_new_room_invites_from_the_top_with_copy_share_and_a_code_in_any_case(
    tmp_path: Path, browser: Browser, alice, mallory
):
    """Item 4: the invite of a new room right under the table (it was 1,950 px down),
    copy and share buttons, and a short code that works typed in lower case."""
    require_stack()
    out = shots(tmp_path)
    with stack(tmp_path) as running:
        port = running.daphne()
        base = f"http://127.0.0.1:{port}"
        for size, label in ((PHONE, "phone"), (DESKTOP, "desktop")):
            a = english(open_player(browser, port, alice, "alice", size, "en-US"), port)
            a.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
            a.page.add_init_script(SHARE_STUB)
            a.page.goto(f"{base}/rooms/new/")
            a.page.get_by_label("Name").fill(f"Friends {label}")
            a.page.locator("main form button[type=submit]").first.click()
            expect(a.page.get_by_test_id("live-table")).to_be_visible()
            # Item 8: the page's message goes to the table's toast, not over the top seat.
            expect(a.page.locator("[data-role=toast]")).to_contain_text("is ready")
            expect(a.page.locator(".messages")).to_have_count(0)
            invite = a.page.get_by_test_id("invite")
            # One screen below the table at most, before the room's panel.
            top = invite.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
            assert top < 1.2 * size["height"], top
            a.page.get_by_test_id("invite-jump").click()
            expect(invite).to_be_in_viewport()
            copy = a.page.get_by_test_id("copy-invite")
            expect(copy).to_be_visible()
            copy.click()
            expect(copy).to_have_text("Copied")
            url = a.page.get_by_test_id("invite-url").input_value()
            assert a.page.evaluate("navigator.clipboard.readText()") == url
            a.page.get_by_test_id("share-invite").click()
            shared = a.page.evaluate("window.__shared")
            assert shared and shared[0]["url"] == url
            code = a.page.get_by_test_id("invite-code").inner_text()
            assert len(code) == 11 and code[5] == "-" and code == code.upper()
            a.page.screenshot(path=str(out / f"24-invite-{label}.png"))
            no_errors(a)
            close(a)

        # Typed in lower case on a phone, in Japanese: in.
        m = open_player(browser, port, mallory, "mallory", PHONE)
        m.page.goto(f"{base}/join/")
        m.page.locator("input[name=code]").fill(code.lower())
        m.page.locator("main form button[type=submit]").first.click()
        expect(m.page.get_by_test_id("live-table")).to_be_visible()
        expect(m.page.get_by_test_id("sit-prompt")).to_be_visible()
        m.page.screenshot(path=str(out / "24-joined-by-lower-case-phone.png"))
        no_errors(m)
        close(m)
