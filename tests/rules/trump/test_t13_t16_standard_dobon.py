"""§T13-§T16: standard dobon, simultaneous dobons, the return and the round's scores."""

from __future__ import annotations

import pytest

from game.rules.trump import Game, IllegalAction
from game.rules.trump.cards import parse_cards
from game.rules.trump.result import StandardEnd, settle_standard

from .helpers import of, std, types


def bonuses(g: Game) -> list[tuple[int, str, int]]:
    assert g.result is not None and g.result.bonuses is not None
    return sorted(g.result.bonuses)


# ---------------------------------------------------------------- §T13

def _t13_a() -> Game:
    """§T13.10 (A): three plays at t=0."""
    g = std([["D1", "H8", "C7"], ["H6"], ["D6", "S9"], ["D9", "H2", "C5"]], "D4", first=3)
    assert g.play(3, ["D9"], 0.0)[1:] == [{"type": "turn", "to": None, "seat": 0,
                                           "deadline": 10.0}]
    ev = g.play(0, ["D1"], 0.0)
    assert types(ev) == ["play", "skip", "turn"] and g.turn == 2
    ev = g.play(2, ["D6"], 0.0)
    assert {e["to"]: e["dobon_counts"] for e in of(ev, "chance")} == {1: [1], 3: [2]}
    return g


def test_t13_10_a_a_skipped_turn_inside_a_run() -> None:
    g = _t13_a()
    assert g.view(None)["records"] == [
        {"seat": 3, "play": "D9", "suit": None}, {"seat": 0, "play": "D1", "suit": None},
        {"seat": 1, "skipped": True}, {"seat": 2, "play": "D6", "suit": None}]
    assert g.dobon_counts(3) == [2] and g.dobon_counts(1) == [1] and g.dobon_counts(0) == []
    assert g.legal_actions(3)[-2:] == [{"type": "dobon", "count": 2}, {"type": "decline"}]
    with pytest.raises(IllegalAction) as err:
        g.dobon(3, 1.0, 1)
    assert err.value.code == "invalid_count"


def test_t13_10_b_a_draw_ends_every_run() -> None:
    g = std([["H3", "S9"], ["C10", "D12"], ["H5", "C2"], ["S4", "D4"]], "H7",
            deck=["C13", "S6"])
    g.play(0, ["H3"], 0.0)
    g.draw(1, 1.0)
    g.play(2, ["H5"], 2.0)
    assert g.chances(3) == [] and g.dobon_counts(3) == []


def test_t13_10_c_a_joker_in_the_run_and_a_mixed_hand() -> None:
    g = std([["JK", "C9"], ["S2", "H13"], ["JK", "C2", "D10"], ["H1", "D1"]], "S8")
    g.play(0, ["JK"], 0.0)
    assert g.pending_draw == 5 and g.chances(3) == []
    g.play(1, ["S2"], 1.0)
    assert g.pending_draw == 7
    assert g.dobon_counts(3) == [1, 2] and g.dobon_counts(2) == [] and g.dobon_counts(0) == []


# ---------------------------------------------------------------- §T14

def test_t14_9_a_a_and_t16_9_c_a_one_declarer_and_no_return() -> None:
    g = _t13_a()
    ev = g.dobon(3, 3.0, 2)
    assert ev[0] == {"type": "dobon", "to": None, "seat": 3, "hand": ["H2", "C5"], "count": 2,
                     "target": ["D1", "D6"]}
    assert [(e["to"], e["deadline"]) for e in of(ev, "chance")] == [(1, 13.0)]
    assert g.phase == "dobon_wait" and g.hand(3) == []
    g.advance(13.0)
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [3] and r.losers == [0, 2]
    assert r.target == ["D1", "D6"]
    assert r.scores == [12, 6, 12, -100] and bonuses(g) == [(3, "multi", -100)]  # §T16.9 (c)


def test_t14_9_a_b_and_t16_9_c_b_alignment_keeps_every_declarer_a_winner() -> None:
    g = _t13_a()
    g.dobon(3, 3.0, 2)
    ev = g.dobon(1, 5.0, 1)
    assert types(ev) == ["dobon", "finished"]
    r = g.result
    assert r is not None and r.winners == [1, 3] and r.losers == [2] and r.target == ["D6"]
    assert r.worst == 15 and r.scores == [15, 0, 60, 0] and bonuses(g) == []


def _t14_b() -> Game:
    g = std([["JK", "C2"], ["S2", "H2"], ["S13", "H9", "D6"], ["H1", "D1"]], "S8")
    g.play(0, ["JK"], 0.0)
    ev = g.play(1, ["S2"], 1.0)
    assert {e["to"]: (e["dobon_counts"], e["deadline"]) for e in of(ev, "chance")} == {
        0: ([1], 11.0), 3: ([1, 2], 11.0)}
    assert g.next_deadline == 11.0
    return g


