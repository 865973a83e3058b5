"""game.bots.client.SeatPlayer: a CPU policy playing a seat from `state` frames
(docs/protocol.md). Frames are built from a real engine, as the server builds them."""

from __future__ import annotations

from typing import Any

from game.bots import policy
from game.bots.client import SeatPlayer
from game.rules import Game

NOW = 1000.0


class Scripted:
    """A policy that answers what it is told and remembers what it saw."""

    level, seed = "scripted", 0

    def __init__(self, answer: dict[str, Any] | None = None) -> None:
        self.answer = answer
        self.seen: list[list[dict[str, Any]]] = []

    def act(self, view: Any, events: Any) -> dict[str, Any] | None:
        self.seen.append(list(events))
        return self.answer


def frame(engine: Game, seat: int, version: int, since: int, events: list[dict[str, Any]],
          game: int = 7, status: str = "running") -> dict[str, Any]:
    view = engine.view(seat)
    return {"type": "state", "game": game, "number": 1, "version": version, "status": status,
            "seat": seat, "view": view, "deadline": view["deadline"], "server_time": NOW,
            "events": [e for e in events if e.get("to") in (None, seat)],
            "from_version": since, "players": [], "room": None}


def player(answer: dict[str, Any] | None = None) -> tuple[SeatPlayer, Scripted]:
    scripted = Scripted(answer)
    return SeatPlayer(scripted, clock=lambda: NOW), scripted


def dealt(**setup: Any) -> Game:
    return Game.from_setup(now=NOW, **setup)


START = {"type": "start", "to": None, "seat": 0}


def test_the_seat_on_turn_answers_with_the_policys_action_once_per_version() -> None:
    engine = dealt(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=0)
    seat, scripted = player({"type": "play", "cards": ["R5"]})
    state = frame(engine, 0, 0, -1, [START])
    assert seat.on_message(state) == [{"type": "action", "version": 0,
                                       "action": {"type": "play", "cards": ["R5"]}}]
    assert scripted.seen == [[START]]
    # the same version again (a plain sync, a room change): no second answer
    assert seat.on_message({**state, "from_version": 0, "events": []}) == []


def test_a_player_that_joins_mid_game_asks_for_the_whole_game_before_acting() -> None:
    engine = dealt(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=0)
    seat, scripted = player({"type": "draw"})
    assert seat.on_message(frame(engine, 0, 4, 4, [])) == [
        {"type": "sync", "game": 7, "version": -1}]
    assert scripted.seen == []
    seat.on_message(frame(engine, 0, 4, -1, [START, {"type": "turn", "to": None}]))
    assert scripted.seen == [[START, {"type": "turn", "to": None}]]


def test_a_skipped_version_is_asked_for_and_a_stale_frame_is_dropped() -> None:
    engine = dealt(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=1)
    seat, scripted = player(None)
    seat.on_message(frame(engine, 0, 0, -1, [START]))
    assert seat.on_message(frame(engine, 0, 3, 2, [{"type": "x", "to": None}])) == [
        {"type": "sync", "game": 7, "version": 0}]
    seat.on_message(frame(engine, 0, 3, 0, [{"type": "a", "to": None}, {"type": "b", "to": 0}]))
    seat.on_message(frame(engine, 0, 2, 1, [{"type": "late", "to": None}]))  # stale: dropped
    assert seat.events == [START, {"type": "a", "to": None}, {"type": "b", "to": 0}]
    assert seat.version == 3


