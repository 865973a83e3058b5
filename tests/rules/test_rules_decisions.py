"""Cases RULES.md leaves open, as the engine settles them (docs/rules-decisions.md).

Each test names the nearest rule id; the decision itself is one bullet in the doc.
"""

from __future__ import annotations

import pytest

from game.rules import Game, IllegalAction

A, B, C, D = 0, 1, 2, 3
ZEROS = ["Y0"] * 20


def setup(hands: list[list[str]], first: str = "R3", deck: list[str] | None = None,
          first_player: int = A, timeout: float = 10.0) -> Game:
    return Game.from_setup(hands=hands, first_card=first,
                           deck=ZEROS if deck is None else deck,
                           first_player=first_player, timeout=timeout)


def types(events: list[dict[str, object]]) -> list[object]:
    return [e["type"] for e in events]


def test_r4_4_two_seat_reverse_skips_without_flipping_direction() -> None:
    g = setup([["RR", "B1"], ["G5", "G6"]])
    g.play(A, ["RR"], 0.0)
    assert g.turn == A and g.direction == 1
    first = setup([["B1"], ["G5"]], first="RR", first_player=B)
    assert first.turn == A and first.direction == 1


def test_r9_4_other_declarers_get_one_timeout_from_the_first_dobon() -> None:
    g = setup([["R9", "R2", "B1"], ["B9"], ["G9"], ["Y1", "Y2"]], first="R5")
    g.play(A, ["R9"], 0.0)
    g.dobon(B, 8.0)
    assert g.phase == "dobon_wait" and g.next_deadline == 18.0
    assert g.legal_actions(C) == [{"type": "dobon"}, {"type": "decline"}]
    g.advance(17.9)
    g.dobon(C, 17.9)
    assert g.result is not None and g.result.winners == [B, C]


def test_r7_1_seat_on_turn_has_no_cut_in_chance_but_plays_normally() -> None:
    g = setup([["R5", "B1"], ["R5", "G2"], ["Y7", "Y8"]], first="R3")
    events = g.play(A, ["R5"], 0.0)
    assert g.turn == B and g.chances(B) == []
    assert not [e for e in events if e["type"] == "chance"]
    assert {"type": "play", "cards": ["R5"]} in g.legal_actions(B)


def test_r6_4_next_seats_cut_in_chance_ends_when_its_turn_starts() -> None:
    g = setup([["W", "B1"], ["W", "G2"], ["Y7", "Y8"]])
    g.play(A, ["W"], 0.0)
    assert g.chances(B) == ["cut_in"]
    g.choose_color(A, "G", 1.0)
    assert g.turn == B and g.chances(B) == []
    assert g.next_deadline == 11.0  # no chance is left at 10.0; only B's turn clock runs


def test_r8_1_last_action_card_gives_no_cut_in_chance() -> None:
    g = setup([["RS", "RS", "B1"], ["RS"], ["G7", "G8"], ["Y7", "Y8"]], first="R3")
    g.play(A, ["RS", "RS"], 0.0)
    assert g.chances(B) == []
    with pytest.raises(IllegalAction) as err:
        g.play(B, ["RS"], 1.0)
    assert err.value.code == "cannot_go_out_with_action_card"


def test_r7_1_number_cut_in_may_go_out() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"], ["R5"]], first="R3")
    g.play(A, ["R5"], 0.0)
    events = g.play(C, ["R5"], 1.0)
    assert types(events)[:2] == ["play", "agari"] and events[0]["cut_in"] is True
    assert g.result is not None and g.result.kind == "agari" and g.result.winners == [C]


def test_r14_1_chances_lapse_before_a_clock_due_at_the_same_time() -> None:
    g = setup([["W", "B1"], ["W", "G2"], ["Y7", "Y8"]])
    g.play(A, ["W"], 0.0)
    events = g.advance(10.0)
    assert [(e["type"], e["to"]) for e in events][:3] == [
        ("decline", B), ("timeout", None), ("color", None)]
    assert events[0]["timeout"] is True and g.turn == B and g.next_deadline == 20.0


