"""§T1-§T9: presets, cards, the start, the auction, turns, the 2 and the 8, しばり, last one,
役, drawing and exhaustion. Worked examples are named after their rule ids."""

from __future__ import annotations

import pytest

from game.rules.trump import Game, IllegalAction, match_new, match_update, yaku_pattern
from game.rules.trump.cards import parse_cards

from .helpers import au, cards_played, of, plays, std, types

# ---------------------------------------------------------------- §T1-§T3

@pytest.mark.parametrize(("preset", "ok", "bad"),
                         [("au", (2, 3, 4), (1, 5)), ("standard", (3, 4, 5, 6), (2, 7))])
def test_t1_2_seat_counts(preset: str, ok: tuple[int, ...], bad: tuple[int, ...]) -> None:
    first = 0 if preset == "au" else None
    for n in ok:
        assert Game.new(players=n, first_player=first, preset=preset).players == n
    for n in bad:
        with pytest.raises(ValueError):
            Game.new(players=n, first_player=first, preset=preset)


@pytest.mark.parametrize(("preset", "first"), [("au", 0), ("standard", None)])
def test_t1_2_a_saved_round_outside_the_seat_counts_is_refused(preset: str,
                                                                first: int | None) -> None:
    saved = Game.new(players=4, first_player=first, preset=preset).to_dict()
    for hands in (saved["hands"][:1], [*saved["hands"], ["S1"], ["S2"], ["S3"]]):
        with pytest.raises(ValueError, match="seats"):
            Game.from_dict({**saved, "hands": hands, "streaks": [0] * len(hands)})


def test_t1_3_timeout_range_and_t1_7_rate() -> None:
    for timeout in (4.9, 61):
        with pytest.raises(ValueError):
            Game.new(players=2, first_player=0, timeout=timeout)
    with pytest.raises(ValueError):
        Game.new(players=2, first_player=0, rate=2)
    g = Game.new(players=2, first_player=0, timeout=5)
    assert g.rate == 1 and g.view(0)["rate"] == 1


def test_t2_1_codes_and_jokers() -> None:
    with pytest.raises(ValueError):
        parse_cards(["S14"])
    with pytest.raises(ValueError):
        au([["JK", "S1"], ["S2"]], "S3")
    g = std([["JK", "JK", "S1"], ["S2"], ["H3"]], "S3")
    assert g.hand(0) == ["JK", "JK", "S1"]


@pytest.mark.parametrize(("preset", "players", "deck"),
                         [("au", 2, 41), ("au", 3, 36), ("au", 4, 31),
                          ("standard", 3, 38), ("standard", 4, 33), ("standard", 5, 28),
                          ("standard", 6, 23)])
def test_t3_1_deal(preset: str, players: int, deck: int) -> None:
    first = 0 if preset == "au" else None
    g = Game.new(players=players, first_player=first, seed=9, preset=preset)
    assert g.hand_counts == [5] * players and g.deck_count == deck
    assert g.discard_count == 0 and g.direction == 1


def test_t3_5_a_au_first_players() -> None:
    m = match_new("au", 4, owner=2)
    assert m["first_player"] == 3
    won = {"winners": [1], "deltas": [0, 10, -10, 0], "next_first_player": 1}
    m = match_update(m, won)
    assert m["first_player"] == 1
    m = match_update(m, {"winners": [], "deltas": [0] * 4, "next_first_player": 1})
    assert m["first_player"] == 1
    m = match_update(m, {"winners": [0], "deltas": [20, 0, -20, 0], "next_first_player": 0})
    assert m["first_player"] == 0 and m["round"] == 4


def test_t3_5_b_au_first_card_two_opens_no_obligation() -> None:
    g = au([["S9", "H2", "D4"], ["C5", "C6"]], "S2")
    assert g.pending_draw == 0
    assert cards_played(g, 0) == {"S9", "H2"}
    g.play(0, ["H2"], 0.0)
    assert g.pending_draw == 2


