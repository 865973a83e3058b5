"""Trump Dobon rooms through the service layer (issue #18): the room's game kind picks
the engine (game/services/engines.py); whole rounds of both presets play through the same
locked path as Dobon UNO; the §T17 match is carried round to round in the database; trump
points never reach Dobon UNO's (`Membership.points`, profiles, the leaderboard).

Time is an input: the sweep is called with growing `now`.
"""

from __future__ import annotations

from typing import Any

import pytest
from play_helpers import NOW, make_room, seat_cpus

from game.models import Game, GamePlayer, Membership, PlayerStats, Room, RoomStanding
from game.rules.registry import load
from game.services import clock, engines, play, rooms
from game.services.rooms import RoomError

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""
    settings.DOBON_CPU_DELAY_PERCENT = 0  # CPUs answer at once: whole rounds stay quick


def trump_room(owner: Any, preset: str, *others: Any, cpus: int = 0, **fields: Any) -> Room:
    fields.setdefault("seat_count", 4)
    room = make_room(owner, *others, game_kind="trump_dobon", trump_preset=preset, **fields)
    return seat_cpus(room, *["normal"] * cpus) if cpus else room


def engine(game: Game) -> Any:
    game.refresh_from_db()
    return load(game.game_kind, game.state)


def play_out(game: Game, owner_seat: int = 0, limit: int = 4000) -> Game:
    """Play the round to its end: the owner answers its first legal action (a bid of 1),
    the CPUs and the clock the rest, through the sweep."""
    now = game.events.order_by("seq").first().data.get("now", None) or engine(game).view(
        None)["turn_deadline"] - engine(game).timeout
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        legal = engine(game).legal_actions(owner_seat)
        if legal:
            action = dict(legal[0])
            if action["type"] == "bid":
                action = {"type": "bid", "amount": 1}
            play.perform_action(game, game.room.owner, action, now=now)
        now += 1.0
        clock.expire_due_games(now=now)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_whole_trump_round_plays_through_the_service_layer(alice, preset):
    room = trump_room(alice, preset, cpus=3)
    game = play.start_game(room, alice, now=NOW)
    assert (game.game_kind, game.preset) == ("trump_dobon", preset)
    first = game.events.order_by("seq").first().data
    assert first["type"] == "start" and first["preset"] == preset and "rate" not in first
    game = play_out(game)
    assert game.status == Game.Status.FINISHED
    result = game.result
    assert result["score_order"] == ("high" if preset == "au" else "low")
    match = result["match"]
    assert match["preset"] == preset and match["round"] in (1, 2)
    room.refresh_from_db()
    assert room.trump_match["record"] == {k: v for k, v in match.items() if k != "number"}
    # Trump points never reach Dobon UNO's.
    assert set(Membership.objects.filter(room=room).values_list("points", flat=True)) == {0}
    assert room.deck_out_streak == 0
    deltas = list(GamePlayer.objects.filter(game=game).order_by("seat").values_list(
        "delta", flat=True))
    assert deltas == result["deltas"]


def test_the_au_match_carries_totals_round_to_round(alice):
    room = trump_room(alice, "au", cpus=2, seat_count=3, starting_points=500)
    totals = [500, 500, 500]
    first = play_out(play.start_game(room, alice, now=NOW))
    totals = [t + d for t, d in zip(totals, first.result["deltas"], strict=True)]
    assert first.result["match"]["totals"] == totals
    if first.result["match"]["over"]:
        return
    second = play.start_game(room, alice, now=NOW + 50_000)
    # §T17.1: the round's winner plays first (the same first player after a deck-out).
    expected = first.result["next_first_player"]
    if expected is None:
        expected = load("trump_dobon", first.initial_state).first_player
    assert engine(second).first_player == expected
    second = play_out(second)
    totals = [t + d for t, d in zip(totals, second.result["deltas"], strict=True)]
    assert second.result["match"]["totals"] == totals
    assert second.result["match"]["round"] == 3 or second.result["match"]["over"]


