"""Fixtures shared by every test package: named personas and process-safety fixes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import SyncToAsync


def _fresh_asgiref_executor() -> None:
    # A forked daphne (ChannelsLiveServerTestCase) would inherit a dead executor from an
    # earlier in-process websocket test and hang every socket (FIELD-NOTES.md).
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)


os.register_at_fork(after_in_child=_fresh_asgiref_executor)

PASSWORD = "correct-horse-battery-staple-42"


@pytest.fixture
def password() -> str:
    return PASSWORD


def _make_user(django_user_model, username: str):
    return django_user_model.objects.create_user(
        username=username, email=f"{username}@example.com", password=PASSWORD
    )


@pytest.fixture
def alice(django_user_model):
    """The room owner in most tests."""
    return _make_user(django_user_model, "alice")


@pytest.fixture
def bob(django_user_model):
    return _make_user(django_user_model, "bob")


@pytest.fixture
def carol(django_user_model):
    return _make_user(django_user_model, "carol")


@pytest.fixture
def dave(django_user_model):
    return _make_user(django_user_model, "dave")


@pytest.fixture
def mallory(django_user_model):
    """An outsider: registered, but in nobody's room."""
    return _make_user(django_user_model, "mallory")


@pytest.fixture(autouse=True)
def _site_language() -> Iterator[None]:
    """Each test starts in the site's language: a test-client request with another
    language cookie leaves that language active in the thread (LocaleMiddleware
    activates one per request; nothing deactivates it after)."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Short-lived limits live in the cache (a match log per user and window): each test
    starts without the previous test's."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # The default PBKDF2 hasher made account-heavy tests take minutes; tests check
    # behaviour, not hash strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_gc_freezing(settings) -> None:
    # A server process freezes its long-lived objects (game/live/memory.py); the test
    # process is no server: what it freezes would outlive the test that made it. The
    # soak test drives freezing itself, and the stack tests' servers freeze as usual.
    settings.DOBON_GC_FREEZE_SECONDS = 0


@pytest.fixture(autouse=True)
def _no_process_handshake_budget(settings) -> None:
    # The tests open sockets for many clients at machine speed through the one shared
    # application (whose budget's clock is real time): the per-process handshake budget
    # would refuse them at random. Its own tests (tests/game/test_admission.py) set it
    # and drive its clock; the stack tests' servers run with the real defaults.
    settings.DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND = 1_000_000
    settings.DOBON_WS_HANDSHAKE_BURST_PER_PROCESS = 1_000_000


def skip_unless_services(message: str) -> None:
    """Skip a test that needs a real service, or fail it where CI promises the service
    (DOBON_REQUIRE_SERVICES=1), so a green CI never hides a skipped real-service test."""
    if os.environ.get("DOBON_REQUIRE_SERVICES") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def redis_url() -> str:
    """The Redis the tests may use (REDIS_URL), for stores that must be shared."""
    from django.conf import settings

    if not settings.REDIS_URL:
        skip_unless_services("needs Redis (set REDIS_URL=redis://…)")
    return str(settings.REDIS_URL)


@pytest.fixture
def postgres_only() -> None:
    """For tests of row locks and races, which SQLite cannot show."""
    from django.db import connection

    if connection.vendor != "postgresql":
        skip_unless_services("needs PostgreSQL row locks (set DATABASE_URL=postgres://…)")


@pytest.fixture(autouse=True)
def _lean_connections_closed() -> Iterator[None]:
    """The lean move path keeps its own PostgreSQL connections per event loop
    (game/services/lean_moves.py): end them after each test, whose loop is gone, so that
    none is left to block the test database's DROP at the end."""
    yield
    from game.services import lean_moves

    lean_moves.close_all()