def test_t3_5_b_standard_first_card_joker_any_card() -> None:
    g = std([["S9", "H2", "D4", "C12"], ["C5", "C6"], ["D1", "D2"]], "JK")
    assert not g.shibari and g.pending_draw == 0 and g.suit == ["S", "H", "D", "C"]
    assert cards_played(g, 0) == {"S9", "H2", "D4", "C12"}


def test_t3_5_b_standard_first_card_eight_is_its_own_suit() -> None:
    g = std([["S7", "H4"], ["C5", "C6"], ["D1", "D2"]], "H8")
    assert g.suit == ["H"]
    with pytest.raises(IllegalAction) as err:
        g.play(0, ["S7"], 0.0)
    assert err.value.code == "does_not_match"


def test_t3_5_b_standard_first_card_ace_skips_nobody() -> None:
    g = std([["S7", "H4"], ["C5", "C6"], ["D1", "D2"]], "S1")
    assert g.turn == 0 and g.view(None)["records"] == []


# ---------------------------------------------------------------- §T4 auction

def _auction(now: float = 0.0) -> Game:
    hands = [["S3", "H4"], ["C5", "C6"], ["D7", "D8"], ["H9", "S10"]]
    return std(hands, "C1", first=None, now=now, seed=4)


def test_t4_7_auction_with_a_timeout_and_a_drawn_tie() -> None:
    g = _auction()
    assert g.phase == "auction" and g.turn is None and g.next_deadline == 10
    ev = g.bid(1, 7, 1.0)
    assert ev == [{"type": "bid", "to": None, "seat": 1}]
    g.bid(0, 3, 3.0)
    g.bid(2, 7, 4.0)
    v = g.view(3)
    assert v["auction"] == {"has_bid": [True, True, True, False], "mine": None}
    assert g.view(1)["auction"]["mine"] == 7
    ev = g.advance(10.0)
    assert types(ev) == ["timeout", "bid", "auction_end", "turn"]
    assert ev[0] == {"type": "timeout", "to": None, "seat": 3, "action": "bid"}
    end = ev[2]
    assert end["bids"] == [3, 7, 7, 1] and end["winner"] in (1, 2) and end["drawn"] is True
    assert g.turn == end["winner"] and g.next_deadline == 20
    assert g.view(None)["auction"] == {"bids": [3, 7, 7, 1], "winner": end["winner"]}


def test_t4_7_auction_closes_when_the_last_seat_bids() -> None:
    g = _auction()
    for seat, amount, t in ((1, 7, 1.0), (0, 3, 3.0), (2, 7, 4.0)):
        g.bid(seat, amount, t)
    ev = g.bid(3, 1, 5.0)
    assert types(ev) == ["bid", "auction_end", "turn"]
    assert g.next_deadline == 15


def test_t4_4_tie_draw_is_the_round_generator() -> None:
    winners = set()
    for seed in range(12):
        g = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=None, seed=seed)
        g.bid(0, 5, 0)
        g.bid(1, 5, 0)
        g.bid(2, 5, 0)
        winners.add(g.turn)
        again = std([["S3", "H4"], ["C5", "C6"], ["D7", "D8"]], "C1", first=None, seed=seed)
        for s in range(3):
            again.bid(s, 5, 0)
        assert again.turn == g.turn
    assert winners == {0, 1, 2}


def test_t4_6_nothing_but_bids_during_the_auction() -> None:
    g = _auction()
    assert g.legal_actions(0) == [{"type": "bid", "min": 1, "max": 999}]
    for call, code in ((lambda: g.play(0, ["S3"], 1.0), "auction_running"),
                       (lambda: g.draw(0, 1.0), "auction_running"),
                       (lambda: g.dobon(0, 1.0, 1), "auction_running")):
        with pytest.raises(IllegalAction) as err:
            call()
        assert err.value.code == code


