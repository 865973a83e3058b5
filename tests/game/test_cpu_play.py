"""CPU seats playing live through the service layer: woken by the same sweep as the §R14
timeouts, after human-like delays, through the same locked path as people's moves; a
policy that fails, dawdles or cheats is logged and its seat's timeout plays for it.

Time is an input: the tests drive it forward by calling the sweep with growing `now`.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from play_helpers import (
    NOW,
    engine_of,
    make_room,
    play_action,
    position,
    seat_cpus,
    set_position,
)

from game.models import Game, GamePlayer, Membership, Room
from game.rules import Game as Engine
from game.services import clock, cpu, play

pytestmark = pytest.mark.django_db

Choose = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any] | None]


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 100


def cpu_room(owner: Any, *levels: str, **fields: Any) -> Room:
    """`owner` on seat 0 and a CPU of each level on seats 1, 2, …"""
    return seat_cpus(make_room(owner, **fields), *levels)


def start_at(room: Room, owner: Any, engine: Engine) -> Game:
    """Start the room's game, then replace it by a built position, planned afresh as
    a saved change would be."""
    game = set_position(play.start_game(room, owner, now=NOW), engine)
    cpu.do_schedule(game, engine, play.seats_of(game), NOW)
    game.save(update_fields=["cpu_due", "next_deadline"])
    return game


class Scripted:
    def __init__(self, choose: Choose) -> None:
        self.choose = choose

    def act(self, view: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any] | None:
        return self.choose(view, events)


def use_policy(monkeypatch: pytest.MonkeyPatch, choose: Choose) -> None:
    """The seam: every CPU seat asks `choose` instead of the bots."""
    monkeypatch.setattr(cpu, "policy_factory", lambda level, seed: Scripted(choose))


def first_play(view: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any] | None:
    legal = view["legal_actions"]
    return next((a for a in legal if a["type"] == "play"), legal[0] if legal else None)


def due(game: Game) -> float:
    game.refresh_from_db()
    assert game.cpu_due is not None
    return game.cpu_due.timestamp()


def public_types(game: Game, since_version: int = 0) -> list[tuple[int | None, str]]:
    return [
        (e.data.get("seat"), e.data["type"])
        for e in game.events.filter(version__gt=since_version, to_seat__isnull=True)
        .order_by("seq")
    ]


# -- when a CPU acts ----------------------------------------------------------------------------


def test_a_cpu_on_turn_moves_after_a_human_like_delay(alice):
    room = cpu_room(alice, "normal", "normal", "normal")
    hands = [["G1", "G2"], ["R5", "B7", "Y2"], ["Y9", "Y8"], ["G9", "G8"]]
    game = start_at(room, alice, position(hands, first_player=1))
    wake = due(game)
    assert 0.6 <= wake - NOW <= 2.0
    assert game.next_deadline == game.cpu_due  # the sweep looks only at next_deadline
    assert clock.expire_due_games(now=wake - 0.01) == 0
    assert clock.expire_due_games(now=wake) == 1
    game.refresh_from_db()
    assert game.version == 1
    acted = public_types(game, since_version=0)[0]
    assert acted[0] == 1 and acted[1] in {"play", "draw"}
    assert not any(kind == "timeout" for _, kind in public_types(game))


def test_no_cpu_is_due_while_a_person_is_on_turn(alice):
    room = cpu_room(alice, "easy", "easy", "easy")
    hands = [["G1", "G2"], ["R5", "B7"], ["Y9", "Y8"], ["G9", "G8"]]
    game = start_at(room, alice, position(hands, first_player=0))
    game.refresh_from_db()
    assert game.cpu_due is None
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 10)  # alice's own clock


def test_chances_are_answered_sooner_than_turns(alice):
    """alice plays R5 (5 points): CPU 2 holds Y5 (5) and may dobon (§R9.1), CPU 3 holds
    R5 and may cut in (§R7.1), CPU 1 is on turn."""
    room = cpu_room(alice, "normal", "normal", "normal")
    hands = [["R5", "G7"], ["B9", "B8"], ["Y5"], ["R5", "G2"]]
    game = start_at(room, alice, position(hands, first_player=0))
    play.perform_action(game, alice, play_action("R5"), now=NOW + 1)
    game.refresh_from_db()
    engine = engine_of(game)
    turns = {t.seat: t.delay for t in cpu.planned_turns(game, engine, play.seats_of(game))}
    assert set(turns) == {1, 2, 3}
    assert 0.6 <= turns[1] <= 2.0
    assert 0.3 <= turns[2] <= 0.8 and 0.3 <= turns[3] <= 0.8
    assert due(game) == pytest.approx(NOW + 1 + min(turns.values()), abs=1e-5)
    # Deterministic: the same game and version plan the same delays.
    again = {t.seat: t.delay for t in cpu.planned_turns(game, engine, play.seats_of(game))}
    assert again == turns


def test_a_cpu_declares_dobon_in_its_short_window(alice):
    """§R9.1, §R16.3: the CPU on turn may dobon alice's play; every level does (bots)."""
    room = cpu_room(alice, "easy", seat_count=2)
    hands = [["R5", "G7"], ["Y5"]]
    game = start_at(room, alice, position(hands, first_player=0))
    play.perform_action(game, alice, play_action("R5"), now=NOW + 1)
    wake = due(game)
    assert 0.3 <= wake - (NOW + 1) <= 0.8
    clock.expire_due_games(now=wake)
    game.refresh_from_db()
    assert (1, "dobon") in public_types(game)


