"""§H6 7-0 [セブン・ゼロ]: the 7's swap (a new decision) and the 0's rotation."""

from __future__ import annotations

from .helpers import DOBON, DRAW, assert_refused, assert_result, copy_of, of_type, play, types
from .house_helpers import hsetup, swap, told

ON = {"seven_zero": True}
H6A = [["R7", "G3", "G9"], ["Y1", "Y2", "Y9"], ["B4", "B8"], ["G1", "Y6"]]


def test_h6_4_seven_opens_the_swap_choice() -> None:
    g = hsetup(ON, H6A, first="R5")
    events = g.apply(0, play("R7"), 0.0)
    assert (g.phase, g.chooser, g.turn) == ("swap", 0, None)
    assert types(events) == ["play", "choose_swap", "chance"]
    assert [(e["to"], e["kinds"]) for e in of_type(events, "chance")] == [(3, ["dobon"])]
    assert g.legal_actions(0) == [swap(1), swap(2), swap(3)]
    assert g.to_act() == [0] and g.next_deadline == 10.0


def test_h6_1_swap_moves_hands_and_judges_chances_again() -> None:
    g = hsetup(ON, H6A, first="R5")
    g.apply(0, play("R7"), 0.0)
    events = g.apply(0, swap(3), 2.0)
    assert g.hand(0) == ["G1", "Y6"] and g.hand(3) == ["G3", "G9"]
    assert g.chances(3) == []  # §H6.6: 12 no longer makes 7
    assert g.chances(0) == []  # §R9.1: seat 0 cannot dobon its own play
    assert (g.phase, g.turn) == ("turn", 1)
    # Public: who swapped with whom; private: each new hand to its holder (§R15.2).
    assert [(e["seat"], e["target"]) for e in told(events, "swap")] == [(0, 3)]
    assert [(e["to"], e["cards"]) for e in told(events, "hand")] == [
        (0, ["G1", "Y6"]), (3, ["G3", "G9"])]
    assert [(e["to"], e["kinds"]) for e in told(events, "chance")] == [(3, [])]
    assert g.view(1)["hand_counts"] == [2, 3, 2, 2]


def test_h6_5_a_dobon_during_the_choice_cancels_the_swap() -> None:
    g = hsetup(ON, H6A, first="R5")
    g.apply(0, play("R7"), 0.0)
    g.apply(3, DOBON, 2.0)
    assert_result(g, "dobon", [3], [(0, 3, 50)])
    assert g.hand(0) == ["G3", "G9"]


def test_h6_timeout_swaps_with_the_next_seat_after_lapses() -> None:
    g = hsetup(ON, H6A, first="R5")
    g.apply(0, play("R7"), 0.0)
    events = g.advance(10.0)
    assert events[0] == {"type": "decline", "to": 3, "seat": 3, "timeout": True}  # §R16.10
    assert events[1] == {"type": "timeout", "to": None, "seat": 0, "action": "swap"}
    assert g.hand(0) == ["Y1", "Y2", "Y9"] and g.hand(1) == ["G3", "G9"]
    assert g.turn == 1 and g.next_deadline == 20.0


def test_h6_timeout_counter_clockwise_goes_to_the_right_neighbour() -> None:
    g = hsetup(ON, [["R7", "G3"], ["Y1", "Y2"], ["B4", "B8"], ["G1", "Y5"]], first="RR",
               first_player=2)
    assert g.direction == -1 and g.turn == 0
    g.apply(0, play("R7"), 0.0)
    g.advance(10.0)
    assert g.hand(0) == ["G1", "Y5"] and g.hand(3) == ["G3"] and g.turn == 3


def test_h6_4_refusals() -> None:
    g = hsetup(ON, H6A, first="R5")
    g.apply(0, play("R7"), 0.0)
    assert_refused(g, lambda: g.apply(0, swap(0), 1.0), "invalid_swap_target")
    assert_refused(g, lambda: g.apply(0, swap(4), 1.0), "invalid_swap_target")
    assert_refused(g, lambda: g.apply(0, {"type": "swap", "target": "1"}, 1.0),
                   "invalid_swap_target")
    assert_refused(g, lambda: g.apply(1, swap(2), 1.0), "not_swapper")
    assert_refused(g, lambda: g.apply(0, play("G3"), 1.0), "must_choose_swap")
    assert_refused(g, lambda: g.apply(0, DRAW, 1.0), "must_choose_swap")
    assert_refused(g, lambda: g.apply(1, DRAW, 1.0), "not_your_turn")
    plain = hsetup(None, H6A, first="R5")
    assert_refused(plain, lambda: plain.apply(0, swap(1), 0.0), "not_swapper")


def test_h6_4_two_seats_swap_at_once() -> None:
    g = hsetup(ON, [["R7", "G3"], ["Y1", "Y2", "Y9"]], first="R5")
    events = g.apply(0, play("R7"), 0.0)
    assert g.phase == "turn" and g.turn == 1
    assert g.hand(0) == ["Y1", "Y2", "Y9"] and g.hand(1) == ["G3"]
    assert types(events)[:2] == ["play", "swap"]


