"""The user admin: list, search, change form with the user's seats."""

from __future__ import annotations

import pytest
from django.contrib.admin.sites import site
from django.urls import reverse

from accounts.models import User
from game.models import Membership
from game.services import rooms

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model, password):
    client.force_login(
        django_user_model.objects.create_superuser("boss", "b@example.com", password)
    )
    return client


def test_user_is_registered():
    assert site.is_registered(User)


def test_user_changelist_loads_and_searches(admin_client, alice, bob):
    url = reverse("admin:accounts_user_changelist")
    assert admin_client.get(url).context["cl"].result_count == 3
    found = admin_client.get(url, {"q": "alice"}).context["cl"].result_list
    assert [u.username for u in found] == ["alice"]
    assert admin_client.get(url, {"is_staff__exact": "1"}).context["cl"].result_count == 1


def test_user_change_form_loads_with_seats(admin_client, alice):
    rooms.create_room(alice, name="Tea room")
    response = admin_client.get(reverse("admin:accounts_user_change", args=[alice.pk]))
    assert response.status_code == 200
    assert any(fs.opts.model is Membership for fs in response.context["inline_admin_formsets"])


def test_non_staff_cannot_use_the_admin(client, mallory):
    client.force_login(mallory)
    response = client.get(reverse("admin:accounts_user_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response.url
