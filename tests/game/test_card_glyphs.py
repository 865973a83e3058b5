"""One card drawing for the table, the replay and the history pages: the history template
tag renders the chip that static/js/cards.js draws in the browser, from the same glyphs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from game.templatetags.history import GLYPHS, card, cards

ROOT = Path(__file__).resolve().parents[2]
CARDS_JS = ROOT / "static" / "js" / "cards.js"


def js_glyphs() -> dict[str, str]:
    """GLYPH as written in static/js/cards.js (an object literal of strings)."""
    literal = re.search(r"export const GLYPH = (\{.*?\});", CARDS_JS.read_text()).group(1)
    return json.loads(re.sub(r"([{,]\s*)([A-Za-z]\w*)\s*:", r'\1"\2":', literal))


def test_the_history_tag_draws_the_glyphs_of_the_browsers_card_module():
    assert GLYPHS == js_glyphs()


def test_the_history_tag_renders_the_chip_markup_of_the_browser():
    assert card("BS") == '<span class="card-chip card-chip--B" title="BS" data-card="BS">⊘</span>'
    assert card("W+4") == (
        '<span class="card-chip card-chip--W" title="W+4" data-card="W+4">+4</span>'
    )
    assert cards(["R5", "W"]).startswith('<span class="card-chips"><span class="card-chip ')


CHIPS_UNDER_NODE = """
import { cardChip } from "./static/js/cards.js";
globalThis.document = {
  createElement: (tag) => ({ tag, className: "", textContent: "", title: "", dataset: {} }),
};
const codes = JSON.parse(process.argv[1]);
console.log(JSON.stringify(codes.map((c) => { const n = cardChip(c);
  return [n.className, n.title, n.dataset.card, n.textContent]; })));
"""

CODES = ["R0", "B9", "GS", "YR", "R+2", "BF", "W", "W+4"]


def test_the_browser_draws_every_chip_as_the_tag_renders_it():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    result = subprocess.run(
        [node, "--input-type=module", "-e", CHIPS_UNDER_NODE, json.dumps(CODES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    for code, (class_name, title, data, text) in zip(CODES, json.loads(result.stdout), strict=True):
        assert card(code) == (
            f'<span class="{class_name}" title="{title}" data-card="{data}">{text}</span>'
        )
