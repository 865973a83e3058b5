"""A room's house rules (HOUSE-RULES.md §G1, §G3, §G10, §7) on the site: the owner sets
them between games, a running game keeps its own, the lobby, the room page and the game
pages name them; §H13's rate cap and §H14's sessions are the room's."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from play_helpers import NOW, engine_of, make_room, set_position

from game.models import Game, Match, Room, RoomSession
from game.rules import PRESETS
from game.rules import Game as Engine
from game.services import play, rooms

pytestmark = pytest.mark.django_db

SETTINGS = {"name": "Tea room", "seat_count": 4, "timeout_seconds": 10, "is_public": "on"}


@pytest.fixture(autouse=True)
def _no_broker(settings):
    settings.CELERY_BROKER_URL = ""


@pytest.fixture
def room(alice, bob) -> Room:
    room = rooms.create_room(alice, name="Tea room")
    rooms.take_seat(room, bob, 1)
    return room


def _settings_url(room: Room) -> str:
    return reverse("game:room_settings", args=[room.pk])


def _post(client: Client, room: Room, **house: object):
    data = dict(SETTINGS)
    data.update({f"house-{k}": v for k, v in house.items()})
    return client.post(_settings_url(room), data)


def _custom(**changes: object) -> dict[str, object]:
    """Every rule field as the form posts it, from the default, with `changes`."""
    fields: dict[str, object] = {"preset": "custom"}
    for key, value in {**PRESETS["standard"], **changes}.items():
        if isinstance(value, bool):
            if value:
                fields[key] = "on"
        elif value is not None:
            fields[key] = value
    return fields


# -- settings: owner only, between games only, clear errors -----------------------------


def test_the_owner_picks_a_preset(client, alice, room):
    client.force_login(alice)
    response = _post(client, room, preset="party")
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.house_rules == dict(PRESETS["party"]) and room.house_base == "party"


def test_the_owner_sets_single_rules_as_custom_from_a_preset(client, alice, room):
    client.force_login(alice)
    fields = _custom(**{**PRESETS["party"], "hand_size": 5})
    _post(client, room, base="party", **fields)
    room.refresh_from_db()
    assert room.house_rules["hand_size"] == 5 and room.house_rules["seven_zero"] is True
    page = client.get(room.get_absolute_url()).content.decode()
    assert "Custom (from Party)" in page or "カスタム（パーティーから）" in page


def test_standard_stores_no_house_rules(client, alice, room):
    client.force_login(alice)
    _post(client, room, preset="party")
    _post(client, room, preset="standard")
    room.refresh_from_db()
    assert room.house_rules == {} and room.house_base == ""


def test_a_settings_post_without_house_fields_keeps_the_rules(client, alice, room):
    rooms.update_room_settings(room, alice, name="Tea room", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["classic"])
    client.force_login(alice)
    assert client.post(_settings_url(room), SETTINGS).status_code == 302
    room.refresh_from_db()
    assert room.house_rules == dict(PRESETS["classic"])


def test_someone_else_cannot_change_the_rules(client, bob, room):
    client.force_login(bob)
    assert _post(client, room, preset="party").status_code == 403
    room.refresh_from_db()
    assert room.house_rules == {}


def test_rules_cannot_change_while_a_game_runs(client, alice, room):
    play.start_game(room, alice, now=NOW)
    client.force_login(alice)
    response = _post(client, room, preset="party")
    assert response.status_code == 200
    context = response.context
    errors = context["form"].non_field_errors() + context["house_form"].non_field_errors()
    assert [str(e) for e in errors] == [str(rooms._("Settings can only change between games."))]
    room.refresh_from_db()
    assert room.house_rules == {}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"preset": "chaos"}, "preset"),
        (_custom(hand_size=11), "hand_size"),
        (_custom(hand_size=2), "hand_size"),
        (_custom(cut_in="always"), "cut_in"),
        (_custom(rate_cap=3), "rate_cap"),
        (_custom(session_games=0), "session_games"),
        (_custom(session_target=50), "session_target"),
    ],
)
def test_bad_rules_show_an_error_and_save_nothing(client, alice, room, fields, field):
    client.force_login(alice)
    response = _post(client, room, **fields)
    assert response.status_code == 200
    assert response.context["house_form"].errors[field]
    room.refresh_from_db()
    assert room.house_rules == {}


def test_the_service_refuses_rules_the_engine_refuses_naming_the_rule(alice, room):
    with pytest.raises(rooms.RoomError) as info:
        rooms.update_room_settings(room, alice, name="x", seat_count=4, timeout_seconds=10,
                                   is_public=True, house_rules={"hand_size": 2})
    assert "hand_size" in info.value.message and "H1" in info.value.message
    room.refresh_from_db()
    assert room.house_rules == {}


def test_the_settings_post_needs_the_csrf_token(alice, room):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(alice)
    assert _post(csrf_client, room, preset="party").status_code == 403
    room.refresh_from_db()
    assert room.house_rules == {}


def test_the_settings_page_offers_every_preset_and_rule(client, alice, room):
    client.force_login(alice)
    page = client.get(_settings_url(room)).content.decode()
    for name in (*PRESETS, "custom"):
        assert f'value="{name}"' in page
    for key in PRESETS["standard"]:
        assert f'name="house-{key}"' in page


# -- games keep their rules ------------------------------------------------------------------


def test_a_game_starts_with_the_rooms_rules_and_keeps_them(alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["party"], house_base="party")
    first = play.start_game(room, alice, now=NOW)
    assert engine_of(first).house_rules == dict(PRESETS["party"])
    play.abort_game(first, alice, now=NOW + 1)
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["classic"])
    second = play.start_game(room, alice, now=NOW + 2)
    assert engine_of(second).house_rules == dict(PRESETS["classic"])
    assert engine_of(first).house_rules == dict(PRESETS["party"])
    assert len(engine_of(second).hand(0)) == 5  # §H1 in the classic preset


def test_a_room_without_house_rules_starts_a_plain_game(alice, room, monkeypatch):
    calls = []
    real = Engine.new
    monkeypatch.setattr(play.Engine, "new",
                        staticmethod(lambda **kw: calls.append(kw) or real(**kw)))
    play.start_game(room, alice, now=NOW)
    assert calls[0]["house_rules"] is None


# -- pages name the rules ------------------------------------------------------------------------


def test_the_lobby_shows_each_rooms_preset(client, alice, bob, room):
    other = rooms.create_room(bob, name="Party room")
    rooms.update_room_settings(other, bob, name="Party room", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["party"])
    client.force_login(alice)
    page = client.get(reverse("game:lobby")).content.decode()
    assert 'data-preset="party"' in page and 'data-preset="standard"' in page


def test_a_trump_room_in_the_lobby_has_no_house_rules_badge(client, alice, bob):
    """House rules are Dobon UNO's: a trump room's row names its game and preset only
    (its "standard" preset must not read as the house-rule preset "standard")."""
    rooms.create_room(bob, name="Trump room", game_kind="trump_dobon", trump_preset="au")
    client.force_login(alice)
    page = client.get(reverse("game:lobby")).content.decode()
    assert "Trump room" in page
    assert 'data-testid="room-preset"' not in page


def test_the_room_page_shows_the_rules_with_a_link(client, alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["competitive"])
    client.force_login(alice)
    page = client.get(room.get_absolute_url()).content.decode()
    assert 'data-testid="room-rules"' in page and 'data-preset="competitive"' in page
    assert reverse("game:how_to_play") + "#house-rules" in page


def test_the_game_page_names_its_rules(client, alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["party"])
    game = play.start_game(room, alice, now=NOW)
    play.abort_game(game, alice, now=NOW + 1)
    client.force_login(alice)
    page = client.get(reverse("game:game", args=[game.pk])).content.decode()
    assert 'data-testid="game-rules"' in page and 'data-preset="party"' in page


def test_the_room_panel_carries_the_rules(alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["party"], house_base="party")
    room.refresh_from_db()
    panel = play.room_info(room)
    assert panel["house_rules"] == dict(PRESETS["party"]) and panel["house_base"] == "party"


# -- §H13: the rate cap ---------------------------------------------------------------------------


def test_h13_the_rate_is_capped_and_the_count_kept(alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules={"rate_cap": 4})
    Room.objects.filter(pk=room.pk).update(deck_out_streak=3)
    room.refresh_from_db()
    assert room.next_rate == 4  # default: 8 (§H13.1)
    game = play.start_game(room, alice, now=NOW)
    assert engine_of(game).rate == 4 and game.rate == 4
    assert room.deck_out_streak == 3  # §H13.2: only the rate is capped


def test_h13_3_a_cap_of_one_turns_doubling_off(alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules={"rate_cap": 1})
    Room.objects.filter(pk=room.pk).update(deck_out_streak=5)
    room.refresh_from_db()
    assert room.next_rate == 1


def test_without_a_cap_the_rate_doubles_as_before(room):
    Room.objects.filter(pk=room.pk).update(deck_out_streak=5)
    room.refresh_from_db()
    assert room.next_rate == 32


# -- §H14: sessions ------------------------------------------------------------------------------

DOBON = [["R5", "G7"], ["R2", "R3"], ["B9", "B8"], ["G9", "G8"]]  # bob dobons alice: 51
DECK_OUT = [["R5", "B5"], ["R2", "R4"], ["B9", "B8"], ["G9", "G8"]]


@pytest.fixture
def table(alice, bob, carol, dave) -> Room:
    return make_room(alice, bob, carol, dave)


def _rules(room: Room, owner, **rules: object) -> None:
    rooms.update_room_settings(room, owner, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=rules)
    room.refresh_from_db()


def _position(room: Room, hands, deck, now: float) -> Engine:
    return Engine.from_setup(hands=hands, first_card="R3", deck=deck, first_player=0,
                             rate=room.next_rate, timeout=10.0, now=now, seed=1,
                             house_rules=room.house_rules or None)


def _dobon_game(room: Room, people, now: float, match=None) -> Game:
    game = play.start_game(room, people[0], now=now, match=match)
    set_position(game, _position(room, DOBON, ["G1", "G2", "G3"], now))
    play.perform_action(game, people[0], {"type": "play", "cards": ["R5"]}, now=now + 1)
    play.perform_action(game, people[1], {"type": "dobon"}, now=now + 2)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def _deck_out_game(room: Room, people, now: float) -> Game:
    game = play.start_game(room, people[0], now=now)
    set_position(game, _position(room, DECK_OUT, ["G1"], now))
    play.perform_action(game, people[0], {"type": "draw"}, now=now + 1)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result["kind"] == "deck_out"
    return game


def test_h14_2_the_session_ends_after_its_games_and_resets_the_count(table, people):
    alice = people[0]
    _rules(table, alice, session_games=2)
    _dobon_game(table, people, NOW)
    table.refresh_from_db()
    assert table.last_session is None and table.sessions_ended == 0
    _deck_out_game(table, people, NOW + 100)  # a deck-out is a finished game (S23)
    table.refresh_from_db()
    assert table.sessions_ended == 1 and table.deck_out_streak == 0  # §H14.5 (default: 1)
    last = table.last_session
    assert last["games"] == 2 and last["reason"] == "games"
    assert last["standings"][0] == {"username": "bob", "points": 51, "place": 1}
    assert [r["place"] for r in last["standings"]] == [1, 2, 2, 4]  # equal points share
    info = play.room_info(table)["session"]
    assert info["number"] == 2 and info["games"] == 0 and info["standings"] == []


def test_h14_3_the_session_ends_at_the_target(table, people):
    alice = people[0]
    _rules(table, alice, session_target=100)
    _dobon_game(table, people, NOW)  # bob +51
    table.refresh_from_db()
    assert table.sessions_ended == 0
    _dobon_game(table, people, NOW + 100)  # bob +102 ≥ 100
    table.refresh_from_db()
    assert table.sessions_ended == 1 and table.last_session["reason"] == "target"
    assert table.last_session["standings"][0]["points"] == 102


def test_h14_3_the_session_ends_at_minus_the_target(table, people):
    _rules(table, people[0], session_target=100)
    _dobon_game(table, people, NOW)
    _dobon_game(table, people, NOW + 100)  # alice −102 ≤ −100
    table.refresh_from_db()
    assert any(r["username"] == "alice" and r["points"] == -102
               for r in table.last_session["standings"])


def test_without_session_rules_sessions_never_end(table, people):
    for i in range(3):
        _dobon_game(table, people, NOW + 100 * i)
    table.refresh_from_db()
    assert table.sessions_ended == 0 and table.last_session is None
    assert play.room_info(table)["session"] is None


def test_h14_6_changing_a_rule_ends_the_running_session(table, people):
    alice = people[0]
    _rules(table, alice, session_games=5)
    _dobon_game(table, people, NOW)
    Room.objects.filter(pk=table.pk).update(deck_out_streak=2)
    table.refresh_from_db()
    _rules(table, alice, session_games=5, hand_size=5)
    assert table.sessions_ended == 1 and table.last_session["reason"] == "rules"
    assert table.last_session["games"] == 1 and table.deck_out_streak == 0
    assert play.room_info(table)["session"]["games"] == 0


def test_h14_5_every_ended_session_is_kept_and_listed_in_the_room_history(client, table, people):
    """§H14.5 "the room keeps them in its history": three sessions end (two by their games,
    one by a change of rules, §H14.6); all three stay, with their standings, newest first
    on the room's history page, not only the last one (issue #32)."""
    alice = people[0]
    _rules(table, alice, session_games=1)
    _dobon_game(table, people, NOW)  # session 1: bob +51
    _deck_out_game(table, people, NOW + 100)  # session 2: a deck-out, everyone 0
    _rules(table, alice, session_games=2)
    _dobon_game(table, people, NOW + 200)
    _rules(table, alice, session_games=3)  # §H14.6: session 3 ends by the change
    sessions = list(RoomSession.objects.filter(room=table).order_by("number"))
    assert [(s.number, s.games, s.reason) for s in sessions] == [
        (1, 1, "games"), (2, 1, "games"), (3, 1, "rules")]
    assert sessions[0].standings[0] == {"username": "bob", "points": 51, "place": 1}
    assert [r["points"] for r in sessions[1].standings] == [0, 0, 0, 0]
    table.refresh_from_db()
    assert table.last_session == {"number": 3, "games": 1, "reason": "rules",
                                  "standings": sessions[2].standings}
    client.force_login(alice)
    page = client.get(reverse("game:room_history", args=[table.pk])).content.decode()
    listed = re.findall(r'data-testid="ended-session" data-number="(\d+)" data-reason="(\w+)"',
                        page)
    assert listed == [("3", "rules"), ("2", "games"), ("1", "games")]
    assert "1. bob 51" in page


