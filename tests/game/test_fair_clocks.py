"""Fair clocks for programs (issue #31, item 8): sealed bids are judged against the
auction, not refused `stale` because another seat bid first (§T4: bids are simultaneous).
"""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from play_helpers import make_room
from socket_helpers import next_frame, next_state, open_socket

from game.services import fixed_setups

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fixed(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def standard_auction(alice, bob, carol) -> int:
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="standard",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["C2", "D9", "H4"], ["H2", "S7", "D3"], ["H5", "C8", "D4"]], first_card="C7",
        deck=["S3", "D5", "H9", "C11", "D13", "S4", "H6", "C1", "D8", "S9", "H10"],
        first_player=None,
    )
    fixed_setups.start_fixed_game(room, alice, setup, now=time.time())
    return room.pk


async def test_t4_bids_sent_on_the_same_version_are_all_judged_by_the_auction(alice, bob, carol):
    """Every seat decides its bid on version 0; the others' bids land first. Before, the
    second and third were `stale`; the auction now takes all three, and the sealed bids
    decide the winner."""
    room_id = await sync_to_async(standard_auction)(alice, bob, carol)
    sockets = [await open_socket(u, room_id) for u in (alice, bob, carol)]
    for socket in sockets:
        _, state = await next_state(socket)
        assert state["version"] == 0 and state["view"]["phase"] == "auction"
    for socket, amount in zip(sockets, (7, 3, 9), strict=True):
        await socket.send_json_to({"type": "action", "version": 0,
                                   "action": {"type": "bid", "amount": amount}})
    ended = None
    while ended is None:
        frame = await next_frame(sockets[0])
        assert frame["type"] == "state", frame  # no seat's bid was refused
        ended = next((e for e in frame["events"] if e["type"] == "auction_end"), None)
    assert ended["bids"] == [7, 3, 9] and ended["winner"] == 2
    # Once the auction is over, a bid on an old version is stale like any other action.
    await sockets[1].send_json_to({"type": "action", "version": 0,
                                   "action": {"type": "bid", "amount": 5}})
    while (frame := await next_frame(sockets[1]))["type"] != "error":
        pass
    assert frame["code"] == "stale"
    for socket in sockets:
        await socket.disconnect()
