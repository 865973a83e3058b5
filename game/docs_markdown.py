"""The site's own documents (docs/bots-api.md and the protocol it links to) as HTML, so
that they are pages of the site with one source: CommonMark and pipe tables by
markdown-it-py, raw HTML off (a `<tag>` in a document is text).

What the site adds to the library: the first `# heading` is the page's title (the page
writes its own <h1>), headings get ids and the `##` ones a table of contents, tables are
wrapped to scroll sideways on a phone, and links are rewritten (`links`) so that a
document's relative links lead to pages of the site. A link that stays off-site in
another scheme, protocol-relative (`//host/…`, `/\\host/…`) or to a file of the
repository is written as its text alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from markdown_it import MarkdownIt
from markdown_it.token import Token

# http(s), a path of this site, or an anchor; "//" and "/\" are another host to a browser.
_SAFE_URL = re.compile(r"^(https?://|/(?![/\\])|#)", re.IGNORECASE)


@dataclass
class Document:
    title: str
    html: SafeString
    toc: list[tuple[str, str]] = field(default_factory=list)  # (anchor, text) of ## headings


def render(text: str, links: Mapping[str, str] | None = None) -> Document:
    tokens = _PARSER.parse(text)
    title = _take_title(tokens)
    toc = _name_headings(tokens)
    _rewrite_links(tokens, links or {})
    html = _PARSER.renderer.render(tokens, _PARSER.options, {})
    return Document(title, mark_safe(html), toc)  # noqa: S308 (escaped by markdown-it)


def is_safe_url(url: str) -> bool:
    return bool(_SAFE_URL.match(url.strip()))


# -- what the site does to the library's tokens -------------------------------------------


def _take_title(tokens: list[Token]) -> str:
    """The first h1's text, removed from the body (the page's own <h1> shows it)."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            title = tokens[i + 1].content
            del tokens[i:i + 3]  # heading_open, inline, heading_close
            return title
    return ""


def _name_headings(tokens: list[Token]) -> list[tuple[str, str]]:
    toc: list[tuple[str, str]] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = tokens[i + 1].content
        anchor = slugify(text) or f"s{len(toc)}"
        token.attrSet("id", anchor)
        if token.tag == "h2":
            toc.append((anchor, text))
    return toc


def _rewrite_links(tokens: list[Token], links: Mapping[str, str]) -> None:
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _inline_links(token.children, links)


def _inline_links(children: list[Token], links: Mapping[str, str]) -> list[Token]:
    """Links rewritten through `links`; an unsafe one loses its <a> and keeps its text."""
    kept: list[Token] = []
    dropped_depths: list[int] = []  # nesting levels of link_opens that were dropped
    for token in children:
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            href = links.get(href, href)
            if not is_safe_url(href):
                dropped_depths.append(token.level)
                continue
            token.attrSet("href", href)
        elif token.type == "link_close" and dropped_depths and dropped_depths[-1] == token.level:
            dropped_depths.pop()
            continue
        kept.append(token)
    return kept


# -- the parser and the few rules it renders differently ------------------------------------


def _table_open(renderer: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return '<div class="table-scroll"><table class="doc-table">\n'


def _table_close(renderer: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return "</table></div>\n"


def _cell_open(renderer: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    # No style="text-align…" (the CSP forbids inline styles); headers are column headers.
    token = tokens[idx]
    return '<th scope="col">' if token.tag == "th" else "<td>"


def _make_parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    # Every link reaches _inline_links, which keeps the safe ones and writes the others as
    # their text (the library's own check would leave "[label](javascript:…)" as it stands).
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    parser.add_render_rule("table_open", _table_open)
    parser.add_render_rule("table_close", _table_close)
    parser.add_render_rule("th_open", _cell_open)
    parser.add_render_rule("td_open", _cell_open)
    return parser


_PARSER = _make_parser()
