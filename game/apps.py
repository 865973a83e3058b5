from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GameConfig(AppConfig):
    name = "game"
    verbose_name = _("Games and rooms")

    def ready(self) -> None:
        from game import (
            instrument,
            signals,  # noqa: F401 (connects the receivers)
        )

        instrument.install()  # only under the load benchmark (DOBON_BENCH_COUNTERS_DIR)