def test_api_unknown_card_in_an_action_is_illegal_action_and_value_error() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"]])
    with pytest.raises(ValueError) as err:
        g.play(A, ["X9"], 0.0)
    assert isinstance(err.value, IllegalAction) and err.value.code == "unknown_card"


def test_r11_2_payments_and_winners_follow_declaration_order() -> None:
    g = setup([["R9", "R2", "B1"], ["B9"], ["G9"], ["Y1", "Y2"]], first="R5")
    g.play(A, ["R9"], 0.0)
    g.dobon(C, 1.0)
    g.dobon(B, 2.0)
    r = g.result
    assert r is not None and r.winners == [C, B] and r.next_first_player == C
    total = 12 + 9 + 9 + 3
    assert r.payments == [(A, C, total), (A, B, total)]


def test_r12_1_draw_from_an_empty_deck_ends_the_game() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"], ["Y7", "Y8"]], deck=[])
    events = g.draw(A, 0.0)
    assert types(events) == ["draw", "finished"] and events[0]["count"] == 0
    assert g.result is not None and g.result.kind == "deck_out"
    assert g.result.next_first_player == B


def test_r3_4_after_f_takes_a_first_w4_nobody_cuts_in_on_it() -> None:
    g = setup([["B1", "B2"], ["W+4", "G2"], ["Y7", "Y8"]], first="W+4", first_player=A)
    g.draw(A, 0.0)
    assert g.phase == "color" and g.chooser == B
    assert g.chances(B) == [] and g.chances(C) == []
    assert all(a["type"] == "color" for a in g.legal_actions(B))


def test_r9_4_dobon_during_colour_choice_leaves_no_colour() -> None:
    g = setup([["W", "R2", "B1"], ["W"], ["Y7", "Y8"]])
    g.play(A, ["W"], 0.0)
    g.dobon(B, 1.0)
    assert g.color is None and g.chooser is None
    assert g.result is not None and g.result.kind == "dobon"


def test_r15_lapsed_chance_is_told_only_to_its_seat() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"], ["R5", "Y8"]])
    g.play(A, ["R5"], 0.0)
    events = g.advance(10.0)
    lapsed = [e for e in events if e["type"] == "decline"]
    assert lapsed == [{"type": "decline", "to": C, "seat": C, "timeout": True}]


def test_r4_4_any_order_of_forced_colour_cards_is_accepted() -> None:
    g = setup([["RF", "BF", "GF", "Y1"], ["G7", "G8"]])
    plays = [a["cards"] for a in g.legal_actions(A) if a["type"] == "play" and len(a["cards"]) == 3]
    assert sorted(p[-1] for p in plays) == ["BF", "GF", "RF"]
    g.play(A, ["GF", "RF", "BF"], 0.0)
    assert g.color == "B" and g.top == "BF"


def test_r4_1_coloured_card_matches_a_wild_top_by_colour_only() -> None:
    g = setup([["B1", "G2"], ["Y7", "Y8"]], first="GF")
    with pytest.raises(IllegalAction) as err:
        g.play(A, ["B1"], 0.0)
    assert err.value.code == "does_not_match"
    g.play(A, ["G2"], 0.0)


def test_r14_1_colour_clock_is_announced_with_a_choose_event() -> None:
    g = setup([["W", "B1"], ["G7", "G8"]])
    events = g.play(A, ["W"], 2.0)
    assert events[-1] == {"type": "choose", "to": None, "seat": A, "deadline": 12.0}


def test_r14_1_return_clock_starts_when_the_dobon_wait_closes() -> None:
    g = setup([["R+2", "R+2"], ["B+2"], ["G+2"], ["Y1", "Y2"]], first="R3")
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 3.0)
    assert g.next_deadline == 13.0
    events = g.decline(C, 5.0)
    assert events[-1] == {"type": "chance", "to": A, "seat": A, "kinds": ["return"],
                          "deadline": 15.0}


