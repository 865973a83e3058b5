"""Issue 7: `/` explains the game to signed-out visitors; a how-to-play page in both
languages is linked from the header; the room page carries the live table."""

from __future__ import annotations

import pytest
from django.urls import reverse

from game.models import Membership, Room

pytestmark = pytest.mark.django_db


def test_signed_out_visitor_gets_the_landing_page_with_sign_up_and_log_in(client):
    response = client.get(reverse("game:lobby"))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.templates[0].name == "game/landing.html"
    assert 'data-testid="landing-signup"' in html and 'href="/signup/"' in html
    assert 'href="/login/"' in html and reverse("game:how_to_play") in html


def test_signed_in_user_still_gets_the_lobby(client, alice):
    client.force_login(alice)
    assert client.get(reverse("game:lobby")).templates[0].name == "game/lobby.html"


def test_how_to_play_is_japanese_by_default_and_english_when_chosen(client):
    ja = client.get(reverse("game:how_to_play")).content.decode()
    assert "ドボン返し" in ja and "例: Aがドロー2" in ja
    client.cookies["django_language"] = "en"
    en = client.get(reverse("game:how_to_play")).content.decode()
    assert "Dobon return" in en and "D cannot stack and takes 8" in en
    assert "ドボン返し" not in en


def test_how_to_play_is_linked_from_the_header_and_the_table(client, alice):
    room = Room.objects.create(name="linked", owner=alice)
    Membership.objects.create(room=room, user=alice, seat_index=0)
    client.force_login(alice)
    html = client.get(room.get_absolute_url()).content.decode()
    assert 'data-testid="nav-rules"' in html and 'data-testid="rules-link"' in html
    # The table comes first on the room page, the room management after it.
    assert html.index('data-testid="live-table"') < html.index('id="room-panel"')
    assert f'data-start-url="{reverse("game:start", args=[room.pk])}"' in html


def test_the_site_names_itself_dobon_and_dobon_uno_stays_a_game(client, alice):
    """Issue #18: the site has two games; its own name (header, titles, landing) is
    Dobon, while Dobon UNO remains the name of one of its games."""
    ja = client.get(reverse("game:lobby")).content.decode()
    assert '<a class="brand" href="/">ドボン</a>' in ja
    assert "· ドボン</title>" in ja and '<h1 id="hero-title">ドボン</h1>' in ja
    assert "ドボン UNO とトランプ・ドボン" in ja and 'data-testid="landing-trump"' in ja
    client.cookies["django_language"] = "en"
    en = client.get(reverse("game:lobby")).content.decode()
    assert '<a class="brand" href="/">Dobon</a>' in en and "· Dobon</title>" in en
    assert "Dobon UNO and trump Dobon" in en
    client.force_login(alice)
    lobby = client.get(reverse("game:lobby")).content.decode()
    assert '<option value="dobon_uno" selected>Dobon UNO</option>' in lobby
    assert '<a class="brand" href="/">Dobon</a>' in lobby
