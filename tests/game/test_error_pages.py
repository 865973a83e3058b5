"""Issue 21: a dead link shows the site's own 404 page, with the laptop defaults (DEBUG
on) too, where Django used to answer with its unstyled technical page; 500 has a page."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from play_helpers import make_room

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_a_dead_link_shows_the_site_404(client, alice, settings, debug):
    settings.DEBUG = debug
    client.force_login(alice)
    for url in ("/no-such-page/", "/rooms/999999/", "/games/999999/"):
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == 404, url
        assert 'data-testid="not-found"' in page and "site-header" in page, url
        assert "Using the URLconf" not in page


def test_append_slash_still_redirects_with_debug_on(client, settings):
    settings.DEBUG = True
    response = client.get("/how-to-play")
    assert response.status_code == 301 and response["Location"] == "/how-to-play/"


def test_the_500_page_needs_no_context():
    page = render_to_string("500.html")
    assert 'data-testid="server-error"' in page and "site.css" in page


def test_a_refused_page_shows_the_site_403_with_its_reason(client, alice, bob):
    """Issue #33: a member who opens the owner's settings page sees the site's styled 403
    page saying why, not Django's bare "403 Forbidden"."""
    room = make_room(alice, bob)
    client.force_login(bob)
    response = client.get(f"/rooms/{room.pk}/settings/")
    page = response.content.decode()
    assert response.status_code == 403
    assert 'data-testid="forbidden"' in page and "site-header" in page
    assert "この操作ができるのはルームのオーナーだけです。" in page  # the refusal's own reason


def test_a_stale_form_shows_the_site_csrf_page(alice):
    """A post without a valid CSRF token is refused with the site's own page (rendered
    without the request, as Django's csrf_failure does), and nothing changes."""
    from django.test import Client

    from game.models import Room

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/rooms/new/", {"name": "x", "seat_count": 4, "timeout_seconds": 10})
    page = response.content.decode()
    assert response.status_code == 403
    assert 'data-testid="forbidden-csrf"' in page and "site.css" in page
    assert not Room.objects.exists()
