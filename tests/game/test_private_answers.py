"""A private answer leaves no public trace (issue #31, item 1; TRUMP-RULES.md §T19.3,
RULES.md §R15): a declined chance, or one lapsing by the room's clock or a program's match
clock, while the turn goes on, changes nothing another seat, a watcher (browser or another
account's program) can observe: no frame, no version, no gap. Its own seat is told (same version,
the next private step), resumes exactly, and the others' actions decided on the version
before it are not `stale` (docs/protocol.md, "Versions and private answers").
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from bot_helpers import new_key, open_token_socket
from play_helpers import NOW, make_room, position, set_position
from socket_helpers import next_frame, next_state, open_socket, quiet

from game.history.replay import rebuild
from game.history.selectors import versions_of
from game.models import Game, GameEvent, Membership
from game.rules.dobon_uno.house import PRESETS
from game.services import clock, fixed_setups, matches, play

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def au_table(alice: Any, bob: Any, carol: Any) -> Game:
    """au: alice plays D10 next; carol's S5 + C5 = 10 gives her a dobon chance while bob's
    turn goes on (bob's C4 + §H13 + S2 adds up to nothing)."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="au",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C4", "H13", "S2"], ["S5", "C5"]], first_card="D6",
        deck=["S9", "D1", "C3", "H12", "S11", "H11"], first_player=0,
    )
    return fixed_setups.start_fixed_game(room, alice, setup, now=time.time())


def uno_table(alice: Any, bob: Any, carol: Any) -> Game:
    """Dobon UNO: alice plays R5 next; carol holds the other R5, a cut-in chance (§R6)
    while bob's turn goes on."""
    room = make_room(alice, bob, carol, seat_count=3, timeout_seconds=60)
    game = play.start_game(room, alice, now=time.time())
    engine = position([["R5", "G7", "B1"], ["B9", "B8", "Y2"], ["R5", "G2", "Y7"]],
                      first="R3", deck=["R9"] * 10, first_player=0, timeout=60,
                      now=time.time())
    return set_position(game, engine)


def standard_table(alice: Any, bob: Any, carol: Any) -> Game:
    """Trump standard (no auction: alice is the first player): alice's D10 is a run of one
    for carol, whose S5 + C5 = 10 is a valid target of k = 1 (§T13.3, §T13.4), a dobon
    chance while bob's turn goes on (his C4 + §H13 + S2 = 19 has none)."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="standard",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C4", "H13", "S2"], ["S5", "C5"]], first_card="D6",
        deck=["S9", "D1", "C3", "H12", "S11", "H11"], first_player=0,
    )
    return fixed_setups.start_fixed_game(room, alice, setup, now=time.time())


def competitive_table(alice: Any, bob: Any, carol: Any) -> Game:
    """Dobon UNO under the competitive preset (§H10 blind dobon): on alice's R5 every other
    seat has a dobon chance (§H10.1), carol a cut-in chance too; her one decline lets both
    lapse (§R7) while bob's turn, with his own untold chance, goes on."""
    room = make_room(alice, bob, carol, seat_count=3, timeout_seconds=60,
                     house_rules=dict(PRESETS["competitive"]))
    setup = fixed_setups.FixedSetup(
        hands=[["R5", "G7", "B1"], ["B9", "B8", "Y2"], ["R5", "G2", "Y7"]], first_card="R3",
        deck=["R9"] * 10, first_player=0,
    )
    return fixed_setups.start_fixed_game(room, alice, setup, now=time.time())


FIRST_PLAY = {"au": ["D10"], "standard": ["D10"], "uno": ["R5"], "competitive": ["R5"]}
TABLES = {"au": au_table, "standard": standard_table, "uno": uno_table,
          "competitive": competitive_table}
# Bob's own chances on the first play: only under §H10 has he one (told to him alone).
BOBS_CHANCES = {"au": [], "standard": [], "uno": [], "competitive": ["dobon"]}


def frames_without_time(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in frame.items() if k not in ("server_time", "room")}


