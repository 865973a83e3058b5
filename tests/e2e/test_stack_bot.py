"""The bot API on the production stack: daphne, Celery worker and beat, PostgreSQL and
Redis. The reference client (docs/bot-client.py) plays a whole match by token against
three CPU players; the owner starts the match with a real POST; nobody presses start
between games; a revoked token is refused with 4401."""

from __future__ import annotations

import asyncio
import importlib.util
import secrets
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from stack_helpers import ROOT, require_stack, session_cookie, stack

from accounts import tokens
from game.models import Game, GameEvent, Membership, Room
from game.models.matches import Match

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]


def reference_client() -> Any:
    spec = importlib.util.spec_from_file_location("bot_client", ROOT / "docs" / "bot-client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def post_form(port: int, path: str, cookie: str, fields: dict[str, str]) -> int:
    token = secrets.token_hex(16)
    body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=body, method="POST",
        headers={"Cookie": f"{cookie}; csrftoken={token}",
                 "Content-Type": "application/x-www-form-urlencoded"},
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    try:
        return urllib.request.build_opener(NoRedirect).open(request, timeout=10).status
    except urllib.error.HTTPError as exc:
        return exc.code


def finished_match(room: Room) -> Match:
    """The room's match, once over: the last game's settlement commits just before the
    push that ended the clients' play."""
    match = Match.objects.get(room=room)
    for _ in range(50):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        time.sleep(0.1)
    return match


def test_the_reference_client_plays_a_match_against_cpus_on_the_stack(tmp_path: Path, alice, bob):
    require_stack()
    room = Room.objects.create(name="arena", owner=alice, timeout_seconds=5)
    Membership.objects.create(room=room, user=bob, seat_index=0)
    key = tokens.create_token(bob, "contest bot").key
    client = reference_client()
    cookie = session_cookie(alice)

    async def scenario(port: int) -> None:
        bot = client.Bot(f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/", key, games=2)
        playing = asyncio.create_task(bot.run())
        await asyncio.sleep(1.0)  # connected and counted as a program before the start
        fields = {"games": "2", "program_timeout": "2", "cpu_level": "normal"}
        status = await asyncio.to_thread(post_form, port, f"/rooms/{room.pk}/match/", cookie,
                                         fields)
        assert status == 302
        await asyncio.wait_for(playing, 240)

    with stack(tmp_path, DOBON_CPU_DELAY_PERCENT="0", REDIS_URL=settings.REDIS_URL) as running:
        port = running.daphne()
        running.celery()
        asyncio.run(scenario(port))
        match = finished_match(room)
    assert (match.status, match.games_finished) == (Match.Status.FINISHED, 2)
    games = Game.objects.filter(match=match)
    assert [g.status for g in games] == ["finished", "finished"]
    assert all(p["kind"] == "program" for g in games for p in g.result["players"]
               if p["seat"] == 0)
    # The program acted itself (not only through timeouts).
    assert GameEvent.objects.filter(game__match=match, step__seat=0,
                                    step__auto__isnull=True).exists()


def test_a_revoked_token_is_refused_with_4401_on_the_stack(tmp_path: Path, alice, bob):
    require_stack()
    room = Room.objects.create(name="arena", owner=alice)
    Membership.objects.create(room=room, user=bob, seat_index=0)
    new = tokens.create_token(bob, "old bot")
    tokens.revoke_token(bob, new.token.pk)

    async def scenario(port: int) -> tuple[int, str]:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        async with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/",
                           additional_headers={"Authorization": f"Bearer {new.key}"}) as ws:
            try:
                await asyncio.wait_for(ws.recv(), 5)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None
                return closed.rcvd.code, closed.rcvd.reason
        raise AssertionError("the socket stayed open")

    with stack(tmp_path, REDIS_URL=settings.REDIS_URL) as running:
        port = running.daphne()
        # daphne forwards the close code but not the reason text (docs/bots-api.md)
        assert asyncio.run(scenario(port))[0] == 4401


def test_four_cpu_policies_play_a_match_as_programs_on_the_stack(tmp_path: Path, alice, bob,
                                                                 carol, dave):
    """The contest's set-up (python -m game.management.bench.match): four members' programs, each
    game.bots.client with a CPU policy, play a match with 1 s program timeouts; every
    seat acts itself, and the games follow one another with nobody pressing start."""
    from game.bots import policy
    from game.bots.client import SeatPlayer, play_seat

    require_stack()
    people = [alice, bob, carol, dave]
    room = Room.objects.create(name="contest", owner=alice, timeout_seconds=10)
    for index, user in enumerate(people):
        Membership.objects.create(room=room, user=user, seat_index=index)
    keys = [tokens.create_token(user, "contest bot").key for user in people]
    cookie = session_cookie(alice)

    async def scenario(port: int) -> None:
        url = f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/"
        players = [SeatPlayer(policy("normal", seed)) for seed in range(4)]
        playing = [asyncio.create_task(play_seat(url, key, p, games=3))
                   for key, p in zip(keys, players, strict=True)]
        await asyncio.sleep(1.0)  # connected: the seats count as programs
        fields = {"games": "3", "program_timeout": "1", "cpu_level": ""}
        status = await asyncio.to_thread(post_form, port, f"/rooms/{room.pk}/match/", cookie,
                                         fields)
        assert status == 302
        await asyncio.wait_for(asyncio.gather(*playing), 120)

    with stack(tmp_path, REDIS_URL=settings.REDIS_URL) as running:
        port = running.daphne()
        running.celery()
        asyncio.run(scenario(port))
        match = finished_match(room)
    assert (match.status, match.games_finished) == (Match.Status.FINISHED, 3)
    for game in Game.objects.filter(match=match):
        assert {p["kind"] for p in game.result["players"]} == {"program"}
    acted = set(GameEvent.objects.filter(game__match=match, step__auto__isnull=True,
                                         step__seat__isnull=False)
                .values_list("step__seat", flat=True))
    assert acted == {0, 1, 2, 3}


@pytest.mark.browser
def test_a_seat_played_by_a_program_is_marked_for_its_owner_too(tmp_path: Path, browser, alice,
                                                                 bob, settings):
    """While alice's program holds her seat (a token socket), her own page says so on her
    bar and in the seat list, as bob's table shows it on her plate."""
    from playwright.sync_api import expect
    from table_helpers import DESKTOP, PHONE, open_player, two_player_room

    from game.services.fixed_setups import FixedSetup

    require_stack()
    room = two_player_room("arena", alice, bob, FixedSetup(
        hands=[["R5", "B3"], ["R9", "Y9"]], first_card="R7", deck=["G1", "G2", "G3"]
    ), settings)
    key = tokens.create_token(alice, "alice's bot").key

    with stack(tmp_path, REDIS_URL=settings.REDIS_URL) as running:
        port = running.daphne()
        # The program's socket, held open in a thread of its own (Playwright's sync API
        # keeps this thread's event loop).
        connected, release = threading.Event(), threading.Event()

        async def hold_seat() -> None:
            from websockets.asyncio.client import connect

            async with connect(f"ws://127.0.0.1:{port}/ws/rooms/{room.pk}/",
                               additional_headers={"Authorization": f"Bearer {key}"}) as ws:
                await ws.recv()  # the table: the socket is counted in by now
                connected.set()
                await asyncio.to_thread(release.wait, 60)

        holder = threading.Thread(target=asyncio.run, args=(hold_seat(),))
        holder.start()
        players = [open_player(browser, port, alice, "alice", PHONE),
                   open_player(browser, port, bob, "bob", DESKTOP)]
        try:
            assert connected.wait(10)
            for p in players:
                p.page.goto(f"http://127.0.0.1:{port}/rooms/{room.pk}/")
            me = players[0].page
            expect(me.locator("[data-role=me-name]")).to_contain_text("プログラム")
            expect(me.get_by_test_id("seat-program")).to_have_count(1)
            expect(players[1].page.locator(".seat-plate[data-seat='0']")).to_contain_text(
                "プログラム")
            assert all(p.errors == [] for p in players)
        finally:
            release.set()
            holder.join(10)
            for p in players:
                p.page.context.unroute_all(behavior="ignoreErrors")
                p.page.context.close()