def test_a_restart_reads_the_match_from_the_database(alice):
    room = trump_room(alice, "standard", cpus=3, rounds_per_match=3)
    play_out(play.start_game(room, alice, now=NOW))
    fresh = Room.objects.get(pk=room.pk)  # as a new process would
    info = engines.of(fresh).match_info(fresh)
    assert info["round"] == 2 and info["settings"] == {"rounds": 3}
    game = play_out(play.start_game(fresh, alice, now=NOW + 50_000))
    assert game.result["match"]["round"] == 3


def test_the_standard_match_ends_after_its_rounds_and_a_new_one_starts(alice):
    room = trump_room(alice, "standard", cpus=3, rounds_per_match=1)
    game = play_out(play.start_game(room, alice, now=NOW))
    assert game.result["match"]["over"] is True
    assert game.result["match"]["number"] == 1
    game = play_out(play.start_game(room, alice, now=NOW + 50_000))
    assert game.result["match"]["number"] == 2  # §T17.5: a new match


@pytest.mark.parametrize(("preset", "seated", "ok"), [
    ("au", 2, True), ("au", 4, True), ("standard", 2, False), ("standard", 3, True),
])
def test_seat_ranges_of_t1_are_enforced_at_the_start(alice, preset, seated, ok):
    room = trump_room(alice, preset, cpus=seated - 1)
    if ok:
        assert play.start_game(room, alice, now=NOW).game_kind == "trump_dobon"
        return
    with pytest.raises(play.PlayError) as refused:
        play.start_game(room, alice, now=NOW)
    assert refused.value.code == "trump_seats"
    assert "3" in refused.value.message and "6" in refused.value.message


def test_room_settings_check_the_seat_range_with_a_clear_message(alice):
    with pytest.raises(RoomError) as refused:
        rooms.create_room(alice, name="t", seat_count=6, game_kind="trump_dobon",
                          trump_preset="au")
    assert refused.value.field == "seat_count" and "2" in refused.value.message
    room = rooms.create_room(alice, name="t", seat_count=6, game_kind="trump_dobon",
                             trump_preset="standard", rounds_per_match=5)
    assert (room.game_kind, room.trump_preset, room.rounds_per_match) == (
        "trump_dobon", "standard", 5)
    with pytest.raises(RoomError):
        rooms.create_room(alice, name="t", game_kind="trump_dobon", starting_points=50)


def test_a_settings_change_ends_the_running_match(alice):
    room = trump_room(alice, "au", cpus=3)
    play_out(play.start_game(room, alice, now=NOW))
    room.refresh_from_db()
    assert room.trump_match is not None
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, starting_points=2000)
    room.refresh_from_db()
    assert room.trump_match is None  # §T1.1: the next round starts a new match
    game = play.start_game(room, alice, now=NOW + 50_000)
    room.refresh_from_db()
    assert room.trump_match["record"]["totals"] == [2000] * 4
    assert game.preset == "au"


def test_trump_points_stay_apart_from_dobon_uno_points(alice):
    room = trump_room(alice, "au", cpus=3)
    play_out(play.start_game(room, alice, now=NOW))
    standings = RoomStanding.objects.filter(room=room)
    assert set(standings.values_list("game_kind", flat=True)) == {"trump_dobon"}
    assert not PlayerStats.objects.filter(user=alice).exists()


def test_state_frames_carry_the_game_kind_and_preset(alice):
    room = trump_room(alice, "standard", cpus=3)
    play.start_game(room, alice, now=NOW)
    room.refresh_from_db()
    frame = play.table_for(room, alice)
    assert (frame["game_kind"], frame["preset"]) == ("trump_dobon", "standard")
    assert frame["view"]["preset"] == "standard" and frame["view"]["phase"] == "auction"
    assert frame["room"]["game_kind"] == "trump_dobon"
    assert frame["room"]["match"]["round"] == 1


