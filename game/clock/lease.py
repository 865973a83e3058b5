"""One clock, with a stand-in: which celery beat may run the schedule (issue #30).

Every beat asks for one key in Redis before it sweeps; the beat that holds it is the
clock, any other stands by and asks again every `renew_seconds`. The key's value is a
token unique to each beat process (host, pid and a random part, so the logs say who
holds it); it lives `seconds` (DOBON_CLOCK_LOCK_SECONDS, 15) unless the holder renews
it, which it does every `renew_seconds` (DOBON_CLOCK_LOCK_RENEW_SECONDS, 2). A holder
killed with `kill -9` stops renewing: its key runs out and a standby takes the clock
within `seconds + 2 * renew_seconds` (about 19 s). A holder that shuts down cleanly
deletes its key, so a standby takes over within `2 * renew_seconds`.

**Why redis-py's `Lock`.** redis-py is already the site's Redis client (Celery's broker
transport and channels-redis use it). Its `Lock` is exactly the lease needed: `acquire`
is `SET key token NX PX ttl`; `reacquire` is a Lua compare-and-renew (the TTL is reset
only while the key still holds *our* token); `release` a Lua compare-and-delete; the
scripts are loaded again by themselves after a Redis restart (EVALSHA falls back to
EVAL). Writing the same three scripts here would add code and no guarantee. Redlock
(several Redis masters) buys nothing: one Redis is also the broker, and while it is
down beat could not send a task anyway.

**Never two sweepers.** The rules, each of which keeps a beat from sweeping when it
cannot be sure it holds the clock:

- a holder sweeps only within `renew_seconds` of the last time Redis confirmed that
  the key holds its token (the clock is read before asking); it asks again before that
  window ends, so a renewal that fails or is refused (the key is gone or another's)
  stops the sweeping at once, and the socket timeouts keep one question within it;
- a beat that has just taken the key (a take-over, a start, or a holder that was not
  sure for a while) waits one more `renew_seconds` (+ `MARGIN`) before its first sweep.
  The key can vanish without its holder noticing at once (Redis restarted without
  persistence, or a failover): that holder's next renewal, at most `renew_seconds`
  later, finds it gone and stops; the newcomer starts only after that;
- Redis down: a holder cannot confirm, so it stops; when Redis answers again, either
  the key is still its own (it goes on, after the wait above) or it is gone or
  another's, and every beat asks with `SET NX`: exactly one wins.

What remains is a holder paused between its confirmation and its sweep for longer than
that wait (a frozen VM). Even then nothing is played twice: a sweep only claims due
versions in the database and sends them, and a worker applies a version only if the
game is still at it, under its row lock (game/services/clock.py).

Django-free and typed; the scheduler glue is in game/clock/beat.py.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Callable

import redis
from redis.backoff import NoBackoff
from redis.exceptions import LockError, LockNotOwnedError, RedisError
from redis.lock import Lock
from redis.retry import Retry

log = logging.getLogger(__name__)

KEY = "dobon:clock:holder"
# After taking the key, past one renewal period: the old holder's last sweep, begun
# inside its window, has ended too.
MARGIN = 0.5
# A standby's shortest sleep: celery beat does not sleep at all between ticks after a
# zero, and a moment just reached is worth no busy loop.
MIN_WAIT = 0.05


def new_token() -> str:
    """Unique per beat process: host and pid (for the logs) and a random part (a pid is
    reused, and two containers may share a host name)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def client_for(url: str, renew_seconds: float) -> redis.Redis:
    """The lease's own Redis client: one try per question, within half a renewal period.
    redis-py retries a failed command three times with a back-off of seconds by default;
    the lease asks again at its next period anyway, and a holder whose answer comes
    after its window has run out may not sweep on it (`may_run`)."""
    return redis.Redis.from_url(url, socket_timeout=renew_seconds / 2,
                                socket_connect_timeout=renew_seconds / 2,
                                retry=Retry(NoBackoff(), 0))


