"""§T17 the match record, §T18 timeouts, §T19 information (views)."""

from __future__ import annotations

import json

import pytest

from game.rules.trump import Game, match_new, match_update, standing

from .helpers import au, of, std, types

# ---------------------------------------------------------------- §T17


def test_t17_6_a_au_the_match_ends_below_zero() -> None:
    g = au([["S7"], ["S13", "D3"], ["H1", "C2", "D2", "S5", "H11"]], "S9")
    g.play(0, ["S7"], 0.0)
    assert g.result is not None and g.result.deltas == [129, -13, -116]
    m = match_new("au", 3, owner=2)
    m["totals"] = [1500, 1440, 60]
    after = match_update(m, g.result)
    assert after["totals"] == [1629, 1427, -56] and after["over"] is True
    assert after["standing"] == [[0, 1], [1, 2], [2, 3]]
    assert after["round"] == m["round"] and m["totals"] == [1500, 1440, 60]
    m["totals"] = [1500, 1440, 116]
    assert match_update(m, g.result)["over"] is False  # a total of exactly 0 goes on


def test_t17_6_b_standard_champion_by_rounds_won_then_shared() -> None:
    m = match_new("standard", 4)
    assert m["settings"] == {"rounds": 20} and m["first_player"] is None
    m.update(totals=[312, 290, 290, 355], wins=[6, 4, 7, 3])
    assert standing(m) == [[2, 1], [1, 2], [0, 3], [3, 4]]
    m.update(wins=[6, 5, 5, 3])
    assert standing(m) == [[1, 1], [2, 1], [0, 3], [3, 4]]


def test_t17_3_standard_match_is_the_configured_number_of_rounds() -> None:
    m = match_new("standard", 3, settings={"rounds": 2})
    r = {"winners": [1], "deltas": [5, -50, 7], "next_first_player": None}
    m = match_update(m, r)
    assert (m["round"], m["over"], m["streaks"], m["wins"]) == (2, False, [0, 1, 0], [0, 1, 0])
    m = match_update(m, {"winners": [], "deltas": [1, 2, 3], "next_first_player": None})
    assert m["over"] is True and m["round"] == 2 and m["totals"] == [6, -48, 10]
    assert m["streaks"] == [0, 0, 0]
    with pytest.raises(ValueError):
        match_update(m, r)


def test_t17_5_settings_ranges() -> None:
    assert match_new("au", 2, {"start": 100})["totals"] == [100, 100]
    for bad in ({"start": 99}, {"start": 100_001}):
        with pytest.raises(ValueError):
            match_new("au", 2, bad)
    for bad in ({"rounds": 0}, {"rounds": 1001}):
        with pytest.raises(ValueError):
            match_new("standard", 3, bad)


def test_t16_6_streaks_feed_the_next_round() -> None:
    m = match_new("standard", 3)
    for _ in range(2):
        m = match_update(m, {"winners": [0], "deltas": [0, 0, 0], "next_first_player": None})
    g = Game.new(players=3, preset="standard", seed=1, match={"streaks": m["streaks"]})
    assert g.to_dict()["streaks"] == [2, 0, 0]


# ---------------------------------------------------------------- §T18

