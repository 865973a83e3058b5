"""The longest event-loop stall while `RedisStore.refresh` runs for N sockets (one server
process's), and the refresh's CPU: `PYTHONPATH=. python docs/bench/quiet3/refresh_stall.py 1000`
(needs Redis on 127.0.0.1:6379; uses and empties db 13)."""

from __future__ import annotations

import asyncio
import sys
import time

from game.live.presence import Entry, RedisStore


async def longest_stall_during(work: asyncio.Future[None] | asyncio.Task[None]) -> float:
    """Seconds of the longest gap between two turns of a task that only yields."""
    longest, last = 0.0, time.perf_counter()
    while not work.done():
        await asyncio.sleep(0)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    return longest


async def main(sockets: int) -> None:
    store = RedisStore("redis://127.0.0.1:6379/13")
    await store.redis.flushdb()
    entries = [Entry(f"chan.{i}", i, f"user{i}", 900_000 + i // 4, watcher=i % 9 == 0)
               for i in range(sockets)]
    for e in entries:
        await store.admit(e, 8, time.time(), 30)
    for _ in range(5):
        cpu = time.process_time()
        work = asyncio.ensure_future(store.refresh(entries, time.time(), 30))
        stall = await longest_stall_during(work)
        cpu = time.process_time() - cpu
        print(f"{sockets} sockets: longest stall {stall * 1000:.1f} ms, "
              f"CPU {cpu * 1000:.1f} ms (with the stall meter's own)")
    await store.redis.flushdb()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
