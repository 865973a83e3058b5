from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.dispatch import Signal
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.usernames import username_key

# Sent after a user's new password is saved (any path: the password page, the admin,
# `manage.py changepassword`). Open sockets of that user close (game/signals.py).
password_changed = Signal()
# Sent after a save turns `is_active` off (the admin, the shell): every socket of the user
# closes, the program ones too (game/signals.py).
deactivated = Signal()


class User(AbstractUser):
    """A registered player. Custom from the first migration so it can grow later."""

    # Look-alike names share this key (accounts/usernames.py); unique, so two of them
    # cannot both be registered, not even by two sign-ups racing each other.
    username_key = models.CharField(_("username skeleton"), max_length=160, unique=True,
                                    editable=False)

    # The language last chosen with the switcher while signed in (or just before signing
    # in): a new browser gets it at log-in (accounts/middleware.py). Empty: never chosen.
    language = models.CharField(_("language"), max_length=8, blank=True, default="",
                                choices=settings.LANGUAGES)

    # is_active as loaded from the database (None: not loaded), to notice a deactivation.
    _loaded_active: bool | None = None

    @classmethod
    def from_db(  # type: ignore[override]  # django-stubs types it for the base Model
        cls, db: Any, field_names: Any, values: Any
    ) -> User:
        user: User = super().from_db(db, field_names, values)
        loaded = user.__dict__.get("is_active")
        user._loaded_active = loaded if isinstance(loaded, bool) else None
        return user

    def get_absolute_url(self) -> str:
        return reverse("accounts:profile", kwargs={"username": self.username})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = username_key(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_key"}
        # set_password keeps the raw password until the save that stores its hash.
        changed_password = getattr(self, "_password", None) is not None and not self._state.adding
        was_active = getattr(self, "_loaded_active", None)
        super().save(*args, **kwargs)
        if changed_password:
            password_changed.send(sender=type(self), user=self)
        if was_active and not self.is_active:
            deactivated.send(sender=type(self), user=self)
        self._loaded_active = self.is_active


class SignupAttempt(models.Model):
    """One sign-up form sent from an address: more than DOBON_SIGNUP_LIMIT of them
    within DOBON_SIGNUP_WINDOW are refused (accounts/throttle.py). Deleting an
    address's rows in the admin lifts its block."""

    ip_address = models.GenericIPAddressField(_("address"), db_index=True)
    username = models.CharField(_("username tried"), max_length=150, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("sign-up attempt")
        verbose_name_plural = _("sign-up attempts")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.ip_address} {self.username} {self.created_at:%Y-%m-%d %H:%M}"


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