# -- what a CPU sees ---------------------------------------------------------------------------


def test_a_policy_sees_its_own_view_and_events_only(alice, monkeypatch):
    """§R15: alice's drawn card (an event to seat 0) never reaches CPU 1's policy."""
    seen: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []

    def record(view, events):
        seen.append((view, events))
        return first_play(view, events)

    use_policy(monkeypatch, record)
    room = cpu_room(alice, "normal", seat_count=2)
    game = start_at(room, alice, position([["G1", "G2"], ["R5", "B7"]], deck=["B1"] * 9))
    play.perform_action(game, alice, {"type": "draw"}, now=NOW + 1)
    play.perform_action(game, alice, {"type": "pass"}, now=NOW + 2)
    before = engine_of(game)
    clock.expire_due_games(now=due(game))
    (view, events), = seen
    assert view == before.view(1)  # exactly what seat 1's player is sent
    assert view["hand"] == ["R5", "B7"] and "B1" not in str(view)
    assert all(e["to"] in (None, 1) for e in events)
    assert [e["type"] for e in events][:1] == ["start"]
    assert not any(e["type"] == "drawn" for e in events)
    assert [e["type"] for e in events[1:] if e.get("seat") == 0] == ["draw", "turn", "pass"]


# -- when a policy misbehaves -------------------------------------------------------------------


@pytest.fixture
def cpu_on_turn(alice) -> Game:
    room = cpu_room(alice, "normal", "normal", "normal")
    hands = [["G1", "G2"], ["R5", "B7", "Y2"], ["Y9", "Y8"], ["G9", "G8"]]
    return start_at(room, alice, position(hands, first_player=1))


def assert_timeout_plays_for_it(game: Game, wake: float) -> None:
    """Nothing changed at the CPU's moment; at the turn's deadline §R14 drew and passed."""
    game.refresh_from_db()
    assert game.version == 0 and game.cpu_due is None
    assert game.next_deadline.timestamp() == pytest.approx(NOW + 10)
    assert clock.expire_due_games(now=wake + 1) == 0  # not asked again meanwhile
    assert clock.expire_due_games(now=NOW + 10) == 1
    assert public_types(game)[:3] == [(1, "timeout"), (1, "draw"), (1, "pass")]


