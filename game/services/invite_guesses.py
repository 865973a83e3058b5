"""How many invite codes an address and an account may try (issue #31: `/join/` took
about 4,700 guesses a minute from one client). A wrong code counts against both; over
either limit, `/join/` answers 429 until the window ends, whatever the code (a right
guess must not be told apart from a wrong one then). Counted in Django's cache: Redis
when configured, so over every server process; a process's memory on a laptop.

Windows are fixed (`DOBON_INVITE_GUESS_WINDOW_SECONDS`), so the wait is known without
reading any expiry: until the current window ends.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from accounts.throttle import UNKNOWN_ADDRESS


def _keys(address: str, user_id: int, now: float) -> list[tuple[str, int]]:
    """(cache key, limit) pairs counting this client's guesses in the current window."""
    window = int(now // settings.DOBON_INVITE_GUESS_WINDOW_SECONDS)
    keys = [(f"invite-guesses:user:{user_id}:{window}", settings.DOBON_INVITE_GUESSES_PER_ACCOUNT)]
    if address != UNKNOWN_ADDRESS:  # no address known: the account's limit alone
        keys.append((f"invite-guesses:addr:{address}:{window}",
                     settings.DOBON_INVITE_GUESSES_PER_ADDRESS))
    return keys


def wait_seconds(address: str, user_id: int, now: float | None = None) -> int | None:
    """Seconds until this address and account may try a code again, or None: now."""
    now = time.time() if now is None else now
    counts = cache.get_many([key for key, _ in _keys(address, user_id, now)])
    if all(counts.get(key, 0) < limit for key, limit in _keys(address, user_id, now)):
        return None
    window = settings.DOBON_INVITE_GUESS_WINDOW_SECONDS
    return max(1, int(window - now % window + 0.999))


def note_wrong_guess(address: str, user_id: int, now: float | None = None) -> None:
    """Count a code that led to no room."""
    now = time.time() if now is None else now
    keep = settings.DOBON_INVITE_GUESS_WINDOW_SECONDS + 60
    for key, _ in _keys(address, user_id, now):
        cache.add(key, 0, keep)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: count it anew
            cache.add(key, 1, keep)
