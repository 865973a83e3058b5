"""What each level does in set positions (named after the rules they are about), and the
card knowledge the stronger levels rely on."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from game.bots import LEVELS, policy
from game.bots.driver import start_event
from game.bots.knowledge import FULL_VALUES, SumTable, Table, ruled_out_totals
from game.rules import Game

# Zeros in the deck: a draw never changes a hand's points.
FILLER = ["Y0"] * 4 + ["G0"] * 4 + ["B0"] * 4


class Table_:
    """A game plus every seat's event log, fed as the service layer would."""

    def __init__(self, hands: list[list[str]], first: str = "R3", first_player: int = 0,
                 deck: Sequence[str] = FILLER) -> None:
        self.game = Game.from_setup(hands=hands, first_card=first, deck=list(deck),
                                    first_player=first_player)
        self.logs: list[list[dict[str, Any]]] = [[] for _ in hands]
        self._deliver([start_event(self.game)])
        self.now = 0.0

    def _deliver(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            for seat, log in enumerate(self.logs):
                if event["to"] in (None, seat):
                    log.append(event)

    def act(self, seat: int, action: dict[str, Any]) -> None:
        self.now += 1.0
        self._deliver(self.game.apply(seat, action, self.now))

    def ask(self, level: str, seat: int, seed: int = 1) -> dict[str, Any] | None:
        view = self.game.view(seat)
        answer = policy(level, seed).act(view, list(self.logs[seat]))
        assert answer is None or any(answer is a for a in view["legal_actions"])
        return answer


def play(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


BIG = ["B9", "B8", "G7", "G6", "Y9", "Y8", "B7", "G9"]  # a hand far from every play


@pytest.mark.parametrize("level", LEVELS)
def test_r9_every_level_declares_a_dobon_it_can(level: str) -> None:
    t = Table_([["R5", "B7"], ["G2", "Y3"], BIG, BIG])
    t.act(0, play("R5"))  # 5 points; seat 1 holds 5
    assert t.ask(level, 1) == {"type": "dobon"}


@pytest.mark.parametrize("level", LEVELS)
def test_r9_dobon_on_a_going_out_play(level: str) -> None:
    """§R8.2: the going-out play waits for dobon; every level declares."""
    t = Table_([["R5"], ["G2", "Y3"], BIG, BIG])
    t.act(0, play("R5"))
    assert t.game.phase == "agari_wait"
    assert t.ask(level, 1) == {"type": "dobon"}


@pytest.mark.parametrize("level", LEVELS)
def test_r10_every_level_returns_a_dobon_it_can(level: str) -> None:
    """§R10.3 (holds): A plays one +2 of two, B dobons with 20; A returns."""
    t = Table_([["R+2", "B+2"], ["G9", "G9", "G2"], BIG, BIG])
    t.act(0, play("R+2"))
    t.act(1, {"type": "dobon"})
    assert t.game.phase == "return_wait"
    assert t.ask(level, 0) == {"type": "return"}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r5_stacks_rather_than_takes(level: str) -> None:
    t = Table_([["R+2", "B5", "B6"], ["G+2", "B3", "Y7", "G1"], BIG, BIG])
    t.act(0, play("R+2"))
    assert t.game.pending_draw == 2
    assert t.ask(level, 1) == play("G+2")


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r8_1_sheds_the_action_card_and_keeps_the_number_to_go_out(level: str) -> None:
    t = Table_([["R5", "B6"], ["RS", "R7"], BIG, BIG], first="R3", first_player=1)
    assert t.ask(level, 1) == play("RS")


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r8_goes_out_when_it_can(level: str) -> None:
    t = Table_([["R5", "B6"], ["R7"], BIG, BIG], first="R3", first_player=1)
    assert t.ask(level, 1) == play("R7")


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r8_goes_out_with_a_multi_play(level: str) -> None:
    """§R4.1 / §R8.1: two identical number cards go out together."""
    t = Table_([["R5", "B6"], ["R7", "R7"], BIG, BIG], first="R3", first_player=1)
    assert t.ask(level, 1) == play("R7", "R7")


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r7_cuts_in_with_an_identical_action_card(level: str) -> None:
    t = Table_([["RS", "B6", "B2"], BIG, BIG, ["RS", "G4", "Y6"]])
    t.act(0, play("RS"))  # seat 1 is skipped, seat 2 is on turn; seat 3 holds the same card
    assert "cut_in" in t.game.view(3)["chances"]
    assert t.ask(level, 3) == play("RS")


def test_r7_6_a_chance_left_alone_is_waited_out_not_declined() -> None:
    """Normal lets a cut-in with a 0 lapse: it answers None (the window closes by
    itself, §R7.6) instead of sending a decline."""
    t = Table_([["R0", "B6", "B2"], BIG, BIG, ["R0", "G4", "Y6"]])
    t.act(0, play("R0"))
    assert t.game.view(3)["chances"] == ["cut_in"]
    assert t.ask("normal", 3) is None


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r6_chooses_the_colour_it_holds_most(level: str) -> None:
    t = Table_([["W", "G4", "G6", "G2", "B1"], BIG, BIG], first="R3")
    t.act(0, play("W"))
    assert t.game.phase == "color"
    assert t.ask(level, 0) == {"type": "color", "color": "G"}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_r9_1_avoids_a_play_a_one_card_opponent_can_likely_dobon(level: str) -> None:
    """Seat 3 holds one card: 24 unseen cards are worth 20, only 7 are worth 4. Both
    plays match; the +2 is not played (strong plays the 4; normal, more cautious, may
    draw instead). Seat 3 does not play next, so the +2 would not hold it back."""
    t = Table_([BIG, ["R+2", "R4", "B9", "G8"], BIG, ["Y1"]], first="R3", first_player=1)
    answer = t.ask(level, 1)
    assert answer in ([play("R4")] if level == "strong" else [play("R4"), {"type": "draw"}])


def test_strong_tracks_cards_seen_normal_does_not() -> None:
    """Once every S, R and +2 has been seen, a lone unseen card cannot be worth 20: the
    strong level's danger for a 20-point play drops to zero; normal's stays."""
    twenties = [c + s for s in ("S", "R", "+2") for c in "RBGY"] * 2
    log = [start_event(Game.new(players=2, seed=1))] + [
        {"type": "play", "to": None, "seat": 0, "cards": [card], "cut_in": False,
         "points": 20} for card in twenties[:-1]]
    view = {"seat": 1, "hand": [twenties[-1], "B5"], "hand_counts": [1, 2, 1],
            "revealed": [None, None, None]}
    assert Table(view, log, smax=20, infer=False).danger(20) == 0.0
    assert Table(view, None, smax=20).danger(20) > 0.1


def test_sum_table_matches_enumeration() -> None:
    """The packed dynamic programme against brute force over a small pool."""
    values = {0: 1, 2: 3, 5: 2, 20: 2}
    pool = [v for v, n in values.items() for _ in range(n)]
    table = SumTable(values, kmax=4, smax=45)
    for k in range(1, 5):
        subsets = list(itertools.combinations(range(len(pool)), k))
        for total in range(0, 46):
            hits = sum(1 for s in subsets if sum(pool[i] for i in s) == total)
            assert table.probability(k, total) == pytest.approx(hits / len(subsets))


def test_sum_table_on_the_full_deck() -> None:
    """One card of 112: 24 are worth 20 (S, R, +2), 8 worth 5 (§R2)."""
    table = SumTable(FULL_VALUES, kmax=3, smax=60)
    assert table.probability(1, 20) == pytest.approx(24 / 112)
    assert table.probability(1, 5) == pytest.approx(8 / 112)
    assert sum(table.probability(2, s) for s in range(61)) < 1.0


def _play_event(seat: int, cards: list[str], points: int, cut_in: bool = False) -> dict[str, Any]:
    return {"type": "play", "to": None, "seat": seat, "cards": cards, "points": points,
            "cut_in": cut_in}


def test_r9_totals_ruled_out_by_plays_nobody_dobonned() -> None:
    """A seat whose hand has not changed since a play went by undobonned does not total
    that play's points (every level declares every dobon it can, R9)."""
    log = [{"type": "start", "to": None, "seat": 0, "top": "R3"},
           _play_event(0, ["R5"], 5), _play_event(1, ["R8"], 8),
           {"type": "draw", "to": None, "seat": 2, "count": 1},
           {"type": "pass", "to": None, "seat": 2},
           _play_event(3, ["B8"], 8), _play_event(0, ["B2"], 2)]
    ruled = ruled_out_totals(log, [1, 2, 3])
    assert ruled[1] == {8}      # B8 went by (the R8 was its own play, its hand changed)
    assert ruled[2] == {8}      # it drew after the R8, then B8 went by
    assert ruled[3] == set()    # its B8 came last but for B2, whose window may be open


def test_r7_2a_a_window_cut_short_by_a_cut_in_proves_nothing() -> None:
    log = [{"type": "start", "to": None, "seat": 0, "top": "R3"},
           _play_event(0, ["R5"], 5),
           _play_event(1, ["R5", "R5"], 10, cut_in=True),
           {"type": "draw", "to": None, "seat": 2, "count": 1}]
    ruled = ruled_out_totals(log, [2, 3])
    assert ruled[3] == {10}     # not 5: the cut-in closed the R5's window at once
    assert ruled[2] == set()
