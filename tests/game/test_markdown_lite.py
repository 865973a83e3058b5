"""The docs renderer (game/markdown_lite.py) links only within the site or to http(s)
pages: a link that would leave the site by another way is shown as its text alone."""

from __future__ import annotations

import pytest

from game.markdown_lite import render


def link_of(url: str) -> str:
    return str(render(f"See [the page]({url}).").html)


@pytest.mark.parametrize("url", ["/docs/protocol/", "#connecting", "https://example.org/x",
                                 "http://example.org/"])
def test_site_paths_anchors_and_web_pages_are_links(url):
    assert f'<a href="{url}">the page</a>' in link_of(url)


@pytest.mark.parametrize("url", [
    "//evil.example/phish",  # protocol-relative: another host, whatever the scheme (#31)
    "/\\evil.example/phish",  # browsers read "/\" as "//" too
    "javascript:alert(1)", "data:text/html,x", "vbscript:x", "bots-api.md",
])
def test_links_that_leave_the_site_another_way_are_text_alone(url):
    html = link_of(url)
    assert "<a " not in html and "the page" in html


def test_a_rewritten_link_is_judged_after_rewriting():
    html = str(render("[p](protocol.md)", {"protocol.md": "//evil.example/"}).html)
    assert "<a " not in html
