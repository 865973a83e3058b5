"""API tokens on the profile pages: created and shown once, stored hashed, listed and
revoked by their owner only, and useless for opening pages (docs/bots-api.md)."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def create(client: Client, name: str = "my bot"):
    return client.post(reverse("accounts:tokens"), {"name": name})


def new_key(client: Client, name: str = "my bot") -> str:
    """Create a token the way the page does (POST, redirect, GET) and read its key."""
    response = create(client, name)
    assert response.status_code == 302 and response["Location"] == reverse("accounts:tokens")
    return client.get(response["Location"]).context["new_key"]


def test_a_new_token_is_shown_once_and_stored_hashed(bob):
    client = signed_in(bob)
    response = create(client)
    assert response.status_code == 302  # POST/redirect/GET: a reload cannot re-post
    response = client.get(response["Location"])
    key = response.context["new_key"]
    assert key.startswith("dobon_") and len(key) > 40
    assert key in response.content.decode()
    token = ApiToken.objects.get(user=bob)
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert not ApiToken.objects.filter(key_hash=key).exists()
    assert token.name == "my bot" and key.startswith(token.prefix)
    again = client.get(reverse("accounts:tokens")).content.decode()
    assert "my bot" in again and key not in again


def test_reloading_the_key_page_creates_no_second_token_and_forgets_the_key(bob):
    client = signed_in(bob)
    key = new_key(client)
    reloaded = client.get(reverse("accounts:tokens"))
    assert reloaded.context["new_key"] is None and key not in reloaded.content.decode()
    assert ApiToken.objects.filter(user=bob).count() == 1


def test_a_nameless_token_is_refused_and_nothing_is_created(bob):
    response = create(signed_in(bob), "   ")
    assert response.status_code == 400
    assert not ApiToken.objects.exists()
    page = response.content.decode()
    # The error is tied to the field it is about.
    assert 'id="token-name-error"' in page and 'aria-invalid="true"' in page
    assert 'aria-describedby="token-name-error token-name-help"' in page


def test_a_second_active_token_with_the_same_name_is_refused(bob):
    client = signed_in(bob)
    new_key(client, "laptop bot")
    response = create(client, "  Laptop   bot ")
    assert response.status_code == 400
    assert "Laptop bot" in response.context["error"]
    assert 'value="  Laptop   bot "' in response.content.decode()  # the entry is kept
    assert ApiToken.objects.filter(user=bob).count() == 1
    # Once the first is revoked, the name is free again.
    first = ApiToken.objects.get(user=bob)
    client.post(reverse("accounts:revoke_token", args=[first.pk]))
    assert create(client, "laptop bot").status_code == 302
    assert ApiToken.objects.filter(user=bob, revoked_at__isnull=True).count() == 1


def test_the_token_pages_need_csrf(bob):
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert create(client).status_code == 403
    assert not ApiToken.objects.exists()


def test_revoking_keeps_the_token_listed_as_revoked(bob):
    client = signed_in(bob)
    create(client)
    token = ApiToken.objects.get(user=bob)
    response = client.post(reverse("accounts:revoke_token", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    page = client.get(response["Location"]).content.decode()
    assert "my bot" in page and token.prefix in page


def test_revoking_asks_first_naming_the_token_by_name_and_key_prefix(bob):
    client = signed_in(bob)
    create(client)
    token = ApiToken.objects.get(user=bob)
    url = reverse("accounts:revoke_token", args=[token.pk])
    assert url in client.get(reverse("accounts:tokens")).content.decode()
    question = client.get(url)
    assert question.status_code == 200
    page = question.content.decode()
    assert "my bot" in page and f"{token.prefix}…" in page and f'action="{url}"' in page
    token.refresh_from_db()
    assert token.revoked_at is None  # asking changes nothing


def test_nobody_reads_or_revokes_another_users_tokens(bob, mallory):
    create(signed_in(bob), "bob's secret bot")
    token = ApiToken.objects.get(user=bob)
    thief = signed_in(mallory)
    page = thief.get(reverse("accounts:tokens")).content.decode()
    assert "bob&#x27;s secret bot" not in page and "bob's secret bot" not in page
    assert token.prefix not in page
    assert thief.post(reverse("accounts:revoke_token", args=[token.pk])).status_code == 403
    assert thief.get(reverse("accounts:revoke_token", args=[token.pk])).status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None


def test_a_token_cannot_open_pages(bob):
    key = new_key(signed_in(bob))
    program = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
    # `/` shows signed-out visitors the landing page (issue 7): still not signed in.
    landing = program.get(reverse("game:lobby"))
    assert landing.status_code == 200 and not landing.wsgi_request.user.is_authenticated
    for url in (reverse("accounts:tokens"), reverse("accounts:profile", args=["bob"])):
        answer = program.get(url)
        assert answer.status_code == 302 and reverse("accounts:login") in answer["Location"]
    assert program.post(reverse("accounts:tokens"), {"name": "x"}).status_code in (302, 403)
    assert ApiToken.objects.count() == 1


def test_the_token_page_speaks_japanese_by_default(bob):
    page = signed_in(bob).get(reverse("accounts:tokens")).content.decode()
    assert "APIトークン" in page


def test_at_most_ten_active_tokens(bob):
    client = signed_in(bob)
    for n in range(10):
        assert create(client, f"bot {n}").status_code == 302
    assert create(client, "one too many").status_code == 400
    assert ApiToken.objects.filter(user=bob).count() == 10


# -- issue 20 ---------------------------------------------------------------------------------


def test_a_new_key_is_stored_in_clear_nowhere_on_the_server_while_it_waits(bob):
    """The finding: the key waited in plain text in the session row until the page showed
    it, readable by anyone with the database (no SECRET_KEY needed)."""
    from django.contrib.sessions.models import Session

    client = signed_in(bob)
    response = create(client)
    assert response.status_code == 302
    pad = response.cookies["dobon_token_pad"]
    assert pad["httponly"] and pad["samesite"] == "Strict" and int(pad["max-age"]) <= 300
    rows = [(row.session_data, str(row.get_decoded())) for row in Session.objects.all()]
    page = client.get(response["Location"])
    key = page.context["new_key"]
    assert key.startswith("dobon_")
    secret = key[len("dobon_"):]
    assert rows and all(secret not in data and secret not in decoded for data, decoded in rows)
    assert secret not in pad.value
    # Shown once: the halves are gone, a reload shows no key.
    assert client.get(reverse("accounts:tokens")).context["new_key"] is None


def test_the_session_half_alone_shows_no_key(bob):
    client = signed_in(bob)
    create(client)
    del client.cookies["dobon_token_pad"]
    page = client.get(reverse("accounts:tokens"))
    assert page.context["new_key"] is None
    assert 'data-testid="new-token"' not in page.content.decode()


NEW_PASSWORD = "tangerine-umbrella-741"


def _change_password(client: Client, old: str, **extra: str):
    data = {"old_password": old, "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD, **extra}
    return client.post(reverse("accounts:password_change"), data)


def test_a_new_password_revokes_the_tokens_by_default(bob, password):
    """The finding: a token survived a password change."""
    client = signed_in(bob)
    key = new_key(client)
    form = client.get(reverse("accounts:password_change")).content.decode()
    box = re.search(r'<input[^>]*name="revoke_tokens"[^>]*>', form)
    assert box and "checked" in box.group(0)  # offered, and ticked
    response = _change_password(client, password, revoke_tokens="on")
    assert response.status_code == 302
    assert not ApiToken.objects.filter(user=bob, revoked_at__isnull=True).exists()
    from accounts.tokens import user_for_key

    assert user_for_key(key) is None


def test_the_password_page_may_keep_the_tokens(bob, password):
    client = signed_in(bob)
    key = new_key(client)
    assert _change_password(client, password).status_code == 302  # the box left unticked
    from accounts.tokens import user_for_key

    assert user_for_key(key) is not None


def test_a_password_set_by_an_admin_revokes_the_tokens_too(bob):
    new_key(signed_in(bob))
    bob.set_password("set-by-an-admin-5512")
    bob.save()
    assert not ApiToken.objects.filter(user=bob, revoked_at__isnull=True).exists()


def test_a_deactivation_is_announced_once(bob):
    from accounts.models import User, deactivated

    heard = []

    def listener(sender, user, **kwargs):
        heard.append(user.pk)

    deactivated.connect(listener)
    try:
        user = User.objects.get(pk=bob.pk)
        user.first_name = "Bob"
        user.save()
        user.is_active = False
        user.save()
        user.save()
    finally:
        deactivated.disconnect(listener)
    assert heard == [bob.pk]


def test_creating_and_revoking_tokens_is_limited_per_day(bob, settings):
    """The finding: nothing limited tokens per account (create-and-revoke grew the list)."""
    settings.DOBON_API_TOKENS_PER_DAY = 3
    client = signed_in(bob)
    for n in range(3):
        assert create(client, f"bot {n}").status_code == 302
        token = ApiToken.objects.get(user=bob, revoked_at__isnull=True)
        client.post(reverse("accounts:revoke_token", args=[token.pk]))
    response = create(client, "one too many")
    assert response.status_code == 400
    assert "24" in response.context["error"]
    assert ApiToken.objects.filter(user=bob).count() == 3


def test_the_active_token_limit_is_a_setting(bob, settings):
    settings.DOBON_MAX_ACTIVE_API_TOKENS = 2
    client = signed_in(bob)
    assert create(client, "a").status_code == 302 and create(client, "b").status_code == 302
    response = create(client, "c")
    assert response.status_code == 400 and "2" in response.context["error"]
