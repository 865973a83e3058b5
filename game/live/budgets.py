"""Budgets a server process keeps over many sockets at once (issue #22, "A crowd stalls
everyone"): the per-socket token bucket (consumers.TokenBucket) cannot see that 64
sockets of one address, or 8 sockets of one user, are one client.

- syncs per user and per client address: a `sync` reads the whole table and sends it,
  many times a move's cost, and a client needs one only on connect, after a gap or on
  reconnect. A sync over budget waits for it (coalesced: a socket has at most one
  sync in flight) instead of being refused, so every client gets its table;
- messages per client address and per user (over all the user's sockets), counted
  before parsing: over either, `rate_limited`, and a socket that stays over is closed
  as a flood (4429), after which its address sits out a while (admission.flooders).

Each budget is a token bucket per key, `rate` a second in bursts up to `burst`, both read
from settings at each use. Time is an input (monotonic seconds), never read here, so the
tests move time instead of sleeping. Clients without a known address are not grouped by
address (admission.client_address gives None for them).
"""

from __future__ import annotations

from collections.abc import Hashable

from django.conf import settings

# Keys kept before full buckets (the same as no bucket at all) are forgotten.
MAX_KEYS = 10_000


class Budget:
    """Token buckets by key: `rate_setting` tokens a second, at most `burst_setting`."""

    def __init__(self, rate_setting: str, burst_setting: str) -> None:
        self.rate_setting, self.burst_setting = rate_setting, burst_setting
        self.buckets: dict[Hashable, tuple[float, float]] = {}  # key: (tokens, when)

    @property
    def rate(self) -> float:
        return float(max(getattr(settings, self.rate_setting), 1))

    @property
    def burst(self) -> float:
        return float(max(getattr(settings, self.burst_setting), 1))

    def tokens(self, key: Hashable, now: float) -> float:
        tokens, when = self.buckets.get(key, (self.burst, now))
        return min(self.burst, tokens + max(now - when, 0.0) * self.rate)

    def wait(self, key: Hashable, now: float) -> float:
        """Seconds until `key` has a whole token (0.0: it has one now)."""
        return max(1.0 - self.tokens(key, now), 0.0) / self.rate

    def take(self, key: Hashable, now: float) -> None:
        """Spend one token of `key` (callers check `wait` first)."""
        self.forget_full(now)
        self.buckets[key] = (self.tokens(key, now) - 1.0, now)

    def try_take(self, key: Hashable, now: float) -> bool:
        """Spend one token if `key` has one; False (and nothing spent) if not."""
        if self.wait(key, now) > 0.0:
            return False
        self.take(key, now)
        return True

    def forget_full(self, now: float) -> None:
        """Bound the memory a crowd of keys (a botnet's addresses) can take: a full
        bucket is the same as none."""
        if len(self.buckets) > MAX_KEYS:
            self.buckets = {
                key: bucket for key, bucket in self.buckets.items()
                if self.tokens(key, now) < self.burst
            }


class ProcessBudgets:
    """This process's budgets over all its sockets (one object, shared like the stamp
    limiter; tests replace it with a fresh one)."""

    def __init__(self) -> None:
        self.user_syncs = Budget("DOBON_WS_SYNCS_PER_SECOND", "DOBON_WS_SYNC_BURST")
        self.address_syncs = Budget(
            "DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND", "DOBON_WS_SYNC_BURST_PER_ADDRESS"
        )
        self.address_messages = Budget(
            "DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND", "DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND"
        )
        self.user_messages = Budget(
            "DOBON_WS_MESSAGES_PER_USER_PER_SECOND", "DOBON_WS_MESSAGE_BURST_PER_USER"
        )

    def sync_wait(self, user_id: int, address: str | None, now: float) -> float:
        """Seconds a sync for `user_id` from `address` must wait; 0.0 means it may be
        answered now, and its tokens are spent (both or neither)."""
        wait = self.user_syncs.wait(user_id, now)
        if address is not None:
            wait = max(wait, self.address_syncs.wait(address, now))
        if wait > 0.0:
            return wait
        self.user_syncs.take(user_id, now)
        if address is not None:
            self.address_syncs.take(address, now)
        return 0.0

    def message_allowed(self, address: str | None, user_id: int, now: float) -> bool:
        """Whether the address and the user may send one more message now (spending
        one of each, or nothing)."""
        if self.user_messages.wait(user_id, now) > 0.0:
            return False
        if address is not None and not self.address_messages.try_take(address, now):
            return False
        self.user_messages.take(user_id, now)
        return True
