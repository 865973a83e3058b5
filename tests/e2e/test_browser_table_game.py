"""Issue 7, end to end: four people in four Chromium pages (two phones, two desktops)
play a whole game on a fixed deal — a multi-play, a draw stack taken with "take 4", a
colour choice and a dobon made with the keyboard, a cut-in, a return — to its
settlement; then the owner starts the next game and every page moves to it without a
reload. After every step: each page shows exactly its own hand, no page holds another
seat's hidden card (§R15.2), the hand, the top card and every enabled button lie inside
the viewport, and no page logged an error or a CSP violation."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import (
    DESKTOP,
    PHONE,
    Player,
    bars,
    cards_in_dom,
    keep,
    open_player,
    shoot,
)

from game.models import Game, Membership, Room
from game.rules import Game as Engine
from game.services.fixed_setups import FixedSetup, start_fixed_game

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

NAMES = ("alice", "bob", "carol", "dave")
# Seat 0 alice (owner, first player), 1 bob, 2 carol, 3 dave; top card R7.
SETUP = FixedSetup(
    hands=[
        ["R5", "R5", "W", "Y9", "G4", "B5"],
        ["R+2", "Y3", "B1", "G7"],
        ["G+2", "Y2", "B7"],
        ["Y3", "G6", "R2"],
    ],
    first_card="R7",
    deck=["B9", "G9", "R9", "Y8", "G1", "G2", "G3", "B2", "B3"],
)
# Cards held by one seat only and never played: their presence on another seat's page
# would be a leak. Revealed when §R9.5 / §R10 / the settlement shows them.
SECRETS = {
    0: ["G4", "B5"],
    1: ["B1", "G7"],
    2: ["Y2", "B7"],
    3: ["G6", "R2", "B9", "G9", "R9", "Y8"],
}
DECK_ONLY = ["G1", "G2", "G3", "B2", "B3"]


@pytest.fixture
def four(django_user_model, alice, bob, carol, dave):
    room = Room.objects.create(name="金曜の卓", owner=alice, timeout_seconds=60)
    for index, person in enumerate((alice, bob, carol, dave)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room, [alice, bob, carol, dave]


def engine_of(room: Room) -> Engine:
    return Engine.from_dict(Game.objects.get(room=room, status=Game.Status.RUNNING).state)


def wait_version(room: Room, players: list[Player], version: int) -> None:
    for p in players:
        p.page.wait_for_function(
            "(v) => window.dobonTable && window.dobonTable.state"
            " && window.dobonTable.state.version >= v",
            arg=version,
        )


def check_table(players: list[Player], room: Room, engine: Engine) -> None:
    """Every page: its own hand exactly, nobody else's hidden cards, all on screen."""
    view = engine.view(None)
    for seat, p in enumerate(players):
        hand = p.page.get_by_test_id("hand").locator("[data-card]")
        assert sorted(hand.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
            engine.hand(seat)
        )
        hidden = [
            c
            for other, cards in SECRETS.items()
            if other != seat and not view["revealed"][other]
            for c in cards
        ]
        assert cards_in_dom(p.page, hidden + DECK_ONLY) == [], p.name
        assert p.errors == [] and p.csp_violations() == [], (p.name, p.errors, p.csp_violations())


def act_and_sync(players, room, label, action) -> Engine:
    """Do `action` in a page, wait for its commit and for every page to show it; then
    the first-viewport check for every page at both sizes (issue 21)."""
    game = Game.objects.get(room=room, status=Game.Status.RUNNING)
    action()
    end = time.monotonic() + 10
    while (version := Game.objects.get(pk=game.pk).version) <= game.version:
        assert time.monotonic() < end, "the action changed nothing"
        time.sleep(0.05)
    wait_version(room, players, version)
    engine = engine_of(room)
    check_table(players, room, engine)
    assert bars(players, f"step {label}") == []
    return engine


