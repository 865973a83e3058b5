"""HOUSE-RULES.md §5: how house rules combine, pair by pair (the engine's pairs; §H13 and
§H14 are the room's and change nothing in the engine, test_h01_hand_size.py §G5)."""

from __future__ import annotations

from game.rules import Game

from .helpers import DOBON, DRAW, assert_refused, assert_result, colour, of_type, play
from .house_helpers import hsetup, swap, told


def test_h1_x_h8_small_hands_make_two_card_hands() -> None:
    g = Game.new(players=4, first_player=0, seed=8,
                 house_rules={"hand_size": 3, "arithmetic_dobon": True})
    assert g.hand_counts == [3, 3, 3, 3]
    h = hsetup({"hand_size": 3, "arithmetic_dobon": True},
               [["R6", "G1", "G2"], ["B2", "G3"], ["Y1", "Y2", "Y9"]], first="R1")
    h.apply(0, play("R6"), 0.0)
    assert h.chances(1) == ["dobon"]


def test_h1_x_h12_small_hands_leave_a_bigger_deck() -> None:
    small = Game.new(players=4, first_player=0, seed=1, house_rules={"hand_size": 3,
                                                                      "reshuffle": True})
    assert small.deck_count == 112 - 12 - 1


def test_h2_x_h3_no_cut_in_on_an_open_stack_in_any_mode() -> None:
    for mode in ("identical", "same_number"):
        g = hsetup({"cut_in": mode, "stacking": "off"},
                   [["R+2", "G9"], ["Y4", "Y6"], ["R+2", "G3"]], first="R5")
        g.apply(0, play("R+2"), 0.0)
        assert g.chances(2) == []
        assert_refused(g, lambda g=g: g.apply(2, play("R+2"), 1.0), "no_cut_in_on_stack")


def test_h2_x_h5_same_number_cut_in_may_mix_identical_may_not() -> None:
    rules = {"cut_in": "same_number", "mixed_color_multi": True}
    g = hsetup(rules, [["R3", "G9"], ["Y1", "Y6"], ["B3", "G3", "Y8"]], first="R5")
    g.apply(0, play("R3"), 0.0)
    g.apply(2, play("B3", "G3"), 1.0)
    assert (g.top, g.color, g.last_play["points"]) == ("G3", "G", 6)
    g = hsetup({"mixed_color_multi": True}, [["R3", "G9"], ["Y1", "Y6"], ["R3", "G3", "Y8"]],
               first="R5")
    g.apply(0, play("R3"), 0.0)
    assert_refused(g, lambda: g.apply(2, play("R3", "G3"), 1.0), "not_your_turn")
    g.apply(2, play("R3"), 1.0)


def test_h2_x_h6_a_same_number_seven_takes_over_and_off_cannot() -> None:
    g = hsetup({"cut_in": "same_number", "seven_zero": True},
               [["R7", "G3"], ["Y1", "Y2"], ["B7", "B8"], ["G1", "Y6"]], first="R5")
    g.apply(0, play("R7"), 0.0)
    g.apply(2, play("B7"), 1.0)
    assert (g.phase, g.chooser) == ("swap", 2)
    g = hsetup({"cut_in": "off", "seven_zero": True},
               [["R7", "G3"], ["Y1", "Y2"], ["R7", "B8"], ["G1", "Y6"]], first="R5")
    g.apply(0, play("R7"), 0.0)
    assert_refused(g, lambda: g.apply(2, play("R7"), 1.0), "cut_in_off")


def test_h3_x_h4_a_last_plus_two_on_a_cross_stack_goes_out() -> None:
    g = hsetup({"stacking": "cross", "action_finish": True},
               [["W+4", "G5"], ["B+2"], ["G1", "G2"]], first="R5")
    g.apply(0, play("W+4"), 0.0)
    g.apply(0, colour("R"), 0.5)
    g.apply(1, play("B+2"), 1.0)
    assert g.result is not None and g.result.winners == [1]
    assert g.pending_draw == 4  # §H4.2: the going-out +2 never took effect


def test_h3_x_h7_and_h3_x_h12_a_take_is_no_draw_until_playable_and_reshuffles() -> None:
    g = hsetup({"draw_until_playable": True, "reshuffle": True},
               [["R+2", "G1"], ["Y4", "Y6"], ["B1", "B2"]], first="R5", deck=["B3"])
    g.apply(0, play("R+2"), 0.0)
    events = g.apply(1, DRAW, 1.0)  # takes B3, then the reshuffled R5
    assert of_type(events, "reshuffle") and g.hand(1) == ["Y4", "Y6", "B3", "R5"]
    assert g.phase == "turn" and g.turn == 2


