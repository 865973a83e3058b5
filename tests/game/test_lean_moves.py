"""The lean move path (game/services/lean_moves.py) against the ORM path it shortcuts.

PostgreSQL only: the lean path is async psycopg with hand-written SQL, and it commits on
connections of its own (hence transactional tests). The same moves from identical games
must give identical game rows, event rows and pushes; refusals the same codes with
nothing changed; a race one winner; what the lean path does not do (a finishing move, a
match game) the ORM path, exactly as before.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from play_helpers import NOW, make_room, seat_cpus

from game.live import consumers, groups
from game.models import Game, GameEvent, GamePlayer, Match, Membership
from game.services import clock, engines, lean_moves, matches, play

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the lean move path is PostgreSQL only (set DATABASE_URL to a PostgreSQL URL)",
    ),
]

GAME_FIELDS = ("state", "version", "next_deadline", "cpu_due", "event_count", "status", "result",
               "public_version", "private_steps")
EVENT_FIELDS = ("seq", "version", "to_seat", "data", "step", "public_version", "private_step")
SEED = 4_242_424_242


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_LEAN_MOVES = True


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for the whole test: the lean connections belong to it."""
    loop = asyncio.new_event_loop()
    yield loop
    lean_moves.close_all()
    loop.close()


@pytest.fixture
def fixed_seed(monkeypatch):
    """Every game started in the test deals the same cards (twin games)."""
    monkeypatch.setattr(play.secrets, "randbits", lambda bits: SEED)


# -- the two paths, with an injected clock -----------------------------------------------------


def lean_move(loop, room_id: int, user: Any, action: Any, version: int | None,
              now: float) -> tuple[str, Any]:
    """("ok", pushes, after) / ("fall_back",) / ("refused", code) through the lean path."""
    try:
        done = loop.run_until_complete(
            lean_moves.act_in_room(room_id, user, action, version, now=now)
        )
    except play.PlayError as exc:
        return ("refused", exc.code)
    if isinstance(done, lean_moves.FallBack):
        return ("fall_back",)
    return ("ok", done.pushes, done.after)


def orm_move(room_id: int, user: Any, action: Any, version: int | None,
             now: float) -> tuple[str, Any]:
    """Today's path (the consumer's `_act`, with `now`)."""
    try:
        with play.deferred_pushes() as pushes:
            play.act_in_room(room_id, user, action, now=now, version=version)
    except play.PlayError as exc:
        return ("refused", exc.code)
    return ("ok", pushes)


def either_move(loop, room_id: int, user: Any, action: Any, version: int | None,
                now: float) -> tuple[str, Any]:
    """What the consumer does: the lean path, the ORM path when it falls back."""
    done = lean_move(loop, room_id, user, action, version, now)
    if done[0] == "fall_back":
        return (*orm_move(room_id, user, action, version, now), "fell_back")
    return done[:2]


def game_row(game_id: int) -> dict[str, Any]:
    return Game.objects.filter(pk=game_id).values(*GAME_FIELDS).get()


def event_rows(game_id: int) -> list[dict[str, Any]]:
    return list(GameEvent.objects.filter(game_id=game_id).order_by("seq").values(*EVENT_FIELDS))


def new_events(game_id: int, after: int) -> list[dict[str, Any]]:
    rows = GameEvent.objects.filter(game_id=game_id, seq__gte=after).order_by("seq")
    return list(rows.values(*EVENT_FIELDS))


def running(room) -> Game:
    return room.games.get(status=Game.Status.RUNNING)


# -- equivalence: twin games, one moved by each path --------------------------------------------

KINDS = [
    pytest.param({}, id="dobon_uno"),
    pytest.param({"house_rules": "party"}, id="dobon_uno-party"),
    pytest.param({"house_rules": "classic"}, id="dobon_uno-classic"),
    pytest.param({"game_kind": "trump_dobon", "trump_preset": "au"}, id="trump-au"),
    pytest.param({"game_kind": "trump_dobon", "trump_preset": "standard"}, id="trump-standard"),
]


