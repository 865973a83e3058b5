"""Issue 33 item 1: a trump round's game page says who dobon'd whom on which card, writes
out au's value sum (TRUMP-RULES.md §T15.3) with each factor named, labels every standard row
(§T16.3, §T16.4) and colours a change as the preset counts it (standard: lower is better).
Each round is played through the live service from a fixed set-up (the examples of
TRUMP-RULES.md §T15.7 and §T16.9), then its page is read in Japanese and in English."""

from __future__ import annotations

import re
from typing import Any

import pytest

from game.models import Game
from tests.game.trump_settle_helpers import (
    AU_DOBON,
    AU_DOBON_MOVES,
    AU_RETURN,
    AU_RETURN_MOVES,
    STANDARD_QUICK,
    STANDARD_QUICK_MOVES,
    play_trump_round,
)

pytestmark = pytest.mark.django_db


def _page(client: Any, viewer: Any, game: Game, language: str) -> str:
    client.force_login(viewer)
    client.cookies["django_language"] = language
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html: str = response.content.decode()
    return html


def _texts(html: str, testid: str) -> list[str]:
    """The text of each element with that data-testid's list items (or the element)."""
    block = re.search(rf'data-testid="{testid}"[^>]*>(.*?)</(?:ul|p)>', html, re.S)
    assert block, testid
    items = re.findall(r"<li>(.*?)</li>", block.group(1), re.S) or [block.group(1)]
    return [re.sub(r"<[^>]+>", "", item).strip() for item in items]


@pytest.fixture
def au_dobon(alice: Any, bob: Any) -> Game:
    """bob dobons alice's D8: X = 8 + 20 + 8 = 36, × 2^1 (§T15.3) = 72."""
    return play_trump_round([alice, bob], "au", AU_DOBON, AU_DOBON_MOVES)


@pytest.fixture
def standard_quick(alice: Any, bob: Any, carol: Any, dave: Any) -> Game:
    """§T16.9 (j): carol's quick storm dobon on alice's H13; w = 40; bids [2, 1, 1, 1]."""
    return play_trump_round([alice, bob, carol, dave], "standard", STANDARD_QUICK,
                            STANDARD_QUICK_MOVES)


def test_t15_3_au_page_names_the_dobon_the_card_the_value_sum_and_each_factor_ja(
        client: Any, alice: Any, au_dobon: Game) -> None:
    html = _page(client, alice, au_dobon, "ja")
    assert _texts(html, "settlement-how") == ["bobがaliceの♦8にドボン！"]
    assert _texts(html, "settlement-sums") == [
        "合計値 36 = bobの手札 8 + aliceの手札 20 + ドボンされた♦8 8",
        "倍率 ×2 = 2の枚数 0枚で ×1 × ドボン 1回で ×2",
        "alice → bob  72点 = 合計値 36 × 倍率 2",
    ]
    # the dobon'd card is drawn in alice's row, marked, beside her 20
    assert re.search(r'class="caught"[^>]*>.*?data-card="D8"', html, re.S)
    assert "<th scope=\"col\" class=\"num\">合計値</th>" in html


def test_t15_3_au_page_in_english(client: Any, alice: Any, au_dobon: Game) -> None:
    html = _page(client, alice, au_dobon, "en")
    assert _texts(html, "settlement-how") == ["bob dobon&#x27;d alice on ♦8!"]
    assert _texts(html, "settlement-sums") == [
        "Value 36 = bob&#x27;s hand 8 + alice&#x27;s hand 20 + the dobon&#x27;d ♦8 8",
        "Multiplier ×2 = ×1 for 0 two(s) × ×2 for 1 dobon(s)",
        "alice → bob  72 = value 36 × multiplier 2",
    ]


def test_t15_3_au_return_page_names_the_return_and_counts_both_declarations(
        client: Any, alice: Any, bob: Any, carol: Any) -> None:
    game = play_trump_round([alice, bob, carol], "au", AU_RETURN, AU_RETURN_MOVES)
    html = _page(client, alice, game, "ja")
    assert _texts(html, "settlement-how") == ["aliceがbobのドボンを返した！（aliceの♦10）"]
    assert _texts(html, "settlement-sums") == [
        "合計値 30 = aliceの手札 10 + bobの手札 10 + ドボンされた♦10 10",
        "倍率 ×4 = 2の枚数 0枚で ×1 × ドボン・返し 2回で ×4",
        "bob → alice  120点 = 合計値 30 × 倍率 4",
    ]


def test_t16_3_standard_page_labels_every_row_and_greens_a_negative_score_ja(
        client: Any, alice: Any, standard_quick: Game) -> None:
    html = _page(client, alice, standard_quick, "ja")
    assert _texts(html, "settlement-how") == ["carolがaliceの♥Kにドボン！"]
    assert _texts(html, "settlement-sums") == [
        "最悪点 40（敗者以外で最も大きい基本点）",
        "alice: 最悪点 40 × 勝者1人 × 2 = 80 + クイックドボン 80 + 落札点 2 = 162",
        "bob: 基本点 40",
        "carol: 基本点 0（ドボンで出した札：手札なし） − ストームドボン 100"
        " − クイックドボン 100 = −200",
        "dave: 基本点 26",
    ]
    # carol's put-out cards are shown (her hand is empty), beside the note
    carol_row = re.search(r'<th scope="row">carol.*?</tr>', html, re.S)
    assert carol_row and re.findall(r'data-card="(\w+)"', carol_row.group(0)) == [
        "C3", "D3", "H3", "S2", "H2"]
    assert "(no cards)" not in carol_row.group(0) and "（手札なし）" not in carol_row.group(0)
    notes = _row_notes(html)
    assert notes == {"alice": "敗者の手札は数えません", "carol": "ドボンで出した札：手札なし"}
    # lower is better (§T16.3): carol's −200 is good, alice's +162 bad
    tones = dict(re.findall(r'<th scope="row">(\w+).*?class="num points ([a-z]*)"', html, re.S))
    assert tones == {"alice": "minus", "bob": "minus", "carol": "plus", "dave": "minus"}


def test_t16_3_standard_page_in_english(client: Any, alice: Any, standard_quick: Game) -> None:
    html = _page(client, alice, standard_quick, "en")
    assert _texts(html, "settlement-how") == ["carol dobon&#x27;d alice on ♥K!"]
    sums = _texts(html, "settlement-sums")
    assert sums[1] == ("alice: worst 40 × 1 winner(s) × 2 = 80 + quick dobon 80 "
                       "+ auction points 2 = 162")
    assert sums[3] == ("carol: base points 0 (put out for the dobon: no cards left) "
                       "− storm dobon 100 − quick dobon 100 = −200")
    assert "<th scope=\"col\" class=\"num\">Base points</th>" in html


def _row_notes(html: str) -> dict[str, str]:
    rows = re.findall(r'<th scope="row">(\w+).*?</th>(.*?)</tr>', html, re.S)
    notes = {}
    for name, row in rows:
        note = re.search(r'data-testid="settlement-note">(.*?)</span>', row)
        if note:
            notes[name] = note.group(1)
    return notes
