"""The live table socket with several people at once: who gets what, and who does not."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse
from play_helpers import NOW, make_room, position, set_position
from socket_helpers import (
    closed_with,
    next_frame,
    next_state,
    open_socket,
    presence_of,
    quiet,
)

from dobon_site.asgi import application
from game.models import Game, Membership
from game.rules import Game as Engine
from game.services import play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def table(alice, bob, carol, dave):
    """A public room: alice (owner), bob, carol seated; dave seated too, all four play."""
    return make_room(alice, bob, carol, dave)


HANDS = [["G1", "G2", "B4"], ["R5", "B7", "G4"], ["Y9", "Y8", "B9"], ["G9", "G8", "Y6"]]


def start_at_position(room, owner, hands=HANDS, deck=None) -> Game:
    game = play.start_game(room, owner, now=NOW)
    # A fixed position pushed as version 1, so tests know every hand.
    engine = position(hands, deck=deck, first_player=1, timeout=60, now=time.time())
    set_position(game, engine)
    return game


async def connect_all(room_id: int, *users: Any) -> list[WebsocketCommunicator]:
    sockets = []
    for user in users:
        socket = await open_socket(user, room_id)
        _, state = await next_state(socket)
        sockets.append(socket)
    return sockets


# -- access ----------------------------------------------------------------------------------


async def test_anonymous_is_refused_with_4401(table):
    socket = await open_socket(None, table.pk)
    assert await closed_with(socket) == 4401


async def test_outsider_cannot_watch_a_private_room_4404_like_no_room(alice, bob, mallory):
    """One code for "no such room" and "not yours to see", as the room page's 404."""
    room = await sync_to_async(make_room)(alice, bob, is_public=False)
    outsider = await open_socket(mallory, room.pk)
    assert await closed_with(outsider) == 4404
    member = await open_socket(bob, room.pk)
    _, state = await next_state(member)
    assert state["view"] is None
    await member.disconnect()