class ClockLease:
    """Whether this beat may run the clock now (`may_run`, asked at every tick).

    >>> lease = ClockLease(redis.Redis(), seconds=15, renew_seconds=2)  # doctest: +SKIP
    >>> lease.may_run()  # first call: takes the key, or stands by  # doctest: +SKIP
    False
    """

    def __init__(
        self,
        client: redis.Redis,
        seconds: float,
        renew_seconds: float,
        key: str = KEY,
        token: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < renew_seconds * 2 <= seconds:
            raise ValueError(
                f"the clock's lock lives {seconds} s and is renewed every {renew_seconds} s: "
                "renew at least twice per lifetime (DOBON_CLOCK_LOCK_RENEW_SECONDS <= "
                "DOBON_CLOCK_LOCK_SECONDS / 2)"
            )
        self.client, self.key = client, key
        self.seconds, self.renew_seconds = seconds, renew_seconds
        self.token = token or new_token()
        self._lock = Lock(client, key, timeout=seconds, thread_local=False)
        self._clock = clock
        self._held = False  # Redis last said the key is ours (or we took it)
        self._confirmed = float("-inf")  # when (clock read before asking)
        self._sweeps_from = float("inf")  # first sweep allowed after taking the key
        self._next_ask = float("-inf")
        self._said = ""  # the state last logged: a line per change, none per tick

    @property
    def held(self) -> bool:
        """Redis said so at the last question (not that this beat may sweep now)."""
        return self._held

    def may_run(self) -> bool:
        """Renew or ask when it is time, then: may this beat sweep right now?"""
        if self._clock() >= self._next_ask:
            self._ask(self._clock())
        now = self._clock()  # after the question: a slow answer counts against it
        return self._held and self._sweeps_from <= now < self._confirmed + self.renew_seconds

    def wait(self) -> float:
        """How long a beat that may not sweep sleeps before asking `may_run` again."""
        now = self._clock()
        moments = [self._next_ask] + ([self._sweeps_from] if self._held else [])
        return max(MIN_WAIT, min(self.renew_seconds, min(moments) - now))

    def release(self) -> None:
        """A clean shutdown: delete the key if it is still ours, so that a standby takes
        over at its next question instead of after the key's lifetime."""
        if not self._held:
            return
        self._held = False
        try:
            self._lock.release()
        except (LockError, RedisError) as exc:  # lost already, or Redis away: it runs out
            log.warning("beat %s could not release the clock (%s): it runs out within %g s",
                        self.token, exc, self.seconds)
            return
        log.info("beat %s released the clock", self.token)

    # -- asking Redis ----------------------------------------------------------------------

    def _ask(self, now: float) -> None:
        self._next_ask = now + self.renew_seconds
        try:
            if self._held:
                self._renew(now)
            else:
                self._try_to_take(now)
        except RedisError as exc:
            self._confirmed = float("-inf")
            self._sweeps_from = float("inf")  # once back: wait before sweeping (above)
            self._say("unreachable", logging.WARNING,
                      "beat %s cannot reach Redis (%s): %s until it answers", self.token,
                      exc, "not sweeping" if self._held else "standing by")

    def _renew(self, now: float) -> None:
        try:
            self._lock.reacquire()  # compare-and-renew: only while the key holds our token
        except LockNotOwnedError:
            self._held = False
            self._say("lost", logging.INFO,
                      "beat %s lost the clock (its lock is gone or another's, held by %s): "
                      "stopped sweeping", self.token, self._holder())
            self._try_to_take(now)  # gone (Redis restarted): every beat asks again
            return
        if self._confirmed == float("-inf"):  # back after an unsure spell
            self._took(now, "holds the clock again")
        self._confirmed = now

    def _try_to_take(self, now: float) -> None:
        if self._lock.acquire(blocking=False, token=self.token):
            self._held = True
            self._took(now, "holds the clock")
            return
        holder = self._holder()
        self._say(f"standby:{holder}", logging.INFO,
                  "beat %s stands by: the clock is held by %s", self.token, holder)

    def _took(self, now: float, what: str) -> None:
        self._confirmed = now
        self._sweeps_from = now + self.renew_seconds + MARGIN
        self._say("holds", logging.INFO,
                  "beat %s %s (lock %s, %g s, renewed every %g s); first sweep in %.1f s",
                  self.token, what, self.key, self.seconds, self.renew_seconds,
                  self.renew_seconds + MARGIN)

    def _holder(self) -> str:
        try:
            value = self.client.get(self.key)
        except RedisError:
            return "?"
        if value is None:
            return "nobody"
        return value.decode() if isinstance(value, bytes) else str(value)

    def _say(self, state: str, level: int, message: str, *args: object) -> None:
        if state != self._said:
            self._said = state
            log.log(level, message, *args)
