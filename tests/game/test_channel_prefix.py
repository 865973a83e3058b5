"""Two sites on one Redis server with different database numbers: Redis pub/sub channels
ignore the database number, so each site's channel names carry its own prefix
(DOBON_CHANNEL_PREFIX, by default one per database number)."""

from __future__ import annotations

import asyncio
import urllib.parse

from dobon_site.env import channel_prefix
from game.live.layer import RedisPubSubChannelLayer


def test_the_default_prefix_follows_the_database_number():
    assert channel_prefix("redis://127.0.0.1:6379/7") == "dobon.7."
    assert channel_prefix("redis://127.0.0.1:6379/3") == "dobon.3."
    assert channel_prefix("redis://127.0.0.1:6379") == "dobon.0."
    assert channel_prefix("redis://127.0.0.1:6379?db=5") == "dobon.5."


def test_the_channel_layer_is_configured_with_the_prefix(settings):
    config = {
        "pubsub": "game.live.layer.RedisPubSubChannelLayer",
        "core": "channels_redis.core.RedisChannelLayer",
    }
    if settings.REDIS_URL:
        layer = settings.CHANNEL_LAYERS["default"]
        assert layer["BACKEND"] in config.values()
        assert layer["CONFIG"]["prefix"] == settings.DOBON_CHANNEL_PREFIX


def layer_for(url: str) -> RedisPubSubChannelLayer:
    """A site's layer as settings.py builds it for `url`."""
    return RedisPubSubChannelLayer(
        hosts=[{"address": url, "socket_timeout": None}], prefix=channel_prefix(url)
    )


async def test_sites_on_two_database_numbers_do_not_hear_each_other(redis_url):
    base = urllib.parse.urlparse(redis_url)
    one = layer_for(base._replace(path="/11").geturl())
    two = layer_for(base._replace(path="/12").geturl())
    try:
        listener = await one.new_channel()
        await one.group_add("room.1", listener)
        other = await two.new_channel()
        await two.group_add("room.1", other)
        await asyncio.sleep(0.2)  # the subscriptions reach Redis
        await two.group_send("room.1", {"type": "presence", "online": ["from-two"]})
        assert (await asyncio.wait_for(two.receive(other), 3))["online"] == ["from-two"]
        heard = asyncio.ensure_future(one.receive(listener))
        await asyncio.wait([heard], timeout=0.5)
        assert not heard.done(), "site one heard site two's group"
        await one.group_send("room.1", {"type": "presence", "online": ["from-one"]})
        assert (await asyncio.wait_for(heard, 3))["online"] == ["from-one"]
    finally:
        await one.flush()
        await two.flush()
