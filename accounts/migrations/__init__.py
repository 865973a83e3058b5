"""Database migrations of the accounts app (Django's, in order)."""