def invited_session_cookie(user: Any, room: Any) -> str:
    """The session of someone who opened the room's invite link but has not sat down."""
    client = Client()
    client.force_login(user)
    client.get(reverse("game:join", kwargs={"code": room.invite_code}))
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def test_invited_session_may_watch_a_private_room_like_its_page(alice, bob, mallory):
    """The socket follows the room page's rule: the invite link lets you look first."""
    room = await sync_to_async(make_room)(alice, bob, is_public=False)
    cookie = await sync_to_async(invited_session_cookie)(mallory, room)
    headers = [
        (b"origin", b"http://testserver"),
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    _, state = await next_state(socket)
    assert state["seat"] is None and state["view"] is None
    await socket.disconnect()


async def test_no_such_room_4404(alice):
    socket = await open_socket(alice, 999_999)
    assert await closed_with(socket) == 4404


async def test_without_a_game_the_state_carries_room_info(table, alice):
    socket = await open_socket(alice, table.pk)
    _, state = await next_state(socket)
    assert state["view"] is None and state["version"] is None
    names = [s and s["username"] for s in state["room"]["seats"]]
    assert names == ["alice", "bob", "carol", "dave"]
    assert state["room"]["last_result"] is None and state["room"]["next_rate"] == 1
    await socket.disconnect()


# -- privacy --------------------------------------------------------------------------------------


async def test_each_player_sees_only_its_own_hand_and_spectators_none(
    table, alice, bob, carol, dave, mallory
):
    users = (alice, bob, carol, dave)
    sockets = await connect_all(table.pk, *users)
    watcher = await connect_all(table.pk, mallory)
    game = await sync_to_async(play.start_game)(table, alice, now=NOW)
    engine = Engine.from_dict((await Game.objects.aget(pk=game.pk)).state)
    hands = [engine.hand(s) for s in range(4)]
    for seat, socket in enumerate(sockets):
        got, state = await next_state(socket)
        assert [m["type"] for m in got] == ["state"], "events travel inside the state frame"
        assert [e["type"] for e in state["events"]] == ["start"] and state["version"] == 0
        assert state["from_version"] == -1
        assert state["seat"] == seat and state["view"]["hand"] == hands[seat]
        for other in range(4):
            if other != seat:
                assert hands[other] != state["view"]["hand"] or hands[other] == hands[seat]
        assert "hand" in json.dumps(state) and state["room"]["seats"][seat]["username"]
    got, state = await next_state(watcher[0])
    assert state["seat"] is None and "hand" not in state["view"]
    assert state["view"]["legal_actions"] == [] and state["view"]["revealed"] == [None] * 4
    await quiet(*sockets, *watcher)
    for socket in [*sockets, *watcher]:
        await socket.disconnect()


async def test_a_drawn_card_is_told_only_to_the_drawer(table, alice, bob, carol, dave, mallory):
    await sync_to_async(start_at_position)(table, alice, deck=["R9"] * 5)
    sockets = await connect_all(table.pk, alice, bob, carol, dave)
    watcher = (await connect_all(table.pk, mallory))[0]
    await sockets[1].send_json_to({"type": "action", "action": {"type": "draw"}})
    for seat, socket in enumerate([*sockets, watcher]):
        got, state = await next_state(socket)
        kinds = [e["type"] for e in state["events"]]
        assert state["version"] == 1 and state["from_version"] == 0 and len(got) == 1
        if seat == 1:
            assert "drawn" in kinds and state["view"]["hand"] == ["R5", "B7", "G4", "R9"]
            drawn = next(e for e in state["events"] if e["type"] == "drawn")
            assert drawn["cards"] == ["R9"] and drawn["to"] == 1
        else:
            assert "drawn" not in kinds and "R9" not in json.dumps(got)
            assert state["view"]["hand_counts"][1] == 4
    await quiet(*sockets, watcher)
    for socket in [*sockets, watcher]:
        await socket.disconnect()


# -- actions and refusals ---------------------------------------------------------------------


async def test_a_move_reaches_every_socket_with_its_version(table, alice, bob, carol, dave):
    await sync_to_async(start_at_position)(table, alice)
    sockets = await connect_all(table.pk, alice, bob, carol, dave)
    await sockets[1].send_json_to({"type": "action", "action": {"type": "play", "cards": ["R5"]}})
    for socket in sockets:
        got, state = await next_state(socket)
        assert {m["version"] for m in got} == {1}
        assert state["view"]["top"] == "R5" and state["view"]["turn"] == 2
    assert state["deadline"] == pytest.approx(state["view"]["turn_deadline"])
    await quiet(*sockets)
    for socket in sockets:
        await socket.disconnect()


async def test_a_refusal_goes_only_to_the_sender(table, alice, bob, carol, dave):
    game = await sync_to_async(start_at_position)(table, alice)
    sockets = await connect_all(table.pk, alice, bob, carol, dave)
    await sockets[2].send_json_to({"type": "action", "action": {"type": "play", "cards": ["Y9"]}})
    error = await next_frame(sockets[2])
    assert error["type"] == "error" and error["code"] == "not_your_turn"
    assert error["message"] == "あなたの手番ではありません。"
    await quiet(*sockets)
    assert (await Game.objects.aget(pk=game.pk)).version == 0
    for socket in sockets:
        await socket.disconnect()


async def test_refusal_messages_follow_the_language_cookie(table, alice, bob):
    await sync_to_async(start_at_position)(table, alice)
    socket = await open_socket(alice, table.pk, language="en")
    await next_state(socket)
    await socket.send_json_to({"type": "action", "action": {"type": "pass"}})
    error = await next_frame(socket)
    assert error["code"] == "not_your_turn" and error["message"] == "It is not your turn."
    await socket.disconnect()


async def test_an_action_decided_on_an_older_version_is_refused_as_stale(table, alice, bob):
    """The optional `version` of an action: a table that moved on since refuses it and
    changes nothing; the current version is accepted; a version that is not an integer
    is not understood."""
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, bob))[0]
    current = (await Game.objects.aget(pk=game.pk)).version
    draw = {"type": "draw"}
    await socket.send_json_to({"type": "action", "action": draw, "version": current - 1})
    assert (await next_frame(socket))["code"] == "stale"
    await socket.send_json_to({"type": "action", "action": draw, "version": "latest"})
    assert (await next_frame(socket))["code"] == "bad_action"
    assert (await Game.objects.aget(pk=game.pk)).version == current
    await socket.send_json_to({"type": "action", "action": draw, "version": current})
    _, state = await next_state(socket)
    assert state["version"] == current + 1 and len(state["view"]["hand"]) == 4
    await socket.disconnect()


