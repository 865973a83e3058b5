"""Issue 11: invite codes the owner can replace, and a removed member who stays out.

Personas: alice owns the room, bob sits in it (and is removed), carol sits in it too,
mallory is an outsider, and an anonymous visitor is signed in as nobody.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from play_helpers import make_room

from game.models import Room
from game.services import rooms

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_room(alice, bob, carol):
    room = rooms.create_room(alice, name="Secret", is_public=False)
    rooms.take_seat(room, bob, 1)
    rooms.take_seat(room, carol, 2)
    return room


def _join(code: str) -> str:
    return reverse("game:join", args=[code])


def _rotate(room: Room) -> str:
    return reverse("game:rotate_invite", args=[room.pk])


def test_owner_rotates_the_code_and_the_old_link_says_it_no_longer_works(
    client, private_room, alice, mallory
):
    old = private_room.invite_code
    client.force_login(alice)
    response = client.post(_rotate(private_room))
    assert response.status_code == 302
    private_room.refresh_from_db()
    assert private_room.invite_code != old
    page = client.get(private_room.get_absolute_url()).content.decode()
    assert private_room.invite_code in page and old not in page

    client.force_login(mallory)
    response = client.get(_join(old))
    assert response.status_code == 404
    assert 'data-testid="invite-invalid"' in response.content.decode()
    assert client.get(private_room.get_absolute_url()).status_code == 404
    # The new link works.
    assert client.get(_join(private_room.invite_code)).url == private_room.get_absolute_url()
    assert client.get(private_room.get_absolute_url()).status_code == 200


def test_an_old_code_typed_in_is_refused_with_a_reason(client, private_room, alice, mallory):
    old = private_room.invite_code
    rooms.rotate_invite_code(private_room, alice)
    client.force_login(mallory)
    response = client.post(reverse("game:join_by_code"), {"code": old})
    assert response.status_code == 200
    errors = response.context["form"].errors["code"]
    assert any("replaced" in str(e) or "差し替え" in str(e) for e in errors)


def test_a_session_invited_before_the_rotation_no_longer_sees_the_room(
    client, private_room, alice, mallory
):
    client.force_login(mallory)
    client.get(_join(private_room.invite_code))
    assert client.get(private_room.get_absolute_url()).status_code == 200
    rooms.rotate_invite_code(private_room, alice)
    assert client.get(private_room.get_absolute_url()).status_code == 404
    response = client.post(reverse("game:take_seat", args=[private_room.pk]), {})
    assert response.status_code == 404
    assert not private_room.memberships.filter(user=mallory).exists()


def test_removed_member_cannot_see_or_rejoin_a_private_room(client, private_room, alice, bob):
    """The finding: a removed member reused the code seen on the room page."""
    client.force_login(bob)
    seen_code = private_room.invite_code
    client.get(_join(seen_code))  # bob's session holds the invite too
    rooms.remove_member(private_room, alice, bob.pk)

    assert client.get(private_room.get_absolute_url()).status_code == 404
    assert client.get(_join(seen_code)).status_code == 404
    response = client.post(reverse("game:take_seat", args=[private_room.pk]), {"seat_index": 1})
    assert response.status_code == 404
    assert not private_room.memberships.filter(user=bob).exists()


def test_removal_through_the_page_rotates_the_code(client, private_room, alice, bob, carol):
    old = private_room.invite_code
    client.force_login(alice)
    client.post(reverse("game:remove_member", args=[private_room.pk, bob.pk]))
    private_room.refresh_from_db()
    assert private_room.invite_code != old
    # Those still seated see the room as before.
    client.force_login(carol)
    assert client.get(private_room.get_absolute_url()).status_code == 200


def test_only_the_owner_may_rotate(client, private_room, bob, mallory):
    old = private_room.invite_code
    client.force_login(bob)  # a member
    assert client.post(_rotate(private_room)).status_code == 403
    client.force_login(mallory)  # an outsider: the room stays invisible
    assert client.post(_rotate(private_room)).status_code == 404
    client.logout()  # anonymous: off to the login page
    response = client.post(_rotate(private_room))
    assert response.status_code == 302 and reverse("accounts:login") in response.url
    private_room.refresh_from_db()
    assert private_room.invite_code == old


def test_rotating_is_a_post(client, private_room, alice):
    client.force_login(alice)
    assert client.get(_rotate(private_room)).status_code == 405


def test_the_owner_sees_the_rotate_button_and_members_do_not(client, private_room, alice, bob):
    client.force_login(alice)
    page = client.get(private_room.get_absolute_url()).content.decode()
    assert 'data-testid="rotate-invite"' in page
    client.force_login(bob)
    assert 'data-testid="rotate-invite"' not in client.get(
        private_room.get_absolute_url()
    ).content.decode()


def test_a_session_from_before_invites_carried_their_code_sees_nothing(
    client, private_room, mallory
):
    """Sessions that stored bare room ids (before this change) grant no access."""
    client.force_login(mallory)
    session = client.session
    session["dobon_invited_rooms"] = [private_room.pk]
    session[rooms.INVITED_SESSION_KEY] = [private_room.pk]
    session.save()
    assert client.get(private_room.get_absolute_url()).status_code == 404


# -- issue 21: short, unambiguous, case-insensitive codes; old codes keep working ----------


def test_new_codes_are_ten_unambiguous_upper_case_symbols(alice, settings):
    import re

    # 40 rooms from one owner: above the per-account room limits (issue 20), not tested here.
    settings.DOBON_ROOMS_PER_DAY = settings.DOBON_MAX_ROOMS_PER_USER = 40
    codes = {rooms.create_room(alice, name=f"r{i}").invite_code for i in range(40)}
    assert len(codes) == 40
    for code in codes:
        assert re.fullmatch(r"[A-HJKMNP-Z2-9]{10}", code), code
        assert not set(code) & set("0O1lIL")


def test_a_new_code_typed_in_lower_case_finds_the_room(client, private_room, mallory):
    code = private_room.invite_code
    shown = private_room.invite_code_display
    assert shown == f"{code[:5]}-{code[5:]}"
    for typed in (shown, shown.lower(), f"{code[:5].lower()} {code[5:]}"):
        assert rooms.find_room_by_code(typed) == private_room, typed
    client.force_login(mallory)
    response = client.post(reverse("game:join_by_code"), {"code": f"  {shown.lower()} "})
    assert response.status_code == 302
    assert client.get(response.url).url == private_room.get_absolute_url()
    assert client.get(private_room.get_absolute_url()).status_code == 200
    # The link with the code in lower case works too.
    assert client.get(_join(code.lower())).url == private_room.get_absolute_url()


def test_an_old_mixed_case_code_keeps_working_until_rotated(client, private_room, alice, mallory):
    Room.objects.filter(pk=private_room.pk).update(invite_code="E-XWjxo4ZTl5")
    client.force_login(mallory)
    assert client.get(_join("E-XWjxo4ZTl5")).url == private_room.get_absolute_url()
    assert rooms.find_room_by_code("http://x/join/E-XWjxo4ZTl5/") == private_room
    # As before: an old code is case-sensitive (it could name another room otherwise).
    assert rooms.find_room_by_code("e-xwjxo4ztl5") is None
    private_room.refresh_from_db()
    rooms.rotate_invite_code(private_room, alice)
    assert rooms.find_room_by_code("E-XWjxo4ZTl5") is None
    private_room.refresh_from_db()
    assert len(private_room.invite_code) == 10


def test_a_new_room_shows_its_invite_under_the_table_with_copy_and_share(client, alice):
    client.force_login(alice)
    response = client.post(reverse("game:create_room"), {
        "name": "New", "seat_count": 4, "timeout_seconds": 10, "is_public": "on",
        "stamps_enabled": "on",
    })
    page = client.get(response.url).content.decode()
    invite = page.index('data-testid="invite"')
    assert page.index('data-testid="live-table"') < invite < page.index('id="room-panel"')
    for testid in ("copy-invite", "share-invite", "mail-invite"):
        assert f'data-testid="{testid}"' in page


def test_a_full_rooms_invite_says_it_is_full_and_offers_to_watch(
    client, alice, bob, carol, dave, mallory
):
    """Issue #33: an invite to a room whose every seat is taken says so and that the
    guest may watch — it used to say "pick a free seat" where there was none."""
    room = make_room(alice, bob, carol, dave, seat_count=4)
    client.force_login(mallory)
    page = client.get(f"/join/{room.invite_code}/", follow=True).content.decode()
    assert "満席です。ここで観戦でき" in page
    assert "空いている席を選んで" not in page
    assert 'data-testid="full-watch"' in page and 'data-testid="sit-prompt"' not in page


def test_an_invite_to_a_room_with_a_free_seat_still_asks_to_pick_one(client, alice, mallory):
    room = make_room(alice, seat_count=4)
    client.force_login(mallory)
    page = client.get(f"/join/{room.invite_code}/", follow=True).content.decode()
    assert 'data-testid="sit-prompt"' in page and 'data-testid="full-watch"' not in page
