"""Trump rounds resume after an outage of the clock as Dobon UNO games do (issue #30,
part 6; §T18 and docs/protocol.md, "The clock, and outages"): when the earliest deadline
lies more than DOBON_CLOCK_OUTAGE_SECONDS in the past, every due clock — the turn's, the
§T4 auction's, the open §T11 dobon chances', a match's program clock — restarts with a
full timeout, in one version holding one `resume` event, and no §T18 timeout is played
for the outage. The stored log replays exactly through game/history/replay.py, from the
database and from the game's JSON log alike."""

from __future__ import annotations

from typing import Any

import pytest
from play_helpers import NOW, make_room

from game.history.replay import Version, rebuild
from game.models import Game, GameEvent, Membership
from game.rules.registry import load
from game.services import clock, fixed_setups, matches, play

pytestmark = pytest.mark.django_db

OUTAGE = 26 * 60  # far beyond DOBON_CLOCK_OUTAGE_SECONDS (30)
TIMEOUT = 10  # the rooms' timeout_seconds


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""  # the laptop's clock: the sweep finds and moves
    settings.DOBON_CPU_DELAY_PERCENT = 0
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def engine(game: Game) -> Any:
    game.refresh_from_db()
    return load(game.game_kind, game.state)


def versions_of_rows(game: Game) -> list[Version]:
    versions: list[Version] = []
    for row in GameEvent.objects.filter(game=game).order_by("seq"):
        if not versions or versions[-1].number != row.version:
            versions.append(Version(row.version, row.step, []))
        versions[-1].events.append(row.data)
    return versions


def versions_of_log(events: list[dict[str, Any]]) -> list[Version]:
    versions: list[Version] = []
    for e in events:
        if not versions or versions[-1].number != e["version"]:
            versions.append(Version(e["version"], e["input"], []))
        versions[-1].events.append(e["event"])
    return versions


def version_events(game: Game, version: int) -> list[dict[str, Any]]:
    return [r.data for r in GameEvent.objects.filter(game=game, version=version).order_by("seq")]


def replayed(game: Game) -> list[Any]:
    """Every frame, rebuilt from the stored log (raises if the engine disagrees)."""
    game.refresh_from_db()
    return rebuild(game.initial_state, versions_of_rows(game), game_kind=game.game_kind)


def fixed_round(owner: Any, others: list[Any], preset: str, hands: list[list[str]],
                first: str, first_player: int | None = 0) -> Game:
    room = make_room(owner, *others, game_kind="trump_dobon", trump_preset=preset,
                     seat_count=max(3, len(hands)), timeout_seconds=TIMEOUT)
    setup = fixed_setups.FixedSetup(hands=hands, first_card=first, first_player=first_player,
                                    deck=["S9", "D1", "C3", "H13", "S4", "H6", "C1", "D8"])
    return fixed_setups.start_fixed_game(room, owner, setup, now=NOW)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_t18_a_person_acting_first_after_an_outage_gets_the_resume_then_their_action(
    alice, bob, carol, preset
):
    """Nobody swept for 26 minutes; the first thing after it is a person's own action:
    the version holds the resume and then the action, and no §T18 timeout (the standard
    round is in its §T4 auction: a bid; the au round's first seat plays)."""
    room = make_room(alice, bob, carol, game_kind="trump_dobon", trump_preset=preset,
                     seat_count=3, timeout_seconds=TIMEOUT)
    game = play.start_game(room, alice, now=NOW)
    table = engine(game)
    assert table.phase == ("auction" if preset == "standard" else "turn")
    seat = next(s for s in range(3) if table.legal_actions(s))
    person = {p.pk: p for p in (alice, bob, carol)}[play.seats_of(game)[seat].user_id]
    action = dict(table.legal_actions(seat)[0])
    if action["type"] == "bid":
        action = {"type": "bid", "amount": 3}
    back = NOW + OUTAGE
    play.perform_action(game, person, action, now=back)
    game.refresh_from_db()
    events = version_events(game, 1)
    assert game.version == 1 and events[0]["type"] == "resume"
    assert "timeout" not in [e["type"] for e in events]
    assert GameEvent.objects.get(game=game, version=1, step__isnull=False).step == {
        "now": back, "resume": True, "seat": seat, "action": action}
    assert engine(game).next_deadline == pytest.approx(back + TIMEOUT)
    assert [f.kind for f in replayed(game)] == ["start", "resume", "action"]


def test_t11_an_open_dobon_chance_survives_an_outage_with_a_fresh_deadline(alice, bob, carol):
    """au: alice's D10 gives carol (S4 + H6 = 10) a dobon chance (§T11.1) and bob the turn.
    The clock stops for 26 minutes: on its return the chance is still open, with a full
    timeout, and carol's dobon wins the round; nobody drew or lost a chance to §T18."""
    game = fixed_round(alice, [bob, carol], "au",
                       [["D10", "S3", "H7"], ["C13", "H12"], ["S4", "H6"]], "D6")
    play.perform_action(game, alice, {"type": "play", "cards": ["D10"]}, now=NOW + 1)
    assert "dobon" in engine(game).view(2)["chances"]
    back = NOW + 1 + OUTAGE
    assert clock.expire_due_games(now=back) == 1
    game.refresh_from_db()
    assert [e["type"] for e in version_events(game, 2)] == ["resume"]
    table = engine(game)
    assert "dobon" in table.view(2)["chances"] and table.turn == 1
    assert table.next_deadline == pytest.approx(back + TIMEOUT)
    assert clock.expire_due_games(now=back + TIMEOUT - 0.5) == 0  # the fresh timeout runs
    play.perform_action(game, carol, {"type": "dobon"}, now=back + 2)
    clock.expire_due_games(now=back + 2 + TIMEOUT)  # the §T12 chain's clock closes it
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert 2 in game.state["result"]["winners"]
    assert [f.kind for f in replayed(game)][:4] == ["start", "action", "resume", "action"]