async def test_a_spectator_cannot_act(table, alice, mallory):
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, mallory))[0]
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    error = await next_frame(socket)
    assert error["code"] == "not_seated"
    assert (await Game.objects.aget(pk=game.pk)).version == 0
    await socket.disconnect()


async def test_acting_without_a_game_is_no_game(table, alice):
    socket = (await connect_all(table.pk, alice))[0]
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    assert (await next_frame(socket))["code"] == "no_game"
    await socket.disconnect()


async def test_garbage_is_refused_and_the_socket_stays_usable(table, alice, bob):
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, bob))[0]
    cases = [
        ("{not json", None, "bad_json"),
        ("[1, 2]", None, "bad_json"),
        (None, b"\x00\x01", "bad_json"),
        (json.dumps({"type": "hello"}), None, "unknown_type"),
        (json.dumps({"type": "action", "action": "draw"}), None, "bad_action"),
        (json.dumps({"type": "action", "action": {"type": "play", "cards": 5}}), None,
         "bad_action"),
        (json.dumps({"type": "sync", "pad": "x" * settings.DOBON_WS_MAX_MESSAGE_BYTES}), None,
         "too_large"),
    ]
    for text, data, code in cases:
        await socket.send_to(text_data=text, bytes_data=data)
        error = await next_frame(socket)
        assert error["type"] == "error" and error["code"] == code, (text, data)
        assert error["message"]
    await socket.send_json_to({"type": "sync"})
    _, state = await next_state(socket)
    assert state["version"] == 0 and state["view"]["hand"] == HANDS[1]
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    _, state = await next_state(socket)
    assert state["version"] == 1
    assert (await Game.objects.aget(pk=game.pk)).version == 1
    await socket.disconnect()


async def test_a_flood_is_rate_limited_and_the_socket_recovers(table, alice, bob, clock):
    """Counted on arrival against an injected clock: exact, whatever the machine's speed."""
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, bob))[0]
    limit = settings.DOBON_WS_MAX_MESSAGES_PER_SECOND
    for _ in range(limit + 10):
        await socket.send_to(text_data=json.dumps({"type": "hello"}))
    codes = [(await next_frame(socket))["code"] for _ in range(limit + 10)]
    assert codes == ["unknown_type"] * limit + ["rate_limited"] * 10
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    first = await next_frame(socket)
    assert first == {"type": "error", "code": "rate_limited", "message": first["message"]}
    assert (await Game.objects.aget(pk=game.pk)).version == 0
    clock.advance(1.0)
    await socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    _, state = await next_state(socket)
    assert state["version"] == 1
    await socket.disconnect()


# -- resync --------------------------------------------------------------------------------


async def test_a_reconnecting_client_gets_the_exact_current_table(table, alice, bob, carol):
    game = await sync_to_async(start_at_position)(table, alice)
    alice_socket, bob_socket = await connect_all(table.pk, alice, bob)
    await alice_socket.disconnect()
    await bob_socket.send_json_to({"type": "action", "action": {"type": "draw"}})
    await next_state(bob_socket)
    await bob_socket.send_json_to({"type": "action", "action": {"type": "pass"}})
    await next_state(bob_socket)
    back = await open_socket(alice, table.pk)
    _, state = await next_state(back)
    fresh = await sync_to_async(play.table_for)(table, alice)
    assert state["version"] == 2 and state["view"] == fresh["view"]
    assert state["game"] == game.pk and state["view"]["hand"] == HANDS[0]
    await back.send_json_to({"type": "sync"})
    _, again = await next_state(back)
    assert again["version"] == 2 and again["view"] == state["view"]
    for socket in (back, bob_socket):
        await socket.disconnect()


