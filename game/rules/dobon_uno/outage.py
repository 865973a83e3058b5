"""What both engines do when the server's clock was stopped (an outage): every clock
already due restarts with a full timeout instead of playing its timeouts (§R14 note in
docs/protocol.md, "The clock, and outages"; trump: docs/trump-engine.md). Plain code,
shared by game.rules.dobon_uno and game.rules.trump."""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


def restart_due_clocks(
    turn_clock: float | None, chance_clock: float | None, now: float, timeout: float
) -> tuple[float | None, float | None, list[Event]]:
    """The two clocks (the turn's, the open chances') with each one due by `now` moved
    to `now + timeout`, and the `resume` event, or no event when neither was due.

    >>> restart_due_clocks(10.0, None, 600.0, 10.0)
    (610.0, None, [{'type': 'resume', 'to': None, 'seat': None, 'deadline': 610.0}])
    >>> restart_due_clocks(610.0, 611.0, 605.0, 10.0)
    (610.0, 611.0, [])
    """
    fresh = now + timeout
    restarted = False
    if turn_clock is not None and turn_clock <= now:
        turn_clock, restarted = fresh, True
    if chance_clock is not None and chance_clock <= now:
        chance_clock, restarted = fresh, True
    if not restarted:
        return turn_clock, chance_clock, []
    return turn_clock, chance_clock, [
        {"type": "resume", "to": None, "seat": None, "deadline": fresh}
    ]
