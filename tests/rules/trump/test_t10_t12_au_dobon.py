"""§T10-§T12 (and §T15's worked examples): going out, au dobon, the chain and the return."""

from __future__ import annotations

import pytest

from game.rules.trump import Game, IllegalAction, au_points
from game.rules.trump.cards import parse_cards

from .helpers import au, of, std, types


def payments(g: Game) -> list[tuple[int, int, int]]:
    assert g.result is not None
    return [tuple(p) for p in g.result.payments]  # type: ignore[misc]


# ---------------------------------------------------------------- §T10

def _stop_round() -> Game:
    return au([["H7"], ["C3", "D4"], ["S10", "H13"]], "H9")


def test_t10_6_stop_waits_for_the_dobon_and_is_dobond() -> None:
    g = _stop_round()
    ev = g.play(0, ["H7"], 0.0)
    assert types(ev) == ["play", "agari", "chance"]
    assert ev[2] == {"type": "chance", "to": 1, "seat": 1, "kinds": ["dobon"], "deadline": 10.0}
    assert g.phase == "agari_wait" and g.turn is None
    assert g.view(2)["wait_deadline"] == 10.0 and g.chances(2) == []
    ev = g.dobon(1, 2.0)
    assert types(ev) == ["dobon", "finished"]
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [1] and r.losers == [0]
    assert payments(g) == [(0, 1, 28)]  # §T15.7 (f)


@pytest.mark.parametrize("how", ["decline", "timeout"])
def test_t10_6_stop_stands_when_nobody_dobons(how: str) -> None:
    g = _stop_round()
    g.play(0, ["H7"], 0.0)
    ev = g.decline(1, 2.0) if how == "decline" else g.advance(10.0)
    assert types(ev) == ["decline", "finished"]
    assert ev[0]["to"] == 1 and ev[0]["timeout"] is (how == "timeout")
    r = g.result
    assert r is not None and r.kind == "agari" and r.winners == [0] and r.losers == [1, 2]
    assert payments(g) == [(1, 0, 7), (2, 0, 20)]


def test_t10_2_au_a_stop_may_be_a_two_or_an_eight_without_effect() -> None:
    g = au([["S8"], ["C9", "D4"], ["S10", "H13"]], "S5")
    g.play(0, ["S8"], 0.0, suit="H")
    assert g.result is not None and g.result.kind == "agari" and g.suit == "S"
    h = au([["S2"], ["C9", "D4"], ["S10", "H13"]], "S5")
    h.play(0, ["S2"], 0.0)
    assert h.result is not None and h.pending_draw == 0


# ---------------------------------------------------------------- §T11

def _t11_round() -> Game:
    return au([["D10", "S9"], ["H1", "C2", "S3", "D4"], ["S4", "H6"], ["C10", "H13"]], "D5")


def test_t11_7_a_chances_are_private_and_the_seat_on_turn_may_decline() -> None:
    g = _t11_round()
    ev = g.play(0, ["D10"], 0.0)
    assert types(ev) == ["play", "turn", "chance", "chance"]
    assert [(e["to"], e["kinds"]) for e in of(ev, "chance")] == [(1, ["dobon"]), (2, ["dobon"])]
    assert g.chances(3) == [] and g.view(3)["chances"] == []
    assert {"type": "dobon"} in g.legal_actions(1)
    ev = g.decline(1, 1.0)
    assert ev == [{"type": "decline", "to": 1, "seat": 1, "timeout": False}]
    assert g.turn == 1 and g.chances(2) == ["dobon"]
    with pytest.raises(IllegalAction) as err:
        g.dobon(1, 1.5)
    assert err.value.code == "window_closed"
    g.draw(1, 2.0)
    with pytest.raises(IllegalAction) as err:
        g.dobon(2, 2.5)
    assert err.value.code == "window_closed"