def test_r9_in_a_blocking_dobon_wait_a_waiting_policy_declines_at_once() -> None:
    """§R8.2 / §R14.2: seat 1 can dobon seat 0's last card; a policy that lets it pass
    declines, so the wait ends now instead of at its timeout."""
    engine = dealt(hands=[["R5"], ["R3", "B2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=0)
    events = engine.play(0, ["R5"], NOW)
    assert engine.phase == "agari_wait" and engine.chances(1) == ["dobon"]
    seat, _ = player(None)
    seat.on_message(frame(engine, 1, 0, -1, [START]))
    assert seat.on_message(frame(engine, 1, 1, 0, events)) == [
        {"type": "action", "action": {"type": "decline"}, "version": 1}]


def test_r7_a_cut_in_chance_the_policy_lets_pass_is_not_declined() -> None:
    """§R7.6: a cut-in chance does not hold the game, so there is nothing to answer."""
    engine = dealt(hands=[["R5", "B1"], ["G3", "G2"], ["R5", "Y4"]], first_card="R7",
                   deck=["G1"] * 5, first_player=0)
    events = engine.play(0, ["R5"], NOW)
    assert "cut_in" in engine.chances(2) and engine.phase == "turn"
    seat, _ = player(None)
    seat.on_message(frame(engine, 2, 0, -1, [START]))
    assert seat.on_message(frame(engine, 2, 1, 0, events)) == []


def test_r14_past_the_deadline_the_player_leaves_the_move_to_the_server() -> None:
    engine = dealt(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=0)
    seat, scripted = player({"type": "draw"})
    late = {**frame(engine, 0, 0, -1, [START]), "server_time": NOW + engine.timeout + 1}
    assert seat.on_message(late) == []
    assert scripted.seen == []


def test_finished_games_are_counted_and_not_answered() -> None:
    engine = dealt(hands=[["R5", "B1"], ["R3", "G2"]], first_card="R7", deck=["G1"] * 5,
                   first_player=0)
    seat, scripted = player({"type": "draw"})
    seat.on_message(frame(engine, 0, 0, -1, [START]))
    over = {**frame(engine, 0, 9, 0, [], status="finished"), "view": None}
    assert seat.on_message(over) == []
    assert seat.finished == {7}


def test_errors_and_presence_frames_are_ignored() -> None:
    seat, _ = player({"type": "draw"})
    assert seat.on_message({"type": "error", "code": "not_your_turn"}) == []
    assert seat.on_message({"type": "presence", "online": []}) == []


def test_a_real_policy_answers_only_legal_actions_through_the_frames() -> None:
    """Four seats, each a SeatPlayer with a CPU policy, fed the frames a server would
    push, play a whole game: every answer is applied by the engine without refusal."""
    engine = Game.new(players=4, first_player=0, seed=11, now=NOW)
    time_now = [NOW]  # the clients' clock, moved with the engine's
    seats = [SeatPlayer(policy("normal", s), clock=lambda: time_now[0]) for s in range(4)]
    start = [{"type": "start", "to": None, "seat": engine.turn, "top": engine.top,
              "players": 4, "rate": 1}]
    pending = {s: frame(engine, s, 0, -1, start) for s in range(4)}
    version, now = 0, NOW
    for _ in range(5000):
        answers = [(s, m) for s in range(4) for m in seats[s].on_message(pending[s])]
        pending = {s: {**pending[s], "from_version": version, "events": []} for s in range(4)}
        if engine.phase == "finished":
            break
        if answers:
            seat, message = answers[0]
            events = engine.apply(seat, message["action"], now)
        else:
            now = engine.next_deadline or now
            events = engine.advance(now)
        version += 1
        status = "finished" if engine.phase == "finished" else "running"
        time_now[0] = now
        for s in range(4):
            pending[s] = {**frame(engine, s, version, version - 1, events, status=status),
                          "server_time": now}
    assert engine.phase == "finished"


def test_the_command_line_client_says_what_happens() -> None:
    """game.bots.client's `say`: the seat it plays (the room's numbering), a watcher
    told to take a seat, refusals and finished games."""
    from game.bots.client import _tell

    said: list[str] = []
    seat, _ = player(None)
    playing = {"type": "state", "game": 7, "number": 1, "status": "running", "seat": 1,
               "players": [{"seat": 1, "room_seat": 3}]}
    assert _tell(playing, seat, 0, None, said.append) is True
    assert _tell(playing, seat, 0, True, said.append) is True  # said once
    watching = {**playing, "seat": None}
    assert _tell(watching, seat, 0, True, said.append) is False
    _tell({"type": "error", "code": "stale", "message": "…"}, seat, 0, False, said.append)
    seat.finished.add(7)
    _tell({**playing, "status": "finished"}, seat, 0, False, said.append)
    assert said == ["playing seat 4",
                    "watching: your user has no seat in this game (take a seat in the room "
                    "first)",
                    "refused: stale (…)", "game 1 over (1 finished)"]


def test_the_client_paces_its_messages_under_the_servers_limit() -> None:
    """docs/protocol.md: 20 messages a second, bursts of 20, counted on arrival; the
    client keeps to 16, waiting rather than losing a move to `rate_limited`."""
    from game.bots.client import MESSAGES_PER_SECOND, Pacer

    now = [100.0]
    pacer = Pacer(stamp=now[0], clock=lambda: now[0])
    assert [pacer.wait() for _ in range(16)] == [0.0] * 16  # a burst goes at once
    assert pacer.wait() == 1 / MESSAGES_PER_SECOND  # the 17th waits for its token
    now[0] += 2.0
    assert pacer.wait() == 0.0  # refilled, never past one burst
    assert [pacer.wait() for _ in range(15)] == [0.0] * 15
    assert pacer.wait() > 0
