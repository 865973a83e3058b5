"""Invite guessing is limited (issue #31, item 5): `/join/` took about 4,700 guesses a
minute from one client. Wrong codes count per client address (the forwarded one behind
DOBON_PROXY_COUNT) and per account; over either limit both join views answer 429 with a
page that says when to try again, also for a right code (it must not stand out)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from play_helpers import make_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _small_limits(settings):
    settings.DOBON_INVITE_GUESSES_PER_ADDRESS = 5
    settings.DOBON_INVITE_GUESSES_PER_ACCOUNT = 3
    settings.DOBON_INVITE_GUESS_WINDOW_SECONDS = 600
    settings.DOBON_PROXY_COUNT = 1


def signed_in(user, address: str) -> Client:
    client = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"6.6.6.6, {address}")
    client.force_login(user)
    return client


def guess(client: Client, code: str, by_form: bool) -> int:
    if by_form:
        return client.post(reverse("game:join_by_code"), {"code": code}).status_code
    return client.get(reverse("game:join", args=[code])).status_code


@pytest.mark.parametrize("by_form", [False, True])
def test_an_account_over_its_guesses_is_told_when_to_try_again(alice, mallory, by_form):
    room = make_room(alice, is_public=False)
    client = signed_in(mallory, "203.0.113.7")
    for n in range(3):
        assert guess(client, f"WRONG{n}", by_form) in (200, 404)
    refused = client.get(reverse("game:join", args=[room.invite_code]))  # right, but late
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0 and "data-testid=\"too-many-guesses\"" in (
        refused.content.decode())
    assert client.post(reverse("game:join_by_code"), {"code": "X"}).status_code == 429
    # The limit is the account's: from another network it is the same.
    assert guess(signed_in(mallory, "198.51.100.9"), "WRONG9", by_form) == 429


def test_an_address_over_its_guesses_is_limited_for_every_account(
    alice, bob, carol, dave, mallory
):
    """Accounts guessing in turn from one (forwarded) address share its limit; another
    address is not held back."""
    room = make_room(alice, is_public=False)
    for user, n in ((bob, 0), (bob, 1), (carol, 2), (carol, 3), (dave, 4)):
        assert guess(signed_in(user, "203.0.113.7"), f"WRONG{n}", False) == 404
    assert guess(signed_in(mallory, "203.0.113.7"), room.invite_code, False) == 429
    assert guess(signed_in(mallory, "198.51.100.9"), room.invite_code, False) == 302


def test_a_right_code_is_no_guess(alice, mallory):
    room = make_room(alice, is_public=False)
    client = signed_in(mallory, "203.0.113.7")
    for _ in range(10):
        assert client.get(reverse("game:join", args=[room.invite_code])).status_code == 302


def test_the_window_ends_and_guessing_may_go_on(alice, mallory, monkeypatch):
    from game.services import invite_guesses

    clock = [1_800_000_000.0]
    monkeypatch.setattr(invite_guesses.time, "time", lambda: clock[0])
    client = signed_in(mallory, "203.0.113.7")
    for n in range(3):
        guess(client, f"WRONG{n}", False)
    assert guess(client, "WRONG3", False) == 429
    clock[0] += 600
    assert guess(client, "WRONG4", False) == 404


def test_the_page_says_it_in_japanese_by_default(alice, mallory, settings):
    settings.DOBON_INVITE_GUESSES_PER_ACCOUNT = 0
    client = signed_in(mallory, "203.0.113.7")
    page = client.get(reverse("game:join", args=["ANY"]), HTTP_ACCEPT_LANGUAGE="ja")
    assert page.status_code == 429 and "分後にもう一度お試しください" in page.content.decode()