def test_a_failing_policy_is_logged_and_its_timeout_plays(cpu_on_turn, monkeypatch, caplog):
    """§R14: a CPU whose policy crashes is played for by its seat's timeout action."""
    def broken(view, events):
        raise RuntimeError("the policy crashed")

    use_policy(monkeypatch, broken)
    wake = due(cpu_on_turn)
    with caplog.at_level(logging.ERROR, logger="game.services.cpu"):
        assert clock.expire_due_games(now=wake) == 0
    # Where it failed and what it raised, not its message, which may name a hidden card
    # (issue #30: no card of a hidden hand in any log line).
    assert "failed" in caplog.text and "in broken" in caplog.text
    assert "builtins.RuntimeError (message withheld)" in caplog.text
    assert "RuntimeError: the policy crashed" not in caplog.text  # (its source line shows)
    assert_timeout_plays_for_it(cpu_on_turn, wake)


def test_a_slow_policy_is_logged_and_its_timeout_plays(cpu_on_turn, monkeypatch, caplog):
    """§R14: a CPU whose policy is too slow is played for by its seat's timeout action."""
    def slow(view, events):
        time.sleep(0.05)
        return first_play(view, events)

    use_policy(monkeypatch, slow)
    monkeypatch.setattr(cpu, "POLICY_TIME_LIMIT", 0.01)
    wake = due(cpu_on_turn)
    with caplog.at_level(logging.ERROR, logger="game.services.cpu"):
        assert clock.expire_due_games(now=wake) == 0
    assert "took" in caplog.text
    assert_timeout_plays_for_it(cpu_on_turn, wake)


def test_an_illegal_answer_is_logged_and_its_timeout_plays(cpu_on_turn, monkeypatch, caplog):
    """§R14: a CPU that answers an illegal action is played for by its timeout action."""
    use_policy(monkeypatch, lambda view, events: {"type": "pass"})  # not drawn yet: illegal
    wake = due(cpu_on_turn)
    with caplog.at_level(logging.ERROR, logger="game.services.cpu"):
        assert clock.expire_due_games(now=wake) == 0
    assert "not a legal action" in caplog.text
    assert_timeout_plays_for_it(cpu_on_turn, wake)


def test_a_waiting_policy_is_asked_once_per_change(cpu_on_turn, monkeypatch):
    """§R14: a CPU that waits is not asked again; its timeout plays when due."""
    asked: list[int] = []

    def wait(view, events):
        asked.append(view["seat"])
        return None

    use_policy(monkeypatch, wait)
    wake = due(cpu_on_turn)
    clock.expire_due_games(now=wake)
    assert asked == [1]
    assert_timeout_plays_for_it(cpu_on_turn, wake)
    assert asked == [1]  # the timeout's own sweep asked nobody


# -- settlement ---------------------------------------------------------------------------------


def test_a_cpu_that_goes_out_is_paid_into_its_seat(alice, monkeypatch):
    """§R11.1 for a CPU: alice pays her hand points to the CPU's room membership."""
    use_policy(monkeypatch, first_play)
    room = cpu_room(alice, "easy", seat_count=2)
    game = start_at(room, alice, position([["G1", "W"], ["R5"]], first_player=1))
    clock.expire_due_games(now=due(game))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["kind"] == "agari" and game.result["winners"] == [1]
    cpu_seat = Membership.objects.get(room=room, cpu_level="easy")
    assert cpu_seat.points == 31 and Membership.objects.get(room=room, user=alice).points == -31
    assert GamePlayer.objects.get(game=game, seat=1).delta == 31
    assert game.result["players"][1]["kind"] == "cpu"
    assert game.cpu_due is None and game.next_deadline is None


# -- a whole game -------------------------------------------------------------------------------


