"""Trump Dobon over the live socket (issue #18): frames carry the game kind and preset;
trump actions, events and refusals travel as Dobon UNO's do; a seat's hand and chances
never reach another socket; a reload mid-round gets the whole table back.

Deals are fixed (game/services/fixed_setups.py) with TRUMP-RULES.md's worked examples.
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from play_helpers import make_room
from socket_helpers import next_frame, next_state, open_socket

from game.models import Game
from game.services import fixed_setups

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fixed(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def au_chain_table(alice, bob, carol) -> int:
    """§T15.7 (h): 0:[D10 S3 H7] 1:[C4 H6] 2:[S5 C5], 0 on turn, field D6 (generous clock)."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="au",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C4", "H6"], ["S5", "C5"]], first_card="D6",
        deck=["S9", "D1", "C3", "H13"], first_player=0,
    )
    fixed_setups.start_fixed_game(room, alice, setup, now=time.time())
    return room.pk


async def act(socket, action) -> None:
    await socket.send_json_to({"type": "action", "action": action})


async def test_an_au_dobon_chain_with_a_return_over_the_socket(alice, bob, carol, mallory):
    room_id = await sync_to_async(au_chain_table)(alice, bob, carol)
    a, b, c = [await open_socket(u, room_id) for u in (alice, bob, carol)]
    watcher = await open_socket(mallory, room_id)
    for socket in (a, b, c, watcher):
        _, state = await next_state(socket)
        assert (state["game_kind"], state["preset"]) == ("trump_dobon", "au")
        assert state["room"]["match"]["totals"] == [1000, 1000, 1000]
    assert "hand" not in state["view"]  # the watcher

    # A trump refusal passes through like Dobon UNO's: nothing changes.
    await act(a, {"type": "pass"})
    refused = await next_frame(a)
    assert refused == {**refused, "type": "error", "code": "not_in_this_game"}

    await act(a, {"type": "play", "cards": ["D10"]})
    _, seen_a = await next_state(a)
    _, seen_b = await next_state(b)
    _, seen_c = await next_state(c)
    _, seen_w = await next_state(watcher)
    # Each seat hears of its own chance only; nobody else sees a hand.
    assert [e for e in seen_b["events"] if e["type"] == "chance"][0]["to"] == 1
    assert not [e for e in seen_a["events"] if e["type"] == "chance"]
    assert seen_b["view"]["chances"] == ["dobon"] and seen_c["view"]["chances"] == ["dobon"]
    for frame in (seen_a, seen_c, seen_w):
        text = str({k: v for k, v in frame.items() if k != "room"})
        assert "C4" not in text and "H6" not in text  # bob's hand
    assert "S5" not in str(seen_a) and "S5" not in str(seen_b)  # carol's

    await act(b, {"type": "dobon"})
    for socket in (a, b, c, watcher):
        _, state = await next_state(socket)
    assert state["view"]["chain"] == [{"seat": 1, "kind": "dobon"}]
    assert state["view"]["revealed"][1] == ["C4", "H6"]  # a declarer's hand is public

    # A reload mid-round: a new socket of alice's gets her table, chance included.
    reloaded = await open_socket(alice, room_id)
    _, again = await next_state(reloaded)
    assert again["view"]["hand"] == ["S3", "H7"] and "return" in again["view"]["chances"]
    await reloaded.disconnect()

    await act(a, {"type": "return"})
    for socket in (a, b, c, watcher):
        await next_state(socket)
    await act(c, {"type": "decline"})
    for socket in (a, b, c):
        _, state = await next_state(socket)
        if state["status"] == "running":  # the chain's clock for the others
            _, state = await next_state(socket)
    assert state["status"] == "finished"
    result = state["view"]["result"]
    # §T15.7 (h) chain [1, 0]: X = [S3 H7] + [C4 H6] + [D10] = 30 → 30 × 2² = 120: 1 pays 0.
    assert result["kind"] == "return" and result["payments"] == [[1, 0, 120]]
    game = await sync_to_async(Game.objects.get)(room_id=room_id)
    assert game.result["match"]["totals"] == [1120, 880, 1000]
    for socket in (a, b, c, watcher):
        await socket.disconnect()


def standard_table(alice, bob, carol) -> int:
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="standard",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["C2", "D9", "H4"], ["H2", "S7", "D3"], ["H5", "C8", "D4"]], first_card="C7",
        deck=["S3", "D5", "H9", "C11", "D13", "S4", "H6", "C1", "D8", "S9", "H10"],
        first_player=None,
    )
    fixed_setups.start_fixed_game(room, alice, setup, now=time.time())
    return room.pk


async def test_a_standard_auction_and_shibari_over_the_socket(alice, bob, carol):
    room_id = await sync_to_async(standard_table)(alice, bob, carol)
    a, b, c = [await open_socket(u, room_id) for u in (alice, bob, carol)]
    for socket in (a, b, c):
        _, state = await next_state(socket)
        assert state["preset"] == "standard" and state["view"]["phase"] == "auction"
    assert state["view"]["legal_actions"] == [{"type": "bid", "min": 1, "max": 999}]
    await act(a, {"type": "bid", "amount": 7})
    for socket in (a, b, c):
        _, state = await next_state(socket)
    # Sealed bids: the others see that alice bid, never how much.
    assert state["view"]["auction"]["has_bid"] == [True, False, False]
    assert "7" not in str(state["events"]) and state["view"]["auction"]["mine"] is None
    await act(b, {"type": "bid", "amount": 3})
    await act(c, {"type": "bid", "amount": 1})
    for socket in (a, b, c):
        for _ in range(2):
            _, state = await next_state(socket)
    assert state["view"]["phase"] == "turn" and state["view"]["turn"] == 0
    end = [e for e in state["events"] if e["type"] == "auction_end"][0]
    assert end["bids"] == [7, 3, 1] and end["winner"] == 0

    await act(a, {"type": "play", "cards": ["C2"]})  # しばり, accumulation 2
    for socket in (a, b, c):
        _, state = await next_state(socket)
    assert state["view"]["shibari"] is True and state["view"]["pending_draw"] == 2
    await act(b, {"type": "play", "cards": ["S7"]})
    refused = await next_frame(b)
    assert refused["type"] == "error" and refused["code"] == "must_answer_shibari"
    await act(b, {"type": "draw"})  # takes the accumulation
    for socket in (a, b, c):
        _, state = await next_state(socket)
    take = [e for e in state["events"] if e["type"] == "take"][0]
    assert take["count"] == 2 and state["view"]["shibari"] is False
    assert state["view"]["hand_counts"][1] == 5
    for socket in (a, b, c):
        await socket.disconnect()
