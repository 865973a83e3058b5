"""Sign up, log in, log out, change the password, and profiles."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from game.services import rooms

pytestmark = pytest.mark.django_db

SIGNUP = reverse("accounts:signup")
LOGIN = reverse("accounts:login")
LOGOUT = reverse("accounts:logout")
PASSWORD_CHANGE = reverse("accounts:password_change")
NEW_PASSWORD = "tangerine-umbrella-741"


def _logged_in_user(client):
    return client.get(reverse("game:lobby")).wsgi_request.user


def test_signup_creates_the_account_and_logs_in(client):
    page = client.get(SIGNUP)
    assert page.status_code == 200
    response = client.post(
        SIGNUP, {"username": "erin", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert response.status_code == 302 and response.url == reverse("game:lobby")
    user = get_user_model().objects.get(username="erin")
    assert user.check_password(NEW_PASSWORD)
    assert _logged_in_user(client) == user


def test_signup_follows_a_safe_next_only(client):
    data = {"username": "erin", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    response = client.post(f"{SIGNUP}?next=/join/abc/", data)
    assert response.url == "/join/abc/"
    client.logout()
    data["username"] = "frank"
    response = client.post(f"{SIGNUP}?next=https://evil.example/", data)
    assert response.url == reverse("game:lobby")


@pytest.mark.parametrize(
    "data, field",
    [
        (
            {"username": "erin", "password1": NEW_PASSWORD, "password2": "different-941"},
            "password2",
        ),
        ({"username": "erin", "password1": "123", "password2": "123"}, "password2"),
        ({"username": "erin", "password1": "password", "password2": "password"}, "password2"),
        ({"username": "", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}, "username"),
        (
            {"username": "bad name!", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
            "username",
        ),
        ({"username": "alice", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}, "username"),
    ],
)
def test_signup_shows_validation_errors_in_the_form(client, alice, data, field):
    response = client.post(SIGNUP, data)
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert 'class="field-errors"' in response.content.decode()
    assert get_user_model().objects.count() == 1  # only alice
    assert not _logged_in_user(client).is_authenticated


def test_logged_in_user_visiting_signup_goes_to_the_lobby(client, alice):
    client.force_login(alice)
    assert client.get(SIGNUP).url == reverse("game:lobby")


def test_login_with_the_right_password(client, alice, password):
    assert client.get(LOGIN).status_code == 200
    response = client.post(LOGIN, {"username": "alice", "password": password})
    assert response.status_code == 302 and response.url == reverse("game:lobby")
    assert _logged_in_user(client) == alice


def test_login_with_a_wrong_password_shows_an_error(client, alice):
    response = client.post(LOGIN, {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert 'class="form-errors"' in response.content.decode()
    assert not _logged_in_user(client).is_authenticated


def test_login_refuses_an_offsite_next(client, alice, password):
    response = client.post(
        f"{LOGIN}?next=https://evil.example/", {"username": "alice", "password": password}
    )
    assert response.url == reverse("game:lobby")


def test_logout_is_post_only(client, alice):
    client.force_login(alice)
    assert client.get(LOGOUT).status_code == 405
    assert _logged_in_user(client) == alice
    response = client.post(LOGOUT)
    assert response.status_code == 302
    assert not _logged_in_user(client).is_authenticated


def test_header_logout_is_a_form_post(client, alice):
    client.force_login(alice)
    html = client.get(reverse("game:lobby")).content.decode()
    assert f'<form method="post" action="{LOGOUT}"' in html


def test_password_change(client, alice, password):
    client.force_login(alice)
    assert client.get(PASSWORD_CHANGE).status_code == 200
    response = client.post(
        PASSWORD_CHANGE,
        {"old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response.url == alice.get_absolute_url()
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert _logged_in_user(client) == alice  # the session survives the change


@pytest.mark.parametrize(
    "data, field",
    [
        (
            {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
            "old_password",
        ),
        ({"new_password1": NEW_PASSWORD, "new_password2": "other-pass-123"}, "new_password2"),
        ({"new_password1": "short", "new_password2": "short"}, "new_password2"),
    ],
)
def test_password_change_errors_are_shown(client, alice, password, data, field):
    client.force_login(alice)
    response = client.post(PASSWORD_CHANGE, {"old_password": password, **data})
    assert response.status_code == 200
    assert field in response.context["form"].errors
    alice.refresh_from_db()
    assert alice.check_password(password)


def test_password_change_needs_login(client):
    response = client.get(PASSWORD_CHANGE)
    assert response.status_code == 302 and response.url.startswith(LOGIN)


def test_profile_shows_name_member_since_and_rooms(client, alice, bob):
    room = rooms.create_room(alice, name="Tea room")
    rooms.take_seat(room, bob, 2)
    client.force_login(bob)
    response = client.get(reverse("accounts:profile", args=["alice"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "alice" in html and "Tea room" in html
    assert response.context["player"].date_joined.strftime("%Y") in html
    assert 'id="profile-stats"' in html


def test_profile_empty_states(client, mallory):
    client.force_login(mallory)
    response = client.get(reverse("accounts:profile", args=["mallory"]))
    assert list(response.context["seats"]) == []
    assert response.content.decode().count('class="empty-state"') == 2


def test_profile_hides_private_rooms_from_outsiders(client, alice, bob, mallory):
    private = rooms.create_room(alice, name="Secret den", is_public=False)
    rooms.take_seat(private, bob, 1)
    client.force_login(mallory)
    assert (
        "Secret den" not in client.get(reverse("accounts:profile", args=["alice"])).content.decode()
    )
    client.force_login(bob)
    assert "Secret den" in client.get(reverse("accounts:profile", args=["alice"])).content.decode()


def test_profile_of_unknown_user_is_404(client, alice):
    client.force_login(alice)
    assert client.get(reverse("accounts:profile", args=["nobody"])).status_code == 404


def test_profile_needs_login(client, alice):
    response = client.get(reverse("accounts:profile", args=["alice"]))
    assert response.status_code == 302 and response.url.startswith(LOGIN)


def test_user_absolute_url_is_the_profile(alice):
    assert alice.get_absolute_url() == "/u/alice/"