def test_dobon_uno_frames_say_so(alice, bob):
    room = make_room(alice, bob)
    play.start_game(room, alice, now=NOW)
    frame = play.table_for(room, alice)
    assert (frame["game_kind"], frame["preset"]) == ("dobon_uno", None)


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_history_pages_log_and_replay_a_trump_round(client, alice, preset):
    room = trump_room(alice, preset, cpus=3)
    game = play_out(play.start_game(room, alice, now=NOW))
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="card-chip tchip' in html  # playing cards, not Dobon UNO chips
    log = client.get(f"/games/{game.pk}.json")
    assert log.status_code == 200
    data = log.json()
    assert data["game"]["game_kind"] == "trump_dobon" and data["game"]["preset"] == preset
    assert data["events"][0]["event"]["type"] == "start"
    assert data["initial"]["first_card"] == data["events"][0]["event"]["top"]
    assert client.get(f"/rooms/{room.pk}/history/").status_code == 200
    assert client.get(f"/rooms/{room.pk}/").status_code == 200


def test_a_running_trump_round_is_not_in_history(client, alice, bob):
    room = trump_room(alice, "au", bob)
    game = play.start_game(room, alice, now=NOW)
    client.force_login(bob)
    assert client.get(f"/games/{game.pk}/").status_code == 404
    assert client.get(f"/games/{game.pk}.json").status_code == 404


def test_a_trump_seat_sees_only_its_own_hand(alice, bob):
    room = trump_room(alice, "au", bob)
    play.start_game(room, alice, now=NOW)
    room.refresh_from_db()
    mine, theirs = play.table_for(room, alice), play.table_for(room, bob)
    assert mine["view"]["hand"] != theirs["view"]["hand"]
    # Whole strings, not substrings: bob's "H1" is not hidden inside alice's "H13".
    shown_to_alice = set(_strings_in(mine["view"]))
    assert shown_to_alice & set(theirs["view"]["hand"]) == set()


def _strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings_in(v)]
    return []


def test_play_now_against_cpu_offers_both_games(client, alice):
    client.force_login(alice)
    lobby = client.get("/").content.decode()
    assert 'value="trump_au"' in lobby and 'value="trump_standard"' in lobby
    answer = client.post("/play/cpu/", {"level": "easy", "game": "trump_standard"})
    assert answer.status_code == 302
    room = Room.objects.get(owner=alice)
    assert (room.game_kind, room.trump_preset) == ("trump_dobon", "standard")
    assert room.games.get().preset == "standard"


def test_the_room_form_creates_a_trump_room_and_the_lobby_says_which_game(client, alice):
    client.force_login(alice)
    answer = client.post("/rooms/new/", {
        "name": "トランプ卓", "game_kind": "trump_dobon", "trump_preset": "au", "seat_count": 4,
        "timeout_seconds": 10, "starting_points": 2500, "is_public": "on"})
    assert answer.status_code == 302
    room = Room.objects.get(name="トランプ卓")
    assert (room.game_kind, room.starting_points) == ("trump_dobon", 2500)
    refused = client.post("/rooms/new/", {
        "name": "多すぎ", "game_kind": "trump_dobon", "trump_preset": "au", "seat_count": 6,
        "timeout_seconds": 10})
    assert refused.status_code == 200 and not Room.objects.filter(name="多すぎ").exists()
    assert "2" in refused.content.decode() and "4" in refused.content.decode()
    client.cookies["django_language"] = "en"
    assert "Trump Dobon (au)" in client.get("/").content.decode()


def test_a_match_of_n_games_plays_n_trump_rounds_and_restarts_the_trump_match(alice):
    """§T21.Q11: a bot-API match of N games plays N rounds; when §T17 ends the game's own
    match inside it (here after 1 round), the next round starts a new one."""
    from game.models import Match
    from game.services import matches

    room = trump_room(alice, "standard", rounds_per_match=1)
    match = matches.start_match(room, alice, games=3, cpu_level="easy", now=NOW)
    now = NOW
    for _ in range(3000):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        game = room.games.filter(status=Game.Status.RUNNING).first()
        if game is not None:
            legal = engine(game).legal_actions(0)
            if legal:
                action = dict(legal[0])
                if action["type"] == "bid":
                    action = {"type": "bid", "amount": 1}
                play.perform_action(game, alice, action, now=now)
        now += 1.0
        clock.expire_due_games(now=now)
    assert match.status == Match.Status.FINISHED
    games = list(room.games.order_by("number"))
    assert [g.game_kind for g in games] == ["trump_dobon"] * 3
    assert [g.result["match"]["number"] for g in games] == [1, 2, 3]
    lines = matches.standings(match)
    totals = [line.total for line in lines]
    assert totals == sorted(totals)  # standard: lowest total first


