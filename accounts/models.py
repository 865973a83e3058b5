from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.urls import reverse


class User(AbstractUser):
    """A registered player. Custom from the first migration so it can grow later."""

    def get_absolute_url(self) -> str:
        return reverse("accounts:profile", kwargs={"username": self.username})