@pytest.mark.parametrize("table", ["au", "standard", "uno", "competitive"])
async def test_a_declined_chance_while_the_turn_goes_on_leaves_no_trace(
    table, alice, bob, carol, mallory
):
    """§T19.3 (au §T11, standard §T13.5), §R7/§R15, and under the competitive preset §H10
    (Lapses and declines are told only to their seat)."""
    game = await sync_to_async(TABLES[table])(alice, bob, carol)
    a, b, c = [await open_socket(u, game.room_id) for u in (alice, bob, carol)]
    watcher = await open_socket(mallory, game.room_id)
    program = await open_token_socket(await sync_to_async(new_key)(mallory), game.room_id)
    others = (a, b, watcher, program)
    for socket in (a, b, c, watcher, program):
        await next_state(socket)

    await a.send_json_to({"type": "action", "version": 0,
                          "action": {"type": "play", "cards": FIRST_PLAY[table]}})
    seen = {}
    for name, socket in zip("abcwp", (a, b, c, watcher, program), strict=True):
        _, seen[name] = await next_state(socket)
        assert (seen[name]["version"], seen[name]["private"]) == (1, 0)
    assert seen["c"]["view"]["chances"]
    assert seen["b"]["view"]["chances"] == BOBS_CHANCES[table]

    await c.send_json_to({"type": "action", "action": {"type": "decline"}, "version": 1})
    _, told = await next_state(c)
    # Carol alone is told: the same version, her next private step, her decline.
    assert (told["version"], told["private"], told["from_version"]) == (1, 1, 1)
    assert [e["type"] for e in told["events"]] == ["decline"]
    assert told["view"]["chances"] == []
    await quiet(*others)  # the finding: everyone got a new version with `events: []`

    # Nothing to see on asking either: the others' tables are what they were.
    for name, socket in zip("abwp", others, strict=True):
        await socket.send_json_to({"type": "sync", "game": game.pk, "version": 1})
        _, again = await next_state(socket)
        assert (again["version"], again["private"], again["events"]) == (1, 0, [])
        assert again["view"] == seen[name]["view"]

    # Bob decided on version 1: his move is not stale, and it follows version 1 with no gap.
    await b.send_json_to({"type": "action", "action": {"type": "draw"}, "version": 1})
    for socket in (a, b, c, watcher, program):
        _, moved = await next_state(socket)
        assert (moved["version"], moved["from_version"], moved["private"]) == (2, 1, 0)
        assert "decline" not in [e["type"] for e in moved["events"]]

    # Carol resumes exactly: from before her decline she gets it, from after it not.
    for since, expected in (({"version": 1}, ["decline"]),
                            ({"version": 1, "private": 1}, []),
                            ({"version": 0}, ["decline"])):
        await c.send_json_to({"type": "sync", "game": game.pk, **since})
        _, resumed = await next_state(c)
        assert (resumed["version"], resumed["private"]) == (2, 0)
        declines = [e["type"] for e in resumed["events"] if e["type"] == "decline"]
        assert declines == expected, since
    for socket in (a, b, c, watcher, program):
        await socket.disconnect()

    stored = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert (stored.version, stored.public_version) == (3, 2)  # three changes, two public
    await sync_to_async(replays_exactly)(stored)


def replays_exactly(game: Game) -> None:
    """The log replays to the stored state: the private change is in it, in order."""
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    frames = rebuild(game.initial_state, versions_of(events), game_kind=game.game_kind)
    assert frames[-1].state == game.state


async def test_a_bad_private_step_in_a_resuming_sync_is_bad_sync(alice, bob, carol):
    game = await sync_to_async(au_table)(alice, bob, carol)
    socket = await open_socket(alice, game.room_id)
    await next_state(socket)
    await socket.send_json_to({"type": "sync", "game": game.pk, "version": 0, "private": "1"})
    assert (await next_frame(socket))["code"] == "bad_sync"
    await socket.disconnect()


