"""Issue 19 (site), end to end, one test per preset of HOUSE-RULES.md §7: the owner picks
the preset on the room's settings page, the room page and the table name it, a game on a
fixed deal plays that preset's new decision through the pages (the 7's swap, a
four-operation dobon, a blind dobon and its return), and the settlement shows. alice
plays on a phone in Japanese, bob on a desktop in English; carol sits without a page (her
seat would play by timeouts). After every step: the enabled buttons and the hand are on
the first screen and no page logged an error or a CSP violation."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, Player, open_player, shoot

from game.models import Game, Membership, Room
from game.rules import PRESETS
from game.services.fixed_setups import FixedSetup, start_fixed_game

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/house-shots")
LABELS_JA = {"standard": "スタンダード", "party": "パーティー", "classic": "トランプドボン",
             "competitive": "競技"}

# Seats: 0 alice (owner, first player), 1 bob, 2 carol. First card R5 unless said.
SETUPS = {
    # RULES.md as it is: alice plays R5, bob (R2 R3 = 5) dobons.
    "standard": FixedSetup(hands=[["R5", "G9"], ["R2", "R3"], ["B9", "B8"]], first_card="R1",
                           deck=["G1", "G2", "G3", "G4"]),
    # §H6: alice plays R7 and swaps with bob (key 1); bob goes out with R3; alice, now
    # holding Y1 Y2 (3), dobons bob's 3.
    "party": FixedSetup(hands=[["R7", "R3"], ["Y1", "Y2"], ["B4", "B8"]], first_card="R5",
                        deck=["G1", "G2", "G4", "G6"]),
    # §H7: alice draws until playable (B1, then R8); plays R6; §H8: bob's Y2 G3 make
    # 2 × 3 = 6 and he dobons with the keyboard.
    "classic": FixedSetup(hands=[["G9", "R6", "Y5"], ["Y2", "G3"], ["B4", "B8"]],
                          first_card="R5", deck=["B1", "R8", "G1", "G2"]),
    # §H10: every seat is asked "dobon?" without a hint; bob (R2 R3) dobons alice's R5;
    # alice is offered a blind return and lets it go.
    "competitive": FixedSetup(hands=[["R5", "G9"], ["R2", "R3"], ["B9", "B8"]],
                              first_card="R1", deck=["G1", "G2", "G3", "G4"]),
}


@pytest.fixture
def three(alice, bob, carol):
    room = Room.objects.create(name="ハウスルールの卓", owner=alice, timeout_seconds=60)
    for index, person in enumerate((alice, bob, carol)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    return room, [alice, bob, carol]


def versions_of(room: Room) -> tuple[int, int]:
    """The room's latest game's (internal version, public version)."""
    return (Game.objects.filter(room=room).order_by("-number")
            .values_list("version", "public_version")[0])


def act(players: list[Player], room: Room, action) -> None:
    """Do `action` in a page and wait until every page shows the committed change: the
    internal version moves with every change, the pages count public versions (a seat's
    private answer keeps the version: docs/protocol.md, "Versions and private answers")."""
    before, _ = versions_of(room)
    action()
    end = time.monotonic() + 10
    while (versions := versions_of(room))[0] <= before:
        assert time.monotonic() < end, "the action changed nothing"
        time.sleep(0.05)
    for p in players:
        p.page.wait_for_function(
            "(v) => window.dobonTable && window.dobonTable.state"
            " && window.dobonTable.state.version >= v", arg=versions[1])


def clean(players: list[Player]) -> None:
    for p in players:
        assert p.errors == [] and p.csp_violations() == [], (p.name, p.errors, p.csp_violations())


@pytest.mark.parametrize("preset", list(SETUPS))
def test_a_room_plays_a_preset_to_the_settlement(
    tmp_path: Path, browser: Browser, three, settings, preset: str
):
    require_stack()
    settings.DOBON_TEST_SETUPS_ALLOWED = True
    settings.CELERY_BROKER_URL = ""
    room, users = three
    out = tmp_path / "shots"
    out.mkdir()
    problems: list[str] = []
    with stack(tmp_path) as running:
        port = running.daphne()
        base = f"http://127.0.0.1:{port}"
        alice = open_player(browser, port, users[0], "alice", PHONE)
        bob = open_player(browser, port, users[1], "bob", DESKTOP, locale="en-US")
        players = [alice, bob]
        bob.page.context.add_cookies([{"name": "django_language", "value": "en", "url": base}])

        # The owner picks the preset on the settings page; the page fills every rule.
        alice.page.goto(f"{base}/rooms/{room.pk}/settings/")
        alice.page.locator("[data-role=house-preset]").select_option(preset)
        if preset != "standard":
            box = alice.page.locator("[name='house-seven_zero']")
            expect(box).to_be_checked(checked=PRESETS[preset]["seven_zero"])
        problems += shoot(alice, out, f"{preset}-01-settings")
        alice.page.get_by_test_id("save-settings").click()
        # (The harness's CSP route follows the redirect itself: the URL stays; go there.)
        expect(alice.page.get_by_test_id("room-rules")).to_be_visible()
        alice.page.goto(f"{base}/rooms/{room.pk}/")
        expect(alice.page.get_by_test_id("room-rules")).to_have_attribute("data-preset", preset)
        room.refresh_from_db()
        assert room.house_rules == ({} if preset == "standard" else dict(PRESETS[preset]))

        bob.page.goto(f"{base}/rooms/{room.pk}/")
        start_fixed_game(room, users[0], SETUPS[preset])
        for seat, p in enumerate(players):
            p.page.reload()
            hand = p.page.get_by_test_id("hand").locator("[data-card]")
            expect(hand, f"{p.name}: {p.errors}").to_have_count(len(SETUPS[preset].hands[seat]))
        expect(alice.page.get_by_test_id("table-rules")).to_have_attribute("data-preset", preset)
        expect(alice.page.get_by_test_id("table-rules")).to_have_text(LABELS_JA[preset])
        problems += shoot(alice, out, f"{preset}-02-start")
        PLAYS[preset](players, room, out, problems)

        for p in players:
            expect(p.page.get_by_test_id("settlement")).to_be_visible()
        problems += shoot(alice, out, f"{preset}-09-settlement")
        problems += shoot(bob, out, f"{preset}-09-settlement-en")
        clean(players)
        game = Game.objects.filter(room=room).latest("number")
        assert game.status == Game.Status.FINISHED
        played = game.initial_state.get("house_rules") or dict(PRESETS["standard"])
        assert played == dict(PRESETS[preset])
    SHOTS.mkdir(exist_ok=True)
    for shot in out.iterdir():
        shutil.copy(shot, SHOTS / shot.name)
    assert problems == []


def play_standard(players, room, out, problems):
    alice, bob = players
    act(players, room, lambda: alice.page.get_by_test_id("hand").locator("[data-card=R5]").click())
    prompt = bob.page.locator(".chance.chance-dobon")
    expect(prompt).to_contain_text("your hand 5 = the play 5")
    act(players, room, lambda: bob.page.locator("[data-action=dobon]").click())


def play_party(players, room, out, problems):
    alice, bob = players
    act(players, room, lambda: alice.page.get_by_test_id("hand").locator("[data-card=R7]").click())
    prompt = alice.page.locator(".chance.chance-swap")
    expect(prompt).to_be_visible()
    expect(prompt.locator("[data-action=swap]")).to_have_count(2)
    expect(bob.page.locator(".me-turn")).to_have_text("alice is choosing whom to swap with")
    problems.extend(shoot(alice, out, "party-03-swap-prompt"))
    problems.extend(shoot(bob, out, "party-03-swap-watch-en"))
    # The first target (key 1) is bob.
    expect(prompt.locator("[data-key='1']")).to_have_attribute("data-target", "1")
    act(players, room, lambda: alice.page.keyboard.press("1"))
    expect(alice.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(2)
    expect(bob.page.get_by_test_id("hand").locator("[data-card=R3]")).to_have_count(1)
    expect(bob.page.locator(".log-list")).to_contain_text("alice swapped hands with you")
    problems.extend(shoot(bob, out, "party-04-after-swap-en"))
    act(players, room, lambda: bob.page.get_by_test_id("hand").locator("[data-card=R3]").click())
    expect(alice.page.locator(".chance.chance-dobon")).to_be_visible()
    act(players, room, lambda: alice.page.locator("[data-action=dobon]").click())


def play_classic(players, room, out, problems):
    alice, bob = players
    draw = alice.page.locator("[data-action=draw]")
    expect(draw).to_have_text("出るまで引く")
    act(players, room, lambda: draw.click())
    expect(alice.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(5)
    expect(alice.page.locator("[data-action=pass]")).to_have_count(0)  # §H7.2: no pass
    problems.extend(shoot(alice, out, "classic-03-drew-until-playable"))
    act(players, room, lambda: alice.page.get_by_test_id("hand").locator("[data-card=R6]").click())
    prompt = bob.page.locator(".chance.chance-dobon")
    expect(prompt).to_contain_text("2 × 3 = 6")
    problems.extend(shoot(bob, out, "classic-04-arithmetic-chance-en"))
    act(players, room, lambda: bob.page.keyboard.press("b"))
    expect(alice.page.locator(".log-list")).to_contain_text("2 × 3 = 6")


def play_competitive(players, room, out, problems):
    alice, bob = players
    act(players, room, lambda: alice.page.get_by_test_id("hand").locator("[data-card=R5]").click())
    prompt = bob.page.locator(".chance.chance-blind")
    expect(prompt).to_contain_text("Dobon? (blind)")
    expect(prompt).to_contain_text("pays 20")
    problems.extend(shoot(bob, out, "competitive-03-blind-chance-en"))
    act(players, room, lambda: bob.page.locator("[data-action=dobon]").click())
    back = alice.page.locator(".chance.chance-blind")
    expect(back).to_contain_text("ドボン返し？（ノーヒント）")
    problems.extend(shoot(alice, out, "competitive-04-blind-return"))
    act(players, room, lambda: alice.page.locator("[data-action=decline]").click())
    expect(alice.page.get_by_test_id("session")).to_contain_text("対局1: 1/20ゲーム")


PLAYS = {"standard": play_standard, "party": play_party, "classic": play_classic,
         "competitive": play_competitive}


def test_a_custom_room_reshuffles_and_ends_its_session(
    tmp_path: Path, browser: Browser, alice, bob, settings
):
    """§H12 and §H14 through the pages: the owner sets single rules (custom), the deck is
    rebuilt from the discards, the game ends by deck-out, the one-game session ends with
    its standings and the deck-out count is reset (§H14.5: the next rate stays ×1)."""
    require_stack()
    settings.DOBON_TEST_SETUPS_ALLOWED = True
    settings.CELERY_BROKER_URL = ""
    room = Room.objects.create(name="作り直しの卓", owner=alice, timeout_seconds=60)
    for index, person in enumerate((alice, bob)):
        Membership.objects.create(room=room, user=person, seat_index=index)
    out = tmp_path / "shots"
    out.mkdir()
    problems: list[str] = []
    with stack(tmp_path) as running:
        port = running.daphne()
        base = f"http://127.0.0.1:{port}"
        a = open_player(browser, port, alice, "alice", PHONE)
        b = open_player(browser, port, bob, "bob", DESKTOP, locale="en-US")
        b.page.context.add_cookies([{"name": "django_language", "value": "en", "url": base}])
        players = [a, b]
        a.page.goto(f"{base}/rooms/{room.pk}/settings/")
        a.page.locator("[name='house-reshuffle']").check()  # the page switches to custom
        expect(a.page.locator("[data-role=house-preset]")).to_have_value("custom")
        a.page.locator("[name='house-session_games']").fill("1")
        problems += shoot(a, out, "custom-01-settings")
        a.page.get_by_test_id("save-settings").click()
        expect(a.page.get_by_test_id("room-rules")).to_have_attribute("data-preset", "custom")
        room.refresh_from_db()
        assert room.house_rules["reshuffle"] is True and room.house_rules["session_games"] == 1

        start_fixed_game(room, alice, FixedSetup(hands=[["R5", "G9"], ["R2", "R3"]],
                                                 first_card="R1", deck=["G1"]))
        for p in players:
            p.page.goto(f"{base}/rooms/{room.pk}/")
            expect(p.page.get_by_test_id("hand").locator("[data-card]")).to_have_count(2)
        act(players, room, lambda: a.page.get_by_test_id("hand").locator("[data-card=R5]").click())
        act(players, room, lambda: b.page.keyboard.press("n"))  # bob lets his dobon go
        act(players, room, lambda: b.page.keyboard.press("d"))  # the deck's last card
        act(players, room, lambda: b.page.keyboard.press("p"))
        act(players, room, lambda: a.page.keyboard.press("d"))  # §H12: R1 comes back
        expect(a.page.get_by_test_id("hand").locator("[data-card=R1]")).to_have_count(1)
        expect(a.page.locator(".log-list")).to_contain_text("山札を作り直しました（1枚）")
        expect(b.page.locator(".log-list")).to_contain_text("reshuffled into the deck (1 card)")
        problems += shoot(a, out, "custom-02-reshuffle")
        act(players, room, lambda: a.page.keyboard.press("p"))
        act(players, room, lambda: b.page.keyboard.press("d"))  # nothing left: deck-out
        for p in players:
            expect(p.page.get_by_test_id("settlement")).to_be_visible()
        expect(a.page.get_by_test_id("session")).to_contain_text("対局1が終わりました（1ゲーム）")
        expect(b.page.get_by_test_id("session")).to_contain_text("Session 1 is over (1 game)")
        problems += shoot(a, out, "custom-09-session-over")
        problems += shoot(b, out, "custom-09-session-over-en")
        clean(players)
        room.refresh_from_db()
        assert room.deck_out_streak == 0 and room.next_rate == 1  # default: 1 and ×2
        assert room.last_session["games"] == 1
    SHOTS.mkdir(exist_ok=True)
    for shot in out.iterdir():
        shutil.copy(shot, SHOTS / shot.name)
    assert problems == []