def _t14_b_a_until_the_return_wait() -> Game:
    g = _t14_b()
    ev = g.dobon(3, 4.0, 2)
    assert [(e["to"], e["deadline"]) for e in of(ev, "chance")] == [(0, 14.0)]
    ev = g.decline(0, 6.0)
    assert types(ev) == ["decline", "chance"]
    assert ev[1] == {"type": "chance", "to": 1, "seat": 1, "kinds": ["return"],
                     "dobon_counts": [], "deadline": 16.0}
    assert g.phase == "return_wait" and g.chances(0) == []
    v = g.view(None)["dobon"]
    assert v == {"declarers": [{"seat": 3, "count": 2}], "target": ["JK", "S2"],
                 "losers": [0, 1], "returners": []}
    return g


def test_t14_9_b_a_and_t16_9_d_a_return_voids_the_dobon() -> None:
    g = _t14_b_a_until_the_return_wait()
    ev = g.dobon_return(1, 9.0)
    assert ev[0] == {"type": "return", "to": None, "seat": 1, "hand": ["H2"]}
    r = g.result
    assert r is not None and r.kind == "return" and r.winners == [1] and r.losers == [3]
    assert r.worst == 25 and r.scores == [2, 0, 25, 150] and bonuses(g) == []  # §T16.9 (d)


def test_t14_9_b_b_and_t16_9_e_the_dobon_stands_when_the_return_lapses() -> None:
    g = _t14_b_a_until_the_return_wait()
    g.advance(15.9)
    assert g.result is None
    g.advance(16.0)
    r = g.result
    assert r is not None and r.kind == "dobon" and r.winners == [3] and r.losers == [0, 1]
    assert r.scores == [100, 100, 25, -200]  # §T16.9 (e)
    assert bonuses(g) == [(0, "quick", 50), (1, "quick", 50), (3, "multi", -100),
                          (3, "quick", -100)]


def test_t14_9_b_c_and_t16_9_f_two_declarers_and_a_return() -> None:
    g = _t14_b()
    g.dobon(3, 4.0, 2)
    ev = g.dobon(0, 5.0, 1)
    assert of(ev, "chance")[0]["to"] == 1 and g.phase == "return_wait"
    g.dobon_return(1, 6.0)
    r = g.result
    assert r is not None and r.winners == [1] and r.losers == [0, 3]
    assert r.scores == [150, 0, 25, 150]  # §T16.9 (f)


def test_t14_9_b_c_and_t16_9_f_two_declarers_without_return() -> None:
    g = _t14_b()
    g.dobon(3, 4.0, 2)
    g.dobon(0, 5.0, 1)
    g.decline(1, 6.0)
    r = g.result
    assert r is not None and r.winners == [0, 3] and r.losers == [1]
    assert r.scores == [0, 150, 25, -100]  # §T16.9 (f)


def _t14_c() -> Game:
    g = std([["D9", "C13"], ["S3", "H2", "C5"], ["S4"], ["H1", "D6"]], "S10", first=1,
            last_one=[2])
    g.play(1, ["S3"], 0.0)
    assert g.chances(3) == []
    ev = g.play(2, ["S4"], 1.0)
    assert types(ev) == ["play", "agari", "chance"] and g.dobon_counts(3) == [2]
    ev = g.dobon(3, 2.0, 2)
    assert of(ev, "chance")[0]["to"] == 1 and g.phase == "return_wait"
    assert g.chances(2) == []
    return g


def test_t14_9_c_and_t16_9_g_a_return_makes_the_going_out_seat_a_winner() -> None:
    g = _t14_c()
    g.dobon_return(1, 3.0)
    r = g.result
    assert r is not None and r.kind == "return" and r.winners == [1, 2] and r.losers == [3]
    assert r.scores == [19, 0, 0, 114]  # §T16.9 (g)


def test_t16_9_g_without_the_return_disrupt_quick_and_multi() -> None:
    g = _t14_c()
    g.decline(1, 3.0)
    r = g.result
    assert r is not None and r.winners == [3] and r.losers == [1, 2]
    assert r.scores == [19, 76, 76, -250]
    assert {name for _, name, _ in bonuses(g)} == {"multi", "quick", "disrupt"}


def test_t14_6_no_dobon_on_a_return_and_no_second_return() -> None:
    g = _t14_b_a_until_the_return_wait()
    with pytest.raises(IllegalAction) as err:
        g.dobon(2, 7.0, 1)
    assert err.value.code == "cannot_dobon"
    with pytest.raises(IllegalAction) as err:
        g.dobon_return(0, 7.0)
    assert err.value.code == "not_eligible_to_return"


# ---------------------------------------------------------------- §T16

def test_t16_9_a_going_out_and_auction_points() -> None:
    g = std([["S13", "H9", "D2"], ["C1", "C11"], ["S9", "JK", "H10", "D7"], ["S4"]], "S6",
            first=2, bids=[4, 1, 9, 2], last_one=[3])
    g.play(2, ["S9"], 0.0)
    ev = g.play(3, ["S4"], 1.0)
    assert types(ev) == ["play", "agari", "finished"]
    r = g.result
    assert r is not None and r.kind == "agari" and r.winners == [3] and r.losers == []
    assert r.hand_points == [21, 11, 17, 0] and r.scores == [21, 11, 26, 0]
    assert bonuses(g) == [(2, "auction", 9)] and r.score_order == "low"
    assert r.next_first_player is None and r.worst is None