def test_h14_5_the_history_of_a_room_without_sessions_lists_none(client, table, people):
    _dobon_game(table, people, NOW)
    client.force_login(people[0])
    page = client.get(reverse("game:room_history", args=[table.pk])).content.decode()
    assert 'data-testid="ended-session"' not in page and 'id="room-sessions"' not in page


def test_h14_5_the_history_page_costs_the_same_queries_for_1_2_3_sessions(client, table, people):
    alice = people[0]
    _rules(table, alice, session_games=1)
    client.force_login(alice)
    url = reverse("game:room_history", args=[table.pk])
    counts = []
    for i in range(3):
        _dobon_game(table, people, NOW + 100 * i)
        client.get(url)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1] == counts[2]


def test_d3_match_games_do_not_count_in_sessions(table, people):
    alice = people[0]
    _rules(table, alice, session_games=1)
    match = Match.objects.create(room=table, games_total=5, started_by=alice)
    _dobon_game(table, people, NOW, match=match)
    table.refresh_from_db()
    assert table.sessions_ended == 0


@pytest.mark.parametrize(("language", "words"), [("ja", "セブン・ゼロ"), ("en", "7-0")])
def test_how_to_play_explains_every_house_rule_with_an_example(client, language, words):
    client.cookies["django_language"] = language
    page = client.get(reverse("game:how_to_play")).content.decode()
    assert 'id="house-rules"' in page and words in page
    for number in range(1, 15):
        start = page.index(f'id="h{number}"')
        section = page[start:page.index("</section>", start)]
        assert "<pre>" in section, number  # each rule with its example


def test_the_log_and_the_room_history_name_each_games_rules(client, alice, room):
    rooms.update_room_settings(room, alice, name="t", seat_count=4, timeout_seconds=10,
                               is_public=True, house_rules=PRESETS["classic"])
    game = play.start_game(room, alice, now=NOW)
    play.abort_game(game, alice, now=NOW + 1)
    client.force_login(alice)
    log = client.get(reverse("game:game_json", args=[game.pk])).json()
    assert log["game"]["rules"]["preset"] == "classic"
    assert log["game"]["rules"]["rules"] == dict(PRESETS["classic"])
    page = client.get(reverse("game:room_history", args=[room.pk])).content.decode()
    assert 'data-testid="row-rules" data-preset="classic"' in page
