"""§T20.3-§T20.4: every refusal code, the order in which codes are chosen, and that a refused
action leaves the round unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from game.rules.trump import Game, IllegalAction

from .helpers import au, std


def refused(g: Game, call: Callable[[], Any], code: str) -> None:
    before = g.to_dict()
    with pytest.raises(IllegalAction) as err:
        call()
    assert err.value.code == code, err.value
    assert g.to_dict() == before


def _au() -> Game:
    return au([["S3", "H7", "D9", "S8", "S2"], ["C5", "C6"], ["D1", "D4"]], "S5")


def _std() -> Game:
    return std([["S3", "H7", "D9", "S8", "S11"], ["C5", "C6"], ["D1", "D4"]], "S5")


def test_t20_4_shape_codes() -> None:
    g = _au()
    refused(g, lambda: g.apply(0, "draw", 0.0), "malformed_action")  # type: ignore[arg-type]
    refused(g, lambda: g.apply(0, {"type": "fly"}, 0.0), "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": "S3"}, 0.0), "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["S3", "H7"]}, 0.0),
            "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["S3"], "suit": 1}, 0.0),
            "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["S3"], "last_one": 1}, 0.0),
            "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["S3"]}, "soon"),  # type: ignore[arg-type]
            "malformed_action")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["Z9"]}, 0.0), "unknown_card")
    # au has no JK (§T2): a card of no preset's deck is a shape error, before the seat
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["JK"]}, 0.0), "unknown_card")
    refused(g, lambda: g.apply(7, {"type": "play", "cards": ["JK"]}, 0.0), "unknown_card")
    refused(g, lambda: g.play(0, ["JK"], 0.0), "unknown_card")
    refused(g, lambda: g.apply(0, {"type": "play", "cards": ["S8"], "suit": "X"}, 0.0),
            "invalid_suit")
    refused(g, lambda: g.apply(0, {"type": "pass"}, 0.0), "not_in_this_game")
    refused(g, lambda: g.apply(0, {"type": "color", "color": "R"}, 0.0), "not_in_this_game")
    refused(g, lambda: g.pass_turn(0, 0.0), "not_in_this_game")
    refused(g, lambda: g.choose_color(0, "R", 0.0), "not_in_this_game")
    s = _std()
    refused(s, lambda: s.apply(0, {"type": "dobon", "count": True}, 0.0), "malformed_action")
    # standard has jokers: one that seat 0 does not hold is not_in_hand (§T20.4 (4))
    refused(s, lambda: s.apply(0, {"type": "play", "cards": ["JK"]}, 0.0), "not_in_hand")
    refused(s, lambda: s.apply(0, {"type": "bid", "amount": "7"}, 0.0), "malformed_action")


def test_t20_4_seat_and_finished() -> None:
    g = _au()
    refused(g, lambda: g.draw(3, 0.0), "invalid_seat")
    refused(g, lambda: g.draw(-1, 0.0), "invalid_seat")
    refused(g, lambda: g.view(5), "invalid_seat")
    h = au([["S3"], ["C5", "C6"]], "S5")
    h.play(0, ["S3"], 0.0)
    assert h.phase == "finished"
    refused(h, lambda: h.draw(1, 1.0), "game_finished")
    refused(h, lambda: h.dobon(1, 1.0), "game_finished")
    refused(h, lambda: h.play(9, ["C5"], 1.0), "invalid_seat")


def test_t20_4_phase_codes() -> None:
    a = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=None)
    refused(a, lambda: a.play(0, ["S3"], 0.0), "auction_running")
    refused(a, lambda: a.draw(0, 0.0), "auction_running")
    refused(a, lambda: a.dobon(0, 0.0, 1), "auction_running")
    g = au([["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], "D6")
    refused(g, lambda: g.draw(1, 0.0), "not_your_turn")
    refused(g, lambda: g.play(1, ["C4"], 0.0), "not_your_turn")
    g.play(0, ["D10"], 0.0)
    g.dobon(1, 1.0)
    refused(g, lambda: g.draw(1, 2.0), "game_stopped_by_dobon")
    refused(g, lambda: g.play(2, ["S5"], 2.0), "game_stopped_by_dobon")
    stop = au([["H7"], ["C3", "D4"], ["S10", "H13"]], "H9")
    stop.play(0, ["H7"], 0.0)
    refused(stop, lambda: stop.draw(1, 1.0), "not_your_turn")


def test_t20_4_not_in_hand_before_the_rule() -> None:
    g = _au()
    refused(g, lambda: g.play(0, ["C12"], 0.0), "not_in_hand")
    refused(g, lambda: g.play(1, ["C12"], 0.0), "not_your_turn")


def test_t20_4_play_rule_codes() -> None:
    g = _au()
    refused(g, lambda: g.play(0, ["D9"], 0.0), "does_not_match")
    refused(g, lambda: g.play(0, ["S8"], 0.0), "suit_required")
    refused(g, lambda: g.play(0, ["S3"], 0.0, suit="H"), "invalid_suit")
    refused(g, lambda: g.play(0, ["S3"], 0.0, last_one=True), "cannot_declare_last_one")
    g.play(0, ["S2"], 0.0)
    refused(g, lambda: g.play(1, ["C5"], 1.0), "must_play_two_or_draw")
    s = _std()
    refused(s, lambda: s.play(0, ["S11"], 0.0), "suit_required")
    refused(s, lambda: s.play(0, ["S11"], 0.0, suit="H"), "invalid_suit")
    refused(s, lambda: s.play(0, ["S3"], 0.0, last_one=True), "cannot_declare_last_one")
    sh = std([["JK", "S3"], ["C5", "C6"], ["D1", "D4"]], "S5")
    sh.play(0, ["JK"], 0.0)
    refused(sh, lambda: sh.play(1, ["C6"], 1.0), "must_answer_shibari")
    lone = std([["S3"], ["C5", "C6"], ["D1", "D4"]], "S5")
    refused(lone, lambda: lone.play(0, ["S3"], 0.0), "going_out_forbidden")


def test_t20_4_dobon_codes() -> None:
    g = au([["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], "D6", deck=["H9"])
    refused(g, lambda: g.dobon(1, 0.0), "cannot_dobon")  # no play yet
    g.play(0, ["D10"], 0.0)
    refused(g, lambda: g.dobon(0, 0.0), "cannot_dobon")  # one's own play
    refused(g, lambda: g.dobon(1, 0.0, 1), "invalid_count")  # au names no count
    g.decline(2, 0.5)
    refused(g, lambda: g.dobon(2, 1.0), "window_closed")
    g.dobon(1, 1.0)
    refused(g, lambda: g.dobon(1, 2.0), "already_declared")
    refused(g, lambda: g.dobon_return(2, 2.0), "not_eligible_to_return")
    refused(g, lambda: g.decline(2, 2.0), "nothing_to_decline")
    g.dobon_return(0, 2.0)
    assert g.phase == "finished"
    s = std([["JK", "C9"], ["S2", "H13"], ["JK", "C2", "D10"], ["H1", "D1"]], "S8")
    s.play(0, ["JK"], 0.0)
    s.play(1, ["S2"], 1.0)
    refused(s, lambda: s.dobon(3, 2.0), "invalid_count")
    refused(s, lambda: s.dobon(3, 2.0, 3), "invalid_count")
    refused(s, lambda: s.dobon(3, 2.0, 0), "invalid_count")
    refused(s, lambda: s.dobon(2, 2.0, 1), "cannot_dobon")
    s.draw(2, 3.0)
    refused(s, lambda: s.dobon(3, 4.0, 1), "window_closed")


def test_t20_4_bid_last_one_and_yaku_codes() -> None:
    a = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=None)
    refused(a, lambda: a.bid(0, 0, 0.0), "invalid_bid")
    refused(a, lambda: a.bid(0, 1000, 0.0), "invalid_bid")
    a.bid(0, 5, 0.0)
    refused(a, lambda: a.bid(0, 6, 0.0), "not_bidding")
    refused(a, lambda: a.declare_last_one(0, 0.0), "cannot_declare_last_one")
    refused(a, lambda: a.declare_yaku(0, 0.0), "no_yaku")
    g = _au()
    refused(g, lambda: g.bid(0, 5, 0.0), "not_bidding")
    refused(g, lambda: g.declare_last_one(0, 0.0), "cannot_declare_last_one")
    refused(g, lambda: g.declare_yaku(0, 0.0), "no_yaku")
    s = _std()
    refused(s, lambda: s.declare_yaku(0, 0.0), "no_yaku")  # no pattern
    y = std([["S3", "H3", "D3", "C9", "S9"], ["C4", "D5"], ["H6", "C6"]], "S7")
    refused(y, lambda: y.declare_yaku(1, 0.0), "no_yaku")  # not its turn
    y.declare_yaku(0, 0.0)
    refused(y, lambda: y.declare_yaku(0, 0.0), "no_yaku")  # once per round


def test_t20_3_listed_actions_are_accepted_as_plain_dicts() -> None:
    for g in (_au(), _std()):
        for action in g.legal_actions(0):
            twin = Game.from_dict(g.to_dict())
            plain = {k: (list(v) if isinstance(v, list) else v) for k, v in action.items()}
            assert twin.apply(0, plain, 0.0) == Game.from_dict(g.to_dict()).apply(0, action, 0.0)


def test_t20_3_unused_keys_are_ignored() -> None:
    g = _au()
    g.apply(0, {"type": "draw", "cards": ["S3"], "extra": 1}, 0.0)
    assert g.turn == 1


def test_t20_4_a_listed_action_from_an_invalid_seat_is_refused() -> None:
    g = _au()
    for seat in (-1, 3, True):
        refused(g, lambda seat=seat: g.apply(seat, {"type": "draw"}, 0.0), "invalid_seat")
        draw = g.legal_actions(0)[-1]
        refused(g, lambda seat=seat, draw=draw: g.apply(seat, draw, 0.0), "invalid_seat")
    g.draw(0, 0.0)
    refused(g, lambda: g.apply(-1, {"type": "draw"}, 0.0), "invalid_seat")


# ---------------------------------------------------------------- cases decided here
# (docs/trump-engine.md, "Cases the rule book left open")

def test_decided_a_play_that_does_not_match_is_refused_for_that_before_its_suit() -> None:
    g = au([["C8", "S3"], ["C5", "C6"]], "H5")
    refused(g, lambda: g.play(0, ["C8"], 0.0), "does_not_match")
    s = std([["JK", "C8", "S3"], ["C5", "C6"], ["D1", "D4"]], "S5")
    s.play(0, ["JK"], 0.0)
    refused(s, lambda: s.play(1, ["C6"], 1.0, suit="H"), "must_answer_shibari")


def test_decided_no_late_last_one_during_a_wait() -> None:
    g = std([["S4", "S9"], ["C3", "D1"], ["H3", "C1"]], "S7")
    g.play(0, ["S4"], 0.0)  # leaves one card without last one; 1 and 2 may dobon (4)
    assert {"type": "last_one"} in g.legal_actions(0)
    g.dobon(1, 1.0, 1)
    assert g.phase == "dobon_wait"
    refused(g, lambda: g.declare_last_one(0, 1.5), "cannot_declare_last_one")


def test_decided_a_standard_declarer_may_not_return() -> None:
    g = std([["JK", "C2"], ["S2", "H2"], ["S13", "H9", "D6"], ["H1", "D1"]], "S8")
    g.play(0, ["JK"], 0.0)
    g.play(1, ["S2"], 1.0)
    g.dobon(3, 4.0, 2)
    g.decline(0, 6.0)
    assert g.phase == "return_wait"
    refused(g, lambda: g.dobon_return(3, 7.0), "not_eligible_to_return")


def test_decided_an_au_draw_that_finds_nothing_counts_zero() -> None:
    g = au([["S9", "D3"], ["C5", "H13"]], "H4", deck=[])
    ev = g.draw(0, 0.0)
    assert ev[0] == {"type": "draw", "to": None, "seat": 0, "count": 0}
    assert [e["type"] for e in ev] == ["draw", "finished"]
    assert g.result is not None and g.result.kind == "deck_out"
