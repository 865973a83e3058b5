"""Issue 33 item 1 at the table: a trump round's settlement a player can follow, read in the
browser at 390×844 and 1280×800 (Japanese and English). The rounds are played through the
live service from the fixed set-ups of tests/game/trump_settle_helpers.py; the room page then
shows the settlement from the room's last result, as after a reload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from stack_helpers import require_stack, stack
from table_helpers import DESKTOP, PHONE, english, open_player

from tests.game.trump_settle_helpers import (
    AU_DOBON,
    AU_DOBON_MOVES,
    STANDARD_QUICK,
    STANDARD_QUICK_MOVES,
    play_trump_round,
)

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.django_db(transaction=True)]
OUT = Path("/tmp/settle33-shots")


def _open(browser: Browser, port: int, user: Any, room_id: int, size: dict[str, int],
          lang: str) -> Any:
    player = open_player(browser, port, user, user.username, size)
    if lang == "en":
        english(player, port)
    player.page.goto(f"http://127.0.0.1:{port}/rooms/{room_id}/")
    expect(player.page.get_by_test_id("settlement")).to_be_visible()
    return player


def _shoot(player: Any, name: str) -> list[str]:
    """Screenshots of the settlement and the page; every part of the settlement that is not
    within the page's width, or below the box's own scroll."""
    OUT.mkdir(exist_ok=True)
    box = player.page.get_by_test_id("settlement")
    box.screenshot(path=str(OUT / f"{name}.png"))
    player.page.screenshot(path=str(OUT / f"{name}-page.png"))
    problems: list[str] = player.page.evaluate(
        """() => {
          const box = document.querySelector('[data-testid=settlement]');
          const vw = window.innerWidth;
          return [box, ...box.querySelectorAll('*')]
            .filter((e) => { const r = e.getBoundingClientRect();
                             return r.width && (r.left < 0 || r.right > vw + 0.5); })
            .map((e) => `${e.tagName}.${e.className} `
                        + Math.round(e.getBoundingClientRect().right));
        }""")
    if box.evaluate("(b) => b.scrollWidth > b.clientWidth + 1"):
        problems.append("the settlement scrolls sideways")
    return problems


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
def test_t15_3_au_settlement_names_the_dobon_and_writes_the_value_sum_out(
        tmp_path: Path, browser: Browser, alice, bob, settings, size) -> None:
    require_stack()
    settings.CELERY_BROKER_URL = ""
    game = play_trump_round([alice, bob], "au", AU_DOBON, AU_DOBON_MOVES)
    label = "phone" if size is PHONE else "desktop"
    with stack(tmp_path) as running:
        port = running.daphne()
        a = _open(browser, port, alice, game.room_id, size, "ja")
        box = a.page.get_by_test_id("settlement")
        expect(box.get_by_test_id("settle-how")).to_have_text("bobがaliceの♦8にドボン！")
        sums = box.get_by_test_id("trump-sums").locator("li")
        expect(sums).to_have_text([
            "合計値 36 = bobの手札 8 + aliceの手札 20 + ドボンされた♦8 8",
            "倍率 ×2 = 2の枚数 0枚で ×1 × ドボン 1回で ×2",
            "alice → bob  72点 = 合計値 36 × 倍率 2",
        ])
        # the dobon'd card is drawn in alice's row, marked, next to her value 20
        alice_row = box.locator("tbody tr").nth(0)
        expect(alice_row.locator(".card.caught[data-card='D8']")).to_be_visible()
        expect(alice_row.locator(".settle-points")).to_have_text("20")
        expect(box.locator("tbody tr").nth(1).locator("td").nth(1)).to_have_class("pos")
        assert _shoot(a, f"au-ja-{label}") == []

        b = _open(browser, port, bob, game.room_id, size, "en")
        box = b.page.get_by_test_id("settlement")
        expect(box.get_by_test_id("settle-how")).to_have_text("bob dobon'd alice on ♦8!")
        expect(box.get_by_test_id("trump-sums").locator("li").nth(0)).to_have_text(
            "Value 36 = bob's hand 8 + alice's hand 20 + the dobon'd ♦8 8")
        assert _shoot(b, f"au-en-{label}") == []
        assert a.errors == [] and b.errors == [], a.errors + b.errors


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390x844", "1280x800"])
def test_t16_3_standard_settlement_labels_every_row_and_greens_a_negative_score(
        tmp_path: Path, browser: Browser, alice, bob, carol, dave, settings, size) -> None:
    require_stack()
    settings.CELERY_BROKER_URL = ""
    people = [alice, bob, carol, dave]
    game = play_trump_round(people, "standard", STANDARD_QUICK, STANDARD_QUICK_MOVES)
    label = "phone" if size is PHONE else "desktop"
    with stack(tmp_path) as running:
        port = running.daphne()
        a = _open(browser, port, alice, game.room_id, size, "ja")
        box = a.page.get_by_test_id("settlement")
        expect(box.get_by_test_id("settle-how")).to_have_text("carolがaliceの♥Kにドボン！")
        expect(box.get_by_test_id("trump-sums").locator("li")).to_have_text([
            "最悪点 40（敗者以外で最も大きい基本点）",
            "alice: 最悪点 40 × 勝者1人 × 2 = 80 + クイックドボン 80 + 落札点 2 = 162",
            "bob: 基本点 40",
            "carol: 基本点 0（ドボンで出した札：手札なし） − ストームドボン 100"
            " − クイックドボン 100 = −200",
            "dave: 基本点 26",
        ])
        rows = box.locator("tbody tr")
        expect(rows.nth(0).locator(".settle-note")).to_have_text("敗者の手札は数えません")
        expect(rows.nth(2).locator(".settle-note")).to_have_text("ドボンで出した札：手札なし")
        # §T16.3 lower is better: carol's −200 is green (pos), alice's +162 red (neg)
        expect(rows.nth(2).locator("td").nth(1)).to_have_class("pos")
        expect(rows.nth(2).locator("td").nth(1)).to_have_text("−200")
        expect(rows.nth(0).locator("td").nth(1)).to_have_class("neg")
        expect(rows.nth(2).locator("td").nth(2)).to_have_text("−200")  # the total, a true minus
        # the owner's next-round button comes before the arithmetic, on the first screen
        expect(box.get_by_test_id("next-game")).to_be_in_viewport()
        assert _shoot(a, f"std-ja-{label}") == []

        c = _open(browser, port, carol, game.room_id, size, "en")
        box = c.page.get_by_test_id("settlement")
        expect(box.get_by_test_id("settle-how")).to_have_text("carol dobon'd alice on ♥K!")
        expect(box.get_by_test_id("trump-sums").locator("li").nth(3)).to_have_text(
            "carol: base points 0 (put out for the dobon: no cards left) − storm dobon 100"
            " − quick dobon 100 = −200")
        assert _shoot(c, f"std-en-{label}") == []
        assert a.errors == [] and c.errors == [], a.errors + c.errors