def test_t4_the_standard_auction_resumes_with_its_bids_kept(alice, bob, carol):
    """standard: bob bid 5, then the clock stopped. On its return nobody is made to bid
    1 (§T18's auction timeout): the auction goes on with bob's bid and a fresh clock."""
    game = fixed_round(alice, [bob, carol], "standard",
                       [["C2", "D9"], ["H2", "S7"], ["H5", "C8"]], "C7", first_player=None)
    play.perform_action(game, bob, {"type": "bid", "amount": 5}, now=NOW + 1)
    back = NOW + OUTAGE
    clock.expire_due_games(now=back)
    game.refresh_from_db()
    assert [e["type"] for e in version_events(game, 2)] == ["resume"]
    table = engine(game)
    assert table.phase == "auction" and table.next_deadline == pytest.approx(back + TIMEOUT)
    assert not any(e.get("type") == "bid" for e in version_events(game, 2))
    assert [f.kind for f in replayed(game)] == ["start", "action", "resume"]
    # Then §T18 as usual at the fresh deadline: the silent seats bid 1 and the auction ends.
    clock.expire_due_games(now=back + TIMEOUT)
    game.refresh_from_db()
    kinds = [e["type"] for e in version_events(game, 3)]
    assert kinds[:2] == ["timeout", "bid"] and "auction_end" in kinds
    replayed(game)


@pytest.mark.parametrize(("kind", "preset"), [
    ("trump_dobon", "au"), ("trump_dobon", "standard"), ("dobon_uno", "au"),
])
def test_a_program_seats_match_clock_restarts_after_an_outage(bob, kind, preset):
    """A match gives bob's program seat 1 s (the engine keeps 10 s). The clock stops
    while his seat may act; on its return his seat gets a fresh program clock (1 s from
    then), not the automatic action the outage's lateness would have made due — the same
    in Dobon UNO and both trump presets."""
    room = make_room(bob, seats=[0], game_kind=kind, trump_preset=preset,
                     timeout_seconds=TIMEOUT)
    Membership.objects.filter(room=room, user=bob).update(program_sockets=1)
    match = matches.start_match(room, bob, games=1, program_timeout=1, cpu_level="easy",
                                now=NOW)
    game = Game.objects.get(match=match)
    mine = next(s.seat for s in play.seats_of(game) if s.user_id == bob.pk)
    now = NOW
    while not engine(game).legal_actions(mine):  # the CPUs play until bob may act
        now += 0.25
        assert now < NOW + 60, "bob's seat never could act"
        clock.expire_due_games(now=now)
    assert game.cpu_due is not None and game.cpu_due.timestamp() <= now + 1.0
    before = game.version
    back = now + OUTAGE
    clock.expire_due_games(now=back)
    game.refresh_from_db()
    # One resume; a CPU still to act (a standard auction's bids) plays in the same
    # version, after it, and the others at once: CPU moves are no timeouts.
    kinds = [e["type"] for e in version_events(game, before + 1)]
    assert kinds[0] == "resume" and "timeout" not in kinds
    assert "resume" not in [e.data["type"] for e in GameEvent.objects.filter(
        game=game, version__gt=before + 1)]
    assert not GameEvent.objects.filter(game=game, step__auto=True).exists()
    assert game.cpu_due.timestamp() == pytest.approx(back + 1.0)  # a fresh program clock
    assert clock.expire_due_games(now=back + 0.75) == 0
    clock.expire_due_games(now=back + 1.0)
    auto = GameEvent.objects.filter(game=game, step__auto=True).order_by("seq").first()
    assert auto.step["seat"] == mine and auto.step["now"] == back + 1.0
    replayed(game)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_the_json_log_of_a_trump_round_with_a_resume_replays_exactly(client, alice, preset):
    """A round with CPUs whose clock stops mid-round, played to its end: its JSON log
    (docs/game-log.md) says `"resume": true` in the version's input and replays from the
    log alone to the same settlement; the history page names the stopped clock."""
    from play_helpers import seat_cpus

    room = seat_cpus(make_room(alice, game_kind="trump_dobon", trump_preset=preset,
                               seat_count=4, timeout_seconds=TIMEOUT), *["normal"] * 3)
    game = play.start_game(room, alice, now=NOW)
    back = NOW + OUTAGE
    clock.expire_due_games(now=back)  # alice's clock, or a CPU's move after the resume
    game.refresh_from_db()
    assert version_events(game, 1)[0]["type"] == "resume"
    now = back
    while game.status == Game.Status.RUNNING:
        now += 1.0
        assert now < back + 4000, "the round did not end"
        clock.expire_due_games(now=now)
        game.refresh_from_db()
    client.force_login(alice)
    log = client.get(f"/games/{game.pk}.json").json()
    resumes = [e for e in log["events"] if e["event"]["type"] == "resume"]
    assert len(resumes) == 1 and resumes[0]["input"]["resume"] is True
    frames = rebuild(log["initial"]["engine_state"], versions_of_log(log["events"]),
                     game_kind=log["game"]["game_kind"])
    assert [f.kind for f in frames].count("resume") == 1
    assert frames[-1].table["result"]["deltas"] == log["result"]["deltas"]
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert page.count('class="line kind-resume') == 1
