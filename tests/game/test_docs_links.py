"""The docs renderer (game/docs_markdown.py) links only within the site or to http(s)
pages: a link that would leave the site by another way is shown as its text alone."""

from __future__ import annotations

import pytest

from game.docs_markdown import render


def link_of(url: str) -> str:
    return str(render(f"See [the page]({url}).").html)


@pytest.mark.parametrize("url", ["/docs/protocol/", "#connecting", "https://example.org/x",
                                 "http://example.org/"])
def test_site_paths_anchors_and_web_pages_are_links(url):
    assert f'<a href="{url}">the page</a>' in link_of(url)


@pytest.mark.parametrize("url", [
    "//evil.example/phish",  # protocol-relative: another host, whatever the scheme (#31)
    "javascript:alert(1)", "data:text/html,x", "vbscript:x", "bots-api.md",
])
def test_links_that_leave_the_site_another_way_are_text_alone(url):
    html = link_of(url)
    assert "<a " not in html and "the page" in html


def test_a_written_slash_backslash_stays_on_the_site():
    """Browsers read "/\\host" as "//host"; markdown-it hands a written one over
    percent-encoded, "/%5Chost", which a browser reads as a path of this site."""
    html = link_of("/\\evil.example/phish")
    assert 'href="/%5Cevil.example/phish"' in html
    assert 'href="//' not in html and 'href="/\\' not in html


def test_a_rewritten_link_is_judged_after_rewriting():
    html = str(render("[p](protocol.md)", {"protocol.md": "//evil.example/"}).html)
    assert "<a " not in html
