"""The live layer's one token bucket (`Budget`: buckets by key), and the budgets a server
process keeps over many sockets at once (issue #22, "A crowd stalls everyone"): a
socket's own message limit (a Budget of one key, consumers.py) cannot see that 64
sockets of one address, or 8 sockets of one user, are one client. The handshake limits
(admission.py) are Budgets too.

- syncs per user and per client address: a `sync` reads the whole table and sends it,
  many times a move's cost, and a client needs one only on connect, after a gap or on
  reconnect. A sync over budget waits for it (coalesced: a socket has at most one
  sync in flight) instead of being refused, so every client gets its table. A user's
  burst is two per socket they hold in this process (the connect table and a resuming
  sync), up to `DOBON_WS_SYNC_BURST`: a user with a socket or two cannot spend a full
  burst at once, which a crowd of accounts would otherwise multiply (issue #22: 50
  accounts' first seconds cost about 3,000 tables);
- messages per client address and per user (over all the user's sockets), counted
  before parsing: over either, `rate_limited`, and a socket that stays over is closed
  as a flood (4429), after which its address sits out a while (admission.flooders).

Each budget is a token bucket per key, `rate` a second in bursts up to `burst`, both read
from settings at each use. Time is an input (monotonic seconds), never read here, so the
tests move time instead of sleeping. Clients without a known address are not grouped by
address (admission.client_address gives None for them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from django.conf import settings

# Keys kept before full buckets (the same as no bucket at all) are forgotten.
MAX_KEYS = 10_000
# A user's sync burst per socket they hold in the process: its connect table and one
# resuming sync (a restart's reconnect needs both at once).
SYNCS_PER_SOCKET = 2


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

    def cap(self, burst: float | None) -> float:
        """The most tokens a key may hold: the setting's burst, or `burst` if lower."""
        return self.burst if burst is None else min(burst, self.burst)

    def tokens(self, key: Hashable, now: float, burst: float | None = None) -> float:
        """The tokens `key` has now; `burst` (at most the setting's) caps them lower."""
        cap = self.cap(burst)
        tokens, when = self.buckets.get(key, (cap, now))
        return min(cap, tokens + max(now - when, 0.0) * self.rate)

    def wait(self, key: Hashable, now: float, burst: float | None = None) -> float:
        """Seconds until `key` has a whole token (0.0: it has one now)."""
        return max(1.0 - self.tokens(key, now, burst), 0.0) / self.rate

    def take(self, key: Hashable, now: float, burst: float | None = None) -> None:
        """Spend one token of `key` (callers check `wait` first)."""
        self.forget_full(now)
        self.buckets[key] = (self.tokens(key, now, burst) - 1.0, now)

    def give(self, key: Hashable, now: float, tokens: float, burst: float | None = None) -> None:
        """Add `tokens` to `key`'s (up to its burst)."""
        self.buckets[key] = (min(self.cap(burst), self.tokens(key, now, burst) + tokens), now)

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
        self.user_sockets: Counter[int] = Counter()  # the user's sockets in this process

    def socket_opened(self, user_id: int, now: float) -> None:
        """A socket of the user is counted in: it brings its two syncs with it."""
        self.user_sockets[user_id] += 1
        self.user_syncs.give(user_id, now, SYNCS_PER_SOCKET, self.user_sync_burst(user_id))

    def socket_closed(self, user_id: int) -> None:
        self.user_sockets[user_id] -= 1
        if self.user_sockets[user_id] <= 0:
            del self.user_sockets[user_id]

    def user_sync_burst(self, user_id: int) -> float:
        """Two syncs per socket the user holds here (at least one socket's worth)."""
        return float(SYNCS_PER_SOCKET * max(self.user_sockets[user_id], 1))

    def sync_wait(self, user_id: int, address: str | None, now: float) -> float:
        """Seconds a sync for `user_id` from `address` must wait; 0.0 means it may be
        answered now, and its tokens are spent (both or neither)."""
        burst = self.user_sync_burst(user_id)
        wait = self.user_syncs.wait(user_id, now, burst)
        if address is not None:
            wait = max(wait, self.address_syncs.wait(address, now))
        if wait > 0.0:
            return wait
        self.user_syncs.take(user_id, now, burst)
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
