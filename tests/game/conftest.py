"""Fixtures for the live-play tests."""

from __future__ import annotations

import pytest
from socket_helpers import FakeClock, Gate

from game.live import admission
from game.live.budgets import ProcessBudgets
from game.live.consumers import RoomConsumer
from game.live.shared_reads import SharedReads


@pytest.fixture(autouse=True)
def _fresh_match_settings():
    """game/services/matches.py caches each match's settings by id (they never change);
    a rolled-back test's ids are reused by the next test on SQLite."""
    from game.services import matches

    matches._settings.clear()
    yield
    matches._settings.clear()


@pytest.fixture(autouse=True)
def _fresh_budgets(monkeypatch):
    """The process's sync and message budgets (game/live/budgets.py) start full in each
    test, no read is shared with an earlier test's (a reused room id), and no address
    sits out (refused by a full room or closed for flooding): a test's users, addresses
    and room ids are the next test's too."""
    monkeypatch.setattr(RoomConsumer, "budgets", ProcessBudgets())
    monkeypatch.setattr(RoomConsumer, "shared_reads", SharedReads())
    for name, seconds in (("full_rooms", "DOBON_WS_WATCHERS_FULL_SECONDS"),
                          ("flooders", "DOBON_WS_FLOOD_COOLDOWN_SECONDS")):
        monkeypatch.setattr(admission, name, admission.SitOut(seconds))


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The sockets' rate-limit clock, frozen until the test moves it."""
    fake = FakeClock()
    monkeypatch.setattr(RoomConsumer, "clock", staticmethod(fake))
    return fake


@pytest.fixture
def people(alice, bob, carol, dave):
    """Four seated players in seat order (the history tests' table)."""
    return [alice, bob, carol, dave]


@pytest.fixture
def gate(monkeypatch) -> Gate:
    """The sockets' waits for a sync budget, held until the test opens the gate."""
    held = Gate()
    monkeypatch.setattr(RoomConsumer, "pause", staticmethod(held))
    return held
