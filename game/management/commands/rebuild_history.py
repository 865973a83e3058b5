"""Count every finished game into the history aggregates again (`manage.py rebuild_history`).

For games finished before the aggregates existed, and for repairs: standings, player
statistics and dobon tallies are deleted and recounted from the games in one transaction.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from game.services.history import rebuild_all


class Command(BaseCommand):
    help = "Recount standings, player statistics and dobon tallies from the finished games."

    def handle(self, *args: Any, **options: Any) -> None:
        count = rebuild_all()
        self.stdout.write(f"counted {count} finished games")