def test_h4_x_h6_a_going_out_seven_or_zero_has_no_effect() -> None:
    rules = {"action_finish": True, "seven_zero": True}
    for card in ("R7", "R0"):
        g = hsetup(rules, [[card], ["Y1", "Y2"], ["B4", "B8"]], first="R5")
        events = g.apply(0, play(card), 0.0)
        assert not told(events, "swap") and not told(events, "rotate")
        assert not told(events, "choose_swap")


def test_h5_x_h8_a_mixed_play_is_a_bigger_target() -> None:
    g = hsetup({"mixed_color_multi": True, "arithmetic_dobon": True},
               [["R3", "B3", "G9"], ["B2", "G3"], ["Y1", "Y2", "Y9"]], first="R1")
    g.apply(0, play("R3", "B3"), 0.0)
    assert g.chances(1) == ["dobon"]  # 2 × 3 = 6


def test_h6_x_h10_nothing_is_re_told_about_dobon_after_a_move() -> None:
    g = hsetup({"seven_zero": True, "blind_dobon": True},
               [["R7", "G3", "Y4"], ["Y1", "Y2", "Y9"], ["B4", "B8"], ["G1", "Y9"]],
               first="R5")
    g.apply(0, play("R7"), 0.0)
    assert all(g.chances(s) == ["dobon"] for s in (1, 2, 3))
    events = g.apply(0, swap(2), 1.0)
    assert not told(events, "chance")
    events = g.apply(2, DOBON, 2.0)  # judged with the hand held now: G3 Y4 = 7
    assert of_type(events, "dobon") and g.phase == "dobon_wait"  # §H10.2: others asked


def test_h6_x_h8_judged_with_the_hand_held_when_declaring() -> None:
    g = hsetup({"seven_zero": True, "arithmetic_dobon": True},
               [["R7", "G1", "Y7"], ["Y1", "Y2", "Y9"], ["B4", "B8"]], first="R5")
    g.apply(0, play("R7"), 0.0)
    events = g.apply(0, swap(2), 1.0)  # seat 2 now holds G1 Y7: 1 × 7 = 7
    assert [(e["to"], e["kinds"]) for e in told(events, "chance")] == [(2, ["dobon"])]
    assert of_type(g.apply(2, DOBON, 2.0), "dobon")[0]["expression"] == "1 × 7 = 7"


def test_h8_x_h9_both_cards_must_be_numbers() -> None:
    g = hsetup({"arithmetic_dobon": True, "number_only_dobon": True},
               [["R4", "G9"], ["B+2", "R5"], ["G1", "G2"]], first="R1")
    g.apply(0, play("R4"), 0.0)
    assert g.chances(1) == []


def test_h8_h9_x_h10_they_define_a_true_declaration() -> None:
    g = hsetup({"arithmetic_dobon": True, "blind_dobon": True},
               [["R6", "G9"], ["B2", "G3"], ["G1", "G2"]], first="R1")
    g.apply(0, play("R6"), 0.0)
    assert of_type(g.apply(1, DOBON, 1.0), "dobon")  # true: 2 × 3
    g = hsetup({"number_only_dobon": True, "blind_dobon": True},
               [["R+2", "G9"], ["B+2"], ["G1", "G2"]], first="R1")
    g.apply(0, play("R+2"), 0.0)
    assert of_type(g.apply(1, DOBON, 1.0), "false_declaration")


def test_h10_x_h12_and_rate_penalties_at_a_reshuffled_deck_out() -> None:
    g = hsetup({"blind_dobon": True, "reshuffle": True},
               [["R5", "G9"], ["Y1", "Y2", "Y3"], ["B4", "B8"]], first="R2", deck=[], rate=4)
    g.apply(0, play("R5"), 0.0)
    g.apply(2, DOBON, 0.5)
    g.apply(1, DRAW, 1.0)  # reshuffles [R2], draws it
    assert g.phase == "turn"
    g.apply(1, {"type": "pass"}, 1.5)
    g.apply(2, DRAW, 2.0)  # nothing left: deck-out
    assert_result(g, "deck_out", [], [(2, 0, 80), (2, 1, 80)])