def test_the_admin_shows_the_game_kind_and_preset(admin_client, alice):
    room = trump_room(alice, "standard", cpus=2)
    play.start_game(room, alice, now=NOW)
    rooms_page = admin_client.get("/admin/game/room/").content.decode()
    games_page = admin_client.get("/admin/game/game/").content.decode()
    for page in (rooms_page, games_page):
        assert "Trump Dobon" in page or "トランプ" in page
        assert "standard" in page or "スタンダード" in page


def test_how_to_play_has_a_section_per_trump_preset(client):
    ja = client.get("/how-to-play/").content.decode()
    assert 'id="trump-au"' in ja and 'id="trump-standard"' in ja and "116" in ja
    client.cookies["django_language"] = "en"
    en = client.get("/how-to-play/").content.decode()
    assert "How to play trump Dobon" in en and "lowest total" in en


# -- §T18: every kind of timeout, applied by the sweep ------------------------------------


@pytest.fixture
def fixed(settings):
    settings.DOBON_TEST_SETUPS_ALLOWED = True


def fixed_game(owner: Any, others: list[Any], preset: str, hands: list[list[str]], first: str,
               first_player: int | None = 0, deck: list[str] | None = None) -> Game:
    from game.services import fixed_setups

    room = make_room(owner, *others, game_kind="trump_dobon", trump_preset=preset,
                     seat_count=max(3, len(hands)) if preset == "standard" else len(hands))
    setup = fixed_setups.FixedSetup(hands=hands, first_card=first, first_player=first_player,
                                    deck=deck or ["S9", "D1", "C3", "H13", "S4", "H6", "C1",
                                                  "D8", "S10", "H10"])
    return fixed_setups.start_fixed_game(room, owner, setup, now=NOW)


def timeouts_at(game: Game, now: float) -> list[dict[str, Any]]:
    game.refresh_from_db()
    before = game.event_count
    clock.expire_due_games(now=now)
    game.refresh_from_db()
    return [e.data for e in game.events.filter(seq__gte=before).order_by("seq")]


def test_t18_auction_bids_1_for_a_silent_seat(fixed, alice, bob, carol):
    game = fixed_game(alice, [bob, carol], "standard", [["C2", "D9"], ["H2", "S7"], ["H5", "C8"]],
                      "C7", first_player=None)
    play.perform_action(game, bob, {"type": "bid", "amount": 5}, now=NOW + 1)
    events = timeouts_at(game, NOW + 10)
    assert [e["type"] for e in events[:5]] == ["timeout", "bid", "timeout", "bid", "auction_end"]
    assert [e["seat"] for e in events[:4]] == [0, 0, 2, 2]
    assert events[0]["action"] == "bid"
    end = next(e for e in events if e["type"] == "auction_end")
    assert end["bids"] == [1, 5, 1] and end["winner"] == 1


def test_t18_turn_draws_one_and_au_obligation_takes_all(fixed, alice, bob):
    game = fixed_game(alice, [bob], "au", [["S2", "D7"], ["C9", "H13"]], "S5")
    play.perform_action(game, alice, {"type": "play", "cards": ["S2"]}, now=NOW + 1)
    events = timeouts_at(game, NOW + 11)
    assert events[0] == {**events[0], "type": "timeout", "action": "take", "seat": 1}
    assert next(e for e in events if e["type"] == "take")["count"] == 2
    events = timeouts_at(game, NOW + 21)
    assert events[0] == {**events[0], "type": "timeout", "action": "draw", "seat": 0}