def test_t11_7_a_the_seat_on_turn_may_dobon() -> None:
    g = _t11_round()
    g.play(0, ["D10"], 0.0)
    ev = g.dobon(1, 1.0)
    assert ev[0]["hand"] == ["H1", "C2", "S3", "D4"] and ev[0]["beats"] == 0
    assert g.phase == "dobon_wait"
    assert g.view(3)["revealed"][1] == ["H1", "C2", "S3", "D4"]


def test_t11_7_b_one_card_has_no_chance() -> None:
    g = au([["D10", "S9"], ["C10"]], "D5")
    g.play(0, ["D10"], 0.0)
    assert g.chances(1) == []
    with pytest.raises(IllegalAction) as err:
        g.dobon(1, 1.0)
    assert err.value.code == "cannot_dobon"


@pytest.mark.parametrize(("card", "hand", "chance"),
                         [("S13", ["S6", "H7"], True), ("S12", ["H10", "C2"], True),
                          ("S1", ["H1", "C1"], False)])
def test_t11_7_c_face_cards_count_their_numbers(card: str, hand: list[str],
                                                 chance: bool) -> None:
    g = au([[card, "D9"], hand], "S5")
    g.play(0, [card], 0.0)
    assert (g.chances(1) == ["dobon"]) is chance


def test_t11_2_no_dobon_on_the_first_card_or_after_a_draw() -> None:
    g = au([["D9", "S9"], ["S4", "H6"]], "D10")
    assert g.chances(1) == []
    g.draw(0, 0.0)
    assert g.chances(1) == []


# ---------------------------------------------------------------- §T12