def person_chooses(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A person who takes every dobon and return and otherwise plays at random."""
    for kind in ("return", "dobon"):
        for action in legal:
            if action["type"] == kind:
                return action
    return rng.choice(legal)


def play_to_the_end(room: Room, game: Game, person: Any, rng: random.Random, now: float
                    ) -> tuple[int, float]:
    """Drive one game to its end: the person acts at once on whatever it is offered; else
    time jumps to the game's next deadline and the sweep runs (a CPU move, mostly).
    Returns the person's move count and the clock."""
    last_change, own_moves = now, 0
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        legal = play.table_for(room, person)["view"]["legal_actions"]
        if legal:
            now += 0.2
            play.act_in_room(room.pk, person, person_chooses(legal, rng), now=now)
            own_moves += 1
            last_change = now
            continue
        now = max(now, game.next_deadline.timestamp())
        version, cpu_turn = game.version, game.cpu_due == game.next_deadline
        clock.expire_due_games(now=now)
        game.refresh_from_db()
        if game.version > version:
            if cpu_turn:
                assert 0.3 - 1e-5 <= now - last_change <= 2.0 + 1e-5  # a human-like delay
            last_change = now
    return own_moves, now


# Easy plays at random and its games run longest; its every answer is checked for
# legality over thousands of engine games in tests/bots.
@pytest.mark.parametrize("level", ["normal", "strong"])
def test_one_person_and_three_cpus_play_whole_games(alice, level):
    """Games in a row (at least two, and until the person has had a move: a dobon can end
    a game before its turn comes) in the room "play now" made; §R11.4 settlement counts
    the CPU seats like people."""
    game = cpu.start_game_against_cpus(alice, level, now=NOW)
    room = Room.objects.get(pk=game.room_id)
    rng = random.Random(level)
    now, own_moves, totals, movers = NOW, 0, [0, 0, 0, 0], set()
    for number in range(1, 11):
        moves, now = play_to_the_end(room, game, alice, rng, now)
        own_moves += moves
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED, "the game did not finish"
        assert game.number == number and sum(game.result["deltas"]) == 0
        # No turn or colour was left to a timeout: the person and the CPUs' policies
        # made every move.
        types = public_types(game)
        assert not any(kind == "timeout" for _, kind in types)
        movers |= {seat for seat, kind in types if kind in {"play", "draw", "take"}}
        totals = [t + d for t, d in zip(totals, game.result["deltas"], strict=True)]
        if number >= 2 and own_moves:
            break
        now += 5
        game = play.start_game(room, alice, now=now)
    assert own_moves > 0 and movers - {0}, "the CPUs never moved"
    # Settlement counts CPU seats like people (engine seat = room seat here).
    points = dict(Membership.objects.filter(room=room).values_list("seat_index", "points"))
    assert [points[i] for i in range(4)] == totals
    assert GamePlayer.objects.filter(game__room=room, cpu_level=level).count() == 3 * number


def test_r13_a_cpu_that_won_plays_first_next_game(alice, monkeypatch):
    """§R13.1 for a CPU seat, and §R13.3 once it has been taken off its seat."""
    use_policy(monkeypatch, first_play)
    room = cpu_room(alice, "easy", "easy", seat_count=4)  # alice 0, CPUs 1 and 2
    game = start_at(room, alice, position([["G1", "W"], ["R5"], ["B7", "B8"]], first_player=1))
    clock.expire_due_games(now=due(game))
    game.refresh_from_db()
    assert game.result["next_first_player"] == 1
    seated = list(room.memberships.order_by("seat_index"))
    assert play.first_player_for(room, seated) == 1
    Membership.objects.filter(room=room, seat_index=1).delete()  # the owner removed it
    seated = list(room.memberships.order_by("seat_index"))
    assert [m.seat_index for m in seated] == [0, 2]
    assert play.first_player_for(room, seated) == 1  # room seat 2, now engine seat 1


def test_a_game_with_cpus_replays_through_the_engine(alice):
    """Issue 8's replay holds for CPU moves too: every version a CPU made stores its
    input (seat, action, time), so the log rebuilds the game as it was played."""
    from game.history.replay import rebuild
    from game.history.selectors import game_events, versions_of

    game = cpu.start_game_against_cpus(alice, "normal", now=NOW)
    room = Room.objects.get(pk=game.room_id)
    play_to_the_end(room, game, alice, random.Random(5), NOW)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    cpu_steps = [
        e.step for e in game.events.order_by("seq")
        if e.step is not None and e.step.get("seat") in (1, 2, 3)
    ]
    assert cpu_steps, "no CPU move was logged with its input"
    frames = rebuild(game.initial_state, versions_of(game_events(game)))
    assert frames[-1].state == game.state
