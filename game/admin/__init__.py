"""The Django admin of rooms, games and history (imported by admin autodiscovery)."""

from game.admin import games, history  # noqa: F401 (registers the model admins)
