"""Recompute every skill rating from the stored games (`manage.py rebuild_ratings`).

After the ratings were added (the games finished before them are rated in order), and for
repairs: ratings and rating changes are deleted and recomputed from the finished, rated
games, oldest first (finished_at, then id), in one transaction, with the same function
the live hook uses, so the numbers are identical (docs/ratings.md).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from game.models import Rating
from game.services.ratings import rebuild_all


class Command(BaseCommand):
    help = "Recompute every skill rating and rating change from the finished, rated games."

    def handle(self, *args: Any, **options: Any) -> None:
        count = rebuild_all()
        self.stdout.write(f"rated {count} games; {Rating.objects.count()} rating lines")