def test_t18_shibari_takes_the_accumulation(fixed, alice, bob, carol):
    game = fixed_game(alice, [bob, carol], "standard",
                      [["C2", "D9", "H4"], ["H3", "S7", "D3"], ["H5", "C8", "D4"]], "C7")
    play.perform_action(game, alice, {"type": "play", "cards": ["C2"]}, now=NOW + 1)
    events = timeouts_at(game, NOW + 11)
    assert events[0] == {**events[0], "type": "timeout", "action": "take", "seat": 1}


def test_t18_a_dobon_chance_lapses_silently_before_the_turn_draws(fixed, alice, bob, carol):
    # §T18.5 (d): 0 plays D10; 1 is on turn; 2 holds S4 H6 (10): at the deadline 2's chance
    # lapses first (a private decline), then 1 draws.
    game = fixed_game(alice, [bob, carol], "au",
                      [["D10", "S3", "H7"], ["C13", "H12"], ["S4", "H6"]], "D6")
    play.perform_action(game, alice, {"type": "play", "cards": ["D10"]}, now=NOW + 1)
    events = timeouts_at(game, NOW + 11)
    kinds = [(e["type"], e.get("to")) for e in events]
    assert kinds.index(("decline", 2)) < kinds.index(("timeout", None))
    assert next(e for e in events if e["type"] == "decline")["timeout"] is True


# -- standings and leaderboards per game kind ----------------------------------------------


def test_standings_and_leaderboards_keep_the_kinds_apart_and_rank_standard_lowest_first(
    client, alice, bob, carol, dave,
):
    from game.history import selectors
    from game.models import TrumpPlayerStats
    from game.services.history import room_standings

    n = selectors.LEADERBOARD_MIN_GAMES
    for user, points in ((alice, 30), (bob, -20), (carol, 5)):
        TrumpPlayerStats.objects.create(user=user, preset="standard", games=n, points=points,
                                        points_per_game=points / n)
    TrumpPlayerStats.objects.create(user=dave, preset="au", games=n, points=500,
                                    points_per_game=500 / n)
    client.force_login(alice)
    def board(url: str) -> str:
        html = client.get(url).content.decode()
        start = html.find('data-testid="leaderboard"')
        return html[start:html.find("</table>", start)] if start >= 0 else ""

    standard = board("/leaderboard/?game=trump_standard")
    assert standard.index(">bob<") < standard.index(">carol<") < standard.index(">alice<")
    assert ">dave<" not in standard
    au = board("/leaderboard/?game=trump_au")
    assert ">dave<" in au and ">bob<" not in au
    uno = board("/leaderboard/")
    assert ">dave<" not in uno  # no Dobon UNO games

    room = trump_room(alice, "standard", cpus=3)
    game = play_out(play.start_game(room, alice, now=NOW))
    line = TrumpPlayerStats.objects.get(user=alice, preset="standard")
    assert line.games == 1 + n and line.points == 30 + game.result["deltas"][0]
    room.refresh_from_db()
    rows = room_standings(room)
    points = [r["points"] for r in rows]
    assert points == sorted(points)  # lowest first
    uno_room = make_room(alice, bob)
    assert room_standings(uno_room) == []  # the trump lines stay in the trump room's kind


def _section(html: str, testid: str) -> str:
    start = html.find(f'data-testid="{testid}"')
    return html[start:html.find("</dl>", start)] if start >= 0 else ""


def test_the_profile_shows_each_trump_preset_apart_from_dobon_uno(client, alice, bob, carol,
                                                                 dave):
    from game.history import selectors
    from game.models import TrumpPlayerStats

    n = selectors.LEADERBOARD_MIN_GAMES
    for user, points in ((alice, 30), (bob, -20), (carol, 5)):  # standard: bob, carol, alice
        TrumpPlayerStats.objects.create(user=user, preset="standard", games=n, points=points,
                                        points_per_game=points / n)
    for user, points in ((alice, 40), (dave, 500)):  # au: dave, alice
        TrumpPlayerStats.objects.create(user=user, preset="au", games=n, points=points,
                                        points_per_game=points / n)
    client.force_login(bob)
    html = client.get("/u/alice/").content.decode()
    assert 'data-testid="profile-stats"' not in html  # no Dobon UNO games: no UNO line
    standard = _section(html, "trump-stats-standard")
    assert 'data-testid="trump-points">+30<' in standard
    assert '?game=trump_standard">#3<' in standard  # lowest points per game first
    au = _section(html, "trump-stats-au")
    assert 'data-testid="trump-points">+40<' in au and '?game=trump_au">#2<' in au
    assert html.index("trump-stats-au") < html.index("trump-stats-standard")
    bob_page = client.get("/u/bob/").content.decode()
    assert '?game=trump_standard">#1<' in _section(bob_page, "trump-stats-standard")
    assert "trump-stats-au" not in bob_page


