"""Program clients (docs/bots-api.md): Bearer tokens on the real ASGI app, whole games
against CPU players, refusals with the documented close code, and §R15 fairness."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from bot_helpers import closed_with, new_key, open_token_socket, play_games_as_program
from play_helpers import make_room, seat_cpus
from socket_helpers import open_socket

from accounts import tokens
from game.models import Game, GameEvent, Membership
from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast_cpus(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0  # CPUs act as soon as the sweep runs


def bob_and_three_cpus(alice: Any, bob: Any, level: str = "normal") -> Any:
    """alice owns the room and watches; bob sits on seat 0, CPUs on seats 1–3."""
    room = make_room(alice, seats=[0])
    Membership.objects.filter(room=room, user=alice).delete()
    Membership.objects.create(room=room, user=bob, seat_index=0)
    return seat_cpus(room, level, level, level)


def seat_of(frames: list[dict[str, Any]]) -> int:
    return next(f["seat"] for f in frames if f["type"] == "state" and f["seat"] is not None)


async def test_a_token_client_plays_whole_games_against_cpus(alice, bob):
    room = await sync_to_async(bob_and_three_cpus)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    socket = await open_token_socket(key, room.pk)
    first = await socket.receive_json_from(3)
    assert first["type"] == "state" and first["game"] is None
    for _ in range(2):
        await sync_to_async(play.start_game)(room, alice)
        await play_games_as_program(socket, games=1)
    await socket.disconnect()
    games = await sync_to_async(list)(Game.objects.filter(room=room).order_by("number"))
    assert [g.status for g in games] == ["finished", "finished"]
    # bob acted himself: some logged versions carry his seat's own action (not timeouts)
    acted = await sync_to_async(
        GameEvent.objects.filter(game__room=room, step__seat=0, step__action__isnull=False).count
    )()
    assert acted > 0


async def test_the_token_seat_is_marked_as_a_program_while_connected(alice, bob):
    room = await sync_to_async(bob_and_three_cpus)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    socket = await open_token_socket(key, room.pk)
    await socket.receive_json_from(3)
    await sync_to_async(play.start_game)(room, alice)
    frame = await socket.receive_json_from(3)
    while frame["type"] != "state" or frame["game"] is None:
        frame = await socket.receive_json_from(3)
    kinds = [p["kind"] for p in frame["players"]]
    assert kinds == ["program", "cpu", "cpu", "cpu"]
    assert frame["room"]["seats"][0]["kind"] == "program"
    await socket.disconnect()
    member = await sync_to_async(Membership.objects.get)(room=room, user=bob)
    assert member.program_sockets == 0
    seats = await sync_to_async(play.seats_of)(await sync_to_async(room.running_game)())
    assert seats[0].to_dict()["kind"] == "human"


async def test_r15_a_token_client_never_receives_another_seats_hand(alice, bob):
    """§R15: everything a program receives is its own seat's view; events addressed to
    other seats (the cards they draw) never reach it; no hand but its own is shown
    before the game ends, except hands revealed by a dobon (§R9.5)."""
    room = await sync_to_async(bob_and_three_cpus)(alice, bob, level="strong")
    key = await sync_to_async(new_key)(bob)
    socket = await open_token_socket(key, room.pk)
    await socket.receive_json_from(3)
    await sync_to_async(play.start_game)(room, alice)
    frames = await play_games_as_program(socket, games=1)
    await socket.disconnect()
    mine = seat_of(frames)
    states = [f for f in frames if f["type"] == "state" and f["game"] is not None]
    assert states
    private_elsewhere = await sync_to_async(list)(
        GameEvent.objects.filter(game__room=room, to_seat__isnull=False)
        .exclude(to_seat=mine).values_list("data", flat=True)
    )
    assert private_elsewhere, "other seats drew cards privately in a whole game"
    received = [e for f in states for e in f["events"]]
    for event in received:
        assert event["to"] in (None, mine)
        assert event not in private_elsewhere
    for frame in states:
        view = frame["view"]
        assert frame["seat"] == mine and view["seat"] == mine
        assert "hands" not in view
        if frame["status"] == "running":
            revealed = [s for s, hand in enumerate(view["revealed"]) if hand is not None]
            dobons = {e["seat"] for e in received if e["type"] == "dobon"}
            assert set(revealed) <= dobons | {mine}


async def test_a_revoked_token_is_refused_with_4401(alice, bob):
    room = await sync_to_async(make_room)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    token_id = await sync_to_async(lambda: bob.api_tokens.get().pk)()
    await sync_to_async(tokens.revoke_token)(bob, token_id)
    socket = await open_token_socket(key, room.pk)
    assert await closed_with(socket) == (4401, "invalid_token")


async def test_an_unknown_token_is_refused_with_4401(alice, bob):
    room = await sync_to_async(make_room)(alice, bob)
    socket = await open_token_socket("dobon_" + "x" * 43, room.pk)
    assert await closed_with(socket) == (4401, "invalid_token")


async def test_revoking_closes_the_tokens_open_socket(alice, bob):
    room = await sync_to_async(make_room)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    socket = await open_token_socket(key, room.pk)
    await socket.receive_json_from(3)
    token_id = await sync_to_async(lambda: bob.api_tokens.get().pk)()
    await sync_to_async(tokens.revoke_token)(bob, token_id)
    assert await closed_with(socket) == (4401, "token_revoked")


async def test_a_token_cannot_watch_a_private_room_its_user_may_not_see(alice, bob, mallory):
    room = await sync_to_async(make_room)(alice, bob, is_public=False)
    key = await sync_to_async(new_key)(mallory)
    socket = await open_token_socket(key, room.pk)
    assert (await closed_with(socket))[0] == 4404


async def test_a_token_cannot_act_where_its_user_does_not_sit(alice, bob, mallory):
    room = await sync_to_async(make_room)(alice, bob)
    await sync_to_async(play.start_game)(room, alice)
    key = await sync_to_async(new_key)(mallory)
    socket = await open_token_socket(key, room.pk)
    await socket.receive_json_from(3)
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    message = await socket.receive_json_from(3)
    while message["type"] == "presence":
        message = await socket.receive_json_from(3)
    assert message["type"] == "error" and message["code"] == "not_seated"
    await socket.disconnect()


async def test_a_browser_socket_without_the_origin_is_still_refused(alice, bob):
    """The origin check is skipped for Bearer clients only."""
    from channels.testing import WebsocketCommunicator

    from dobon_site.asgi import application

    room = await sync_to_async(make_room)(alice, bob)
    socket = WebsocketCommunicator(
        application, f"/ws/rooms/{room.pk}/", headers=[(b"origin", b"https://evil.example")]
    )
    connected, _ = await socket.connect()
    assert not connected


async def test_in_a_match_a_token_client_sees_each_games_end_before_the_next_start(alice, bob):
    """The next match game starts after the finished game's push: a socket drops frames
    of older games, so the other order would hide the end of every game but the last."""
    from game.services import matches

    room = await sync_to_async(bob_and_three_cpus)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    socket = await open_token_socket(key, room.pk)
    await socket.receive_json_from(3)
    match = await sync_to_async(matches.start_match)(room, alice, 2)
    frames = await play_games_as_program(socket, games=2)
    await socket.disconnect()
    ends = [f["game"] for f in frames if f["type"] == "state" and f["status"] == "finished"]
    starts = [f["game"] for f in frames if f["type"] == "state" and f.get("version") == 0]
    assert len(set(ends)) == 2 and ends[0] < starts[-1]
    await sync_to_async(match.refresh_from_db)()
    assert match.games_finished == 2 and match.status == "finished"


async def test_token_sockets_count_against_the_users_socket_cap(alice, bob, settings):
    """Token clients are capped per user too (4409), by a cap of their own (issue 20)."""
    settings.DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER = 1
    room = await sync_to_async(make_room)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    first = await open_token_socket(key, room.pk)
    await first.receive_json_from(3)
    second = await open_token_socket(key, room.pk)
    assert (await closed_with(second))[0] == 4409
    await first.disconnect()


async def test_a_stolen_tokens_sockets_cannot_lock_the_owner_out(alice, bob, settings):
    """Issue 20: a stolen token's 8 sockets took the owner's whole socket cap and the
    owner's browser got 4409. Program sockets now count against a cap of their own."""
    settings.DOBON_WS_MAX_SOCKETS_PER_USER = 2
    settings.DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER = 2
    room = await sync_to_async(make_room)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    thief = [await open_token_socket(key, room.pk) for _ in range(2)]
    for socket in thief:
        await socket.receive_json_from(3)
    extra = await open_token_socket(key, room.pk)
    assert (await closed_with(extra))[0] == 4409  # the thief is capped
    browsers = [await open_socket(bob, room.pk) for _ in range(2)]
    for socket in browsers:
        frame = await socket.receive_json_from(3)
        assert frame["type"] == "state"  # the owner still gets in
    for socket in thief + browsers:
        await socket.disconnect()


async def test_deactivating_a_user_closes_every_socket_of_theirs(alice, bob):
    """Issue 20: a token (and a session socket) survived a deactivation."""
    room = await sync_to_async(make_room)(alice, bob)
    key = await sync_to_async(new_key)(bob)
    program = await open_token_socket(key, room.pk)
    await program.receive_json_from(3)
    browser = await open_socket(bob, room.pk)
    await browser.receive_json_from(3)

    def deactivate() -> None:
        user = type(bob).objects.get(pk=bob.pk)
        user.is_active = False
        user.save()

    await sync_to_async(deactivate)()
    assert (await closed_with(program))[0] == 4401
    assert (await closed_with(browser))[0] == 4401
