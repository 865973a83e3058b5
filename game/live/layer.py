"""The production channel layer: channels_redis's pub/sub layer, with messages published
outside the subscriptions' turn-taking (issue #22, "A crowd stalls everyone").

channels_redis keeps one subscriber connection per Redis server and one asyncio lock for
it, and took that lock for publishing too, although a publish goes out on the client's
connection pool, never on the subscriber connection. Every socket opened or closed
subscribes or unsubscribes four times (its own channel, its room, its user, the room's
watchers), each under the lock, and a contended asyncio lock passes to its next waiter
once per event-loop turn. When a crowd of 400 sockets opened, or was closed as a flood,
at once, every move's message waited behind about 800 of those in each process, one
loop turn each: a quiet room's moves took 0.5–1 s to reach its other players while the
loop itself was never late by more than 180 ms (docs/performance.md). Here a publish
takes no turn: it waits for nobody's subscription, and subscriptions keep their order
among themselves as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels_redis import pubsub
from channels_redis.utils import _wrap_close


class ShardConnection(pubsub.RedisSingleShardConnection):  # type: ignore[misc]
    async def publish(self, channel: str, message: bytes) -> None:
        self._ensure_redis()  # creates the client (and its pool) once, without awaiting
        await self._redis.publish(channel, message)


class LoopLayer(pubsub.RedisPubSubLoopLayer):  # type: ignore[misc]
    """One event loop's layer, with the connections above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        upstream: list[Any] = self._shards  # type: ignore[has-type]
        self._shards = [ShardConnection(shard.host, self) for shard in upstream]


class RedisPubSubChannelLayer(pubsub.RedisPubSubChannelLayer):  # type: ignore[misc]
    """Set as `CHANNEL_LAYERS["default"]["BACKEND"]` with Redis (dobon_site/settings.py)."""

    def _get_layer(self) -> LoopLayer:
        loop = asyncio.get_running_loop()
        if loop not in self._layers:
            self._layers[loop] = LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)  # the layer is flushed when its loop closes, as upstream
        layer: LoopLayer = self._layers[loop]
        return layer
