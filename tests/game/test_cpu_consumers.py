"""CPU seats over the live socket: marked as CPUs in what each person receives, and their
moves (run by the sweep, outside any socket) pushed to the person and the watchers."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import sync_to_async
from play_helpers import position, set_position
from test_consumers import next_state, open_socket, quiet

from game.models import Game, Membership
from game.services import clock, cpu, play, rooms

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


def solo_table(owner) -> tuple[int, float]:
    """alice and three normal CPUs, public, with CPU 1 on turn in a known position.
    Returns the room and when the CPU is due."""
    room = rooms.create_room(owner, name="solo")
    for index in (1, 2, 3):
        rooms.add_cpu(room, owner, index, "normal")
    now = time.time()
    game = play.start_game(room, owner, now=now)
    hands = [["G1", "G2"], ["R5", "B7", "Y2"], ["Y9", "Y8"], ["G9", "G8"]]
    engine = position(hands, first_player=1, timeout=60, now=now)
    set_position(game, engine)
    cpu.do_schedule(game, engine, play.seats_of(game), now)
    game.save(update_fields=["cpu_due", "next_deadline"])
    return room.pk, game.cpu_due.timestamp()


async def test_cpu_seats_are_marked_and_their_moves_pushed(alice, mallory):
    room_id, due = await sync_to_async(solo_table)(alice)
    person = await open_socket(alice, room_id)
    watcher = await open_socket(mallory, room_id)
    _, state = await next_state(person)
    assert [p["kind"] for p in state["players"]] == ["human", "cpu", "cpu", "cpu"]
    assert {p.get("level") for p in state["players"][1:]} == {"normal"}
    assert [s["kind"] for s in state["room"]["seats"]] == ["human", "cpu", "cpu", "cpu"]
    await next_state(watcher)

    assert await sync_to_async(clock.expire_due_games)(now=due) == 1
    for socket in (person, watcher):
        _, pushed = await next_state(socket)
        assert pushed["version"] == 1 and pushed["players"][1]["kind"] == "cpu"
        # CPU 1 (R5 B7 Y2 on R3) moved: played a card or drew one.
        assert pushed["view"]["hand_counts"][1] in (2, 4)
    assert pushed["seat"] is None and "hand" not in pushed["view"]  # the watcher's copy
    await quiet(person, watcher)
    await person.disconnect()
    await watcher.disconnect()


async def test_removing_a_cpu_tells_the_room_to_refetch(alice):
    room = await sync_to_async(rooms.create_room)(alice, name="table")
    await sync_to_async(rooms.add_cpu)(room, alice, 1, "easy")
    socket = await open_socket(alice, room.pk)
    _, state = await next_state(socket)
    assert state["room"]["seats"][1]["kind"] == "cpu"
    await sync_to_async(rooms.remove_cpu)(room, alice, 1)
    _, state = await next_state(socket)
    assert state["room"]["seats"][1] is None
    assert not await Membership.objects.filter(room=room, cpu_level__isnull=False).aexists()
    assert not await Game.objects.filter(room=room).aexists()
    await socket.disconnect()
