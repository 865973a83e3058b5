"""The admin's view of match history: a readable settlement and timeline on a game's
page with a link to its replay, the aggregates' lists, and the rule that the raw engine
state (hands, deck order, generator state) is for superusers only; staff who may merely
view games see public information."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from game.history import present
from game.models import Game, GameEvent
from game.models.history import DobonTally, PlayerStats, RoomStanding

# Fields that hold hidden cards or the generator: shown to superusers only.
SECRET_GAME_FIELDS = ("state", "initial_state")
# Fields no lookup of anyone but a superuser may touch: the hidden state, and the event
# log's inputs and payloads, where a running auction's bids (`step`: `{"action": {"type":
# "bid", "amount": 777}}`), drawn cards and private answers lie (issue #31).
# The game's own count of changes and its clocks count private answers too (a declined
# chance is a change; an open one a deadline): staff who are not superusers see the
# public version only (docs/protocol.md, "Versions and private answers").
INTERNAL_GAME_FIELDS = ("version", "next_deadline", "cpu_due", "private_steps",
                        "claim_version", "claimed_until")
SECRET_LOOKUP_FIELDS = (*SECRET_GAME_FIELDS, *INTERNAL_GAME_FIELDS, "step", "data")
HIDDEN_GAME_FIELDS = (*SECRET_GAME_FIELDS, *INTERNAL_GAME_FIELDS)
TIMELINE_LIMIT = 400


def is_trusted(request: HttpRequest) -> bool:
    return bool(getattr(request.user, "is_superuser", False))


class NoSecretLookupsMixin:
    """Changelist filters (`?state__hands__0__contains=...`) and searches never touch the
    hidden fields for anyone but a superuser: answered yes or no a card at a time, they
    read hidden hands and the deck's next cards (issue 20, 48 requests). Django allows
    any lookup on a model's own fields; this refuses those (the "?e=1" page)."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None
                       ) -> bool:
        if request is None or not is_trusted(request):
            if any(part in SECRET_LOOKUP_FIELDS for part in lookup.split("__")):
                return False
        return bool(super().lookup_allowed(lookup, value, request))  # type: ignore[misc]


class HistoryGameAdminMixin(NoSecretLookupsMixin):
    """Mixed into GameAdmin (game/admin/games.py)."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        fields += ["replay_link", "settlement_summary", "timeline_summary"]
        if not is_trusted(request):
            fields = [f for f in fields if f not in HIDDEN_GAME_FIELDS]
        return fields

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_fields(request, obj))  # type: ignore[misc]
        if not is_trusted(request):
            fields = [f for f in fields if f not in HIDDEN_GAME_FIELDS]
        return fields

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        exclude = list(super().get_exclude(request, obj) or [])  # type: ignore[misc]
        return exclude if is_trusted(request) else [*exclude, *HIDDEN_GAME_FIELDS]

    def get_list_display(self, request: HttpRequest) -> Any:
        columns = list(super().get_list_display(request))  # type: ignore[misc]
        return columns if is_trusted(request) else [
            c for c in columns if c not in HIDDEN_GAME_FIELDS]

    @admin.display(description=_("replay"))
    def replay_link(self, game: Game) -> SafeString | str:
        if game.is_running:
            return str(_("shown once the game is over"))
        return format_html('<a href="{}">{}</a>', game.get_absolute_url(),
                           _("Open the game page and its replay"))

    @admin.display(description=_("settlement"))
    def settlement_summary(self, game: Game) -> SafeString | str:
        if game.is_running:
            return "—"
        players = list(game.players.order_by("seat"))
        events = [e.data for e in game.events.filter(data__type__in=["dobon", "finished"])]
        settlement = present.settlement_of(game, players, events)
        if settlement is None:
            return present.result_label(game)
        seats = format_html_join(
            "", "<li>{}: {} ({} {})</li>",
            ((s.name, _signed(s.delta), s.hand_points, _("hand points")) for s in settlement.seats),
        )
        sums = format_html_join("", "<li>{}</li>", ((line,) for line in settlement.sums))
        return format_html("<p>{} ×{}</p><ul>{}</ul><ul>{}</ul>", settlement.label,
                           settlement.rate, seats, sums)

    @admin.display(description=_("timeline"))
    def timeline_summary(self, game: Game) -> SafeString | str:
        players = list(game.players.order_by("seat"))
        names = present.names_of(players)
        events = game.events.order_by("seq")
        if game.is_running:
            # Public events only while the game runs (no drawn cards, no chances).
            events = events.filter(to_seat__isnull=True)
        rows = []
        for event in events[:TIMELINE_LIMIT]:
            line = present.describe(event.data, names, None)
            if line is not None:
                rows.append((event.created_at.strftime("%H:%M:%S"), line.text,
                             " ".join(line.cards)))
        return format_html("<ol>{}</ol>", format_html_join("", "<li>{} {} {}</li>", rows))


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


class HistoryEventAdminMixin(NoSecretLookupsMixin):
    """Mixed into GameEventAdmin: a running game's log is for superusers only. Its
    private events hold drawn cards and chances, the inputs (`step`) of its public ones
    sealed bids, and the rows' numbers would show where private events lie (issue #31);
    the game's page has its public timeline. Once the game is over its log is history,
    as on the game's page and in `/games/<id>.json`."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[GameEvent]:
        qs: QuerySet[GameEvent] = super().get_queryset(request)  # type: ignore[misc]
        if is_trusted(request):
            return qs
        return qs.exclude(game__status=Game.Status.RUNNING)


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Aggregates are counted by the finishing transaction, never edited by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RoomStanding)
class RoomStandingAdmin(ReadOnlyAdmin):
    list_display = ["name", "room", "game_kind", "is_cpu", "points", "games", "wins_agari",
                    "wins_dobon", "wins_return", "dobonned", "deck_outs"]
    list_filter = ["game_kind", "is_cpu"]
    search_fields = ["name", "room__name"]
    list_select_related = ["room"]


@admin.register(PlayerStats)
class PlayerStatsAdmin(ReadOnlyAdmin):
    list_display = ["user", "games", "points", "points_per_game", "wins_agari", "wins_dobon",
                    "wins_return", "dobonned", "deck_outs", "best_delta"]
    search_fields = ["user__username"]
    list_select_related = ["user"]


@admin.register(DobonTally)
class DobonTallyAdmin(ReadOnlyAdmin):
    list_display = ["room", "declarer", "target", "count", "returned", "points"]
    search_fields = ["room__name", "declarer__name", "target__name"]
    list_select_related = ["room", "declarer", "target"]
