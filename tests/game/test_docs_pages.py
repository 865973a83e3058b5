"""The program authors' documents as pages (game/docs_markdown.py, game/views/docs.py):
markdown-it-py with raw HTML off, the site's titles, anchors, tables and links."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from game.docs_markdown import is_safe_url, render

LINKS = {"protocol.md": "/docs/protocol/", "../../shared/RULES.md": "/how-to-play/"}


def test_the_first_h1_is_the_title_and_not_in_the_body() -> None:
    doc = render("# Bot API\n\nHello.\n\n# Not the title\n")
    assert doc.title == "Bot API"
    assert "Bot API" not in doc.html
    assert '<h1 id="not-the-title">Not the title</h1>' in doc.html


def test_headings_get_ids_and_level_two_a_table_of_contents() -> None:
    doc = render("# T\n\n## The `start` event\n\n### Seats\n\n## Errors!\n")
    assert '<h2 id="the-start-event">The <code>start</code> event</h2>' in doc.html
    assert '<h3 id="seats">Seats</h3>' in doc.html
    assert doc.toc == [("the-start-event", "The `start` event"), ("errors", "Errors!")]


def test_raw_html_is_text() -> None:
    doc = render('<script>alert(1)</script>\n\nA <b onclick="x()">bold</b> `<i>` word.\n')
    assert "<script>" not in doc.html and "<b " not in doc.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in doc.html
    assert "<code>&lt;i&gt;</code>" in doc.html


def test_fenced_code_is_escaped_verbatim() -> None:
    doc = render('```json\n{"a": "<b>", "b": [1, 2]}\n```\n')
    assert re.search(r'<pre><code[^>]*>\{&quot;a&quot;: &quot;&lt;b&gt;&quot;, '
                     r'&quot;b&quot;: \[1, 2\]\}\n</code></pre>', doc.html)


def test_tables_scroll_and_have_column_headers_without_inline_styles() -> None:
    doc = render("| key | type |\n| :-- | --: |\n| `seat` | **int** |\n")
    assert doc.html.startswith('<div class="table-scroll"><table class="doc-table">')
    assert '<th scope="col">key</th>' in doc.html
    assert "<td><code>seat</code></td>\n<td><strong>int</strong></td>" in doc.html
    assert "style=" not in doc.html  # the CSP allows no inline style


def test_lists_nest_and_inline_marks_render() -> None:
    doc = render("- one *it*\n  continued\n  - inner\n- two\n\n1. first\n")
    assert "<ul>" in doc.html and "<ol>" in doc.html
    assert "<em>it</em>" in doc.html
    assert re.search(r"<li>one <em>it</em>\s+continued\s*<ul>\s*<li>inner</li>", doc.html)


def test_relative_links_become_pages_of_the_site() -> None:
    doc = render("See [the protocol](protocol.md) and [the rules](../../shared/RULES.md).",
                 LINKS)
    assert '<a href="/docs/protocol/">the protocol</a>' in doc.html
    assert '<a href="/how-to-play/">the rules</a>' in doc.html


def test_site_paths_anchors_and_https_stay_links() -> None:
    doc = render("[a](/rooms/) [b](#errors) [c](https://example.org/x)")
    assert '<a href="/rooms/">a</a>' in doc.html
    assert '<a href="#errors">b</a>' in doc.html
    assert '<a href="https://example.org/x">c</a>' in doc.html


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<b>x</b>", "vbscript:x",
    "ftp://example.org/", "mailto:x@example.org",
    "//evil.example/phish", "///evil.example/", "\\\\evil.example",
    "game/rules/engine.py", "../game/rules/engine.py",
])
def test_off_site_schemes_protocol_relative_and_file_links_are_text_alone(url: str) -> None:
    doc = render(f"Before [the label]({url}) after.")
    assert "<a" not in doc.html
    assert "Before the label after." in doc.html
    assert not is_safe_url(url)


def test_a_backslash_after_the_slash_is_another_host_too() -> None:
    # Browsers read "/\\host" as "//host"; markdown-it percent-encodes a written one
    # (/%5Chost/, a path of this site), and a rewritten target is checked as it is.
    assert not is_safe_url("/\\evil.example/")
    assert "<a" not in render("[x](a.md)", {"a.md": "/\\evil.example/"}).html
    assert '<a href="/%5Cevil.example/">x</a>' in render("[x](/\\evil.example/)").html


def test_a_protocol_relative_target_from_the_links_table_is_refused_too() -> None:
    doc = render("[x](a.md) and [y](protocol.md)",
                 {"a.md": "//evil.example/", "protocol.md": "/docs/protocol/"})
    assert doc.html.count("<a") == 1
    assert '<a href="/docs/protocol/">y</a>' in doc.html and "x and" in doc.html


def test_an_autolink_follows_the_same_rule() -> None:
    assert '<a href="https://example.org">' in render("<https://example.org>").html
    assert "<a" not in render("<ftp://example.org>").html


def test_images_are_not_fetched() -> None:
    doc = render("![tracker](https://evil.example/pixel.png)")
    assert "<img" not in doc.html


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "title"), [("bots", "bot API"), ("protocol", "protocol")])
def test_the_real_documents_render_as_pages(client, name: str, title: str) -> None:
    page = client.get(reverse("game:doc", args=[name])).content.decode()
    assert 'data-testid="doc-page"' in page
    assert re.search(rf"<h1>[^<]*{title}", page, re.IGNORECASE)
    assert '<table class="doc-table">' in page and "<pre><code" in page
    assert 'class="doc-toc"' in page
    other = "protocol" if name == "bots" else "bots"
    assert f'href="{reverse("game:doc", args=[other])}"' in page


@pytest.mark.django_db
def test_bots_page_links_to_the_protocol_page_the_client_and_the_rules(client) -> None:
    page = client.get(reverse("game:doc", args=["bots"])).content.decode()
    body = page.split('data-testid="doc-page"', 1)[1]
    hrefs = set(re.findall(r'href="([^"]+)"', body))
    assert reverse("game:doc", args=["protocol"]) in hrefs
    assert not any(h.endswith(".md") for h in hrefs)  # no link to a repository file
