"""A points-over-time line chart drawn as inline SVG by the server (no chart library).

No Django here: numbers in, SVG text out. Every value written into the SVG is a number
formatted by this module, so the markup needs no escaping.

>>> svg = line_chart([(1, 10), (2, -5), (3, 20)])
>>> svg.startswith("<svg") and "<polyline" in svg
True
"""

from __future__ import annotations

WIDTH, HEIGHT, PAD = 600, 200, 28


def _scale(value: float, low: float, high: float, size: float) -> float:
    return 0.0 if high == low else (value - low) / (high - low) * size


def line_chart(points: list[tuple[int, int]], label: str = "") -> str:
    """Net points (y) after each game number (x); a dashed zero line; min/max marked."""
    if not points:
        return ""
    xs = [x for x, _ in points]
    ys = [y for _, y in points] + [0]
    x_low, x_high, y_low, y_high = min(xs), max(xs), min(ys), max(ys)
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def at(x: float, y: float) -> str:
        px = PAD + _scale(x, x_low, x_high, inner_w)
        py = HEIGHT - PAD - _scale(y, y_low, y_high, inner_h)
        return f"{px:.1f},{py:.1f}"

    line = " ".join(at(x, y) for x, y in points)
    zero_y = at(x_low, 0).split(",")[1]
    last_x, last_y = points[-1]
    return (
        f'<svg class="points-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'preserveAspectRatio="none" aria-label="{_attr(label)}">'
        f'<line class="zero" x1="{PAD}" x2="{WIDTH - PAD}" y1="{zero_y}" y2="{zero_y}"/>'
        f'<polyline class="line" fill="none" points="{line}"/>'
        f'<text class="axis" x="{PAD}" y="{PAD - 10}">{y_high:+d}</text>'
        f'<text class="axis" x="{PAD}" y="{HEIGHT - 8}">{y_low:+d}</text>'
        f'<text class="axis end" x="{WIDTH - PAD}" y="{HEIGHT - 8}" text-anchor="end">'
        f"#{x_high}</text>"
        f'<circle class="last" r="4" cx="{at(last_x, last_y).split(",")[0]}" '
        f'cy="{at(last_x, last_y).split(",")[1]}"/>'
        "</svg>"
    )


def _attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )
