"""The program authors' documents as pages of the site: docs/bots-api.md and the protocol
it builds on, rendered from the repository's Markdown (game/docs_markdown.py), so the page
and the file never differ; the reference client as plain text."""

from __future__ import annotations

import functools
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from game import docs_markdown

# name in the URL → file under docs/
PAGES = {"bots": "bots-api.md", "protocol": "protocol.md"}
CLIENT = "bot-client.py"


def _docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def _links() -> dict[str, str]:
    """The documents' relative links, as pages of the site."""
    return {
        "bots-api.md": reverse("game:doc", args=["bots"]),
        "protocol.md": reverse("game:doc", args=["protocol"]),
        "bot-client.py": reverse("game:bot_client"),
        "../../shared/RULES.md": reverse("game:how_to_play"),
    }


@functools.lru_cache(maxsize=8)
def _rendered(name: str, mtime: float) -> docs_markdown.Document:
    text = (_docs_dir() / PAGES[name]).read_text(encoding="utf-8")
    return docs_markdown.render(text, _links())


def doc(request: HttpRequest, name: str) -> HttpResponse:
    if name not in PAGES:
        raise Http404
    path = _docs_dir() / PAGES[name]
    document = _rendered(name, path.stat().st_mtime)
    others = [(key, reverse("game:doc", args=[key])) for key in PAGES if key != name]
    return render(request, "game/doc.html", {"doc": document, "name": name, "others": others})


def bot_client(request: HttpRequest) -> HttpResponse:
    response = FileResponse(
        open(_docs_dir() / CLIENT, "rb"),  # noqa: SIM115 (FileResponse closes it)
        content_type="text/plain; charset=utf-8",
    )
    response["Content-Disposition"] = f'inline; filename="{CLIENT}"'
    return response