def test_r8_3_dobon_on_going_out_waits_for_others_and_has_no_return() -> None:
    g = setup([["R5"], ["B5"], ["G5"], ["Y1", "Y2"]], first="R3")
    g.play(A, ["R5"], 0.0)
    assert g.phase == "agari_wait"
    g.dobon(B, 1.0)
    assert g.phase == "dobon_wait" and g.next_deadline == 11.0
    g.advance(11.0)
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [B]
    assert r.payments == [(A, B, 5 + 5 + 5 + 3)]


def test_r5_2_a_stack_is_taken_with_draw_and_there_is_no_take_action() -> None:
    g = setup([["R+2", "B1"], ["G7", "G8"]])
    g.play(A, ["R+2"], 0.0)
    assert {"type": "draw"} in g.legal_actions(B)
    with pytest.raises(IllegalAction) as err:
        g.apply(B, {"type": "take"}, 1.0)
    assert err.value.code == "malformed_action"
    events = g.apply(B, {"type": "draw"}, 1.0)
    assert types(events)[:2] == ["take", "drawn"] and len(g.hand(B)) == 4


def test_api_a_colour_that_is_not_a_string_is_an_invalid_colour() -> None:
    g = setup([["W", "R1"], ["B1", "B3"]])
    g.play(A, ["W"], 1.0)
    with pytest.raises(IllegalAction) as err:
        g.choose_color(A, ["R"], 2.0)  # type: ignore[arg-type]
    assert err.value.code == "invalid_color" and g.chooser == A


def test_r14_draw_pass_timeout_that_empties_the_deck_does_not_pass() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"]], deck=["Y0"])
    events = g.advance(10.0)
    assert types(events) == ["timeout", "draw", "drawn", "finished"]


def test_r7_3_cut_in_on_going_out_has_its_own_code() -> None:
    g = setup([["R5"], ["B4", "R5"], ["G5"]], first="R3")
    g.play(A, ["R5"], 0.0)
    assert g.phase == "agari_wait"  # C holds 5 and may dobon
    with pytest.raises(IllegalAction) as err:
        g.play(B, ["R5"], 1.0)
    assert err.value.code == "no_cut_in_on_going_out"


def test_r9_2_seat_on_turn_may_decline_its_dobon_and_keep_its_turn() -> None:
    g = setup([["R+2", "B1"], ["B+2"], ["Y7", "Y8"]])
    g.play(A, ["R+2"], 0.0)
    assert g.turn == B and g.chances(B) == ["dobon"]
    g.decline(B, 1.0)
    assert g.turn == B and g.chances(B) == [] and g.phase == "turn"


def test_from_setup_refuses_an_empty_hand() -> None:
    with pytest.raises(ValueError):
        setup([["R5"], []])


def test_api_legal_actions_are_read_only_values_and_plain_dicts_work_too() -> None:
    g = setup([["R5", "R5", "B1"], ["G7", "G8"]])
    listed = g.legal_actions(A)
    assert listed[0] == {"type": "play", "cards": ["R5"]}
    with pytest.raises(TypeError):
        listed[0]["type"] = "draw"
    with pytest.raises(TypeError):
        listed[0]["cards"].append("R5")
    mutable = dict(listed[1])
    mutable["note"] = "mine"  # a copy is an ordinary dict
    assert all(type(a) is dict for a in g.view(A)["legal_actions"])
    g.apply(A, {"type": "play", "cards": ["R5", "R5"]}, 0.0)
    assert g.hand(A) == ["B1"] and g.turn == B


def test_api_a_time_that_is_not_a_number_is_refused_before_any_change() -> None:
    g = setup([["R5", "B1"], ["G7", "G8"]])
    before = g.to_dict()
    for call in (lambda: g.play(A, ["R5"], "soon"), lambda: g.draw(A, None),
                 lambda: g.apply(A, {"type": "draw"}, "soon"), lambda: g.advance("later")):
        with pytest.raises(IllegalAction) as err:
            call()
        assert err.value.code == "malformed_action"
    assert g.to_dict() == before
    with pytest.raises(ValueError):
        Game.new(players=2, now="noon")  # type: ignore[arg-type]
