"""A restart's reconnect storm against the per-process handshake budget
(game/live/admission.py), as a model: `python docs/bench/churn-cheap/reconnect_storm.py`.

2,000 browser sockets, spread evenly over the processes, first try within `spread`
seconds. A 4411 is answered after DOBON_WS_REFUSAL_SECONDS; the browser saw the socket
open (the accept comes before the close), so its backoff restarts at 0.5 s
(static/js/table/socket.js): it tries again that pause + 0.5 s after its last try. Each
browser has an address of its own: quiet (it may overdraw the spent budget by the
burst) when its last try is QUIET_SECONDS old or more. Prints when half, 99 % and every
socket is back in.
"""

from __future__ import annotations

import heapq

QUIET_SECONDS = 2.0  # game/live/admission.py
BROWSER_RETRY_SECONDS = 0.5  # static/js/table/socket.js, after a socket that opened


def back_in_times(sockets: int, rate: float, burst: float, refusal: float = 1.0,
                  spread: float = 1.0) -> list[float]:
    """When each of one process's `sockets` gets in (seconds after the restart)."""
    tokens, when = burst, 0.0
    tries: list[tuple[float, int, float | None]] = [
        (spread * n / sockets, n, None) for n in range(sockets)
    ]
    heapq.heapify(tries)
    times: list[float] = []
    while tries:
        now, n, last = heapq.heappop(tries)
        tokens, when = min(burst, tokens + (now - when) * rate), now
        quiet = last is None or now - last >= QUIET_SECONDS
        if tokens + (burst if quiet else 0.0) >= 1.0:
            tokens -= 1.0
            times.append(now)
        else:
            heapq.heappush(tries, (now + refusal + BROWSER_RETRY_SECONDS, n, now))
    return times


def storm(total: int, processes: int, rate: float, burst: float) -> tuple[float, float, float]:
    times = sorted(t for p in range(processes)
                   for t in back_in_times(total // processes, rate, burst))
    return times[len(times) // 2], times[int(len(times) * 0.99) - 1], times[-1]


if __name__ == "__main__":
    for processes in (1, 2):
        for rate, burst in ((30, 60), (40, 80), (20, 40)):
            half, most, every = storm(2000, processes, rate, burst)
            print(f"{processes} process(es), {rate}/s in bursts of {burst}: 2,000 sockets "
                  f"half back in {half:.1f} s, 99 % in {most:.1f} s, all in {every:.1f} s")