# ---------------------------------------------------------------- §T5 turns

def test_t5_8_a_au_matching() -> None:
    g = au([["S3", "H7", "D9", "C12"], ["C5", "C6"]], "H3")
    assert g.legal_actions(0) == [{"type": "play", "cards": ["S3"]},
                                  {"type": "play", "cards": ["H7"]}, {"type": "draw"}]
    for card in ("D9", "C12"):
        with pytest.raises(IllegalAction) as err:
            g.play(0, [card], 0.0)
        assert err.value.code == "does_not_match"


def test_t5_8_b_standard_matching() -> None:
    hand = ["H9", "S5", "D11", "S11", "C8", "JK", "C2", "D3"]
    g = std([hand, ["C5", "C6"], ["D1", "D4"]], "H5")
    assert set(plays(g, 0)) == {("H9", None), ("S5", None), ("D11", "D"), ("D11", "H"),
                                ("C8", "S"), ("C8", "H"), ("C8", "D"), ("C8", "C"),
                                ("JK", None)}
    for card in ("S11", "C2", "D3"):
        with pytest.raises(IllegalAction) as err:
            g.play(0, [card], 0.0, suit="S" if card == "S11" else None)
        assert err.value.code == "does_not_match"


def test_t5_1_a_draw_ends_the_turn_and_is_always_allowed() -> None:
    g = au([["S3", "H7"], ["C5", "C6"]], "H3", deck=["D1", "D2"])
    assert {"type": "draw"} in g.legal_actions(0)
    ev = g.draw(0, 1.0)
    assert types(ev) == ["draw", "drawn", "turn"] and g.turn == 1
    assert ev[1] == {"type": "drawn", "to": 0, "seat": 0, "cards": ["D1"]}
    assert g.legal_actions(0) == []


# ---------------------------------------------------------------- §T6 the 2 and the 8

def test_t6_4_a_the_eight_names_a_suit_and_is_not_wild() -> None:
    g = au([["S8", "C9"], ["D4", "S6"], ["C8", "H1"], ["H5", "S4"]], "S11",
           deck=["H10", "D7", "C6", "S9"])
    ev = g.play(0, ["S8"], 0.0, suit="D")
    assert g.top == "S8" and g.suit == "D" and g.turn == 1 and ev[0]["suit"] == "D"
    with pytest.raises(IllegalAction) as err:
        g.play(1, ["S6"], 1.0)
    assert err.value.code == "does_not_match"
    g.play(1, ["D4"], 1.0)
    assert g.top == "D4" and g.suit == "D" and g.turn == 2
    with pytest.raises(IllegalAction) as err:
        g.play(2, ["C8"], 2.0, suit="C")
    assert err.value.code == "does_not_match"


def test_t6_4_a_the_eight_matches_an_eight_by_number() -> None:
    g = au([["S8", "C9"], ["C8", "S6"]], "S11")
    g.play(0, ["S8"], 0.0, suit="S")
    assert ("C8", "H") in plays(g, 1) and ("S6", None) in plays(g, 1)


def test_t6_4_b_the_two_opens_and_stacks_obligations() -> None:
    g = au([["S2", "D7"], ["H2", "C6"], ["D9", "C13"], ["C2", "H10"]], "S5",
           deck=["S9", "D1", "C3", "H6", "D12", "S4", "C10", "H13"])
    g.play(0, ["S2"], 0.0)
    assert g.pending_draw == 2 and g.turn == 1
    g.play(1, ["H2"], 1.0)
    assert g.pending_draw == 4 and g.turn == 2
    with pytest.raises(IllegalAction) as err:
        g.play(2, ["D9"], 2.0)
    assert err.value.code == "must_play_two_or_draw"
    assert g.legal_actions(2) == [{"type": "draw"}]
    ev = g.draw(2, 2.0)
    assert types(ev) == ["take", "drawn", "turn"] and ev[0]["count"] == 4
    assert g.hand(2) == ["D9", "C13", "S9", "D1", "C3", "H6"]
    assert g.pending_draw == 0 and g.turn == 3
    assert set(plays(g, 3)) == {("C2", None), ("H10", None)}
    g.play(3, ["C2"], 3.0)
    assert g.pending_draw == 2 and g.turn == 0


