"""The Dobon UNO engine (RULES.md); its public names are re-exported by ``game.rules``."""

from . import house_game  # noqa: F401 (registers the class that plays house rules)