def _chain() -> Game:
    g = au([["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], "D6", deck=["H9", "C8", "S1"])
    ev = g.play(0, ["D10"], 0.0)
    assert [(e["to"], e["deadline"]) for e in of(ev, "chance")] == [(1, 10.0), (2, 10.0)]
    assert g.turn == 1 and g.next_deadline == 10
    return g


def _first_dobon(g: Game) -> None:
    ev = g.dobon(1, 2.0)
    assert ev[0]["hand"] == ["C4", "H6"] and ev[0]["position"] == 1
    chances = {e["to"]: (e["kinds"], e["deadline"]) for e in of(ev, "chance")}
    assert chances == {0: (["return"], 12.0), 2: (["dobon"], 12.0)}
    assert g.phase == "dobon_wait" and g.turn is None


def test_t12_6_i_return_then_the_clock_runs_out() -> None:
    g = _chain()
    _first_dobon(g)
    ev = g.dobon_return(0, 5.0)
    assert ev[0] == {"type": "return", "to": None, "seat": 0, "hand": ["S3", "H7"]}
    assert of(ev, "chance")[0]["deadline"] == 15.0
    assert g.view(None)["chain"] == [{"seat": 1, "kind": "dobon"}, {"seat": 0, "kind": "return"}]
    g.advance(14.9)
    assert g.result is None
    g.advance(15.0)
    r = g.result
    assert r is not None and r.kind == "return" and r.winners == [0] and r.losers == [1]
    assert payments(g) == [(1, 0, 120)] and r.multiplier == 4
    assert r.next_first_player == 0


def test_t12_6_ii_dobon_on_top_of_a_return_closes_at_once() -> None:
    g = _chain()
    _first_dobon(g)
    g.dobon_return(0, 5.0)
    ev = g.dobon(2, 8.0)
    assert ev[0]["beats"] == 0 and types(ev)[-1] == "finished"
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [2] and r.losers == [0]
    assert payments(g) == [(0, 2, 240)]
    assert r.chain == [(1, "dobon"), (0, "return"), (2, "dobon")]


def test_t12_6_iii_dobon_on_top_then_the_return_lapses() -> None:
    g = _chain()
    _first_dobon(g)
    ev = g.dobon(2, 3.0)
    assert [(e["to"], e["deadline"]) for e in of(ev, "chance")] == [(0, 13.0)]
    g.advance(13.0)
    r = g.result
    assert r is not None and r.winners == [2] and r.losers == [1]
    assert payments(g) == [(1, 2, 120)]


def test_t12_6_iv_return_on_top_of_two_dobons() -> None:
    g = _chain()
    _first_dobon(g)
    g.dobon(2, 3.0)
    g.dobon_return(0, 6.0)
    r = g.result
    assert r is not None and r.kind == "return" and r.winners == [0] and r.losers == [2]
    assert payments(g) == [(2, 0, 240)]


def test_t12_6_v_decline_then_the_return_lapses() -> None:
    g = _chain()
    _first_dobon(g)
    g.decline(2, 3.0)
    assert g.result is None
    g.advance(12.0)
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [1] and r.losers == [0]
    assert payments(g) == [(0, 1, 60)]


def test_t12_6_vi_a_seat_that_declined_before_cannot_dobon_on_top() -> None:
    g = _chain()
    g.decline(2, 1.0)
    g.dobon(1, 2.0)
    assert g.chances(2) == []
    with pytest.raises(IllegalAction) as err:
        g.dobon(2, 3.0)
    assert err.value.code == "window_closed"


def test_t12_1_each_seat_declares_once() -> None:
    g = _chain()
    _first_dobon(g)
    with pytest.raises(IllegalAction) as err:
        g.dobon(1, 3.0)
    assert err.value.code == "already_declared"
    g.dobon_return(0, 4.0)
    with pytest.raises(IllegalAction) as err:
        g.dobon_return(0, 5.0)
    assert err.value.code == "already_declared"


def test_t12_1_a_return_needs_two_cards() -> None:
    g = au([["D10", "S10"], ["C4", "H6"], ["S9", "C9"]], "D6")
    g.play(0, ["D10"], 0.0)
    g.dobon(1, 1.0)
    assert g.result is not None  # 0 holds one card: no return, nobody else: closes at once


# ---------------------------------------------------------------- §T15 worked examples

def test_t15_7_a_b_c_points_of_a_set() -> None:
    assert au_points(parse_cards(["H1", "C2", "D2", "S5", "H11"])) == 116
    assert au_points(parse_cards(["S13", "D3"])) == 13
    assert au_points(parse_cards(["C2", "H8", "D12"])) == 40
    assert au_points(parse_cards(["S2", "H2", "D2", "C2", "S9"])) == 272


def test_t15_7_b_stop_with_two_losers() -> None:
    g = au([["S7"], ["S13", "D3"], ["C2", "H8", "D12"]], "S9")
    g.play(0, ["S7"], 0.0)
    r = g.result
    assert r is not None and r.deltas == [53, -13, -40] and r.scores == r.deltas
    assert r.to_dict()["score_order"] == "high" and r.hand_points == [0, 13, 20]


@pytest.mark.parametrize(("hands", "field", "card", "paid"), [
    ([["D10", "S3", "H9"], ["C4", "H6"]], "D6", "D10", 64),           # (d)
    ([["C4", "S13", "H2", "D5"], ["S2", "D2"]], "C9", "C4", 400),      # (e)
    ([["C13", "D1", "H11"], ["S6", "H7"]], "C5", "C13", 86),          # (g)
])
def test_t15_7_d_e_g_dobon_payments(hands: list[list[str]], field: str, card: str,
                                    paid: int) -> None:
    g = au(hands, field)
    g.play(0, [card], 0.0)
    g.dobon(1, 1.0)
    r = g.result
    assert r is not None and payments(g) == [(0, 1, paid)] and r.deltas == [-paid, paid]


def test_t15_7_h_chain_one_two_zero() -> None:
    g = _chain()
    _first_dobon(g)
    g.dobon(2, 3.0)
    g.dobon_return(0, 4.0)
    assert payments(g) == [(2, 0, 240)]


def test_t15_4_no_zero_payment_is_listed() -> None:
    g = std([["S7"], ["C3", "D4"], ["S10", "H13"]], "S9", last_one=[0])
    g.play(0, ["S7"], 0.0)
    g.advance(10.0)
    assert g.result is not None and g.result.payments == []
