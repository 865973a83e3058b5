"""Template helpers of the match-history pages: cards drawn as small CSS cards, signed
points, and the room page's standings panel."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from game.models import Room
from game.services.history import is_cpu_seat, reads_whole_room, room_standings

register = template.Library()

SYMBOLS = {"S": "⊘", "R": "⇄", "+2": "+2", "F": "F"}


def card_parts(code: str) -> tuple[str, str]:
    """(colour class, face) of a card code (RULES.md R2): "R5" → ("R", "5")."""
    if code.startswith("W"):
        return "W", "+4" if code == "W+4" else "W"
    colour, rest = code[:1], code[1:]
    return colour, SYMBOLS.get(rest, rest)


@register.filter
def card(code: str) -> SafeString:
    colour, face = card_parts(code)
    return format_html(
        '<span class="card card--{}" title="{}" data-card="{}">{}</span>', colour, code, code, face
    )


@register.filter
def cards(codes: list[str] | None) -> SafeString:
    if not codes:
        return SafeString("")
    return format_html(
        '<span class="cards">{}</span>', format_html_join("", "{}", ((card(c),) for c in codes))
    )


@register.filter
def is_cpu(seat: object) -> bool:
    return is_cpu_seat(seat)


@register.filter
def signed(value: int | None) -> str:
    if value is None:
        return "—"
    return f"+{value}" if value > 0 else ("±0" if value == 0 else f"−{-value}")


@register.inclusion_tag("game/history/_standings_panel.html", takes_context=True)
def standings_panel(context: dict[str, Any], room: Room) -> dict[str, Any]:
    """The room page's standings: the same rule as the history page for who may read."""
    user = context.get("user")
    readable = user is not None and reads_whole_room(room, user)
    return {
        "room": room,
        "readable": readable,
        "standings": room_standings(room) if readable else [],
    }