# ---------------------------------------------------------------- §T7 しばり

SHIBARI_DECK = ["S3", "D5", "H9", "C11", "D13", "S4", "H6", "C1", "D8", "S9", "H10"]


def test_t7_8_a_shibari_reflect_and_draw_the_accumulation() -> None:
    g = std([["C2", "D9", "H4"], ["H2", "JK", "S7"], ["H5", "C8", "D3"], ["S10", "H12", "C6"]],
            "C7", deck=SHIBARI_DECK)
    g.play(0, ["C2"], 0.0)
    assert g.shibari and g.pending_draw == 2 and g.turn == 1
    g.play(1, ["H2"], 1.0)
    assert g.pending_draw == 4 and g.turn == 2
    for card in ("C8", "D3"):
        with pytest.raises(IllegalAction) as err:
            g.play(2, [card], 2.0, suit="S" if card == "C8" else None)
        assert err.value.code == "must_answer_shibari"
    g.play(2, ["H5"], 2.0)
    assert g.direction == -1 and g.pending_draw == 4 and g.turn == 1
    with pytest.raises(IllegalAction) as err:
        g.play(1, ["S7"], 3.0)
    assert err.value.code == "must_answer_shibari"
    g.play(1, ["JK"], 3.0)
    assert g.pending_draw == 9 and g.turn == 0
    ev = g.draw(0, 4.0)
    assert ev[0] == {"type": "take", "to": None, "seat": 0, "count": 9}
    assert g.hand(0)[2:] == SHIBARI_DECK[:9]
    assert not g.shibari and g.turn == 3
    g.play(3, ["S10"], 5.0)
    assert g.turn == 2


def test_t7_8_a_prime_attack_cards_answer_anything_reflect_cards_must_match() -> None:
    g = std([["C2", "D9", "H4"], ["H2", "JK", "C2", "S7"], ["H5", "S5", "D3"],
             ["S10", "H12", "C6"]], "C7", deck=SHIBARI_DECK)
    g.play(0, ["C2"], 0.0)
    g.play(1, ["H2"], 1.0)
    with pytest.raises(IllegalAction) as err:
        g.play(2, ["S5"], 2.0)
    assert err.value.code == "must_answer_shibari"
    g.play(2, ["H5"], 2.0)
    assert ("C2", None) in plays(g, 1)
    g.play(1, ["C2"], 3.0)
    assert g.pending_draw == 6


def test_t7_8_b_skip() -> None:
    g = std([["S1", "H4"], ["S9", "C3"], ["S6", "D8"], ["H7", "C2"]], "S7")
    ev = g.play(0, ["S1"], 0.0)
    assert types(ev) == ["play", "skip", "turn"]
    assert ev[1] == {"type": "skip", "to": None, "seat": 1} and g.turn == 2
    assert g.view(None)["records"] == [{"seat": 0, "play": "S1", "suit": None},
                                       {"seat": 1, "skipped": True}]
    g.play(2, ["S6"], 1.0)
    assert g.turn == 3


def test_t7_8_c_reverse_with_three_seats() -> None:
    g = std([["H12", "C5"], ["H3", "S7"], ["D12", "H6"]], "H10")
    g.play(0, ["H12"], 0.0)
    assert g.direction == -1 and g.turn == 2
    g.play(2, ["D12"], 1.0)
    assert g.direction == 1 and g.turn == 0


