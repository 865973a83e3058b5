"""Template helpers of the match-history pages: cards drawn as small chips (the markup of
`cardChip` in static/js/cards.js, styled by static/css/cards.css), signed points, and the
room page's standings panel."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from game.models import Room
from game.services.history import is_cpu_seat, reads_whole_room, room_standings_by_kind

register = template.Library()

# The glyph of every face that is not a digit; a wild's face is its whole code. The same
# map as GLYPH in static/js/cards.js (tests/game/test_card_glyphs.py keeps them equal).
GLYPHS = {"S": "⊘", "R": "⇄", "+2": "+2", "F": "F", "W": "W", "W+4": "+4"}


def card_parts(code: str) -> tuple[str, str]:
    """(colour, glyph) of a card code (RULES.md §R2): "R5" → ("R", "5"), "W+4" → ("W", "+4")."""
    colour, face = ("W", code) if code.startswith("W") else (code[:1], code[1:])
    return colour, GLYPHS.get(face, face)


# Trump Dobon's playing cards (S1 … C13, JK) never share a first letter with a Dobon UNO
# code (R B G Y W): the chip is told apart by its code, as static/js/cards.js does.
SUIT_GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANKS = {"1": "A", "11": "J", "12": "Q", "13": "K"}


def is_trump_card(code: str) -> bool:
    return code == "JK" or (code[:1] in SUIT_GLYPHS and code[1:].isdigit())


def trump_short(code: str) -> str:
    """"D12" → "♦Q", "JK" → "JK": trumpShort of static/js/trumpcards.js."""
    return "JK" if code == "JK" else SUIT_GLYPHS[code[0]] + RANKS.get(code[1:], code[1:])


def trump_chip(code: str) -> SafeString:
    suit = "JK" if code == "JK" else code[0]
    text = trump_short(code)
    return format_html(
        '<span class="card-chip tchip s-{}" title="{}" data-card="{}">{}</span>',
        suit, code, code, text,
    )


@register.filter
def card(code: str) -> SafeString:
    """The chip `cardChip` draws in the browser, rendered on the server."""
    if is_trump_card(code):
        return trump_chip(code)
    colour, glyph = card_parts(code)
    return format_html(
        '<span class="card-chip card-chip--{}" title="{}" data-card="{}">{}</span>',
        colour,
        code,
        code,
        glyph,
    )


@register.filter
def cards(codes: list[str] | None) -> SafeString:
    if not codes:
        return SafeString("")
    return format_html(
        '<span class="card-chips">{}</span>',
        format_html_join("", "{}", ((card(c),) for c in codes)),
    )


@register.filter
def is_cpu(seat: object) -> bool:
    return is_cpu_seat(seat)


@register.filter
def signed(value: int | None) -> str:
    if value is None:
        return "—"
    return f"+{value}" if value > 0 else ("±0" if value == 0 else f"−{-value}")


@register.filter
def signed_average(value: float | None) -> str:
    """An average with one decimal, signed as `signed` writes whole numbers (−3.5)."""
    if value is None:
        return "—"
    text = f"{abs(float(value)):.1f}"
    if text == "0.0":
        return "±0.0"
    return f"+{text}" if value > 0 else f"−{text}"


@register.inclusion_tag("game/history/_standings_panel.html", takes_context=True)
def standings_panel(context: dict[str, Any], room: Room) -> dict[str, Any]:
    """The room page's standings: the same rule as the history page for who may read."""
    user = context.get("user")
    readable = user is not None and reads_whole_room(room, user)
    return {
        "room": room,
        "readable": readable,
        "standings": room_standings_by_kind(room) if readable else [],
    }
