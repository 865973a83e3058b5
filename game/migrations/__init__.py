"""Database migrations of the game app (Django's, in order)."""