def test_t16_9_b_one_dobon() -> None:
    g = std([["C6", "S13", "D12", "H2"], ["C7", "C9", "D5"], ["C10", "H1", "S6"],
             ["C8", "S3", "C4"]], "C12", first=3, bids=[1, 2, 1, 5])
    g.play(3, ["C8"], 0.0, suit="C")
    g.play(0, ["C6"], 1.0)
    g.play(1, ["C7"], 2.0)
    assert g.dobon_counts(3) == [1] and g.dobon_counts(2) == [] and g.dobon_counts(0) == []
    g.dobon(3, 3.0, 1)
    r = g.result
    assert r is not None and r.winners == [3] and r.losers == [1] and r.worst == 22
    assert r.scores == [22, 44, 17, -50] and bonuses(g) == [(3, "auction", -50)]


def test_t16_9_h_joker_dobon() -> None:
    g = std([["D6", "H8", "S12"], ["JK", "D3", "C9"], ["S2", "H11", "D13"], ["D4", "JK"]],
            "D10", first=3)
    g.play(3, ["D4"], 0.0)
    g.play(0, ["D6"], 1.0)
    g.play(1, ["JK"], 2.0)
    assert g.shibari and g.dobon_counts(3) == [1] and g.chances(2) == []
    g.dobon(3, 3.0, 1)
    r = g.result
    assert r is not None and r.losers == [1] and r.worst == 22
    assert r.scores == [18, 88, 22, -100]
    assert bonuses(g) == [(1, "joker", 44), (3, "joker", -100)]


def test_t16_9_i_exhaustion_scores_base_points_and_auction() -> None:
    g = std([["JK", "H9"], ["S5", "D3"], ["C3", "H7"]], "C9", deck=["C4", "D6"],
            bids=[2, 1, 1])
    g.play(0, ["JK"], 0.0)
    g.draw(1, 1.0)
    r = g.result
    assert r is not None and r.kind == "deck_out" and r.scores == [11, 27, 10]


def test_t16_9_j_quick_and_storm() -> None:
    g = std([["H13", "S9", "D8", "C12", "H6"], ["S13", "D4", "C7", "H9", "D10"],
             ["C3", "D3", "H3", "S2", "H2"], ["C11", "S5", "D6", "H1", "C4"]], "H4",
            bids=[2, 1, 1, 1])
    g.play(0, ["H13"], 0.0)
    assert g.dobon_counts(2) == [1] and g.chances(1) == [] and g.chances(3) == []
    g.dobon(2, 1.0, 1)
    r = g.result
    assert r is not None and r.losers == [0] and r.worst == 40
    assert r.scores == [162, 40, -200, 26]


def test_t16_9_k_flush_disrupt_and_multi() -> None:
    g = std([["S3", "H2", "D11"], ["S6"], ["C13", "C4"], ["S9", "S4", "S5"]], "S12",
            first=3, last_one=[1])
    g.play(3, ["S9"], 0.0)
    g.play(0, ["S3"], 1.0)
    g.play(1, ["S6"], 2.0)
    assert g.phase == "agari_wait" and g.dobon_counts(3) == [2]
    g.dobon(3, 3.0, 2)
    r = g.result
    assert r is not None and r.losers == [0, 1] and r.scores == [28, 28, 14, -200]
    assert bonuses(g) == [(3, "disrupt", -50), (3, "flush", -50), (3, "multi", -100)]


def test_t16_9_l_slam_and_yaku() -> None:
    hands = [parse_cards(["C5", "D9"]), parse_cards(["S13"]), [], parse_cards(["D2", "C8", "S1"])]
    end = StandardEnd(kind="agari", winners=[2], losers=[], target=[], dobons=[], returns=[],
                      answered=[], went_out=-1, auction=(0, 3), yaku=[2],
                      streaks=[0, 0, 2, 0])
    r = settle_standard(end, hands)
    assert r.scores == [17, 10, -150, 11]
    end4 = StandardEnd(kind="agari", winners=[2], losers=[], target=[], dobons=[], returns=[],
                       answered=[], went_out=-1, auction=None, yaku=[], streaks=[0, 0, 3, 0])
    assert settle_standard(end4, hands).scores[2] == -50


def test_t16_6_slam_in_a_played_round() -> None:
    h = std([["S3"], ["C4", "D5"], ["H6", "C6"]], "S7", match={"streaks": [2, 0, 0]},
            last_one=[0])
    h.play(0, ["S3"], 0.0)
    h.advance(10.0)
    assert h.result is not None and h.result.scores[0] == -50
    assert h.result.bonuses == [(0, "slam", -50)]


def test_t16_4_yaku_bonus_needs_a_winner() -> None:
    g = std([["S3", "H3", "D3", "C9", "S9"], ["C4", "D5"], ["H6", "C6"]], "S7",
            deck=["C1"])
    g.declare_yaku(0, 0.0)
    g.draw(0, 1.0)  # exhaustion: nobody wins, no 役 points
    r = g.result
    assert r is not None and r.kind == "deck_out" and r.bonuses == []
