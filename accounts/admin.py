from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.forms import AdminUserChangeForm, AdminUserCreationForm
from accounts.models import ApiToken, SignupAttempt, User
from game.models import Membership


class SeatInline(admin.TabularInline):
    model = Membership
    fk_name = "user"
    extra = 0
    fields = ["room", "seat_index", "points", "joined_at"]
    readonly_fields = ["joined_at"]
    autocomplete_fields = ["room"]
    verbose_name_plural = _("seat memberships")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = AdminUserChangeForm
    add_form = AdminUserCreationForm
    list_display = ["username", "email", "is_active", "is_staff", "date_joined", "last_login"]
    list_filter = ["is_active", "is_staff", "is_superuser", "date_joined"]
    search_fields = ["username", "email", "first_name", "last_name"]
    ordering = ["-date_joined"]
    inlines = [SeatInline]


@admin.register(SignupAttempt)
class SignupAttemptAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Sign-up attempts per address (accounts/throttle.py). Deleting an address's
    attempts lifts its sign-up block at once; the login lockouts are under "Axes"."""

    list_display = ["ip_address", "username", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["ip_address", "username"]
    readonly_fields = ["ip_address", "username", "created_at"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens by owner; the key is never stored, so it cannot be shown here either."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["key_hash", "prefix", "created_at", "last_used_at"]
    autocomplete_fields = ["user"]
