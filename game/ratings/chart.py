"""A rating-over-games line chart as inline SVG, drawn by the server (no chart library).

Numbers in, SVG text out; every value written into the SVG is a number formatted here
and the label is escaped, so the markup is safe to include as it is.

>>> svg = rating_chart([(1, 1000), (2, 1100), (3, 1050)], "dobon_uno")
>>> svg.startswith("<svg") and svg.count("<polyline") == 1 and "1100" in svg
True
>>> hidden = rating_chart([(1, 1000), (2, 1100), (3, 1050)], "x", values=False)
>>> "1100" in hidden or "1000" in hidden
False
>>> rating_chart([], "x")
''

The viewBox keeps its aspect (the SVG's height follows its width, static/css/history.css):
under preserveAspectRatio="none" a wide screen stretched the axis text sideways.
"""

from __future__ import annotations

WIDTH, HEIGHT, PAD = 600, 160, 30


def rating_chart(points: list[tuple[int, int]], label: str, *, values: bool = True) -> str:
    """Displayed rating (y) after each rated game number (x), lowest and highest marked.
    `values=False` (a provisional player, whose page shows "?") leaves the y-axis
    numbers out: the page must not show the rating it hides (docs/ratings.md)."""
    if not points:
        return ""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x_low, x_high, y_low, y_high = min(xs), max(xs), min(ys), max(ys)
    if y_high - y_low < 100:  # a flat career still reads as a line, not a zigzag
        y_low, y_high = y_low - 50, y_high + 50

    def at(x: int, y: int) -> tuple[float, float]:
        px = PAD + (0.0 if x_high == x_low else (x - x_low) / (x_high - x_low)) * (WIDTH - 2 * PAD)
        py = HEIGHT - PAD - (y - y_low) / (y_high - y_low) * (HEIGHT - 2 * PAD)
        return px, py

    line = " ".join(f"{px:.1f},{py:.1f}" for px, py in (at(x, y) for x, y in points))
    last_x, last_y = at(*points[-1])
    y_axis = (
        f'<text class="axis" x="2" y="{PAD - 8}">{max(ys):d}</text>'
        f'<text class="axis" x="2" y="{HEIGHT - 8}">{min(ys):d}</text>'
    ) if values else ""
    return (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{_attr(label)}">'
        f'<polyline class="line" fill="none" points="{line}"/>'
        f"{y_axis}"
        f'<text class="axis end" x="{WIDTH - PAD}" y="{HEIGHT - 8}" text-anchor="end">'
        f"#{x_high:d}</text>"
        f'<circle class="last" r="4" cx="{last_x:.1f}" cy="{last_y:.1f}"/>'
        "</svg>"
    )


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))