def test_a_chance_lapsing_by_a_programs_match_clock_is_private(alice, bob, carol, mallory,
                                                               monkeypatch):
    """Carol's program has a 1 s match clock; her cut-in chance lapses by it while bob's
    turn (a person's: the room's 60 s) goes on. The lapse is hers alone: nobody else is
    pushed anything, every other table reads the same, and bob's move on the version he
    saw is accepted."""
    room = make_room(alice, bob, carol, seat_count=3, timeout_seconds=60)
    Membership.objects.filter(room=room, user=carol).update(program_sockets=1)
    match = matches.start_match(room, alice, games=1, program_timeout=1, now=NOW)
    game = Game.objects.get(match=match)
    engine = position([["R5", "G7", "B1"], ["B9", "B8", "Y2"], ["R5", "G2", "Y7"]],
                      first="R3", deck=["R9"] * 10, first_player=0, timeout=60, now=NOW)
    set_position(game, engine)
    play.perform_action(game, alice, {"type": "play", "cards": ["R5"]}, now=NOW)
    room.refresh_from_db()
    tables = {u.username: play.table_for(room, u) for u in (alice, bob, mallory)}

    pushed: list[Any] = []
    monkeypatch.setattr(play.sender, "send", pushed.extend)
    clock.expire_due_games(now=NOW + 1.25)

    game.refresh_from_db()
    lapse = GameEvent.objects.get(game=game, data__type="decline")
    assert lapse.step["auto"] and lapse.to_seat == 2  # §R14 by the program's clock
    assert (game.version, game.public_version, game.private_steps) == (2, 1, {"2": 1})
    assert [m["seat"] for _, m in pushed if m["type"] == "game.private"] == [2]
    assert not [m for _, m in pushed if m["type"] == "game.public"]
    for user in (alice, bob, mallory):
        now_table = play.table_for(room, user)
        assert frames_without_time(now_table) == frames_without_time(tables[user.username])
        visible = play.events_since(game, -1, now_table["seat"])
        assert "decline" not in [e["type"] for e in visible]
    carols = play.table_for(room, carol, (game.pk, 1, 0))
    assert (carols["version"], carols["private"]) == (1, 1)
    assert [e["type"] for e in carols["events"]] == ["decline"]
    play.act_in_room(room.pk, bob, {"type": "draw"}, now=NOW + 2, version=1)  # not stale


def test_staff_who_are_not_superusers_see_the_public_version_only(
    alice, bob, carol, django_user_model, client
):
    """The game's own change count and its clocks count private answers too: the admin
    shows such staff the public version, and refuses lookups on the others (400)."""
    from django.contrib.auth.models import Permission
    from django.urls import reverse

    game = uno_table(alice, bob, carol)
    play.perform_action(game, alice, {"type": "play", "cards": ["R5"]})
    play.perform_action(game, carol, {"type": "decline"})
    game.refresh_from_db()
    assert (game.version, game.public_version) == (2, 1)
    steve = django_user_model.objects.create_user("steve", password="x", is_staff=True)
    steve.user_permissions.add(*Permission.objects.filter(
        content_type__app_label="game", codename__startswith="view_"))
    client.force_login(steve)
    page = client.get(reverse("admin:game_game_change", args=[game.pk])).content.decode()
    assert "field-public_version" in page
    assert "field-version" not in page and "field-next_deadline" not in page
    listing = client.get(reverse("admin:game_game_changelist")).content.decode()
    assert "column-public_version" in listing and "column-version" not in listing
    for lookup in ("version", "next_deadline__gte", "private_steps__has_key"):
        refused = client.get(reverse("admin:game_game_changelist"), {lookup: "2"})
        assert refused.status_code == 400, lookup


