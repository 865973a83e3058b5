"""§R15 — information: views and events never leak another seat's hand or the deck."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from .helpers import A, B, C, D, of_type, setup

# Every card below is unique to one place, so its code appearing anywhere is a leak.
HANDS = [["R5", "G1", "W"], ["B7", "B8", "YS"], ["G9", "G4", "Y6"], ["B2", "Y3", "G0"]]
DECK = ["Y8", "B4", "G6", "B9", "Y2", "G7"]


def _codes_in(obj: Any) -> set[str]:
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            found.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(obj)
    return found


def _others(g, seat) -> set[str]:  # noqa: ANN001
    return {c for s in range(g.players) if s != seat for c in g.hand(s)}


def _assert_private(g) -> None:  # noqa: ANN001
    for seat in range(g.players):
        v = g.view(seat)
        json.dumps(v)
        assert sorted(v["hand"]) == sorted(g.hand(seat))
        leaked = _codes_in(v) & (_others(g, seat) - {g.top}) - set(g.hand(seat))
        assert not leaked, f"seat {seat} sees {leaked}"
        assert not _codes_in(v) & set(DECK) - set(g.hand(seat)) - {g.top}
    spectator = g.view(None)
    json.dumps(spectator)
    assert "hand" not in spectator
    assert not _codes_in(spectator) & (_others(g, None) - {g.top})
    assert spectator["chances"] == [] and spectator["legal_actions"] == []


def test_r15_1_a_seat_sees_the_public_table_and_its_own_hand() -> None:
    g = setup(HANDS, deck=DECK, first="R3", rate=2)
    v = g.view(B)
    assert v["seat"] == B and v["players"] == 4
    assert sorted(v["hand"]) == sorted(HANDS[B])
    assert v["hand_counts"] == [3, 3, 3, 3]
    assert v["top"] == "R3" and v["color"] == "R" and v["direction"] == 1
    assert v["pending_draw"] == 0 and v["deck_count"] == len(DECK) and v["rate"] == 2
    assert v["phase"] == "turn" and v["turn"] == A
    assert v["legal_actions"] == []
    assert g.view(A)["legal_actions"] == g.legal_actions(A)


def test_r15_2_views_never_show_another_seats_hand() -> None:
    g = setup(HANDS, deck=DECK, first="R3")
    _assert_private(g)
    g.draw(A, 0.0)
    _assert_private(g)
    g.play(A, ["R5"], 0.0)
    _assert_private(g)
    g.draw(B, 0.0)
    g.pass_turn(B, 0.0)
    _assert_private(g)


def test_r15_2_spectator_sees_counts_but_no_hand() -> None:
    g = setup(HANDS, deck=DECK)
    v = g.view(None)
    assert v["seat"] is None
    assert "hand" not in v
    assert v["hand_counts"] == [3, 3, 3, 3]
    assert v["revealed"] == [None, None, None, None]


def test_r15_2_drawn_card_is_told_only_to_the_drawer() -> None:
    g = setup(HANDS, deck=DECK)
    events = g.draw(A, 0.0)
    public = [e for e in events if e["to"] is None]
    assert of_type(public, "draw") and of_type(public, "draw")[0]["count"] == 1
    assert "Y8" not in _codes_in(public)
    drawn = of_type(events, "drawn")
    assert drawn and all(e["to"] == A for e in drawn)
    assert drawn[0]["cards"] == ["Y8"]


def test_r15_2_taken_cards_are_told_only_to_the_taker() -> None:
    g = setup([["R+2", "G1"], ["B7", "B8"], ["G9", "G4"], ["B2", "Y3"]], deck=DECK)
    g.play(A, ["R+2"], 0.0)
    events = g.draw(B, 0.0)
    public = [e for e in events if e["to"] is None]
    assert not _codes_in(public) & {"Y8", "B4"}
    assert all(e["to"] == B for e in of_type(events, "drawn"))


def test_r15_2_every_private_event_names_one_seat() -> None:
    g = setup([["R5", "G1"], ["B7", "B8"], ["G2", "G3"], ["R5", "Y3"]], deck=DECK)
    events = g.play(A, ["R5"], 0.0)
    for e in events:
        assert e["to"] is None or e["to"] in range(4)
        assert "seat" in e
    chances = of_type(events, "chance")
    assert {e["to"] for e in chances} == {C, D}
    by_seat = {e["to"]: set(e["kinds"]) for e in chances}
    assert by_seat[C] == {"dobon"}
    assert by_seat[D] == {"cut_in"}


def test_r15_2_chance_and_decline_are_private() -> None:
    g = setup([["R5", "G1"], ["B7", "B8"], ["G2", "G3"], ["B2", "Y6"]], deck=DECK)
    events = g.play(A, ["R5"], 0.0)
    assert all(e["to"] == C for e in of_type(events, "chance"))
    events = g.decline(C, 1.0)
    assert events and all(e["to"] == C for e in events)
    for seat in (A, B, D):
        assert g.view(seat)["chances"] == []


def test_r15_2_dobon_reveals_the_declarers_hand_only() -> None:
    g = setup([["R9", "G1"], ["B7", "B8"], ["G4", "G5"], ["B2", "Y3", "G6"]], deck=DECK)
    g.play(A, ["R9"], 0.0)
    events = g.dobon(C, 0.0)
    fin = of_type(events, "finished")
    assert fin  # A's G1 cannot return: the game ends and all hands are shown
    hands = [sorted(h) for h in fin[0]["hands"]]
    # UNSETTLED: whether A's shown hand includes the card dobon'd on; either is accepted.
    assert hands[0] in (["G1"], ["G1", "R9"])
    assert hands[1:] == [["B7", "B8"], ["G4", "G5"], ["B2", "G6", "Y3"]]
    v = g.view(None)
    assert [sorted(h) for h in v["revealed"][1:]] == hands[1:]
    assert v["revealed"][0] is not None
    assert v["result"]["kind"] == "dobon"


def test_r15_2_dobon_wait_reveals_declarer_but_not_others() -> None:
    g = setup([["R+2", "G9"], ["G9", "G9", "G2"], ["Y9", "Y9", "Y2"], ["B1", "B3"]], deck=DECK)
    g.play(A, ["R+2"], 0.0)
    g.dobon(B, 1.0)
    assert g.phase == "dobon_wait"
    for viewer in (None, A, D):
        v = g.view(viewer)
        assert not {"Y9", "Y2"} & _codes_in(v)
        assert sorted(v["revealed"][B]) == ["G2", "G9", "G9"]
        assert v["revealed"][C] is None and v["revealed"][D] is None
    assert "dobon" in g.view(C)["chances"]


def test_r15_2_the_finished_event_and_views_show_every_hand_after_going_out() -> None:
    g = setup([["R5"], ["B7", "B8"], ["G9", "G4"], ["B2", "Y4"]], deck=DECK)
    events = g.play(A, ["R5"], 0.0)
    fin = of_type(events, "finished")[0]
    assert fin["to"] is None
    assert fin["result"]["kind"] == "agari"
    assert [sorted(h) for h in fin["hands"]] == [[], ["B7", "B8"], ["G4", "G9"], ["B2", "Y4"]]
    v = g.view(B)
    assert [sorted(h) for h in v["revealed"]] == [[], ["B7", "B8"], ["G4", "G9"], ["B2", "Y4"]]


def test_r15_1_view_clock_fields_and_has_drawn() -> None:
    g = setup([["W", "G1"], ["B7", "B8"], ["G9", "G4"], ["B2", "Y4"]], deck=DECK)
    v = g.view(A)
    assert v["has_drawn"] is False and v["turn_deadline"] == 10.0 and v["deadline"] == 10.0
    g.draw(A, 2.0)
    v = g.view(A)
    assert v["has_drawn"] is True and v["turn_deadline"] == 12.0
    g.play(A, ["W"], 3.0)
    v = g.view(B)
    assert v["phase"] == "color" and v["chooser"] == A and v["turn"] is None
    assert v["turn_deadline"] == 13.0
    assert g.view(A)["legal_actions"] == g.legal_actions(A)


def test_r15_1_own_chances_are_listed_in_the_view() -> None:
    g = setup([["R5", "G1"], ["B7", "B8"], ["G2", "G3"], ["R5", "Y3"]], deck=DECK)
    g.play(A, ["R5"], 0.0)
    assert g.view(C)["chances"] == ["dobon"]
    assert g.view(D)["chances"] == ["cut_in"]
    assert g.view(C)["deadline"] == 10.0


PRIVATE_TYPES = {"drawn", "chance", "decline"}


def _check_events(events: list[dict], n: int) -> None:
    for e in events:
        assert e["to"] is None or e["to"] in range(n)
        if e["type"] in PRIVATE_TYPES:
            assert e["to"] is not None, f"{e['type']} must be private"
            assert e["to"] == e["seat"]
        if e["type"] in ("draw", "take"):
            assert e["to"] is None and "cards" not in e


def _check_views(g, declarers: set[int]) -> None:  # noqa: ANN001
    n = g.players
    for seat in list(range(n)) + [None]:
        v = g.view(seat)
        json.dumps(v)
        assert v["hand_counts"] == [len(g.hand(s)) for s in range(n)]
        if seat is None:
            assert "hand" not in v and v["legal_actions"] == [] and v["chances"] == []
        else:
            assert sorted(v["hand"]) == sorted(g.hand(seat))
        if g.phase != "finished":
            for s in range(n):
                if s not in declarers:
                    assert v["revealed"][s] is None, f"seat {s}'s hand revealed to {seat}"


@pytest.mark.parametrize("seed", range(12))
def test_r15_privacy_holds_through_random_games(seed: int) -> None:
    """Random legal actions and timeouts: private events stay private, no hand leaks."""
    from game.rules import Game

    rng = random.Random(seed)
    n = 2 + seed % 5
    g = Game.new(players=n, first_player=seed % n, seed=seed, rate=1, timeout=10.0, now=0.0)
    now, declarers = 0.0, set()
    for _ in range(600):
        if g.phase == "finished":
            break
        options = [(s, a) for s in range(n) for a in g.legal_actions(s)]
        plays = [o for o in options if o[1]["type"] in ("play", "dobon", "return", "color")]
        if not options or rng.random() < 0.1:
            now = max(now, g.next_deadline or now)
            events = g.advance(now)
        else:
            seat, action = rng.choice(plays if plays and rng.random() < 0.7 else options)
            now += rng.choice([0.0, 0.5, 1.0])
            events = g.apply(seat, action, now)
        declarers |= {e["seat"] for e in events if e["type"] == "dobon"}
        _check_events(events, n)
        _check_views(g, declarers)
    assert g.phase == "finished"
