"""`manage.py verify_history`: replay every stored game and say whether each one ends as
stored (game/history/verify.py). Exits 1 when any does not: the restore drill's check
(docs/deploy.md, "Backups and a restore drill")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.history.verify import OVER, Mismatch, verify_games
from game.models import Game


class Command(BaseCommand):
    help = ("Replay every game (finished, aborted and running) from its stored log through "
            "its engine; exit 1 if any does not end exactly as stored.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--over-only", action="store_true",
                            help="only finished and aborted games, not the running ones")
        parser.add_argument("--game", type=int, action="append", dest="games",
                            metavar="ID", help="only this game (may be repeated)")

    def handle(self, *args: Any, **options: Any) -> None:
        statuses = OVER if options["over_only"] else (*OVER, Game.Status.RUNNING)
        report = verify_games(statuses, options["games"], on_mismatch=self._say)
        counts = ", ".join(f"{n} {status}" for status, n in sorted(report.checked.items()))
        summary = (f"replayed {report.total} games ({counts or 'none'}), "
                   f"{report.versions} versions")
        if report.mismatches:
            raise CommandError(f"{summary}: {len(report.mismatches)} do not end as stored")
        self.stdout.write(f"{summary}: every one ends as stored")

    def _say(self, mismatch: Mismatch) -> None:
        self.stderr.write(str(mismatch))
