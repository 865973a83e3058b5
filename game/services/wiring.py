"""Who reacts when a game changes (game/services/changes.py): connected once, at start-up.

The order is the order of effects: CPU players and a match's program clock plan the next
due moment before a version is saved; a finished game is recorded in history before its
match counts it; a match starts its next game only after the finished one was pushed; a
version due soon goes to a worker after its push.
"""

from __future__ import annotations

from game.services import changes, clock, cpu, history, house, matches, ratings


def connect() -> None:
    changes.connect("plan", cpu.do_schedule)
    changes.connect("plan", clock.note_plan)
    changes.connect("finished", history.record_finished)
    changes.connect("finished", ratings.record_rated)  # with the result (docs/ratings.md)
    changes.connect("finished", matches.do_game_finished)
    changes.connect("finished", house.do_game_finished)  # §H14: a session's end
    changes.connect("aborted", matches.do_game_aborted)
    changes.connect("saved", matches.next_game_on_commit)
    changes.connect("saved", clock.dispatch_soon)  # after the version's push
    changes.connect("describe", matches.describe_table)