def test_h6_5_a_cut_in_seven_takes_over_the_choice() -> None:
    g = hsetup(ON, [["R7", "G3"], ["Y1", "Y2"], ["R7", "B8"], ["G1", "Y6"]], first="R5")
    g.apply(0, play("R7"), 0.0)
    assert g.chances(2) == ["cut_in"]
    g.apply(2, play("R7"), 1.0)
    assert (g.phase, g.chooser) == ("swap", 2)
    g.apply(2, swap(0), 2.0)
    assert g.hand(2) == ["G3"] and g.hand(0) == ["B8"] and g.turn == 3


def test_h6_6_a_swap_creates_a_chance_that_starts_at_the_move() -> None:
    g = hsetup(ON, [["R7", "G3", "Y4"], ["Y1", "Y2", "Y9"], ["B4", "B8"], ["G1", "Y9"]],
               first="R5")
    g.apply(0, play("R7"), 0.0)
    assert g.chances(2) == []
    events = g.apply(0, swap(2), 4.0)  # seat 2 now holds G3 Y4 = 7
    assert g.chances(2) == ["dobon"]
    assert [(e["to"], e["kinds"], e["deadline"]) for e in told(events, "chance")] == [
        (2, ["dobon"], 14.0)]
    g.apply(2, DOBON, 5.0)
    assert g.result is not None and g.result.winners == [2]


def test_h6_6_a_seat_that_declined_gets_no_new_chance() -> None:
    g = hsetup(ON, [["R7", "G3", "Y4"], ["Y1", "Y2", "Y9"], ["B4", "B3"], ["G1", "Y9"]],
               first="R5")
    g.apply(0, play("R7"), 0.0)
    assert g.chances(2) == ["dobon"]
    g.apply(2, {"type": "decline"}, 1.0)
    g.apply(0, swap(2), 2.0)  # seat 2 holds G3 Y4 = 7 again, but it declined (§R7.6)
    assert g.chances(2) == []


def test_h6_2_zero_rotates_every_hand_in_the_direction() -> None:
    g = hsetup(ON, [["R0", "G1", "G2"], ["Y5"], ["B9", "B8"]], first="R3")
    events = g.apply(0, play("R0"), 0.0)
    assert [g.hand(s) for s in range(3)] == [["B9", "B8"], ["G1", "G2"], ["Y5"]]
    assert g.turn == 1 and not told(events, "chance")
    assert told(events, "rotate") == [
        {"type": "rotate", "to": None, "seat": 0, "direction": 1}]
    assert {e["to"] for e in told(events, "hand")} == {0, 1, 2}


def test_h6_3_no_swap_on_a_going_out_seven_nor_the_first_card() -> None:
    g = hsetup(ON, [["R7"], ["Y1", "Y2"], ["B4", "B8"]], first="R5")
    events = g.apply(0, play("R7"), 0.0)
    assert of_type(events, "agari") and not of_type(events, "choose_swap")
    g = hsetup(ON, [["R1"], ["Y1", "Y2"], ["B4", "B8"]], first="R7")
    assert g.phase == "turn" and g.turn == 0
    g = hsetup(ON, [["R1", "Y5"], ["Y1", "Y2"], ["B4", "B8"]], first="R0")
    assert g.hand(0) == ["R1", "Y5"]


def test_h6_7_settlement_counts_the_hand_after_the_move() -> None:
    """A 0 played by seat 0 moves hands; the dobon'd player's hand is its new one plus
    the 0 counted back."""
    g = hsetup(ON, [["R0", "B5"], ["Y0"], ["G3", "G6"]], first="R3")
    g.apply(0, play("R0"), 0.0)
    # Hands: 0 <- [G3 G6], 1 <- [B5], 2 <- [Y0]; seat 2 (0 points) dobons the 0.
    assert g.chances(2) == ["dobon"]
    g.apply(2, DOBON, 1.0)
    assert_result(g, "dobon", [2], [(0, 2, 14)])  # T = (9 + 0) + 5 + 0


def test_s29_a_chance_opened_by_a_swap_keeps_its_own_deadline() -> None:
    """The old chances keep theirs (§R14.1); the new one runs one timeout from the move."""
    g = hsetup(ON, [["R7", "G3", "Y4"], ["Y1", "Y2", "Y9"], ["B4", "B8"], ["G1", "Y6"]],
               first="R5")
    g.apply(0, play("R7"), 0.0)
    assert g.chances(3) == ["dobon"] and g.view(3)["deadline"] == 10.0
    g.apply(0, swap(2), 4.0)  # seat 2 now holds G3 Y4 = 7; seat 3 keeps G1 Y6 = 7
    assert g.chances(2) == ["dobon"] and g.view(2)["deadline"] == 14.0
    assert g.view(3)["deadline"] == 10.0
    events = g.advance(10.0)
    assert [(e["type"], e["to"]) for e in events] == [("decline", 3)]
    assert g.chances(2) == ["dobon"] and g.next_deadline == 14.0
    h = copy_of(g)
    assert h.next_deadline == 14.0 and h.to_dict() == g.to_dict()
    events = g.advance(14.0)
    assert [(e["type"], e["to"]) for e in events][:2] == [("decline", 2), ("timeout", None)]
