"""§R1 — the table: seats, deck, deal, timeout bounds."""

from __future__ import annotations

from collections import Counter

import pytest

from game.rules import Game

from .helpers import A, B, C, D, setup


def _full_deck() -> Counter[str]:
    deck: Counter[str] = Counter()
    for col in "RBGY":
        deck[f"{col}0"] += 1
        for n in range(1, 10):
            deck[f"{col}{n}"] += 2
        for sym in ("S", "R", "+2"):
            deck[f"{col}{sym}"] += 2
        deck[f"{col}F"] += 1
    deck["W"] += 4
    deck["W+4"] += 4
    return deck


def test_r2_reference_deck_has_112_cards() -> None:
    """§R1.2/§R2: the reference composition used below really is 112 cards."""
    assert sum(_full_deck().values()) == 112


@pytest.mark.parametrize("n", [1, 9])
def test_r1_1_seat_count_outside_2_to_8_is_refused(n: int) -> None:
    with pytest.raises(ValueError):
        setup([["G1"]] * n)
    with pytest.raises(ValueError):
        Game.new(players=n, first_player=0, seed=1, rate=1, timeout=10.0, now=0.0)


@pytest.mark.parametrize("n", [2, 3, 8])
def test_r1_1_two_to_eight_seats_are_accepted(n: int) -> None:
    g = setup([["G1", "G2"]] * n)
    assert g.players == n


def test_r1_1_clockwise_next_turn_is_left_neighbour() -> None:
    g = setup([["G1", "G2"], ["R5", "G2"], ["G1", "G2"], ["G1", "G2"]], first_player=B)
    assert g.direction == 1 and g.turn == B
    g.play(B, ["R5"], 0.0)
    assert g.turn == C


def test_r1_1_left_neighbour_wraps_round() -> None:
    g = setup([["G1", "G2"], ["G1", "G2"], ["G1", "G2"], ["R5", "G2"]], first_player=D)
    g.play(D, ["R5"], 0.0)
    assert g.turn == A


@pytest.mark.parametrize("n", range(2, 9))
def test_r1_2_new_deals_seven_each_from_112(n: int) -> None:
    g = Game.new(players=n, first_player=0, seed=100 + n, rate=1, timeout=10.0, now=0.0)
    assert g.players == n
    assert [len(g.hand(s)) for s in range(n)] == [7] * n
    assert g.deck_count == 112 - 7 * n - 1
    dealt = Counter(c for s in range(n) for c in g.hand(s)) + Counter([g.top])
    assert not dealt - _full_deck(), "dealt cards must come from the 112-card deck"


def test_r1_2_the_whole_deck_is_the_112_card_composition() -> None:
    """Nobody plays: draw and pass until the deck is out; hands + first card = the deck."""
    g = Game.new(players=4, first_player=1, seed=7, rate=1, timeout=10.0, now=0.0)
    first = g.top
    for _ in range(400):
        if g.phase == "finished":
            break
        if g.phase == "color":
            g.choose_color(g.chooser, "R", 0.0)
            continue
        seat = g.turn
        if g.pending_draw:
            g.draw(seat, 0.0)
            continue
        g.draw(seat, 0.0)
        if g.phase != "finished":
            g.pass_turn(seat, 0.0)
    assert g.phase == "finished"
    assert g.result.kind == "deck_out"
    seen = Counter(c for s in range(4) for c in g.hand(s)) + Counter([first])
    assert seen == _full_deck()


@pytest.mark.parametrize("timeout", [4.9, 60.5, 0.0])
def test_r1_3_timeout_outside_5_to_60_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError):
        setup([["G1"], ["G2"]], timeout=timeout)
    with pytest.raises(ValueError):
        Game.new(players=4, first_player=0, seed=1, rate=1, timeout=timeout, now=0.0)


@pytest.mark.parametrize("timeout", [5.0, 10.0, 60.0])
def test_r1_3_timeout_is_configurable(timeout: float) -> None:
    g = setup([["G1", "G2"], ["G3", "G4"]], timeout=timeout, now=2.0)
    assert g.next_deadline == pytest.approx(2.0 + timeout)