def test_four_players_play_a_whole_game_then_the_next_one(
    tmp_path: Path, browser: Browser, four, settings
):
    require_stack()
    settings.DOBON_TEST_SETUPS_ALLOWED = True
    settings.CELERY_BROKER_URL = ""  # this test process schedules nothing; daphne serves
    room, users = four
    out = tmp_path / "shots"
    out.mkdir()
    with stack(tmp_path) as running:
        port = running.daphne()
        url = f"http://127.0.0.1:{port}/rooms/{room.pk}/"
        sizes = [PHONE, PHONE, DESKTOP, DESKTOP]
        players = [
            open_player(browser, port, u, n, s) for u, n, s in zip(users, NAMES, sizes, strict=True)
        ]
        alice, bob, carol, dave = players
        problems: list[str] = []
        for p in players:
            p.page.goto(url)
            expect(p.page.locator("[data-role=status]")).to_have_text("ゲーム開始を待っています")
        problems += shoot(alice, out, "01-waiting")

        # The deal is fixed; reloading also shows that a reload brings the exact table back.
        start_fixed_game(room, users[0], SETUP)
        for p in players:
            p.page.reload()
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(
                len(SETUP.hands[NAMES.index(p.name)])
            )
            p.page.evaluate("window.__sameDocument = true")
        engine = engine_of(room)
        check_table(players, room, engine)
        problems += bars(players, "start")
        problems += shoot(alice, out, "02-start") + shoot(dave, out, "02-start-watching-turn")
        expect(alice.page.locator(".me-turn")).to_have_text("あなたの番です")
        expect(bob.page.locator(".me-turn")).to_have_text("aliceの番です")

        # §R2.2 / §R4.1 multi-play: alice taps R5 (a twin: it is selected), then plays both.
        r5 = alice.page.get_by_test_id("hand").locator("[data-card=R5]").first
        expect(r5).to_have_attribute("data-playable", "true")
        r5.click()
        expect(alice.page.get_by_test_id("hand").locator(".selected")).to_have_count(1)
        alice.page.get_by_test_id("hand").locator("[data-card=R5]").nth(1).click()
        problems += shoot(alice, out, "03-multi-select")
        play = alice.page.get_by_test_id("actions").locator("[data-action=play]")
        expect(play).to_have_text("選んだ2枚を出す")
        engine = act_and_sync(players, room, 1, play.click)
        assert engine.top == "R5" and len(engine.hand(0)) == 4

        # §R5.1 a stack: bob's R+2, carol's G+2 (one tap each: no twins), dave takes 4.
        expect(carol.page.get_by_test_id("hand").locator("[data-card='G+2']")).to_have_attribute(
            "data-playable", "false"
        )
        # A double tap plays once: the second tap finds the table waiting, not a refusal.
        bob_r2 = bob.page.get_by_test_id("hand").locator("[data-card='R+2']")
        engine = act_and_sync(players, room, 2, bob_r2.dblclick)
        expect(bob.page.locator("[data-role=toast]")).to_be_hidden()
        engine = act_and_sync(
            players, room, 3, carol.page.get_by_test_id("hand").locator("[data-card='G+2']").click
        )
        take = dave.page.get_by_test_id("actions").locator("[data-action=take]")
        expect(take).to_have_text("4枚引き取る")
        expect(dave.page.locator("[data-role=stack]")).to_have_text("ドロー累積 +4")
        problems += shoot(dave, out, "04-take-stack")
        engine = act_and_sync(players, room, 5, take.click)
        assert len(engine.hand(3)) == 7
        expect(dave.page.locator("[data-role=log]")).to_contain_text("あなたが引いたカード")
        expect(alice.page.locator("[data-role=log]")).not_to_contain_text("あなたが引いたカード")

        # Keyboard only (alice): H to the hand, End to the W, Enter plays it, 4 = yellow.
        alice.page.keyboard.press("h")
        alice.page.keyboard.press("End")
        assert alice.page.evaluate("document.activeElement.dataset.card") == "W"
        alice.page.keyboard.press("Enter")
        swatch = alice.page.get_by_test_id("actions").locator("[data-color=Y]")
        expect(swatch).to_be_visible()
        problems += shoot(alice, out, "05-colour-choice")
        # Focus survived the update: it is still inside the table, not lost to <body>.
        assert alice.page.evaluate("!!document.activeElement.closest('[data-testid=live-table]')")
        engine = act_and_sync(players, room, 7, lambda: alice.page.keyboard.press("4"))
        assert engine.color == "Y"
        expect(bob.page.locator("[data-role=color]")).to_contain_text("黄")

        # R7 cut-in: bob plays Y3; dave holds the twin and plays it before carol acts.
        engine = act_and_sync(
            players, room, 8, bob.page.get_by_test_id("hand").locator("[data-card=Y3]").click
        )
        expect(dave.page.locator(".chance-cut_in")).to_be_visible()
        expect(carol.page.locator(".chance")).to_have_count(0)
        problems += shoot(dave, out, "06-cut-in")
        engine = act_and_sync(
            players, room, 9, dave.page.get_by_test_id("hand").locator("[data-card=Y3]").click
        )
        expect(bob.page.locator("[data-role=log]")).to_contain_text("daveがカットイン")
        assert engine.turn == 0

        # §R9: alice plays Y9 (9); carol's hand is 9. Only carol is told (§R9.3).
        engine = act_and_sync(
            players, room, 10, alice.page.get_by_test_id("hand").locator("[data-card=Y9]").click
        )
        expect(carol.page.locator(".chance-dobon")).to_contain_text(
            "あなたの手札 9点 = 出されたカード 9点"
        )
        for p in (alice, bob, dave):
            expect(p.page.locator(".chance")).to_have_count(0)
            expect(p.page.get_by_test_id("actions").locator("[data-action=dobon]")).to_have_count(0)
        problems += shoot(carol, out, "07-dobon-chance")
        carol.page.locator("body").click(position={"x": 5, "y": 300})
        engine = act_and_sync(
            players, room, 11, lambda: carol.page.keyboard.press("b")
        )  # keyboard dobon
        assert engine.phase == "return_wait"

        # §R10: alice's remaining G4 B5 = 9 = carol's 9: she returns the dobon.
        expect(alice.page.locator(".chance-return")).to_contain_text("9点")
        problems += shoot(alice, out, "08-return-chance")
        alice.page.get_by_test_id("actions").locator("[data-action=return]").click()
        for p in players:
            expect(p.page.get_by_test_id("settlement")).to_be_visible()
            expect(p.page.get_by_test_id("settlement")).to_contain_text("carol → alice  78点")
        finished = Game.objects.get(room=room)
        assert finished.status == Game.Status.FINISHED and finished.result["deltas"] == [
            78,
            0,
            -78,
            0,
        ]
        problems += shoot(alice, out, "09-settlement") + shoot(carol, out, "09-settlement-guest")
        # Issue 8: the settlement links to the finished game's page at once, no reload.
        for p in players:
            link = p.page.get_by_test_id("settlement").locator(f'a[href="/games/{finished.pk}/"]')
            expect(link).to_have_count(1)
        for p in (bob, carol, dave):
            expect(p.page.get_by_test_id("next-game")).to_have_count(0)
        # The live room panel: no "game on" badge any more, the new standings.
        expect(alice.page.locator("[data-role=room-badge]")).to_be_hidden()
        standings = bob.page.locator("[data-role=room-standings] tbody tr")
        expect(standings.first).to_contain_text("alice")
        expect(standings.first).to_contain_text("78")
        alice.page.locator(".tool[data-role=help-open]").click()
        expect(alice.page.locator("[data-role=help]")).to_be_visible()
        shoot(alice, out, "10-help")
        alice.page.keyboard.press("Escape")

        # The owner's next game, without a reload: every page moves to it by itself.
        alice.page.get_by_test_id("next-game").click()
        for p in players:
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(7)
            expect(p.page.get_by_test_id("settlement")).to_be_hidden()
            assert p.page.evaluate("window.__sameDocument === true"), f"{p.name} reloaded"
        expect(carol.page.locator("[data-role=room-badge]")).to_be_visible()
        second = Game.objects.get(room=room, status=Game.Status.RUNNING)
        assert second.number == 2
        problems += shoot(bob, out, "11-next-game")
        for p in players:
            assert p.errors == [] and p.csp_violations() == [], (
                p.name,
                p.errors,
                p.csp_violations(),
            )
        assert problems == [], problems
        keep(
            out,
            [
                "02-start-phone",
                "02-start-desktop",
                "05-colour-choice-phone",
                "07-dobon-chance-desktop",
                "07-dobon-chance-phone",
                "09-settlement-phone",
                "09-settlement-desktop",
            ],
        )
        for p in players:
            p.page.context.close()
