import logging

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class GameConfig(AppConfig):
    name = "game"
    verbose_name = _("Games and rooms")

    def ready(self) -> None:
        from game import (
            instrument,
            signals,  # noqa: F401 (connects the receivers)
        )
        from game.services import wiring

        wiring.connect()  # who reacts when a game changes (game/services/changes.py)
        instrument.install()  # only under the load benchmark (DOBON_BENCH_COUNTERS_DIR)
        if settings.DOBON_LOG_FORMAT == "json":
            # Python's warnings as log lines too (py.warnings), not plain text on stderr.
            logging.captureWarnings(True)
