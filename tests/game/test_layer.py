"""The production channel layer (game/live/layer.py): a message is published without
waiting for the subscriber connection's lock (issue #22: behind a crowd's 800 queued
subscribes and unsubscribes, one event-loop turn each, a quiet room's moves reached its
other players 0.5–1 s late). Against a real Redis (REDIS_URL)."""

from __future__ import annotations

import asyncio

from django.conf import settings

from dobon_site.env import channel_prefix
from game.live.layer import RedisPubSubChannelLayer


def layer_for(url: str) -> RedisPubSubChannelLayer:
    return RedisPubSubChannelLayer(
        hosts=[{"address": url, "socket_timeout": None}], prefix=channel_prefix(url)
    )


async def test_a_move_is_published_while_the_subscriptions_wait_their_turn(redis_url):
    publisher, listener_layer = layer_for(redis_url), layer_for(redis_url)
    try:
        listener = await listener_layer.new_channel()
        await listener_layer.group_add("room.7", listener)
        own = await publisher.new_channel()  # the publisher's shard connection exists
        await asyncio.sleep(0.2)  # the subscription reaches Redis
        shard = publisher._get_layer()._shards[0]
        async with shard._lock:  # a crowd's subscriptions holding the lock
            waiting = asyncio.ensure_future(publisher.group_add("room.8", own))
            await asyncio.wait_for(
                publisher.group_send("room.7", {"type": "game.move", "version": 5}), 2
            )
            heard = await asyncio.wait_for(listener_layer.receive(listener), 3)
            assert heard == {"type": "game.move", "version": 5}
            assert not waiting.done(), "subscriptions still take turns"
        await asyncio.wait_for(waiting, 3)
    finally:
        await publisher.flush()
        await listener_layer.flush()


def test_the_site_uses_this_layer_with_redis():
    if settings.REDIS_URL and settings.DOBON_CHANNEL_LAYER == "pubsub":
        assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == (
            "game.live.layer.RedisPubSubChannelLayer"
        )
    else:
        assert "game.live.layer" not in settings.CHANNEL_LAYERS["default"]["BACKEND"]