async def test_abort_and_finish_bring_everyone_back_to_the_room(table, alice, bob, carol, dave):
    hands = [["G1", "G2"], ["R5"], ["Y9", "Y8"], ["G9", "G8"]]
    game = await sync_to_async(start_at_position)(table, alice, hands=hands)
    sockets = await connect_all(table.pk, alice, bob, carol, dave)
    await sockets[1].send_json_to({"type": "action", "action": {"type": "play", "cards": ["R5"]}})
    for socket in sockets:
        got, state = await next_state(socket)
        assert state["status"] == "finished" and state["view"]["result"]["kind"] == "agari"
        assert state["view"]["revealed"][0] == ["G1", "G2"]
        assert state["room"]["seats"][1]["points"] == 37
    await sockets[0].send_json_to({"type": "sync"})
    _, state = await next_state(sockets[0])
    assert state["view"] is None and state["room"]["last_result"]["result"]["winners"] == [1]
    # Walk-through item 1: after the end (a reload, a late arrival) the last result still
    # carries what the settlement shows: the final hands (§R15.2), the last play, the dobon.
    last = state["room"]["last_result"]
    assert last["hands"] == [["G1", "G2"], [], ["Y9", "Y8"], ["G9", "G8"]]
    assert last["last_play"]["seat"] == 1 and last["last_play"]["cards"] == ["R5"]
    assert last["dobon"] is None
    game2 = await sync_to_async(play.start_game)(table, alice, now=NOW + 100)
    for socket in sockets:
        _, state = await next_state(socket)
        assert state["game"] == game2.pk and state["version"] == 0
        # A running game's hands never ride along: only the finished game's, above.
        room = dict(state["room"])
        assert room.pop("last_result")["game"] == game.pk != game2.pk
        assert '"hands"' not in json.dumps(room)
    await sync_to_async(play.abort_game)(game2, alice)
    for socket in sockets:
        _, state = await next_state(socket)
        assert state["view"] is None and state["room"]["last_result"]["status"] == "aborted"
        # An aborted game's hands were never revealed: none in its last result.
        assert "hands" not in state["room"]["last_result"]
    for socket in sockets:
        await socket.disconnect()


async def test_a_user_group_push_for_another_room_is_ignored(table, alice, bob, carol):
    other = await sync_to_async(make_room)(carol, alice)
    in_table = (await connect_all(table.pk, alice))[0]
    await sync_to_async(play.start_game)(other, carol, now=NOW)
    await quiet(in_table)
    await in_table.disconnect()


async def test_someone_seated_after_the_start_watches_as_a_spectator(table, alice, mallory):
    await sync_to_async(start_at_position)(table, alice)
    await Membership.objects.filter(room=table, seat_index=3).adelete()
    await Membership.objects.acreate(room=table, user=mallory, seat_index=3)
    socket = await open_socket(mallory, table.pk)
    _, state = await next_state(socket)
    assert state["seat"] is None and "hand" not in state["view"]
    await socket.disconnect()


async def test_a_player_who_sits_out_the_next_game_watches_it(alice, bob, carol):
    room = await sync_to_async(make_room)(alice, bob, carol)
    hands = [["G1", "G2"], ["R5"], ["Y9", "Y8"]]
    await sync_to_async(start_at_position)(room, alice, hands=hands)
    sockets = await connect_all(room.pk, alice, bob, carol)
    await sockets[1].send_json_to({"type": "action", "action": {"type": "play", "cards": ["R5"]}})
    for socket in sockets:
        _, state = await next_state(socket)
        assert state["status"] == "finished"
    await Membership.objects.filter(room=room, user=carol).adelete()
    game2 = await sync_to_async(play.start_game)(room, alice, now=NOW + 100)
    _, watched = await next_state(sockets[2])
    assert watched["game"] == game2.pk and watched["seat"] is None
    assert "hand" not in watched["view"]
    for seat in (0, 1):
        _, state = await next_state(sockets[seat])
        assert state["seat"] == seat and "hand" in state["view"]
    await quiet(*sockets)
    for socket in sockets:
        await socket.disconnect()


