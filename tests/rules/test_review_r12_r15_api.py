"""Review: §R12 deck out, §R13 next first player, §R14 timeouts in deadline order, §R15, API."""

from __future__ import annotations

import copy
import json

import pytest

from game.rules import Game, IllegalAction

from .helpers import A, B, C, D, assert_refused, assert_result, copy_of, of_type, setup


def _timeouts(events: list[dict]) -> list[tuple[int, str]]:
    return [(e["seat"], e["action"]) for e in of_type(events, "timeout")]


# ----------------------------------------------------------------------- §R12 / §R13


def test_review_r12_1_stack_take_of_exactly_the_deck_ends_the_game() -> None:
    g = setup([["R+2", "G1"], ["B1", "B3"], ["Y1", "Y3"]], first="R3", first_player=A,
              deck=["G5", "G6"], rate=2)
    g.play(A, ["R+2"], 1.0)
    events = g.draw(B, 2.0)
    assert of_type(events, "take")[0]["count"] == 2
    assert_result(g, "deck_out", [], [], hand_pts=[1, 15, 4], next_first=C)
    assert g.result.rate == 2
    assert g.deck_count == 0


def test_review_r12_1_stack_take_with_a_short_deck_takes_what_is_there() -> None:
    g = setup([["W+4", "G1"], ["B1", "B3"], ["Y1", "Y3"]], first="R3", first_player=A,
              deck=["G5"])
    g.play(A, ["W+4"], 1.0)
    g.choose_color(A, "B", 2.0)
    events = g.draw(B, 3.0)
    assert of_type(events, "take")[0]["count"] == 1
    assert of_type(events, "drawn")[0]["cards"] == ["G5"]
    assert_result(g, "deck_out", [], [], next_first=C)


def test_review_r12_1_timeout_draw_from_an_empty_deck_ends_the_game() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"], ["Y1", "Y3"]], first="R3", first_player=A, deck=[])
    events = g.advance(10.0)
    assert _timeouts(events) == [(A, "draw_pass")]
    assert of_type(events, "pass") == []
    assert_result(g, "deck_out", [], [], next_first=B)


def test_review_r12_1_last_card_drawn_counter_clockwise_next_first() -> None:
    g = setup([["RR", "G1"], ["B1", "B3"], ["Y1", "Y3"], ["G4", "G6"]], first="R3",
              first_player=A, deck=["Y0"])
    g.play(A, ["RR"], 1.0)
    assert g.turn == D
    g.draw(D, 2.0)
    assert_result(g, "deck_out", [], [], next_first=C)


def test_review_r13_1_dobon_next_first_is_the_first_declarer_not_the_seat_order() -> None:
    g = setup([["R+2", "G1"], ["B+2"], ["G+2"], ["Y+2"]], first="R3", first_player=A)
    g.play(A, ["R+2"], 1.0)
    g.dobon(D, 2.0)
    g.dobon(B, 3.0)
    g.dobon(C, 4.0)
    assert g.result is not None
    assert list(g.result.winners) == [D, B, C]
    assert g.result.next_first_player == D


# ----------------------------------------------------------------------- §R14


def test_review_r14_one_advance_applies_every_row_at_its_own_deadline() -> None:
    """Chances lapse at 11, colour at 11, take at 21, draw-pass at 31, deck out at 41."""
    g = setup([["W+4", "G1"], ["B1", "B3"], ["W+4", "Y4"], ["W", "B9", "B9", "Y2"]],
              first="R3", first_player=A, deck=["Y0"] * 5 + ["G5"], seed=3)
    g.play(A, ["W+4"], 1.0)
    events = g.advance(1000.0)
    assert _timeouts(events) == [(A, "color"), (B, "take"), (C, "draw_pass"), (D, "draw_pass")]
    turns = [(e["seat"], e["deadline"]) for e in of_type(events, "turn")]
    assert turns == [(B, pytest.approx(21.0)), (C, pytest.approx(31.0)), (D, pytest.approx(41.0))]
    # The lapsed chances come first, privately, before the colour timeout.
    kinds = [e["type"] for e in events]
    assert kinds.index("decline") < kinds.index("timeout")
    assert all(e["to"] == e["seat"] for e in of_type(events, "decline"))
    assert_result(g, "deck_out", [], [], next_first=A)


