"""docs/game-log.md's fields of a trump round (issue #35): a lone round's log replays from
documented fields. `game.rules` is Dobon UNO's house rules only (null for trump),
`initial.rate` is 1 (§T1.7), `initial.first_player` is au's first seat and null in
standard (the auction decides), and `initial.streaks` are the rounds each seat had won in
a row before the round (§T16's streak bonus), which the match record after the round
(`result.match`) no longer shows."""

from __future__ import annotations

from typing import Any

import pytest
from play_helpers import NOW, make_room
from test_trump_rooms import play_out, trump_room

from game.models import Membership, Room
from game.rules.trump import Game as TrumpGame
from game.rules.trump.match import match_new
from game.services import play
from game.services.engines import member_key

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0


def _with_streaks(room: Room, streaks: list[int]) -> None:
    """The room's running standard match, in which seats already won rounds in a row."""
    seated = list(Membership.objects.filter(room=room, seat_index__isnull=False)
                  .order_by("seat_index"))
    record = match_new("standard", len(seated), {"rounds": 20}, owner=len(seated) - 1)
    record = {**record, "round": 4, "streaks": streaks}
    room.trump_match = {"record": record, "members": [member_key(m) for m in seated],
                        "number": 1}
    room.save(update_fields=["trump_match"])


def _log(client: Any, owner: Any, game: Any) -> dict[str, Any]:
    client.force_login(owner)
    response = client.get(f"/games/{game.pk}.json")
    assert response.status_code == 200
    data: dict[str, Any] = response.json()
    return data


def test_a_standard_rounds_log_names_the_streaks_before_it(client, alice):
    room = trump_room(alice, "standard", cpus=3)
    _with_streaks(room, [0, 2, 0, 0])
    game = play_out(play.start_game(room, alice, now=NOW))
    log = _log(client, alice, game)

    initial = log["initial"]
    assert initial["streaks"] == [0, 2, 0, 0]
    assert initial["streaks"] == initial["engine_state"]["streaks"]
    assert initial["rate"] == 1 and log["game"]["rate"] == 1
    assert initial["first_player"] is None  # the auction decides (auction_end's seat)
    auction_end = next(e["event"] for e in log["events"] if e["event"]["type"] == "auction_end")
    assert isinstance(auction_end["seat"], int)
    assert log["game"]["rules"] is None  # no Dobon UNO house rules on a trump round
    assert log["result"]["match"]["streaks"] != initial["streaks"]  # after, not before


def test_an_au_rounds_log_names_its_first_player_and_rate(client, alice):
    room = trump_room(alice, "au", cpus=3)
    game = play_out(play.start_game(room, alice, now=NOW))
    log = _log(client, alice, game)
    initial = log["initial"]
    assert initial["first_player"] == initial["engine_state"]["first"]
    assert initial["rate"] == 1 and initial["streaks"] == [0, 0, 0, 0]
    assert log["game"]["rules"] is None


def _replay(log: dict[str, Any]) -> list[int]:
    """docs/game-log.md "Replaying a trump round", with this project's engine as the
    reader's own: the deal, the first player or the auction's outcome (auction_end: the
    winner among tied bids is the server's draw), the timeout and the streaks, then each
    version's input; the round's deltas."""
    initial, game = log["initial"], log["game"]
    steps = [e["input"] for e in log["events"] if e["input"]]
    auction = next((e["event"] for e in log["events"]
                    if e["event"]["type"] == "auction_end"), None)
    engine = TrumpGame.from_setup(
        hands=initial["hands"], first_card=initial["first_card"], deck=initial["deck"],
        first_player=auction["seat"] if auction else initial["first_player"],
        bids=auction["bids"] if auction else None, timeout=initial["timeout"],
        now=steps[0]["now"], preset=game["preset"], match={"streaks": initial["streaks"]},
    )
    for step in steps[1:]:
        if step.get("resume"):
            engine.resume(step["now"])
        if "action" in step and step["action"]["type"] == "bid":
            continue  # the auction is over in this engine: its outcome came from the events
        engine.advance(step["now"])
        if "action" in step:
            engine.apply(step["seat"], step["action"], step["now"])
    assert engine.result is not None
    deltas: list[int] = engine.result.to_dict()["deltas"]
    return deltas


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_lone_trump_round_replays_from_the_documented_fields(client, alice, preset):
    """The first round of a few that needed no reshuffle (a reshuffle's order is the
    server's draw: a reader follows the `drawn` events there)."""
    for _ in range(6):
        room = trump_room(alice, preset, cpus=3)
        if preset == "standard":
            _with_streaks(room, [1, 0, 3, 0])
        game = play_out(play.start_game(room, alice, now=NOW))
        log = _log(client, alice, game)
        if not any(e["event"]["type"] == "reshuffle" for e in log["events"]):
            break
        Room.objects.filter(pk=room.pk).delete()
    else:
        raise AssertionError("six rounds in a row reshuffled")
    assert _replay(log) == log["result"]["deltas"]


def test_a_dobon_uno_log_keeps_its_house_rules_and_no_streaks(client, alice, bob):
    room = make_room(alice, bob)
    game = play.abort_game(play.start_game(room, alice, now=NOW), alice, now=NOW + 1)
    log = _log(client, alice, game)
    assert log["game"]["rules"]["preset"] == "standard"
    assert log["initial"]["streaks"] is None