def fake_push(room_id: int, version: int, game: int = 10**6) -> dict[str, Any]:
    """A private push as another process would send it (only the fields a socket reads)."""
    view = {"hand": ["R1"], "deadline": None, "turn_deadline": None}
    return {"type": "game.private", "room": room_id, "game": game, "number": 1,
            "version": version, "status": "running", "seat": 0, "view": view,
            "events": [{"type": "turn", "to": None, "seat": 0}], "players": [],
            "from_version": version - 1, "room_info": None}


async def test_a_push_that_overtook_its_predecessor_waits_for_it(table, alice, monkeypatch):
    from channels.layers import get_channel_layer

    from game.live.consumers import RoomConsumer

    # Long enough that a busy machine cannot release version 3 before 2 arrives.
    monkeypatch.setattr(RoomConsumer, "reorder_wait", 1.0)

    socket = (await connect_all(table.pk, alice))[0]
    layer = get_channel_layer()
    group = play.user_group(alice.pk)
    for version in (1, 3, 2):  # version 3 was committed by a faster process
        await layer.group_send(group, fake_push(table.pk, version))
    versions = [(await next_state(socket))[1]["version"] for _ in range(3)]
    assert versions == [1, 2, 3]
    await layer.group_send(group, fake_push(table.pk, 5))  # 4 never comes
    # Nothing but the debounced presence frame (which may come now) while 5 waits for 4.
    await quiet(socket)
    _, state = await next_state(socket)
    assert state["version"] == 5 and state["from_version"] == 4  # the client sees the gap
    await layer.group_send(group, fake_push(table.pk, 4))  # too late: dropped
    await quiet(socket)
    await socket.disconnect()


# -- protocol v2: room panel, presence, resume ---------------------------------------------


async def test_the_room_panel_lists_seats_standings_and_the_last_result(table, alice, bob):
    hands = [["G1", "G2"], ["R5"], ["Y9", "Y8"], ["G9", "G8"]]
    game = await sync_to_async(start_at_position)(table, alice, hands=hands)
    socket = (await connect_all(table.pk, alice))[0]
    await sync_to_async(play.perform_action)(game, bob, {"type": "play", "cards": ["R5"]})
    _, state = await next_state(socket)
    room = state["room"]
    assert room["is_public"] is True and room["running_game"] is None
    # Issue #34 adds each seat's rating (a new player: provisional, "?"; docs/ratings.md).
    assert room["seats"][1] == {
        "index": 1, "username": "bob", "kind": "human", "points": 37,
        "rating": {"label": "", "provisional": True, "rating": 1120, "text": "?"},
    }
    assert room["standings"][0] == {
        "username": "bob", "kind": "human", "points": 37, "games": 1, "seated": True
    }
    assert [s["games"] for s in room["standings"]] == [1, 1, 1, 1]
    assert room["last_result"]["game"] == game.pk
    assert room["last_result"]["url"] == f"/games/{game.pk}/"
    assert [p["kind"] for p in state["players"]] == ["human"] * 4
    await socket.disconnect()


async def test_a_seat_change_pushes_the_panel_to_every_socket(table, alice, bob, mallory):
    from game.services import rooms

    await Membership.objects.filter(room=table, seat_index=3).adelete()
    sockets = await connect_all(table.pk, alice, bob)
    await sync_to_async(rooms.take_seat)(table, mallory, 3)
    for socket in sockets:
        got, state = await next_state(socket)
        assert state["room"]["seats"][3]["username"] == "mallory"
        assert state["events"] == [] and state["view"] is None
    await quiet(*sockets)
    for socket in sockets:
        await socket.disconnect()


async def test_presence_follows_who_has_a_socket_open(table, alice, bob):
    alice_socket = await open_socket(alice, table.pk)
    assert await presence_of(alice_socket) == ["alice"]
    bob_socket = await open_socket(bob, table.pk)
    assert await presence_of(bob_socket) == ["alice", "bob"]
    assert await presence_of(alice_socket) == ["alice", "bob"]
    second = await open_socket(bob, table.pk)  # a second tab changes nothing for others
    assert await presence_of(second) == ["alice", "bob"]
    await quiet(alice_socket)
    await second.disconnect()
    assert await alice_socket.receive_nothing(0.2)
    await bob_socket.disconnect()
    assert await presence_of(alice_socket) == ["alice"]
    await alice_socket.disconnect()