def test_review_r14_stepwise_advance_equals_one_big_advance() -> None:
    def make() -> Game:
        return setup([["W+4", "G1"], ["B1", "B3"], ["W+4", "Y4"], ["W", "B9", "B9", "Y2"]],
                     first="R3", first_player=A, deck=["Y0"] * 5 + ["G5"], seed=11)

    g1, g2 = make(), make()
    g1.play(A, ["W+4"], 1.0)
    g2.play(A, ["W+4"], 1.0)
    g1.advance(1000.0)
    t = 1.0
    while g2.next_deadline is not None:
        t += 0.5
        g2.advance(t)
    assert g1.to_dict() == g2.to_dict()


def test_review_r14_1_first_card_wild_draw_four_f_takes_by_hand_colour_clock_from_take() -> None:
    g = setup([["G1", "G2"], ["B1", "B3"], ["Y1", "Y3"]], first="W+4", first_player=B)
    g.draw(B, 7.0)
    assert g.chooser == C
    assert g.next_deadline == pytest.approx(17.0)
    events = g.advance(17.0)
    assert _timeouts(events) == [(C, "color")]
    assert g.turn == C and g.next_deadline == pytest.approx(27.0)


def test_review_r14_1_return_chance_clock_starts_when_the_wait_lapses() -> None:
    g = setup([["R+2", "R+2"], ["B+2"], ["G+2"], ["G4", "G6"]], first="R3", first_player=A)
    g.play(A, ["R+2"], 1.0)
    g.dobon(B, 4.0)
    assert g.next_deadline == pytest.approx(14.0)
    events = g.advance(30.0)
    # C's chance lapses at 14; A's return chance runs 14 -> 24 and lapses too.
    assert g.phase == "finished"
    chance = [e for e in of_type(events, "chance") if e["seat"] == A]
    assert chance and chance[0]["deadline"] == pytest.approx(24.0)
    assert g.result is not None and g.result.kind == "dobon"


def test_review_r14_1_draw_restarts_clock_then_pass_timeout() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"]], first="R3", first_player=A)
    g.advance(5.0)
    g.draw(A, 8.0)
    assert g.next_deadline == pytest.approx(18.0)
    events = g.advance(40.0)
    assert _timeouts(events)[0] == (A, "pass")
    assert of_type(events, "turn")[0]["deadline"] == pytest.approx(28.0)


# ----------------------------------------------------------------------- §R15


def test_review_r15_views_and_events_never_show_other_hands_or_the_deck() -> None:
    g = setup([["W", "R5", "G1"], ["R5", "B3"], ["Y1", "Y3"], ["G4", "G6"]], first="R3",
              first_player=A, deck=["B7", "Y8", "G9", "R4"])
    events = g.play(A, ["W"], 1.0)
    events += g.choose_color(A, "R", 2.0)
    events += g.draw(B, 3.0)
    for e in events:
        json.dumps(e)
        if e["to"] is None:
            blob = json.dumps(e)
            for hidden in ("B7", "Y8", "G9", "R4", "Y3", "G6"):
                assert hidden not in blob
    drawn = of_type(events, "drawn")
    assert [(e["to"], e["cards"]) for e in drawn] == [(B, ["B7"])]
    for seat in (None, A, C, D):
        v = g.view(seat)
        blob = json.dumps(v)
        assert "B7" not in blob and "Y8" not in blob and "G9" not in blob
        if seat is None:
            assert "hand" not in v and v["chances"] == [] and v["legal_actions"] == []
    assert "B7" in g.view(B)["hand"]


def test_review_r15_chance_and_decline_only_to_their_seat() -> None:
    g = setup([["R5", "G1"], ["B1", "B3"], ["R5", "Y4"], ["B5"]], first="R3", first_player=A)
    events = g.play(A, ["R5"], 1.0)
    chances = of_type(events, "chance")
    assert sorted((e["to"], tuple(e["kinds"])) for e in chances) == [
        (C, ("cut_in",)), (D, ("dobon",))]
    events = g.decline(D, 2.0)
    assert [(e["type"], e["to"]) for e in events] == [("decline", D)]
    assert g.view(C)["chances"] == ["cut_in"] and g.view(A)["chances"] == []


# ----------------------------------------------------------------------- API


def _phases() -> list[Game]:
    out = []
    g = setup([["W", "R5", "G1"], ["R5", "B3"], ["W", "Y3"], ["G4", "G6"]], first="R3",
              first_player=A)
    g.play(A, ["W"], 1.0)
    out.append(copy_of(g))  # colour, with a cut-in chance open
    g2 = setup([["R5"], ["B5"], ["Y5"], ["G4", "G6"]], first="R3", first_player=A)
    g2.play(A, ["R5"], 1.0)
    out.append(copy_of(g2))  # agari_wait
    g2.dobon(B, 2.0)
    out.append(copy_of(g2))  # dobon_wait
    g3 = setup([["R+2", "R+2"], ["B+2"], ["G1", "G2"]], first="R3", first_player=A)
    g3.play(A, ["R+2"], 1.0)
    g3.dobon(B, 2.0)
    out.append(copy_of(g3))  # return_wait
    g3.decline(A, 3.0)
    out.append(copy_of(g3))  # finished
    return out


