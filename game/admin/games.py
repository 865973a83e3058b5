"""The admin: find rooms, seats and games, and repair what live play cannot."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from game.admin.history import (
    HistoryEventAdminMixin,
    HistoryGameAdminMixin,
    NoSecretLookupsMixin,
)
from game.models import Game, GameEvent, GamePlayer, Membership, Room
from game.services import rooms


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ["seat_index", "user", "cpu_level", "points", "joined_at"]
    readonly_fields = ["joined_at"]
    autocomplete_fields = ["user"]


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "owner",
        "game_kind",
        "trump_preset",
        "is_public",
        "seats_taken",
        "seat_count",
        "timeout_seconds",
        "deck_out_streak",
        "updated_at",
    ]
    list_filter = ["game_kind", "trump_preset", "is_public", "seat_count", "created_at"]
    search_fields = ["name", "owner__username", "invite_code"]
    # The trump match record (§T17) is the game's: a settings change ends it (§T1.1).
    readonly_fields = ["invite_code", "trump_match", "created_at", "updated_at"]
    autocomplete_fields = ["owner"]
    inlines = [MembershipInline]
    actions = ["reset_deck_out_counter"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Room]:
        qs = super().get_queryset(request).select_related("owner")
        return qs.annotate(_seats_taken=Count("memberships"))

    @admin.display(description=_("seats taken"), ordering="_seats_taken")
    def seats_taken(self, room: Room) -> int:
        return int(room._seats_taken)  # type: ignore[attr-defined]

    # Only for staff who may change rooms (issue 20: it ran for view-only staff).
    @admin.action(description=_("Reset the deck-out counter (next game at ×1)"),
                  permissions=["change"])
    def reset_deck_out_counter(self, request: HttpRequest, queryset: QuerySet[Room]) -> None:
        for room in queryset:
            rooms.reset_deck_out_streak(room)
        count = len(queryset)
        self.message_user(
            request,
            ngettext(
                "Reset the deck-out counter of %(count)d room.",
                "Reset the deck-out counters of %(count)d rooms.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["__str__", "user", "cpu_level", "room", "seat_index", "points", "joined_at"]
    list_filter = ["room__is_public", "cpu_level"]
    search_fields = ["user__username", "room__name"]
    autocomplete_fields = ["user", "room"]
    list_select_related = ["user", "room"]
    readonly_fields = ["joined_at"]


class GamePlayerInline(admin.TabularInline):
    model = GamePlayer
    extra = 0
    fields = ["seat", "room_seat_index", "user", "username", "cpu_level", "delta"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(HistoryGameAdminMixin, admin.ModelAdmin):
    list_display = [
        "__str__",
        "room",
        "number",
        "game_kind",
        "preset",
        "status",
        "rate",
        "public_version",
        "version",
        "started_at",
        "finished_at",
    ]
    list_filter = ["game_kind", "preset", "status", "started_at"]
    search_fields = ["room__name", "players__username"]
    list_select_related = ["room"]
    # The state belongs to the engine: edited by hand it would no longer be a game.
    # Repairs go through the actions, which use the same services as live play.
    readonly_fields = [
        "room",
        "number",
        "game_kind",
        "preset",
        "status",
        "rate",
        "public_version",
        "version",
        "next_deadline",
        "cpu_due",
        "started_by",
        "started_at",
        "finished_at",
        "result",
        "state",
    ]
    inlines = [GamePlayerInline]
    actions = ["abort_running_games"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    # Only for staff who may change games (issue 20: it ran for view-only staff).
    @admin.action(description=_("Abort the running game"), permissions=["change"])
    def abort_running_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        # Imported here: live play owns this function and its module loads the engine.
        from game.services.play import abort_game

        running = list(queryset.filter(status=Game.Status.RUNNING))
        for game in running:
            abort_game(game, by=request.user)
        skipped = queryset.count() - len(running)
        self.message_user(
            request,
            ngettext("Aborted %(count)d game.", "Aborted %(count)d games.", len(running))
            % {"count": len(running)},
            messages.SUCCESS,
        )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(count)d game was not running and is unchanged.",
                    "%(count)d games were not running and are unchanged.",
                    skipped,
                )
                % {"count": skipped},
                messages.WARNING,
            )


@admin.register(GamePlayer)
class GamePlayerAdmin(NoSecretLookupsMixin, admin.ModelAdmin):
    list_display = ["username", "game", "seat", "room_seat_index", "cpu_level", "delta"]
    list_filter = ["cpu_level"]
    search_fields = ["username", "game__room__name"]
    list_select_related = ["game", "game__room"]
    readonly_fields = [
        "game", "seat", "room_seat_index", "user", "username", "cpu_level", "delta"
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(GameEvent)
class GameEventAdmin(HistoryEventAdminMixin, admin.ModelAdmin):
    """The event log is history: readable, never edited."""

    list_display = ["game", "seq", "version", "kind", "to_seat", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["game__room__name", "=game__id"]
    list_select_related = ["game", "game__room"]

    @admin.display(description=_("type"))
    def kind(self, event: GameEvent) -> str:
        return str(event.data.get("type", "")) if isinstance(event.data, dict) else ""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: GameEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: GameEvent | None = None) -> bool:
        return False
