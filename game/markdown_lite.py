"""A small Markdown renderer for the site's own documents (docs/bots-api.md and the
protocol it links to), so that they are pages of the site with one source.

It covers what those files use and nothing else: ATX headings, paragraphs, fenced code,
`-`/`1.` lists with continuation lines and one level of nesting, pipe tables, inline
code, **bold**, *italic* and [links](url). Everything is HTML-escaped first; links may be
rewritten (`links`), so a document's relative links lead to pages of the site.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_HEADING = re.compile(r"^(#{1,4})\s+(.*)$")
_ITEM = re.compile(r"^(\s*)(?:[-*]|(\d+)\.)\s+(.*)$")
# Within the site (a path, an anchor) or a web page. Not "//host" (protocol-relative:
# another host) nor "/\host", which browsers read the same way.
_SAFE_URL = re.compile(r"^(https?://|/(?![/\\])|#)")


@dataclass
class Document:
    title: str
    html: SafeString
    toc: list[tuple[str, str]] = field(default_factory=list)  # (anchor, text) of ## headings


def render(text: str, links: Mapping[str, str] | None = None) -> Document:
    return _Renderer(links or {}).run(text)


class _Renderer:
    def __init__(self, links: Mapping[str, str]) -> None:
        self.links = links
        self.out: list[str] = []
        self.title = ""
        self.toc: list[tuple[str, str]] = []

    def run(self, text: str) -> Document:
        lines = text.replace("\r\n", "\n").split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
            elif line.startswith("```"):
                i = self.fence(lines, i)
            elif m := _HEADING.match(line):
                self.heading(len(m.group(1)), m.group(2))
                i += 1
            elif line.startswith("|"):
                i = self.table(lines, i)
            elif _ITEM.match(line) and not line.startswith("    "):
                i = self.listing(lines, i)
            else:
                i = self.paragraph(lines, i)
        return Document(self.title, mark_safe("\n".join(self.out)), self.toc)

    # -- blocks ---------------------------------------------------------------------------

    def fence(self, lines: list[str], i: int) -> int:
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        self.out.append(f"<pre><code>{escape(chr(10).join(body))}</code></pre>")
        return i + 1

    def heading(self, level: int, text: str) -> None:
        if level == 1 and not self.title:
            self.title = text
            return  # the page's own <h1>
        anchor = slugify(text) or f"s{len(self.toc)}"
        if level == 2:
            self.toc.append((anchor, text))
        self.out.append(f'<h{level} id="{anchor}">{self.inline(text)}</h{level}>')

    def table(self, lines: list[str], i: int) -> int:
        rows = []
        while i < len(lines) and lines[i].startswith("|"):
            cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                rows.append(cells)
            i += 1
        head, *body = rows or [[]]
        html = ['<div class="table-scroll"><table class="doc-table"><thead><tr>']
        html += [f'<th scope="col">{self.inline(c)}</th>' for c in head]
        html.append("</tr></thead><tbody>")
        for row in body:
            html.append("<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in row) + "</tr>")
        html.append("</tbody></table></div>")
        self.out.append("".join(html))
        return i

    def listing(self, lines: list[str], i: int) -> int:
        items: list[tuple[int, bool, list[str]]] = []  # (indent, ordered, text lines)
        while i < len(lines):
            line = lines[i]
            m = _ITEM.match(line)
            if m and len(m.group(1)) <= 4:
                items.append((len(m.group(1)), m.group(2) is not None, [m.group(3)]))
            elif line.strip() and line.startswith(" ") and items:
                items[-1][2].append(line.strip())
            else:
                break
            i += 1
        self.out.append(self.items_html(items))
        return i

    def items_html(self, items: list[tuple[int, bool, list[str]]]) -> str:
        base = items[0][0]
        tag = "ol" if items[0][1] else "ul"
        html, nested = [f"<{tag}>"], []
        for indent, ordered, text in items:
            if indent > base:
                nested.append((indent, ordered, text))
                continue
            if nested:
                html[-1] = html[-1].removesuffix("</li>") + self.items_html(nested) + "</li>"
                nested = []
            html.append(f"<li>{self.inline(' '.join(text))}</li>")
        if nested:
            html[-1] = html[-1].removesuffix("</li>") + self.items_html(nested) + "</li>"
        html.append(f"</{tag}>")
        return "".join(html)

    def paragraph(self, lines: list[str], i: int) -> int:
        text = []
        while i < len(lines) and lines[i].strip() and not (
            lines[i].startswith(("```", "#", "|")) or _ITEM.match(lines[i])
        ):
            text.append(lines[i].strip())
            i += 1
        if not text:  # an indented line that looked like nothing else
            text.append(lines[i].strip())
            i += 1
        self.out.append(f"<p>{self.inline(' '.join(text))}</p>")
        return i

    # -- inline ---------------------------------------------------------------------------

    def inline(self, text: str) -> str:
        codes: list[str] = []

        def keep(m: re.Match[str]) -> str:
            codes.append(f"<code>{escape(m.group(1))}</code>")
            return f"\x00{len(codes) - 1}\x00"

        text = escape(_CODE.sub(keep, text), quote=False)
        text = _LINK.sub(self.link, text)
        text = _BOLD.sub(r"<strong>\1</strong>", text)
        text = _ITALIC.sub(r"<em>\1</em>", text)
        return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], text)

    def link(self, m: re.Match[str]) -> str:
        label, url = m.group(1), m.group(2)
        url = self.links.get(url, url)
        if not _SAFE_URL.match(url):
            return label  # a link to a file of the repository: the text alone
        return f'<a href="{url.replace(chr(34), "%22")}">{label}</a>'
