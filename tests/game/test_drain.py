"""Issue #30, restarts that lose nothing: a draining server process (game/live/drain.py)
finishes the moves it has begun, closes every socket with 1012 counted out of the shared
registry, reads nothing more, and turns new sockets away with 1012. In-process sockets
here; tests/e2e/test_stack_restart.py sends SIGTERM to a real daphne."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from play_helpers import NOW, make_room, position, set_position
from socket_helpers import closed_with, next_state, open_socket, quiet

from game.live import drain
from game.models import Game
from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)

HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"]]


@pytest.fixture(autouse=True)
def _fresh_drain(settings):
    settings.CELERY_BROKER_URL = ""
    drain.reset()
    yield
    drain.reset()


@pytest.fixture
def game(alice, bob) -> Game:
    room = make_room(alice, bob)
    started = play.start_game(room, alice, now=NOW)
    set_position(started, position(HANDS, first_player=1, timeout=60, now=time.time()))
    return Game.objects.get(pk=started.pk)


def a_move(state: dict[str, Any]) -> dict[str, Any]:
    legal = state["view"]["legal_actions"]
    return next(a for a in legal if a["type"] in ("play", "draw"))


async def close_frame(socket: Any) -> int:
    """The close code, past any frames still arriving before it."""
    while True:
        message = await socket.receive_output(5)
        if message["type"] == "websocket.close":
            return int(message["code"])


async def test_a_socket_opened_while_draining_is_closed_with_1012(game, alice):
    drain.current().begin()
    socket = await open_socket(alice, game.room_id)
    assert await closed_with(socket) == drain.CLOSE_SERVICE_RESTART


async def test_the_drain_closes_every_socket_with_1012_and_counts_it_out(
    game, alice, bob, settings
):
    """Counted out before the close: with a cap of one socket each, the reconnect of
    every user is admitted at once, not refused with 4409 for the old socket."""
    settings.DOBON_WS_MAX_SOCKETS_PER_USER = 1
    sockets = [await open_socket(user, game.room_id) for user in (alice, bob)]
    for socket in sockets:
        await next_state(socket)
    report = await drain.current().run(time.monotonic() + 5)
    assert report.settled and report.closed == 2
    for socket in sockets:
        assert await close_frame(socket) == drain.CLOSE_SERVICE_RESTART
    drain.reset()  # the next process
    again = [await open_socket(user, game.room_id) for user in (alice, bob)]
    for socket in again:
        _, state = await next_state(socket)
        assert state["version"] == game.version
        await socket.disconnect()


async def test_a_move_begun_before_the_drain_reaches_every_socket_before_1012(
    game, alice, bob
):
    alice_socket, bob_socket = [await open_socket(u, game.room_id) for u in (alice, bob)]
    _, state = await next_state(bob_socket)
    await next_state(alice_socket)
    await bob_socket.send_json_to({"type": "action", "action": a_move(state)})
    # The move is read and queued (or running) when the drain begins.
    while not (drain.current().moves or any(s.busy() for s in drain.current().sockets)):
        await asyncio.sleep(0.001)
    report = await drain.current().run(time.monotonic() + 5)
    assert report.settled
    for socket in (alice_socket, bob_socket):
        _, pushed = await next_state(socket)
        assert pushed["version"] == game.version + 1
        assert await close_frame(socket) == drain.CLOSE_SERVICE_RESTART
    assert (await sync_to_async(Game.objects.get)(pk=game.pk)).version == game.version + 1


async def test_a_draining_socket_reads_nothing_more(game, alice, bob):
    """What a client sends once the drain began is dropped unread: no move, no answer
    (the client resumes elsewhere and sends again)."""
    bob_socket = await open_socket(bob, game.room_id)
    _, state = await next_state(bob_socket)
    drain.current().begin()
    await bob_socket.send_json_to({"type": "action", "action": a_move(state)})
    await bob_socket.send_json_to({"type": "sync"})
    await quiet(bob_socket)
    assert drain.current().quiet()
    await drain.current().close_all()
    assert await close_frame(bob_socket) == drain.CLOSE_SERVICE_RESTART
    assert (await sync_to_async(Game.objects.get)(pk=game.pk)).version == game.version


async def test_settle_gives_up_at_its_deadline():
    """A move that never ends does not hold the drain past its deadline."""
    stuck = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    drain.current().track(stuck)
    started = time.monotonic()
    assert not await drain.current().settle(started + 0.2)
    assert time.monotonic() - started < 1.0
    stuck.cancel()



async def test_a_restarts_1012_is_not_counted_as_a_refusal(game, alice, bob):
    """/metrics: a deploy's closes would otherwise show as a burst of 'refusals' with code
    1012 in `dobon_socket_refusals_total`; a socket the site refuses still counts there
    (tests/game/test_metrics.py)."""
    from game.metrics import SOCKET_REFUSALS

    before = SOCKET_REFUSALS.labels(code="1012")._value.get()
    sockets = [await open_socket(user, game.room_id) for user in (alice, bob)]
    for socket in sockets:
        await next_state(socket)
    report = await drain.current().run(time.monotonic() + 5)
    assert report.closed == 2
    for socket in sockets:
        assert await close_frame(socket) == drain.CLOSE_SERVICE_RESTART
    assert SOCKET_REFUSALS.labels(code="1012")._value.get() == before
