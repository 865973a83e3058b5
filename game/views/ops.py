"""What operators and their machines read: `/healthz`, `/readyz` and `/metrics`.

They are answered by `ProbeMiddleware`, first in MIDDLEWARE, before Django looks at the
Host header or redirects to HTTPS: a load balancer, nginx or a script on the host probes
a daphne directly over plain HTTP by its address (`http://127.0.0.1:8001/readyz`), with
a Host that is not in ALLOWED_HOSTS, and must get the answer rather than a 400 or a 301.
Nothing they say depends on the Host, the scheme, a session or a language, so none of
that middleware has anything to do for them. The paths are outside any language prefix
and need no login; they say nothing secret (docs/deploy.md, "Health and metrics").

- `/healthz`: liveness, the process answers; no database, no Redis.
- `/readyz`: readiness (game/services/health.py), 200 or 503 with the checks as JSON.

- `/metrics`: Prometheus' text (game/metrics.py), only to client addresses in
  `DOBON_METRICS_ALLOWED` (the forwarded address behind `DOBON_PROXY_COUNT` proxies, as
  for throttling: accounts/throttle.py); anyone else gets a 404, as for a page that
  does not exist.

Only GET and HEAD (405 otherwise); never cached.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.views.decorators.http import require_safe

from accounts.throttle import client_ip
from game import metrics
from game.services import health

log = logging.getLogger(__name__)


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    return probe_response(request, JsonResponse({"status": "ok"}))


@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    ready, document = health.readiness()
    response = JsonResponse(document, status=200 if ready else 503)
    if not ready:
        failed = [name for name, check in document["checks"].items() if check["status"] == "fail"]
        log.warning("not ready: %s", ", ".join(failed))
        response._has_been_logged = True  # type: ignore[attr-defined]  # not Django's ERROR too
    return probe_response(request, response)


@require_safe
def metrics_text(request: HttpRequest) -> HttpResponse:
    if not may_read_metrics(client_ip(request)):
        return HttpResponseNotFound(b"Not Found", content_type="text/plain")
    text, content_type = metrics.render(extra=[metrics.GamesRunning(health.running_games)])
    return probe_response(request, HttpResponse(text, content_type=content_type))


def may_read_metrics(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(allowed, strict=False)
               for allowed in settings.DOBON_METRICS_ALLOWED)


def probe_response(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """No cache may keep a probe's answer; a HEAD gets the headers only."""
    response["Cache-Control"] = "no-store"
    response["X-Content-Type-Options"] = "nosniff"
    if request.method == "HEAD":
        response.content = b""
    return response


PROBES: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz,
    "/readyz": readyz,
    "/metrics": metrics_text,
}


class ProbeMiddleware:
    """Answers the probe paths before any other middleware (see the module's doc)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = PROBES.get(request.path_info)
        if view is None:
            return self.get_response(request)
        return view(request)