async def test_a_plain_sync_carries_no_events(table, alice):
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, alice))[0]
    await socket.send_json_to({"type": "sync"})
    _, state = await next_state(socket)
    assert state["game"] == game.pk and state["events"] == [] and state["from_version"] == 0
    await socket.disconnect()


def play_round(game: Game, users: list[Any]) -> None:
    """Every seat draws one card and passes, starting with bob (seat 1): 8 versions,
    each seat's draw told only to itself."""
    for seat in (1, 2, 3, 0):
        play.perform_action(game, users[seat], {"type": "draw"})
        play.perform_action(game, users[seat], {"type": "pass"})


async def test_a_resuming_sync_sends_exactly_the_missed_events_for_its_seat(
    table, alice, bob, carol, dave, mallory
):
    """A client that dropped versions 2..8 asks from version 1 and gets what the live
    pushes of those versions carried for its seat, and nothing more."""
    game = await sync_to_async(start_at_position)(table, alice, deck=["R9"] * 20)
    live, dropping = await connect_all(table.pk, alice, alice)
    watch_live, watch_dropping = await connect_all(table.pk, mallory, mallory)
    users = [alice, bob, carol, dave]
    await sync_to_async(play_round)(game, users)
    pushed: dict[str, list] = {}
    for name, socket in (("alice", live), ("mallory", watch_live)):
        frames = [(await next_state(socket))[1] for _ in range(8)]
        assert [f["version"] for f in frames] == list(range(1, 9))
        pushed[name] = [e for f in frames[1:] for e in f["events"]]
    for socket in (dropping, watch_dropping):
        for _ in range(8):  # received and thrown away: the client "missed" them
            await next_state(socket)
    for name, socket in (("alice", dropping), ("mallory", watch_dropping)):
        await socket.send_json_to({"type": "sync", "game": game.pk, "version": 1})
        _, state = await next_state(socket)
        assert state["from_version"] == 1 and state["version"] == 8
        assert state["events"] == pushed[name], name
    drawn_to = [e["to"] for e in pushed["alice"] if e["type"] == "drawn"]
    assert drawn_to == [0], "alice sees her own drawn card only"
    assert not any(e["type"] == "drawn" for e in pushed["mallory"])
    assert [e["type"] for e in pushed["mallory"]].count("draw") == 3
    for socket in (live, dropping, watch_live, watch_dropping):
        await socket.disconnect()


async def test_a_resuming_sync_for_another_game_is_a_plain_sync(table, alice):
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, alice))[0]
    for bad in ({"game": game.pk + 1, "version": 0}, {"game": game.pk, "version": 5}):
        await socket.send_json_to({"type": "sync", **bad})
        _, state = await next_state(socket)
        assert state["events"] == [] and state["from_version"] == state["version"] == 0
    await socket.send_json_to({"type": "sync", "game": "x", "version": 0})
    error = await next_frame(socket)
    assert error["code"] == "bad_sync"
    assert error["message"] == "再同期にはゲーム番号とバージョン番号が必要です。"
    await socket.disconnect()


async def test_a_resuming_sync_below_minus_one_counts_as_minus_one(table, alice):
    """docs/protocol.md: a `version` below −1 asks for everything, as −1 does."""
    game = await sync_to_async(start_at_position)(table, alice)
    socket = (await connect_all(table.pk, alice))[0]
    answers = []
    for version in (-1, -7):
        await socket.send_json_to({"type": "sync", "game": game.pk, "version": version})
        _, state = await next_state(socket)
        answers.append((state["from_version"], state["events"]))
    assert answers[0][0] == -1 and answers[0][1], "−1 resumes with the game's whole log"
    assert answers[1] == answers[0]
    await socket.disconnect()