def test_a_played_trump_round_reaches_the_profile_and_not_the_dobon_uno_line(client, alice):
    room = trump_room(alice, "au", cpus=3)
    game = play_out(play.start_game(room, alice, now=NOW))
    client.force_login(alice)
    html = client.get("/u/alice/").content.decode()
    au = _section(html, "trump-stats-au")
    assert 'data-testid="trump-games">1<' in au
    assert 'data-testid="profile-stats"' not in html  # nothing counted as Dobon UNO
    assert 'data-testid="trump-rank"><span class="muted">' in au  # unranked: too few games
    assert game.get_absolute_url() in html  # among the recent games, marked as trump


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_the_reference_client_plays_trump(preset):
    """docs/bot-client.py's policy answers every trump view with an action the engine
    takes, to the end of a round."""
    import importlib.util
    from pathlib import Path

    from game.rules.trump import Game as Trump

    path = Path(__file__).resolve().parents[2] / "docs" / "bot-client.py"
    spec = importlib.util.spec_from_file_location("bot_client", path)
    client = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(client)
    g = Trump.new(players=4, first_player=0 if preset == "au" else None, seed=3, preset=preset)
    now = 0.0
    for _ in range(2000):
        if g.phase == "finished":
            break
        seats = [s for s in range(4) if g.legal_actions(s)]
        now += 0.1
        if not seats:
            g.advance(g.next_deadline)
            continue
        g.apply(seats[0], client.choose(g.view(seats[0])), now)
    assert g.phase == "finished"


def test_the_settings_page_changes_the_game_between_rounds(client, alice):
    room = trump_room(alice, "au", cpus=2)
    client.force_login(alice)
    page = client.get(f"/rooms/{room.pk}/settings/").content.decode()
    assert 'id="id_trump_preset"' in page and 'value="1000"' in page
    answer = client.post(f"/rooms/{room.pk}/settings/", {
        "name": "t", "game_kind": "trump_dobon", "trump_preset": "standard", "seat_count": 4,
        "timeout_seconds": 10, "rounds_per_match": 3, "is_public": "on"})
    assert answer.status_code == 302
    room.refresh_from_db()
    assert (room.trump_preset, room.rounds_per_match, room.trump_match) == ("standard", 3, None)
    play.start_game(room, alice, now=NOW)
    refused = client.post(f"/rooms/{room.pk}/settings/", {
        "name": "t", "game_kind": "dobon_uno", "seat_count": 4, "timeout_seconds": 10})
    assert refused.status_code == 200  # only between rounds (§T1.1)
    room.refresh_from_db()
    assert room.game_kind == "trump_dobon"


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_a_trump_round_after_a_clock_outage_resumes_with_fresh_clocks(alice, bob, carol,
                                                                      preset):
    """26 minutes without a clock: the round does not play the outage's timeouts (§T18)
    in one version; every due clock restarts in full (docs/protocol.md, outages)."""
    from game.history.replay import Version, rebuild
    from game.models import GameEvent

    room = trump_room(alice, preset, bob, carol)  # people only: no CPU due meanwhile
    game = play.start_game(room, alice, now=NOW)
    back = NOW + 26 * 60
    clock.expire_due_games(now=back)
    game.refresh_from_db()
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    assert game.version == 1 and [r.data["type"] for r in rows if r.version == 1] == ["resume"]
    assert rows[-1].step == {"now": back, "resume": True}
    assert game.next_deadline.timestamp() == pytest.approx(back + room.timeout_seconds)
    assert clock.expire_due_games(now=back + room.timeout_seconds - 0.1) == 0
    versions: list[Version] = []
    for row in rows:
        if not versions or versions[-1].number != row.version:
            versions.append(Version(row.version, row.step, []))
        versions[-1].events.append(row.data)
    frames = rebuild(game.initial_state, versions, game_kind=game.game_kind)  # raises on a mismatch
    assert frames[-1].kind == "resume"