def test_t7_8_d_choice_card_eight() -> None:
    g = std([["H8", "D6", "D7"], ["S3", "D8", "JK", "S11", "C11", "H11", "D4"], ["C9", "C10"]],
            "C5")
    g.play(0, ["H8"], 0.0, suit="S")
    assert g.top == "H8" and g.suit == ["S"]
    assert cards_played(g, 1) == {"S3", "D8", "JK", "S11", "C11"}


def test_t7_8_d_choice_card_jack() -> None:
    g = std([["D11", "D6", "D7"], ["H11", "S11", "C4"], ["C9", "C10"]], "D3")
    with pytest.raises(IllegalAction) as err:
        g.play(0, ["D11"], 0.0, suit="S")
    assert err.value.code == "invalid_suit"
    assert set(plays(g, 0)) >= {("D11", "D"), ("D11", "H")}
    g.play(0, ["D11"], 0.0, suit="H")
    assert g.top == "D11" and g.suit == ["H"]
    h = std([["D6", "D7"], ["H11", "S11", "C4"], ["C9", "C10"]], "D3", first=1)
    assert cards_played(h, 1) == {"H11"}


# ---------------------------------------------------------------- §T8 last one and 役

def _last_one_round() -> Game:
    return std([["S4", "S9"], ["C3", "D5"], ["H6", "C6"]], "S7", deck=["H2", "D9", "C1"])


def test_t8_4_a_last_one_with_the_play() -> None:
    g = _last_one_round()
    assert {"type": "play", "cards": ["S4"], "last_one": True} in g.legal_actions(0)
    ev = g.play(0, ["S4"], 0.0, last_one=True)
    assert ev[0]["last_one"] is True and g.view(None)["last_one"] == [True, False, False]
    g.draw(1, 1.0)
    g.draw(2, 2.0)
    ev = g.play(0, ["S9"], 3.0)
    assert types(ev) == ["play", "agari", "finished"]
    assert g.result is not None and g.result.kind == "agari" and g.result.winners == [0]


def test_t8_4_a_prime_without_last_one_the_seat_must_draw() -> None:
    g = _last_one_round()
    g.play(0, ["S4"], 0.0)
    assert {"type": "last_one"} in g.legal_actions(0)
    g.draw(1, 1.0)
    assert g.legal_actions(0) == []  # the chance ended with 1's draw
    with pytest.raises(IllegalAction) as err:
        g.declare_last_one(0, 1.5)
    assert err.value.code == "cannot_declare_last_one"
    g.draw(2, 2.0)
    with pytest.raises(IllegalAction) as err:
        g.play(0, ["S9"], 3.0)
    assert err.value.code == "going_out_forbidden"
    assert g.legal_actions(0) == [{"type": "draw"}]
    g.draw(0, 3.0)
    assert g.hand(0) == ["S9", "C1"]


def test_t8_4_a_double_prime_declared_after_the_play() -> None:
    g = _last_one_round()
    g.play(0, ["S4"], 0.0)
    ev = g.apply(0, {"type": "last_one"}, 0.5)
    assert ev == [{"type": "last_one", "to": None, "seat": 0}]
    g.draw(1, 1.0)
    g.draw(2, 2.0)
    g.play(0, ["S9"], 3.0)
    assert g.result is not None and g.result.winners == [0]


def test_t8_4_b_a_lone_joker_may_not_go_out() -> None:
    g = std([["JK"], ["C3", "D5"], ["H6", "C6"]], "S7", last_one=[0])
    assert g.legal_actions(0) == [{"type": "draw"}]
    with pytest.raises(IllegalAction) as err:
        g.play(0, ["JK"], 0.0)
    assert err.value.code == "going_out_forbidden"


def test_t8_2_a_draw_lifts_the_ban_and_the_last_one() -> None:
    g = std([["S9"], ["C3", "D5"], ["H6", "C6"]], "S7", deck=["H2", "D9", "C1"], last_one=[0])
    g.draw(0, 0.0)
    assert g.view(None)["last_one"] == [False, False, False]


