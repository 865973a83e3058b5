"""Template filters naming a rule set (HOUSE-RULES.md §G10): `{{ room|house_rules }}` for
a room, `{{ rules|house_summary }}` for a game's stored rules."""

from __future__ import annotations

from typing import Any

from django import template

from game import house_text

register = template.Library()


@register.filter
def house_rules(room: Any) -> dict[str, Any]:
    return house_text.summarize(getattr(room, "house_rules", None), getattr(room, "house_base", ""))


@register.filter
def house_summary(rules: Any) -> dict[str, Any]:
    return house_text.summarize(rules or None)