def test_a_chance_lapsing_by_the_rooms_clock_while_the_turn_goes_on_is_private(
    alice, bob, carol, mallory, monkeypatch
):
    """§R14/§R14.1 by the room's own clock, applied by the sweep: alice's W opens carol's
    cut-in chance at NOW (deadline NOW + 60); alice names red at NOW + 10, so bob's turn
    runs to NOW + 70. At NOW + 60 carol's chance lapses while bob's turn goes on: only she
    is pushed anything, every other table reads the same, bob's move on the public version
    he saw is not stale and follows it with no gap, carol resumes exactly, the log replays."""
    room = make_room(alice, bob, carol, seat_count=3, timeout_seconds=60)
    game = play.start_game(room, alice, now=NOW)
    engine = position([["W", "G7", "B1"], ["B9", "B8", "Y2"], ["W", "G2", "Y7"]],
                      first="R3", deck=["R9"] * 10, first_player=0, timeout=60, now=NOW)
    set_position(game, engine)
    play.perform_action(game, alice, {"type": "play", "cards": ["W"]}, now=NOW)
    play.perform_action(game, alice, {"type": "color", "color": "R"}, now=NOW + 10)
    room.refresh_from_db()
    tables = {u.username: play.table_for(room, u) for u in (alice, bob, mallory)}
    assert tables["bob"]["view"]["chances"] == [] and tables["bob"]["version"] == 2

    pushed: list[Any] = []
    monkeypatch.setattr(play.sender, "send", pushed.extend)
    assert clock.expire_due_games(now=NOW + 59.75) == 0  # not due yet
    clock.expire_due_games(now=NOW + 60.25)

    game.refresh_from_db()
    lapse = GameEvent.objects.get(game=game, data__type="decline")
    # §R14 by the engine's own clock (the version's input is the moment only, no seat's
    # action, unlike a program's match clock), told to carol alone.
    assert lapse.step == {"now": NOW + 60.25} and lapse.to_seat == 2
    assert (game.version, game.public_version, game.private_steps) == (3, 2, {"2": 1})
    assert game.next_deadline == play.to_datetime(NOW + 70)  # bob's turn goes on
    assert [m["seat"] for _, m in pushed if m["type"] == "game.private"] == [2]
    assert not [m for _, m in pushed if m["type"] == "game.public"]
    for user in (alice, bob, mallory):
        now_table = play.table_for(room, user)
        assert frames_without_time(now_table) == frames_without_time(tables[user.username])
        visible = play.events_since(game, -1, now_table["seat"])
        assert "decline" not in [e["type"] for e in visible]
    for since, expected in (((game.pk, 2, 0), ["decline"]), ((game.pk, 2, 1), [])):
        carols = play.table_for(room, carol, since)
        assert (carols["version"], carols["private"]) == (2, 1)
        assert [e["type"] for e in carols["events"]] == expected, since

    pushed.clear()
    play.act_in_room(room.pk, bob, {"type": "draw"}, now=NOW + 61, version=2)  # not stale
    public = [m for _, m in pushed if m["type"] == "game.public"]
    assert public and {(m["version"], m["from_version"]) for m in public} == {(3, 2)}
    game.refresh_from_db()
    assert (game.version, game.public_version) == (4, 3)
    replays_exactly(game)


def test_t18_a_lapse_on_the_same_deadline_as_the_turns_timeout_stays_private(
    alice, bob, carol, mallory, monkeypatch
):
    """§T18 / §R16.10 by the room's clock in trump au: carol's dobon chance on alice's D10
    and bob's turn share one deadline; the sweep lets her chance lapse first, then plays
    bob's automatic action. The others are pushed bob's action only, following the version
    they saw with no gap and without her lapse; carol alone is told it."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset="au",
                     timeout_seconds=60, seat_count=3)
    setup = fixed_setups.FixedSetup(
        hands=[["D10", "S3", "H7"], ["C4", "H13", "S2"], ["S5", "C5"]], first_card="D6",
        deck=["S9", "D1", "C3", "H12", "S11", "H11"], first_player=0,
    )
    game = fixed_setups.start_fixed_game(room, alice, setup, now=NOW)
    play.perform_action(game, alice, {"type": "play", "cards": ["D10"]}, now=NOW)

    pushed: list[Any] = []
    monkeypatch.setattr(play.sender, "send", pushed.extend)
    clock.expire_due_games(now=NOW + 60.25)

    game.refresh_from_db()
    assert (game.version, game.public_version, game.private_steps) == (2, 2, {})
    lapse = GameEvent.objects.get(game=game, data__type="decline")
    assert lapse.data["timeout"] and lapse.to_seat == 2
    told = {m["seat"]: [e["type"] for e in m["events"]] for _, m in pushed}
    assert set(told) == {0, 1, 2, None}  # one frame each (None: the watchers' group)
    assert told[2][0] == "decline" and told[2][1:] == told[None]
    assert "decline" not in told[0] + told[1] + told[None]
    assert told[None][:2] == ["timeout", "draw"]  # bob's automatic action, public
    assert {(m["version"], m["from_version"]) for _, m in pushed} == {(2, 1)}  # no gap
    for user in (alice, bob, mallory):
        resumed = play.table_for(room, user, (game.pk, 1, 0))
        assert resumed["version"] == 2 and "timeout" in [e["type"] for e in resumed["events"]]
        assert "decline" not in [e["type"] for e in resumed["events"]]
    carols = play.table_for(room, carol, (game.pk, 1, 0))
    assert [e["type"] for e in carols["events"]][:1] == ["decline"]
    replays_exactly(game)
