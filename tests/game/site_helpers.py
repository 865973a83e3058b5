"""A played site for the history checks and the backup test: finished games of both kinds
(Dobon UNO under three house-rule presets, trump au — after a clock outage — and
standard), an aborted game and a running one, all through the real service layer: a
person and CPU players, the clock applying the timeouts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.models import Game, Membership, Room
from game.rules import PRESETS
from game.rules.registry import load
from game.services import clock, play

NOW = 1_790_000_000.0


@dataclass
class Site:
    finished: list[Game] = field(default_factory=list)
    aborted: list[Game] = field(default_factory=list)
    running: list[Game] = field(default_factory=list)


def room(owner: Any, *others: Any, cpus: int = 0, **fields: Any) -> Room:
    people = [owner, *others]
    fields.setdefault("seat_count", 4)
    made = Room.objects.create(name=f"site {Room.objects.count()}", owner=owner, **fields)
    for index, person in enumerate(people):
        Membership.objects.create(room=made, user=person, seat_index=index)
    for index in range(len(people), len(people) + cpus):
        Membership.objects.create(room=made, cpu_level="normal", seat_index=index)
    return made


def play_on(game: Game, now: float, moves: int | None = None) -> float:
    """The seated people take their first legal action whenever they may (a bid of 1),
    the CPUs and the clock the rest, a second at a time, until the game is over (or
    `moves` seconds passed); the time reached."""
    users = {p.seat: p.user for p in game.players.select_related("user") if p.user_id}
    for _ in range(moves if moves is not None else 4000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return now
        engine = load(game.game_kind, game.state)
        for seat, user in users.items():
            legal = engine.legal_actions(seat)
            if legal:
                action = dict(legal[0])
                if action["type"] == "bid":
                    action = {"type": "bid", "amount": 1}
                play.perform_action(game, user, action, now=now)
                break
        now += 1.0
        clock.expire_due_games(now=now)
    game.refresh_from_db()
    assert moves is not None, "the game did not end"
    return now


def play_a_site(alice: Any, bob: Any) -> Site:
    site = Site()
    now = NOW
    for preset in ("standard", "party", "classic"):
        table = room(alice, cpus=3, house_rules=dict(PRESETS[preset]))
        game = play.start_game(table, alice, now=now)
        now = play_on(game, now) + 60
        site.finished.append(game)
    for preset in ("au", "standard"):
        table = room(alice, cpus=2, game_kind="trump_dobon", trump_preset=preset, seat_count=3)
        game = play.start_game(table, alice, now=now)
        if preset == "au":
            now += 26 * 60
            clock.expire_due_games(now)  # the clock was down: a resume
        now = play_on(game, now) + 60
        site.finished.append(game)
    aborted = play.start_game(room(bob, cpus=1), bob, now=now)
    play_on(aborted, now, moves=3)
    site.aborted.append(play.abort_game(aborted, bob, now=now + 100))
    running = play.start_game(room(bob, cpus=2, game_kind="trump_dobon", trump_preset="au"),
                              bob, now=now)
    play_on(running, now, moves=4)
    site.running.append(running)
    for game in (*site.finished, *site.aborted, *site.running):
        game.refresh_from_db()
    assert all(g.status == Game.Status.FINISHED for g in site.finished)
    assert site.aborted[0].status == Game.Status.ABORTED
    assert site.running[0].status == Game.Status.RUNNING
    return site