def twin_rooms(people: list[Any], fields: dict[str, Any]) -> tuple[Any, Any]:
    from game.rules import PRESETS

    fields = dict(fields)
    if "house_rules" in fields:
        fields["house_rules"] = dict(PRESETS[fields["house_rules"]])
    rooms = []
    # Unrated (issue #34): ratings are the players' own, across rooms, so the twin that
    # finishes second would push the ratings the first one's result changed.
    fields.setdefault("rated", False)
    for _ in range(2):
        room = make_room(*people, timeout_seconds=20, **fields)
        play.start_game(room, people[0], now=NOW)
        rooms.append(room)
    return rooms[0], rooms[1]


def normalized(pushes: list[play.Push], room_id: int, game_id: int) -> list[Any]:
    """Pushes of twin games compared: the room's and game's own ids say which twin."""

    def same(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: same(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [same(v) for v in value]
        if key in ("room", "id") and value == room_id:
            return "ROOM"
        if key in ("game", "running_game") and value == game_id:
            return "GAME"
        if isinstance(value, str):  # links: /games/<id>/, /rooms/<id>/
            return value.replace(f"/games/{game_id}/", "/games/GAME/").replace(
                f"/rooms/{room_id}/", "/rooms/ROOM/")
        return value

    watchers = groups.watch_group(room_id)
    return [("WATCHERS" if group == watchers else group, same(message))
            for group, message in pushes]


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two nested values differ (for readable failures)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def outcome(result: tuple[Any, ...], room, game_id: int) -> tuple[Any, ...]:
    if result[0] != "ok":
        return result
    return ("ok", normalized(result[1], room.pk, game_id))


def next_move(rng: random.Random, game: Game, now: float) -> tuple[int, Any] | None:
    """A random legal action of any seat that may act at `now` (after the timeouts due
    by then, which the move applies first); sometimes an illegal one."""
    engine = engines.load(game)
    play.advance_clock(engine, now)
    if engine.phase == "finished":
        return None
    seats = range(game.players.count())
    choices = [(seat, a) for seat in seats for a in engine.legal_actions(seat)]
    if not choices:
        return None
    if rng.random() < 0.04:  # an illegal one: the same refusal on both paths
        seat, _ = rng.choice(choices)
        return seat, {"type": "play", "cards": ["XX"]}
    # Towards an end: a dobon often taken, plays before draws and passes.
    ending = [c for c in choices if c[1]["type"] in ("dobon", "return")]
    if ending and rng.random() < 0.5:
        return rng.choice(ending)
    plays = [c for c in choices if c[1]["type"] == "play"]
    return rng.choice(plays if plays and rng.random() < 0.75 else choices)


def moment(rng: random.Random, game: Game, now: float, step: int) -> float:
    """Mostly a human pace; sometimes past the deadline (the move applies timeouts
    first); once a clock outage (the move resumes with fresh clocks)."""
    if step == 9:
        return now + 500.0  # far beyond DOBON_CLOCK_OUTAGE_SECONDS
    if rng.random() < 0.08 and game.next_deadline is not None:
        return game.next_deadline.timestamp() + rng.uniform(0.1, 25.0)
    return now + rng.uniform(0.05, 3.0)


def apply_timeouts_to_both(games: list[Game], now: float) -> None:
    """Nobody may act: the clock (the same ORM code for both twins) plays the timeouts."""
    from django.db import transaction

    for game in games:
        with transaction.atomic():
            locked = play.locked_with_seats(pk=game.pk)
            engine = engines.load(locked)
            events, step = play.advance_clock(engine, now)
            play.do_save(locked, engine, events, now, step=step)


@pytest.mark.parametrize("fields", KINDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_random_games_give_the_same_rows_and_pushes_on_both_paths(
    fields, seed, alice, bob, carol, dave, loop, fixed_seed
):
    people = [alice, bob, carol, dave]
    lean_room, orm_room = twin_rooms(people, fields)
    lean_game, orm_game = running(lean_room), running(orm_room)
    assert game_row(lean_game.pk) == game_row(orm_game.pk)  # twins at version 0
    users = {p.seat: p.user for p in lean_game.players.select_related("user")}
    rng = random.Random(seed)
    now, fell_back, applied, seen_events = NOW, 0, 0, 0
    for step in range(400):
        lean_game.refresh_from_db()
        if lean_game.status != Game.Status.RUNNING:
            break
        now = moment(rng, lean_game, now, step)
        move = next_move(rng, lean_game, now)
        if move is None:
            apply_timeouts_to_both([lean_game, orm_game], now + 30.0)
            now += 30.0
            continue
        seat, action = move
        # What a client decided on: the public version (issue #31: private answers keep it).
        version = lean_game.public_version if rng.random() < 0.8 else None
        lean = either_move(loop, lean_room.pk, users[seat], action, version, now)
        orm = orm_move(orm_room.pk, users[seat], action, version, now)
        seen = outcome(lean, lean_room, lean_game.pk), outcome(orm, orm_room, orm_game.pk)
        assert seen[0] == seen[1], differences(*seen)
        assert game_row(lean_game.pk) == game_row(orm_game.pk), f"step {step}: {action}"
        assert new_events(lean_game.pk, seen_events) == new_events(orm_game.pk, seen_events)
        seen_events = game_row(lean_game.pk)["event_count"]
        fell_back += lean[-1] == "fell_back"
        applied += lean[0] == "ok" and lean[-1] != "fell_back"
    lean_game.refresh_from_db()
    assert lean_game.status == Game.Status.FINISHED, "the game was played to its end"
    assert event_rows(lean_game.pk) == event_rows(orm_game.pk)
    assert applied > 10  # most moves took the lean path …
    assert fell_back <= 1  # … and at most the finishing one fell back (else the clock)
    deltas = lambda g: list(g.players.order_by("seat").values_list("delta", flat=True))  # noqa: E731
    assert deltas(lean_game) == deltas(orm_game) and None not in deltas(lean_game)


def test_a_cpu_opponent_is_planned_and_sent_the_same_way(alice, loop, monkeypatch):
    """With CPUs the version's cpu_due and next_deadline come from `changes.plan`, and a
    CPU due soon goes to the clock after the commit (`clock.dispatch_soon`): the same
    moments on both paths, from the same state of the same game."""
    woken: list[float] = []
    monkeypatch.setattr(clock, "_waker", woken.append)  # someone takes a due-soon version
    room = seat_cpus(make_room(alice, timeout_seconds=20), "easy", "normal")
    play.start_game(room, alice, now=NOW)
    game = running(room)
    rng, now, compared, wakes = random.Random(7), NOW, 0, 0
    while compared < 6:
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        engine = engines.load(game)
        legal = engine.legal_actions(0)
        if not legal:  # the CPUs' turn: the clock (ORM, as always) plays them
            now = max(now, game.next_deadline.timestamp())
            clock.run_due_game(game.pk, game.version, now=now, inline=True)
            continue
        action = rng.choice([a for a in legal if a["type"] != "dobon"] or legal)
        now += 0.7
        before_row, before_events = game_row(game.pk), event_rows(game.pk)
        woken.clear()  # the CPUs' own moves woke the clock too
        lean = lean_move(loop, room.pk, alice, action, game.public_version, now)
        if lean[0] == "fall_back":
            break
        for work in lean[2]:
            work()
        lean_woken, woken[:] = list(woken), []
        lean_row, lean_events = game_row(game.pk), event_rows(game.pk)
        restore(game.pk, before_row, len(before_events))

        orm = orm_move(room.pk, alice, action, game.public_version, now)
        assert lean[:2] == orm
        assert game_row(game.pk) == lean_row and event_rows(game.pk) == lean_events
        assert woken == lean_woken
        compared, wakes = compared + 1, wakes + len(woken)
        # A CPU that can act after the move is planned. Read after the move, not before:
        # alice may cut in while a CPU chooses a colour, and then only she can act.
        after = engines.load(Game.objects.get(pk=game.pk))
        assert lean_row["cpu_due"] is not None or not any(
            after.legal_actions(s) for s in (1, 2)
        )
    assert compared >= 3 and wakes >= 1  # some moves made a CPU due within seconds


def restore(game_id: int, row: dict[str, Any], event_count: int) -> None:
    Game.objects.filter(pk=game_id).update(**row)
    GameEvent.objects.filter(game_id=game_id, seq__gte=event_count).delete()


# -- refusals: the same codes, nothing changed ----------------------------------------------------


@pytest.fixture
def table(alice, bob, carol, dave):
    room = make_room(alice, bob, carol, dave, timeout_seconds=20)
    play.start_game(room, alice, now=NOW)
    return room


def on_turn(game: Game) -> tuple[Any, list[dict[str, Any]]]:
    engine = engines.load(game)
    for player in game.players.select_related("user").order_by("seat"):
        legal = engine.legal_actions(player.seat)
        if legal:
            return player.user, legal
    raise AssertionError("nobody may act")


def test_refusals_answer_as_today_and_change_nothing(table, mallory, loop):
    game = running(table)
    user, legal = on_turn(game)
    waiting = next(p.user for p in game.players.select_related("user") if p.user != user)
    row, events = game_row(game.pk), event_rows(game.pk)
    now = NOW + 1
    cases = [
        (user, {"type": "play", "cards": ["XX"]}, game.version),  # the engine's refusal
        (waiting, legal[0], game.version),  # not this seat's action
        (mallory, legal[0], game.version),  # not seated
        (user, legal[0], game.version - 1),  # stale
        (user, {"type": "fly"}, None),  # malformed
        (user, {"type": "play", "cards": "H1"}, None),  # malformed cards
        (user, "draw", None),  # not even a dict
    ]
    for who, action, version in cases:
        lean = lean_move(loop, table.pk, who, action, version, now)
        orm = orm_move(table.pk, who, action, version, now)
        assert lean[0] == "refused" and lean == orm, (action, lean, orm)
        assert game_row(game.pk) == row and event_rows(game.pk) == events
    codes = [lean_move(loop, table.pk, *c, now)[1] for c in cases]
    assert codes[2:5] == ["not_seated", "stale", "bad_action"]


def test_no_game_is_no_game(alice, bob, loop):
    room = make_room(alice, bob)
    assert lean_move(loop, room.pk, alice, {"type": "draw"}, None, NOW) == ("refused", "no_game")
    assert orm_move(room.pk, alice, {"type": "draw"}, None, NOW) == ("refused", "no_game")


def test_a_departed_player_is_not_seated(table, loop):
    game = running(table)
    user, legal = on_turn(game)
    Membership.objects.filter(room=table, user=user).delete()
    assert lean_move(loop, table.pk, user, legal[0], None, NOW + 1) == ("refused", "not_seated")


# -- the race ----------------------------------------------------------------------------------


def test_two_moves_on_one_version_one_commits_the_other_is_stale(table, loop):
    game = running(table)
    user, legal = on_turn(game)
    version = game.version

    async def both() -> list[Any]:
        moves = [lean_moves.act_in_room(table.pk, user, legal[0], version, now=NOW + 1),
                 lean_moves.act_in_room(table.pk, user, legal[-1], version, now=NOW + 1)]
        return await asyncio.gather(*moves, return_exceptions=True)

    results = loop.run_until_complete(both())
    committed = [r for r in results if isinstance(r, lean_moves.Applied)]
    refused = [r for r in results if isinstance(r, play.PlayError)]
    assert len(committed) == 1 and [r.code for r in refused] == ["stale"]
    game.refresh_from_db()
    assert game.version == version + 1
    assert GameEvent.objects.filter(game=game, version=version + 1).exists()


def orm_move_elsewhere(room_id: int, user: Any, action: Any, version: int | None,
                       now: float) -> tuple[str, Any]:
    """`orm_move` on a connection of its own (another thread), giving up on a row lock
    after 3 s instead of waiting for ever."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")
        return orm_move(room_id, user, action, version, now)
    finally:
        connection.close()


def test_a_move_that_loses_the_race_is_judged_again_on_the_winners_version(
    table, loop, monkeypatch
):
    """Another version is committed between the lean path's read and its write (here
    the same player's move through the ORM path): the write saves nothing, and the move
    is judged again on the new version, as the row lock had it judged after the winner's
    commit. The read holds no lock meanwhile, so the winner never waits for it."""
    game = running(table)
    user, legal = on_turn(game)
    version = game.version
    original_save, reads = lean_moves.save, []
    original_read = lean_moves.read_game
    raced: list[tuple[str, Any]] = []

    async def counted_read(*args: Any) -> Any:
        reads.append(args)
        return await original_read(*args)

    async def racing_save(*args: Any) -> bool:
        if not raced:
            raced.append(await asyncio.to_thread(
                orm_move_elsewhere, table.pk, user, legal[0], version, NOW + 1))
        return await original_save(*args)

    monkeypatch.setattr(lean_moves, "read_game", counted_read)
    monkeypatch.setattr(lean_moves, "save", racing_save)
    assert lean_move(loop, table.pk, user, legal[0], version, NOW + 1) == ("refused", "stale")
    assert raced[0][0] == "ok" and len(reads) == 2
    assert game_row(game.pk)["version"] == version + 1
    assert set(GameEvent.objects.filter(game=game).values_list("version", flat=True)) <= set(
        range(version + 2))


# -- the fall-backs ----------------------------------------------------------------------------


def test_a_finishing_move_falls_back_and_settles_as_before(alice, bob, loop):
    """A game played to its end through the consumer's choice of path: the move that
    ends it is handed, untouched, to the ORM path, which settles it (result, deltas,
    room points); every move before took the lean path."""
    room = make_room(alice, bob, timeout_seconds=20)
    play.start_game(room, alice, now=NOW)
    game = running(room)
    users = {p.seat: p.user for p in game.players.select_related("user")}
    rng, now, paths = random.Random(3), NOW, []
    while game.status == Game.Status.RUNNING and len(paths) < 400:
        now += 0.5
        move = next_move(rng, game, now)
        if move is None or move[1].get("cards") == ["XX"]:
            game.refresh_from_db()
            continue
        seat, action = move
        before = game_row(game.pk)
        version = game.public_version
        if lean_move(loop, room.pk, users[seat], action, version, now) == ("fall_back",):
            assert game_row(game.pk) == before  # the lean transaction was rolled back
        restore(game.pk, before, before["event_count"])  # in case it was applied
        done = either_move(loop, room.pk, users[seat], action, version, now)
        paths.append(done[-1] == "fell_back")
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert paths[-1] and not any(paths[:-1])  # only the finishing move fell back
    deltas = dict(GamePlayer.objects.filter(game=game).values_list("seat", "delta"))
    assert sum(deltas.values()) == 0 and game.result["kind"]
    points = {m.user_id: m.points for m in Membership.objects.filter(room=room)}
    assert points == {users[seat].pk: delta for seat, delta in deltas.items()}
    assert game.result["players"] and game.finished_at is not None


def test_a_match_game_falls_back_before_anything_is_read(alice, bob, loop):
    room = make_room(alice, bob, timeout_seconds=20)
    match = Match.objects.create(room=room, started_by=alice, games_total=2)
    play.start_game(room, alice, now=NOW, match=match)
    game = running(room)
    user, legal = on_turn(game)
    before = game_row(game.pk)
    assert lean_move(loop, room.pk, user, legal[0], game.version, NOW + 1) == ("fall_back",)
    assert game_row(game.pk) == before
    done = either_move(loop, room.pk, user, legal[0], game.version, NOW + 1)
    assert done[0] == "ok" and done[-1] == "fell_back"
    assert game_row(game.pk)["version"] == before["version"] + 1
    assert matches.match_frame(game) is not None


def test_a_match_game_played_to_its_end_settles_and_starts_the_next_game(alice, bob, loop):
    """Every move of a match game takes the ORM path, the last one included: the match
    counts the game and its next game starts, as before."""
    room = make_room(alice, bob, timeout_seconds=20)
    match = Match.objects.create(room=room, started_by=alice, games_total=2)
    play.start_game(room, alice, now=NOW, match=match)
    game = running(room)
    users = {p.seat: p.user for p in game.players.select_related("user")}
    rng, now, paths = random.Random(5), NOW, []
    while game.status == Game.Status.RUNNING and len(paths) < 400:
        now += 0.5
        move = next_move(rng, game, now)
        if move is not None and move[1].get("cards") != ["XX"]:
            done = either_move(loop, room.pk, users[move[0]], move[1], game.version, now)
            paths.append(done[-1] == "fell_back")
        else:
            apply_timeouts_to_both([game], now + 30.0)
            now += 30.0
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and paths and all(paths)
    match.refresh_from_db()
    assert match.games_finished == 1
    following = running(room)
    assert (following.number, following.match_id) == (2, match.pk)


def test_an_unknown_hook_sends_every_move_to_the_orm(table, loop, monkeypatch):
    from game.services import changes

    seen: list[int] = []
    monkeypatch.setitem(changes._hooks, "plan",
                        [*changes.connected("plan"), lambda g, *a: seen.append(g.version)])
    game = running(table)
    user, legal = on_turn(game)
    assert lean_move(loop, table.pk, user, legal[0], None, NOW + 1) == ("fall_back",)
    assert either_move(loop, table.pk, user, legal[0], None, NOW + 1)[0] == "ok"
    assert seen == [game.version + 1]


# -- switched off ------------------------------------------------------------------------------


def test_off_the_consumer_never_touches_the_lean_path(table, loop, settings, monkeypatch):
    settings.DOBON_LEAN_MOVES = False

    async def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the lean path ran with DOBON_LEAN_MOVES off")

    monkeypatch.setattr(lean_moves, "act_in_room", never)
    game = running(table)
    user, legal = on_turn(game)
    pushes, after = loop.run_until_complete(
        consumers.act_once(table.pk, user, legal[0], game.version)
    )
    assert pushes and after == []
    assert game_row(game.pk)["version"] == game.version + 1


def test_on_the_consumer_moves_without_the_orm(table, loop, monkeypatch):
    def never(*args: Any) -> Any:
        raise AssertionError("the ORM path ran for a common move")

    monkeypatch.setattr(consumers, "_act", never)
    game = running(table)
    user, legal = on_turn(game)
    pushes, _ = loop.run_until_complete(consumers.act_once(table.pk, user, legal[0], game.version))
    assert {m["version"] for _, m in pushes} == {game.version + 1}


# -- settings and connections -------------------------------------------------------------------


def test_async_commit_still_commits_the_move(table, loop, settings):
    """DOBON_ASYNC_COMMIT: the lean transaction relaxes its commit as the ORM's does
    (SET LOCAL inside it), and the move is there."""
    settings.DOBON_ASYNC_COMMIT = True
    game = running(table)
    user, legal = on_turn(game)
    assert lean_move(loop, table.pk, user, legal[0], game.version, NOW + 1)[0] == "ok"
    assert game_row(game.pk)["version"] == game.version + 1


def lean_sessions() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE application_name = %s AND datname = current_database()",
            [lean_moves.APPLICATION_NAME],
        )
        return int(cursor.fetchone()[0])


def test_a_refusal_keeps_its_connection_for_the_next_move(table, loop):
    game = running(table)
    user, legal = on_turn(game)
    assert lean_move(loop, table.pk, user, legal[0], game.version - 1, NOW + 1)[0] == "refused"
    (pool,) = lean_moves._pools.values()
    kept = list(pool.idle)
    assert len(kept) == 1 and pool.every == set(kept)
    assert lean_move(loop, table.pk, user, legal[0], game.version, NOW + 1)[0] == "ok"
    assert pool.idle == kept  # the same session: no new one per refusal


def test_without_a_lean_connection_the_orm_path_moves(table, loop, monkeypatch):
    """PostgreSQL refuses the lean session (e.g. max_connections): nothing was done, so
    the consumer's ORM path makes the move instead of answering server_error."""
    monkeypatch.setattr(lean_moves, "conninfo",
                        lambda: "host=127.0.0.1 port=1 dbname=none connect_timeout=2")
    game = running(table)
    user, legal = on_turn(game)
    assert lean_move(loop, table.pk, user, legal[0], game.version, NOW + 1) == ("fall_back",)
    pushes, _ = loop.run_until_complete(consumers.act_once(table.pk, user, legal[0], game.version))
    assert game_row(game.pk)["version"] == game.version + 1 and pushes


def test_close_all_ends_every_lean_session(table, loop):
    """Tests drop their database at the end: no lean connection may outlive its test."""
    import time

    game = running(table)
    user, legal = on_turn(game)
    assert lean_move(loop, table.pk, user, legal[0], game.version, NOW + 1)[0] == "ok"
    assert lean_sessions() == 1  # kept for the next move
    lean_moves.close_all()
    deadline = time.monotonic() + 5
    while lean_sessions() and time.monotonic() < deadline:
        time.sleep(0.05)  # the server notices the goodbye a moment later
    assert lean_sessions() == 0