@pytest.mark.parametrize(("hand", "pattern"), [
    (["S3", "H3", "D3", "C9", "S9"], "full_house"),
    (["H2", "H7", "H9", "H12", "H13"], "flush"),
    (["H10", "S11", "D12", "C13", "H1"], "straight"),
    (["S1", "H2", "D3", "C4", "S5"], "straight"),
    (["S12", "H13", "D1", "C2", "S3"], None),
    (["S7", "H7", "D7", "C7", "JK"], "four"),
    (["S5", "H5", "D5", "JK", "JK"], "full_house"),
    (["JK", "H3", "H4", "H5", "H6"], None),
    (["H3", "H4", "H5", "H6", "H7"], "straight_flush"),
    (["S10", "S11", "S12", "S13", "S1"], "straight_flush"),
])
def test_t8_4_c_yaku_patterns(hand: list[str], pattern: str | None) -> None:
    assert yaku_pattern(parse_cards(hand)) == pattern


def test_t8_4_c_declaring_yaku_exposes_the_hand() -> None:
    g = std([["S3", "H3", "D3", "C9", "S9"], ["C4", "D5"], ["H6", "C6"]], "S7",
            deck=["H2", "D9", "C1"])
    assert {"type": "yaku"} in g.legal_actions(0)
    ev = g.declare_yaku(0, 1.0)
    assert ev == [{"type": "yaku", "to": None, "seat": 0,
                   "hand": ["S3", "H3", "D3", "C9", "S9"], "pattern": "full_house"}]
    assert g.turn == 0 and g.next_deadline == 10  # no clock restart (§T21.17)
    assert {"type": "yaku"} not in g.legal_actions(0)
    g.play(0, ["S9"], 2.0)
    assert g.view(1)["exposed"][0] == ["S3", "H3", "D3", "C9"]


# ---------------------------------------------------------------- §T9 drawing

def test_t9_5_a_au_reshuffle_and_nothing_to_draw() -> None:
    g = au([["S9", "D3"], ["C5", "H13"]], "H4", deck=["C7"])
    ev = g.draw(0, 0.0)
    assert of(ev, "reshuffle") == [] and g.deck_count == 0 and g.phase == "turn"
    g.play(1, ["H13"], 1.0)
    assert g.discard_count == 1
    ev = g.draw(0, 2.0)
    assert of(ev, "reshuffle") == [{"type": "reshuffle", "to": None, "seat": None, "count": 1}]
    assert g.hand(0)[-1] == "H4" and g.deck_count == 0 and g.turn == 1
    ev = g.draw(1, 3.0)
    r = g.result
    assert r is not None and r.kind == "deck_out" and r.payments == [] and r.winners == []
    assert r.next_first_player == 0 and types(ev)[-1] == "finished"


def test_t9_5_b_standard_exhaustion_mid_draw() -> None:
    g = std([["JK", "H9"], ["S5", "D3"], ["C3", "H7"]], "C9", deck=["C4", "D6"])
    g.play(0, ["JK"], 0.0)
    assert g.pending_draw == 5 and g.discard_count == 1
    ev = g.draw(1, 1.0)
    assert ev[0] == {"type": "take", "to": None, "seat": 1, "count": 3}
    assert g.hand(1) == ["S5", "D3", "C4", "D6", "C9"]
    r = g.result
    assert r is not None and r.kind == "deck_out" and r.winners == [] and r.losers == []


def test_t9_5_b_prime_standard_ends_when_the_last_card_is_drawn_au_goes_on() -> None:
    g = std([["H9", "S2"], ["S5", "D3"], ["C3", "H7"]], "C9", deck=["C4"])
    g.draw(0, 0.0)
    assert g.result is not None and g.result.kind == "deck_out"
    h = au([["H9", "S2"], ["S5", "D3"], ["C3", "H7"]], "C9", deck=["C4"])
    h.draw(0, 0.0)
    assert h.phase == "turn" and h.turn == 1
