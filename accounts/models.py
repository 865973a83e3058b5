from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A registered player. Custom from the first migration so it can grow later."""

    def get_absolute_url(self) -> str:
        return reverse("accounts:profile", kwargs={"username": self.username})


class ApiToken(models.Model):
    """A key with which a program plays its owner's seats over the websocket (bot API,
    docs/bots-api.md). Only a SHA-256 of the key is stored: the key itself is shown
    once, when it is created. A revoked token stays listed (and refused) for the record."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=60)
    key_hash = models.CharField(_("key hash"), max_length=64, unique=True, editable=False)
    # The first characters of the key, so its owner can tell tokens apart in the list.
    prefix = models.CharField(_("key starts with"), max_length=12, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