def test_t18_5_a_turn_timeout_draws_one() -> None:
    g = au([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=1)
    ev = g.advance(10.0)
    assert types(ev) == ["timeout", "draw", "drawn", "turn"]
    assert ev[0] == {"type": "timeout", "to": None, "seat": 1, "action": "draw"}
    assert g.turn == 2 and g.next_deadline == 20.0


def test_t18_5_b_auction_timeout_bids_one() -> None:
    g = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"], ["H9", "S10"]], "C1", first=None)
    g.bid(0, 2, 2.0)
    g.bid(1, 3, 3.0)
    g.bid(3, 4, 9.0)
    ev = g.advance(10.0)
    assert ev[0] == {"type": "timeout", "to": None, "seat": 2, "action": "bid"}
    assert g.turn == 3 and g.next_deadline == 20.0


def test_t18_5_c_timeout_under_shibari_takes_the_accumulation() -> None:
    g = std([["JK", "H4"], ["S2", "C6"], ["D7", "D8"], ["H9", "S10"]], "C1", now=10.0)
    g.play(0, ["JK"], 20.0)
    g.play(1, ["S2"], 30.0)
    ev = g.advance(40.0)
    assert ev[0] == {"type": "timeout", "to": None, "seat": 2, "action": "take"}
    assert ev[1]["count"] == 7 and not g.shibari and g.turn == 3 and g.next_deadline == 50.0


def test_t18_5_d_lapsing_chances_come_first() -> None:
    g = au([["D10", "S9"], ["H1", "C2", "S3", "D4"], ["S4", "H6"], ["C10", "H13"]], "D5")
    g.play(0, ["D10"], 0.0)
    assert g.next_deadline == 10.0
    ev = g.advance(10.0)
    assert types(ev) == ["decline", "decline", "timeout", "draw", "drawn", "turn"]
    assert [e["to"] for e in ev[:2]] == [1, 2] and all(e["timeout"] for e in ev[:2])


def test_t18_1_clocks_chain_from_automatic_actions() -> None:
    g = au([["S3", "H4"], ["C5", "C6"]], "C1", deck=["D1", "D2", "D3"])
    ev = g.advance(25.0)
    assert types(ev) == ["timeout", "draw", "drawn", "turn"] * 2
    assert g.next_deadline == 30.0


# ---------------------------------------------------------------- §T19

def test_t19_views_hide_hands_chances_and_bids() -> None:
    g = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=None)
    g.bid(0, 5, 1.0)
    spectator = g.view(None)
    assert "hand" not in spectator and spectator["legal_actions"] == []
    assert spectator["auction"] == {"has_bid": [True, False, False], "mine": None}
    assert g.view(0)["auction"]["mine"] == 5 and g.view(1)["auction"]["mine"] is None
    json.dumps(spectator)
    h = au([["D10", "S9"], ["H1", "C2", "S3", "D4"], ["S4", "H6"], ["C10", "H13"]], "D5")
    h.play(0, ["D10"], 0.0)
    for seat, chances in ((1, ["dobon"]), (2, ["dobon"]), (3, []), (0, [])):
        v = h.view(seat)
        assert v["chances"] == chances and v["hand"] == h.hand(seat)
        assert v["revealed"] == [None] * 4
        assert (v["deadline"] == 10.0) is (seat in (1, 2))
    assert h.view(None)["chances"] == []


def test_t19_1_view_keys() -> None:
    g = au([["D10", "S9"], ["H1", "C2"]], "D5")
    v = g.view(0)
    for key in ("seat", "players", "phase", "turn", "direction", "top", "pending_draw",
                "deck_count", "discard_count", "hand_counts", "hand", "revealed",
                "turn_deadline", "wait_deadline", "deadline", "chances", "legal_actions",
                "result", "timeout", "rate", "color", "chooser", "has_drawn", "preset",
                "suit", "shibari", "records", "last_one", "exposed", "auction", "chain",
                "dobon", "dobon_counts", "first_player"):
        assert key in v, key
    assert v["color"] is None and v["chooser"] is None and v["has_drawn"] is False
    assert v["suit"] == "D" and v["auction"] is None and v["chain"] == []


def test_t19_4_every_hand_is_shown_at_the_end() -> None:
    g = au([["S7"], ["S13", "D3"], ["C2", "H8", "D12"]], "S9")
    ev = g.play(0, ["S7"], 0.0)
    fin = of(ev, "finished")[0]
    assert fin["hands"] == [[], ["S13", "D3"], ["C2", "H8", "D12"]]
    assert g.view(None)["revealed"] == [[], ["S13", "D3"], ["C2", "H8", "D12"]]


def test_t19_3_a_draw_is_private_to_the_drawer() -> None:
    g = au([["S3", "H4"], ["C5", "C6"]], "C1", deck=["D1", "D2"])
    ev = g.draw(0, 0.0)
    assert [(e["type"], e["to"]) for e in ev] == [("draw", None), ("drawn", 0), ("turn", None)]
