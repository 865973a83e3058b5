"""The load and match benchmarks' fixtures build real rows: users (with their look-alike
key, which bulk_create does not fill by itself), rooms, seats and signed-in sessions."""

from __future__ import annotations

import pytest

from accounts.usernames import username_key
from game.management.bench.stack import make_tables

pytestmark = pytest.mark.django_db


def test_bench_tables_seat_four_signed_in_users_per_room():
    tables = make_tables(2, timeout=10)
    assert len(tables) == 2
    for room, seated in tables:
        assert room.timeout_seconds == 10
        assert sorted(room.memberships.values_list("seat_index", flat=True)) == [0, 1, 2, 3]
        for user, cookie in seated:
            assert user.username_key == username_key(user.username)
            assert "=" in cookie
