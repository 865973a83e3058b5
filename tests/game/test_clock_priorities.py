"""The clock's task priorities on a real Redis (issue #22: a person's clock first).

kombu's Redis transport keeps one list per priority step (0, 3, 6, 9) and files any other
priority under the step at or below it; a consumer's BRPOP names the lists most urgent
first. So the three classes of game/services/clock.py must be three steps, and a worker
asking for its next task gets a person's timeout before a room's CPU move before a match's,
whatever order they were sent in (and, within one class, the order they were sent in).
The tasks are sent through the site's Celery app, to a queue of this test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from game.services import clock


@pytest.fixture
def broker(redis_url: str, settings: Any) -> Iterator[tuple[Any, Any]]:
    """A connection to the test Redis with the site's transport options, and a queue of
    this test's own (deleted afterwards)."""
    from kombu import Connection, Exchange, Queue

    name = f"test-clock-priorities-{uuid.uuid4().hex}"
    queue = Queue(name, Exchange(name), routing_key=name)
    with Connection(redis_url, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        queue(conn.default_channel).declare()
        try:
            yield conn, queue
        finally:
            queue(conn.default_channel).delete()


def received(conn: Any, queue: Any, count: int) -> list[list[int]]:
    """The args of the next `count` tasks, as a worker with one free process takes them
    (BRPOP through the event-draining consumer, one message unacknowledged at a time)."""
    got: list[list[int]] = []

    def take(body: Any, message: Any) -> None:
        got.append(body[0])
        message.ack()

    with conn.Consumer(queue, callbacks=[take], accept=["json"], prefetch_count=1):
        while len(got) < count:
            conn.drain_events(timeout=5)
    return got


def test_the_three_priorities_are_three_steps_of_kombus_redis_transport(broker):
    conn, _ = broker
    steps = {conn.default_channel.priority(p) for p in (clock.PERSON, clock.TABLE, clock.BULK)}
    assert len(steps) == 3


def test_a_free_worker_gets_a_persons_timeout_before_cpu_moves_and_matches(broker):
    """Sent least urgent first, as a flood of other games' work would already be waiting
    when a person's timeout falls due."""
    from dobon_site.celery import app

    conn, queue = broker
    sends = [([1, 0], clock.BULK), ([2, 0], clock.TABLE), ([3, 0], clock.TABLE),
             ([4, 0], clock.PERSON), ([5, 0], clock.BULK), ([6, 0], clock.PERSON)]
    for args, priority in sends:
        app.send_task(clock.RUN_TASK, args=args, priority=priority, queue=queue,
                      connection=conn)
    assert received(conn, queue, len(sends)) == [
        [4, 0], [6, 0],  # people's own clocks, in the order sent
        [2, 0], [3, 0],  # CPU moves in rooms with people
        [1, 0], [5, 0],  # matches
    ]
