"""Issue 11: usernames are stored NFKC and look-alikes of an existing name are refused.

The finding: `аlice` with a Cyrillic а registered beside `alice`.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts.models import User
from accounts.usernames import username_key

pytestmark = pytest.mark.django_db

SIGNUP = reverse("accounts:signup")
NEW_PASSWORD = "tangerine-umbrella-741"


def _sign_up(client, username: str):
    data = {"username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    return client.post(SIGNUP, data)


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u0430lice",  # Cyrillic а
        "ALICE",
        "Alice",
        "ａｌｉｃｅ",  # full-width
        "al\u200bice",  # a zero-width space
        "a\u217cice",  # the Roman numeral ⅼ
        "\u0430l\u0456c\u0435",  # Cyrillic а, і, е
        "al1ce",
        "alíce",
    ],
)
def test_a_look_alike_of_an_existing_name_is_refused(client, alice, look_alike):
    response = _sign_up(client, look_alike)
    assert response.status_code == 200
    assert "username" in response.context["form"].errors
    assert User.objects.count() == 1


DISTINCT = ["たろう", "山田太郎", "ドボン王", "ガイ", "カイ", "alicia", "bob_2"]


@pytest.mark.parametrize("name", DISTINCT)
def test_distinct_names_including_japanese_ones_are_accepted(client, alice, name):
    assert _sign_up(client, name).status_code == 302
    assert User.objects.filter(username=name).exists()


def test_full_width_letters_are_stored_normalised(client):
    assert _sign_up(client, "ｅｒｉｎ").status_code == 302
    assert User.objects.filter(username="erin").exists()


def test_kana_with_and_without_voicing_marks_are_different_names():
    assert username_key("が") != username_key("か")
    assert username_key("パン") != username_key("ハン")


def test_the_database_refuses_a_look_alike_that_slips_past_the_form(alice, django_user_model):
    with pytest.raises(IntegrityError), transaction.atomic():
        django_user_model.objects.create_user("\u0430lice", password="x")


def test_the_admin_add_form_refuses_a_look_alike(client, alice, password, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", password)
    client.force_login(boss)
    response = client.post(
        reverse("admin:accounts_user_add"),
        {"username": "\u0430lice", "usable_password": "true",
         "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "username" in response.context["adminform"].form.errors
    assert not User.objects.filter(username="\u0430lice").exists()


def test_renaming_in_the_admin_to_a_look_alike_is_refused(client, alice, bob, password,
                                                         django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "b@example.com", password)
    client.force_login(boss)
    url = reverse("admin:accounts_user_change", args=[bob.pk])
    data = {"username": "\u0430lice", "email": "", "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00", "is_active": "on",
            "memberships-TOTAL_FORMS": "0", "memberships-INITIAL_FORMS": "0"}
    response = client.post(url, data)
    assert response.status_code == 200
    assert "username" in response.context["adminform"].form.errors
    bob.refresh_from_db()
    assert bob.username == "bob"
    # Keeping one's own name is fine.
    data["username"] = "bob"
    assert client.post(url, data).status_code == 302
