"""Issue 21: a dead link shows the site's own 404 page, with the laptop defaults (DEBUG
on) too, where Django used to answer with its unstyled technical page; 500 has a page."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

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
