"""ASGI entry point: HTTP through Django, websockets through Channels.

Without a broker (the laptop default) the process also runs the timeout clock
(game/clock/scheduler.py); with Celery, `celery worker` and one `celery beat` do.
"""

import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dobon_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import CookieMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402

from accounts.token_auth import BearerRouter, TokenAuthMiddleware  # noqa: E402
from dobon_site.security import SiteOriginValidator  # noqa: E402
from game.clock.scheduler import StartSchedulerMiddleware  # noqa: E402
from game.live.admission import Admission  # noqa: E402
from game.live.routing import websocket_urlpatterns  # noqa: E402
from game.live.transport import TransportProbe  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # TransportProbe first, before the session middleware wraps `send`: the
        # sockets' send-buffer bound needs daphne's transport (game/live/transport.py).
        # Program clients (Authorization: Bearer) sign in by token, without the origin
        # check or a session; browsers by session cookie, with origins compared by
        # scheme, host and port (DOBON_WS_ALLOWED_ORIGINS; accounts/token_auth.py).
        # Admission (per address, per process) comes before any database work.
        "websocket": TransportProbe(
            Admission(
                BearerRouter(
                    CookieMiddleware(TokenAuthMiddleware(URLRouter(websocket_urlpatterns))),
                    SiteOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
                )
            )
        ),
    }
)

# Tests drive time themselves (injected clocks); a background sweep would race them.
if settings.DOBON_INPROCESS_SCHEDULER and "pytest" not in sys.modules:
    application = StartSchedulerMiddleware(application)
