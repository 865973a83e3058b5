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


def test_a_cpu_waits_for_a_programs_open_chance_or_the_grace(bob, settings):
    """In a match CPUs move at once: a CPU on turn played about 20 ms after the card that
    opened a program's cut-in chance, closing it (7 of 27 chances). Now the CPU's move
    waits until the program answered or DOBON_PROGRAM_CHANCE_GRACE_MS passed."""
    from django.db import transaction
    from play_helpers import NOW, make_room, position, set_position

    from game.models import Game, Membership
    from game.services import cpu, engines, matches, play

    settings.DOBON_PROGRAM_CHANCE_GRACE_SECONDS = 0.3
    room = make_room(bob, seats=[0])
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    match = matches.start_match(room, bob, games=1, program_timeout=1, cpu_level="easy",
                                now=NOW)
    game = Game.objects.get(match=match)
    # Seat 2 (a CPU) has just played R5: seat 3 (a CPU) is on turn, bob (seat 0, a
    # program) holds the other R5, a cut-in chance.
    engine = position([["R5", "G7", "B1"], ["B9", "B8", "Y2"], ["R5", "G2"], ["Y9", "Y3"]],
                      first="R3", deck=["R9"] * 10, first_player=2, timeout=10, now=NOW)
    engine.play(2, ["R5"], NOW)
    assert engine.turn == 3 and "cut_in" in engine.view(0)["chances"]
    set_position(game, engine)
    with transaction.atomic():
        locked = play.locked_with_seats(pk=game.pk)
        cpu.do_schedule(locked, engines.load(locked), play.seats_of(locked), NOW)
        locked.save(update_fields=["cpu_due", "next_deadline"])
    game.refresh_from_db()
    assert game.cpu_due.timestamp() - NOW == pytest.approx(0.3, abs=0.001)  # before: 0

    play.perform_action(game, bob, {"type": "decline"}, now=NOW + 0.1)  # bob answers
    game.refresh_from_db()
    assert game.cpu_due.timestamp() - NOW == pytest.approx(0.1, abs=0.001)  # on at once