@pytest.mark.parametrize("preset", ["au", "standard"])
def test_the_room_panel_shows_a_finished_trump_rounds_hands_after_a_reload(alice, preset,
                                                                           caplog):
    """§T21/§R15.2: once a round is over its hands are public, and a table opened after the end
    (a reload, a late socket) shows the same settlement as the live end did: the panel's last
    result carries the round's revealed hands, read by the trump engine (the Dobon UNO engine
    cannot read a trump state and the settlement used to come without hands)."""
    from game.services import panel

    room = trump_room(alice, preset, cpus=3)
    game = play_out(play.start_game(room, alice, now=NOW))
    last = panel.room_panel(room)["last_result"]
    assert last["game"] == game.pk
    revealed = engine(game).view(None)["revealed"]
    assert last["hands"] == revealed
    assert any(hand for hand in revealed)  # someone held cards at the end: a real check
    assert "no settlement view" not in caplog.text


def test_the_room_forms_number_fields_carry_the_servers_limits(client, alice):
    """Issue #33: the starting-points field said min="0" while the server and its
    message say 100 to 100,000 (likewise seats, timeout and rounds)."""
    client.force_login(alice)
    page = client.get("/rooms/new/").content.decode()
    for name, low, high in (("starting_points", 100, 100000), ("seat_count", 2, 8),
                            ("timeout_seconds", 5, 60), ("rounds_per_match", 1, 1000)):
        field = page.split(f'name="{name}"', 1)[1].split(">", 1)[0]
        assert f'min="{low}"' in field and f'max="{high}"' in field, name
    refused = client.post("/rooms/new/", {
        "name": "少なすぎ", "game_kind": "trump_dobon", "trump_preset": "au", "seat_count": 4,
        "timeout_seconds": 10, "starting_points": 99})
    assert refused.status_code == 200 and not Room.objects.filter(name="少なすぎ").exists()
    assert "100" in refused.content.decode().split('id="id_starting_points_errors"', 1)[1][:200]


def test_play_now_says_a_standard_game_is_a_20_round_match(client, alice):
    """Issue #33: 'play now' against CPUs in standard starts the first of 20 rounds (§T17),
    which neither the lobby nor the table said; the lobby's choice and the note say so."""
    client.force_login(alice)
    lobby = client.get("/").content.decode()
    assert "トランプ・ドボン（スタンダード・20ラウンド戦）" in lobby
    page = client.post("/play/cpu/", {"game": "trump_standard", "level": "normal"},
                       follow=True).content.decode()
    assert "20ラウンドの対戦を始めました" in page
    client.cookies["django_language"] = "en"
    page = client.post("/play/cpu/", {"game": "dobon_uno", "level": "easy"},
                       follow=True).content.decode()
    assert "round match" not in page and "has started" in page


def test_the_panels_last_result_is_of_the_rooms_current_game_only(alice, bob, carol, dave):
    """Issue #33 item 3: after a switch to trump au the room panel carries no Dobon UNO
    settlement (it covered the au table); switched back, the last result is there again."""
    from history_helpers import play_agari

    from game.services.panel import room_panel

    people = [alice, bob, carol, dave]
    room = make_room(*people)
    game = play_agari(room, people, now=NOW)
    assert room_panel(room)["last_result"]["game"] == game.pk
    settings = {"name": "t", "seat_count": 4, "timeout_seconds": 10, "is_public": True}
    room = rooms.update_room_settings(room, alice, game_kind="trump_dobon", trump_preset="au",
                                      **settings)
    assert room_panel(room)["last_result"] is None
    room = rooms.update_room_settings(room, alice, game_kind="dobon_uno", **settings)
    assert room_panel(room)["last_result"]["game"] == game.pk