@pytest.mark.parametrize("index", range(5))
def test_review_api_phase_strings_and_turn_none_outside_turn(index: int) -> None:
    g = _phases()[index]
    expected = ["color", "agari_wait", "dobon_wait", "return_wait", "finished"][index]
    assert g.phase == expected
    assert g.turn is None
    assert (g.chooser is not None) == (expected == "color")


@pytest.mark.parametrize("index", range(5))
def test_review_api_refusals_in_every_phase_change_nothing(index: int) -> None:
    g = _phases()[index]
    for seat in range(g.players):
        legal = g.legal_actions(seat)
        for action in ({"type": "draw"}, {"type": "pass"}, {"type": "take"},
                       {"type": "color", "color": "G"}, {"type": "dobon"}, {"type": "return"},
                       {"type": "decline"}, {"type": "play", "cards": ["G6"]},
                       {"type": "play", "cards": ["W"]}, {"type": "nope"}):
            if any(a == action for a in legal):
                continue
            before = copy.deepcopy(g.to_dict())
            try:
                g.apply(seat, action, 5.0)
            except IllegalAction:
                assert g.to_dict() == before
            else:
                # Accepted without being listed: only the documented take alias may be.
                assert action["type"] == "take", (seat, action)
                return


@pytest.mark.parametrize("index", range(5))
def test_review_api_json_round_trip_in_every_phase_plays_on_identically(index: int) -> None:
    g = _phases()[index]
    h = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert h.to_dict() == g.to_dict()
    for seat in range(g.players):
        assert h.legal_actions(seat) == g.legal_actions(seat)
        assert h.view(seat) == g.view(seat)
    assert h.view(None) == g.view(None)
    e1, e2 = g.advance(1000.0), h.advance(1000.0)
    assert e1 == e2
    assert h.to_dict() == g.to_dict()


@pytest.mark.parametrize("seed", range(8))
def test_review_api_timeout_colour_after_json_round_trip_equals_original(seed: int) -> None:
    g = setup([["W", "G1"], ["B1", "B3"]], first="R3", first_player=A, seed=seed)
    g.play(A, ["W"], 1.0)
    h = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    g.advance(11.0)
    h.advance(11.0)
    assert g.color == h.color is not None


def test_review_api_new_game_is_a_full_deck_and_json_safe() -> None:
    for n in range(2, 9):
        g = Game.new(players=n, first_player=n - 1, seed=n, rate=4, timeout=5.0, now=3.0)
        d = g.to_dict()
        json.dumps(d)
        total = sum(len(g.hand(s)) for s in range(n)) + g.deck_count + len(d["discards"])
        assert total == 112
        assert g.deck_count == 112 - 7 * n - 1
        assert g.rate == 4
        assert g.next_deadline == pytest.approx(8.0)


@pytest.mark.parametrize("kwargs", [{"players": 1}, {"players": 9}, {"timeout": 4.9},
                                    {"timeout": 60.5}, {"first_player": 4}])
def test_review_api_new_refuses_bad_tables(kwargs: dict) -> None:
    args = {"players": 4, "first_player": 1, "seed": 0, "timeout": 10.0}
    args.update(kwargs)
    with pytest.raises(ValueError):
        Game.new(**args)


@pytest.mark.parametrize("bad", [{"first_card": "R10"}, {"deck": ["X1"]},
                                 {"hands": [["R1"], ["W4"]]}, {"hands": [["R1"]] * 9},
                                 {"timeout": 2.0}])
def test_review_api_from_setup_refuses_malformed_input(bad: dict) -> None:
    args = {"hands": [["R1"], ["R2"]], "first_card": "R3", "deck": [], "first_player": 0}
    args.update(bad)
    with pytest.raises(ValueError):
        Game.from_setup(**args)


def test_review_api_color_none_while_f_faces_first_card_wild_draw_four() -> None:
    g = setup([["G1", "G2"], ["W+4", "B3"], ["Y1", "Y3"]], first="W+4", first_player=B)
    assert g.color is None and g.phase == "turn" and g.turn == B and g.pending_draw == 4
    assert g.chooser is None
    assert_refused(g, lambda: g.choose_color(B, "R", 1.0))
