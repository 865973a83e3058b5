"""Settings for Dobon UNO, read from the environment.

Laptop defaults need no servers: SQLite, the in-memory channel layer and an
in-process deadline scheduler. Setting DATABASE_URL switches to PostgreSQL and
REDIS_URL switches on channels-redis and Celery (see README.md).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from dobon_site.env import channel_prefix, env_bool, env_int, env_list, env_str
from dobon_site.security import (
    check_networks,
    check_origins,
    check_secret_key,
    default_websocket_origins,
    proxy_ssl_header,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)
# The "django-insecure-" prefix makes `check --deploy` flag this key if it reaches production.
_DEV_SECRET = "django-insecure-dobon-uno-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET)
# A production process (DEBUG off) does not start with the key committed above.
check_secret_key(SECRET_KEY, _DEV_SECRET, DEBUG)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# The development server's port (`make run PORT=...`): its http origin may open sockets.
DOBON_DEV_PORT = env_int("DOBON_DEV_PORT", 8000)
# Origins (scheme, host and port) whose pages may open a websocket (dobon_site/security.py).
DOBON_WS_ALLOWED_ORIGINS = check_origins(
    env_list("DOBON_WS_ALLOWED_ORIGINS")
    or default_websocket_origins(ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS, DEBUG, DOBON_DEV_PORT)
)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "accounts",
    "game",
]

MIDDLEWARE = [
    # /healthz, /readyz and /metrics, answered before the Host check and the HTTPS
    # redirect: probes reach a daphne directly over plain HTTP (game/views/ops.py).
    # The request id (a proxy's X-Request-ID or a new one, echoed), room and user of
    # every log line of the request (game/logs.py).
    "game.logs.RequestContextMiddleware",
    "game.views.ops.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "dobon_site.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "accounts.middleware.ChosenLanguageMiddleware",
    # The site's 404 page with DEBUG on too; outside CommonMiddleware (APPEND_SLASH first).
    "game.errors.FriendlyNotFoundMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "accounts.middleware.PrivateCacheMiddleware",
    # Last, as django-axes asks: turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "dobon_site.urls"
WSGI_APPLICATION = "dobon_site.wsgi.application"
ASGI_APPLICATION = "dobon_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Persistent connections leak under daphne (FIELD-NOTES.md): keep CONN_MAX_AGE at 0.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Live play writes from several threads: take the write lock at BEGIN (SQLite has no
    # row locks, so select_for_update is a no-op there) and wait for it instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "game:lobby"
LOGOUT_REDIRECT_URL = "game:lobby"

# Login throttling (django-axes): the first backend refuses a throttled attempt before
# the password is hashed. The policy is accounts.throttle.LoginThrottleHandler's
# (docs/security.md, "Logins"): per (username, address) pair, per address, and a slow-down
# rather than a lock for a username tried from many addresses.
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.ThrottledLoginBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "accounts.throttle.LoginThrottleHandler"
# Failures of one username from one address.
AXES_FAILURE_LIMIT = env_int("DOBON_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("DOBON_LOGIN_COOLOFF_MINUTES", 15))
# Failures from one address, whatever the usernames; a success does not lower it.
DOBON_LOGIN_ADDRESS_FAILURE_LIMIT = env_int("DOBON_LOGIN_ADDRESS_FAILURE_LIMIT", 20)
# Failures of one username from all addresses after which an address that never signed
# in to it gets one try instead of AXES_FAILURE_LIMIT (never a lock for its owner).
DOBON_LOGIN_USERNAME_SLOWDOWN = env_int("DOBON_LOGIN_USERNAME_SLOWDOWN", 10)
# What the handler counts by (it reads the pair and the address itself).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
# Resets only the successful (username, address) pair (LoginThrottleHandler).
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_ip"
AXES_USERNAME_CALLABLE = "accounts.throttle.login_username"
# Behind N reverse proxies that append to X-Forwarded-For, the client's address is the
# N-th entry from the right; 0 (no proxy) uses the connection's address (README.md).
DOBON_PROXY_COUNT = env_int("DOBON_PROXY_COUNT", 0)
# Client addresses (or networks) that may read /metrics (game/views/ops.py); the address
# is the forwarded one behind DOBON_PROXY_COUNT proxies, as for throttling. Others: 404.
DOBON_METRICS_ALLOWED = check_networks(
    "DOBON_METRICS_ALLOWED", env_list("DOBON_METRICS_ALLOWED", ["127.0.0.0/8", "::1"])
)
# Sign-up floods: at most this many sign-up attempts per address and window.
DOBON_SIGNUP_LIMIT = env_int("DOBON_SIGNUP_LIMIT", 10)
DOBON_SIGNUP_WINDOW = timedelta(minutes=env_int("DOBON_SIGNUP_WINDOW_MINUTES", 60))
# Wrong invite codes per address and per account in a window (game/services/invite_guesses.py).
DOBON_INVITE_GUESSES_PER_ADDRESS = env_int("DOBON_INVITE_GUESSES_PER_ADDRESS", 30)
DOBON_INVITE_GUESSES_PER_ACCOUNT = env_int("DOBON_INVITE_GUESSES_PER_ACCOUNT", 20)
DOBON_INVITE_GUESS_WINDOW_SECONDS = env_int("DOBON_INVITE_GUESS_WINDOW_SECONDS", 600)

# A match's JSON log: one download per user every so many seconds (game/views/matches.py).
DOBON_MATCH_LOG_SECONDS = env_int("DOBON_MATCH_LOG_SECONDS", 10)

# Limits per account (issue 20): rooms owned and created per 24 hours (a room outlives its
# owner's interest: rooms persist), active API tokens, tokens created per 24 hours.
DOBON_MAX_ROOMS_PER_USER = env_int("DOBON_MAX_ROOMS_PER_USER", 20)
# Rating farming (docs/ratings.md): two accounts count at most this many rated games
# together in 24 hours (by finished_at); later ones finish but change no rating. 0: no cap.
DOBON_RATED_PAIR_GAMES_PER_DAY = env_int("DOBON_RATED_PAIR_GAMES_PER_DAY", 20)
DOBON_ROOMS_PER_DAY = env_int("DOBON_ROOMS_PER_DAY", 10)
DOBON_MAX_ACTIVE_API_TOKENS = env_int("DOBON_MAX_ACTIVE_API_TOKENS", 10)
DOBON_API_TOKENS_PER_DAY = env_int("DOBON_API_TOKENS_PER_DAY", 20)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
# The switcher's choice outlives the browser session (a year), and follows the account to
# other browsers at log-in (accounts/middleware.py).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
# Project-wide translations live with the configuration: the top level is kept to the
# agreed entries (README.md, Layout).
LOCALE_PATHS = [BASE_DIR / "dobon_site" / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Tokyo")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

REDIS_URL = env_str("REDIS_URL")
# Redis pub/sub channels ignore the database number: two sites on one Redis server would
# hear each other's groups. Each site's channel names start with this prefix (by default
# one per Redis database number).
DOBON_CHANNEL_PREFIX = env_str("DOBON_CHANNEL_PREFIX") or channel_prefix(REDIS_URL)

# The cache holds short-lived limits (a match log per user and window): shared by every
# process through Redis when there is one, per process otherwise.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "dobon",
        }
    }

# "pubsub" (default): one PUBLISH per group send, at most once; clients resync by version.
# "core": channels-redis' lists and sorted sets, about 14 Redis commands per group send.
DOBON_CHANNEL_LAYER = env_str("DOBON_CHANNEL_LAYER", "pubsub")
if REDIS_URL and DOBON_CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's pub/sub layer, publishing without waiting for the
            # subscriptions' lock (game/live/layer.py).
            "BACKEND": "game.live.layer.RedisPubSubChannelLayer",
            # No socket timeout: the subscriber connection is quiet between messages.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
                "prefix": DOBON_CHANNEL_PREFIX,
            },
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # The default capacity of 100 drops group messages in bursts; clients
            # resync by version, but we would rather not lose pushes at all.
            # redis-py 8 reads with a 5 s socket timeout by default, which cuts the
            # layer's idle blocking pop and kills every quiet socket with 1011: no timeout.
            # Its asyncio pool also refuses a 101st concurrent command ("Too many
            # connections") instead of waiting: a few hundred sockets connecting at once
            # need more.
            "CONFIG": {
                "hosts": [
                    {"address": REDIS_URL, "socket_timeout": None, "max_connections": 2000}
                ],
                "capacity": 1500,
                "expiry": 30,
                "prefix": DOBON_CHANNEL_PREFIX,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# A committed move is one channel message to the processes serving its room, each
# handing its own sockets their share (game/live/fanout.py); false: one message per
# seated user and one for the watchers, as before (to compare, or while upgrading).
DOBON_PROCESS_FANOUT = env_bool("DOBON_PROCESS_FANOUT", default=True)

# Celery: only used when a broker is configured. Without one, the ASGI process runs
# the same expiry function from an in-process scheduler (game/clock/scheduler.py).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
# One task at a time per worker process: the clock's tasks are short, and a worker that
# reserved a backlog could not serve a person's timeout (priority 0) before it.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis hands a worker the task of the most urgent priority waiting, whatever this option
# says (kombu names the lists of one queue most urgent first: 0, a person's timeout; 3, a
# room's CPU move; 9, a match; game/services/clock.py). The option orders several queues
# (the clock uses one): first come first served, not in turn.
CELERY_BROKER_TRANSPORT_OPTIONS = {"queue_order_strategy": "priority"}
# The timeouts' clock (§R14): a sweep over the indexed Game.next_deadline every
# DOBON_SWEEP_SECONDS, so an automatic action lands at most about that late. No task is
# published per move. A sweep nobody picked up within its period is superseded by the
# next one: expire it rather than let sweeps queue up.
DOBON_SWEEP_SECONDS = float(env_str("DOBON_SWEEP_SECONDS", "0.25"))
# Beat runs the sweep in its own process (game/clock/beat.py) rather than publishing a task.
# Either way a beat runs its schedule only while it holds the clock's lock in Redis: a
# second beat stands by (game/clock/lease.py).
CELERY_BEAT_SCHEDULER = (
    "game.clock.beat:SweepingScheduler" if env_bool("DOBON_SWEEP_IN_BEAT", default=True)
    else "game.clock.beat:OneBeatScheduler"
)
# The clock's lock lives this long unless its holder renews it, which it does this often;
# a standby asks for it as often. A holder killed with kill -9: a standby sweeps within
# about LOCK + 2 * RENEW seconds (19 s); a clean shutdown releases it (about 2 * RENEW).
DOBON_CLOCK_LOCK_SECONDS = float(env_str("DOBON_CLOCK_LOCK_SECONDS", "15"))
DOBON_CLOCK_LOCK_RENEW_SECONDS = float(env_str("DOBON_CLOCK_LOCK_RENEW_SECONDS", "2"))
if not 0 < DOBON_CLOCK_LOCK_RENEW_SECONDS * 2 <= DOBON_CLOCK_LOCK_SECONDS:
    raise ImproperlyConfigured(
        "DOBON_CLOCK_LOCK_RENEW_SECONDS must be above 0 and at most half of "
        "DOBON_CLOCK_LOCK_SECONDS (the lock is renewed at least twice per lifetime)"
    )
CELERY_BEAT_SCHEDULE = {
    "expire-due-games": {
        "task": "game.tasks.expire_due_games_task",
        "schedule": DOBON_SWEEP_SECONDS,
        "options": {"expires": max(DOBON_SWEEP_SECONDS, 0.5)},
    },
}
# A due deadline further in the past than this means the clock was stopped (beat or the
# workers were down; a working clock is late by well under a second, 3.6 s at worst under
# overload): the game resumes with fresh timeouts instead of playing the outage's turns.
DOBON_CLOCK_OUTAGE_SECONDS = float(env_str("DOBON_CLOCK_OUTAGE_SECONDS", "30"))
# /readyz (game/services/health.py): the clock is alive when its last sweep is at most
# this old. The sweep runs every DOBON_SWEEP_SECONDS, but a standby beat taking over from
# a killed holder sweeps only after the lock ran out and one renewal more (16-19 s
# measured with the defaults): the default tolerates that take-over (the lock's lifetime,
# two renewals and 6 s), so that a load balancer acting on /readyz does not take every
# host out while the clock changes hands. Each check answers within
# DOBON_HEALTH_TIMEOUT_SECONDS or fails.
DOBON_CLOCK_STALE_SECONDS = float(env_str(
    "DOBON_CLOCK_STALE_SECONDS",
    str(DOBON_CLOCK_LOCK_SECONDS + 2 * DOBON_CLOCK_LOCK_RENEW_SECONDS + 6),
))
DOBON_HEALTH_TIMEOUT_SECONDS = float(env_str("DOBON_HEALTH_TIMEOUT_SECONDS", "2"))
DOBON_INPROCESS_SCHEDULER = env_bool("DOBON_INPROCESS_SCHEDULER", default=not CELERY_BROKER_URL)

# What may keep the clock's workers busy with nobody waiting (game/services/limits.py):
# running matches, and running games with CPU players outside matches.
DOBON_MATCHES_PER_ACCOUNT = env_int("DOBON_MATCHES_PER_ACCOUNT", 2)
DOBON_MATCHES_PER_SITE = env_int("DOBON_MATCHES_PER_SITE", 20)
DOBON_CPU_GAMES_PER_ACCOUNT = env_int("DOBON_CPU_GAMES_PER_ACCOUNT", 3)
DOBON_CPU_GAMES_PER_SITE = env_int("DOBON_CPU_GAMES_PER_SITE", 200)

# Opt-in: commit moves without waiting for PostgreSQL's WAL flush. Off by default because
# a database crash could lose acknowledged moves (game/services/play.py, _relax_commit).
DOBON_ASYNC_COMMIT = env_bool("DOBON_ASYNC_COMMIT", default=False)

# The common move on the event loop (game/services/lean_moves.py): async psycopg, two
# round trips, no thread. PostgreSQL only; off keeps every move on the ORM path.
DOBON_LEAN_MOVES = env_bool(
    "DOBON_LEAN_MOVES", default=DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
) and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# Connections per server process for the lean path (each is one move in flight).
DOBON_LEAN_CONNECTIONS = env_int("DOBON_LEAN_CONNECTIONS", 4)

# CPU players' thinking time in percent of their human-like 0.6–2 s (game/services/cpu.py).
DOBON_CPU_DELAY_PERCENT = env_int("DOBON_CPU_DELAY_PERCENT", 100)
# How long CPUs wait for a program seat's open chance before a move that would close it
# (issue #31), counted from the chance's opening; 0: not at all.
DOBON_PROGRAM_CHANCE_GRACE_SECONDS = env_int("DOBON_PROGRAM_CHANCE_GRACE_MS", 300) / 1000

# Live play limits (websocket protocol).
DOBON_WS_MAX_MESSAGE_BYTES = env_int("DOBON_WS_MAX_MESSAGE_BYTES", 4096)
DOBON_WS_MAX_MESSAGES_PER_SECOND = env_int("DOBON_WS_MAX_MESSAGES_PER_SECOND", 20)
# Over the rate limit this many seconds in a row: the socket is closed (4429).
DOBON_WS_FLOOD_SECONDS = env_int("DOBON_WS_FLOOD_SECONDS", 5)
# Sending `sync` again and again while the socket's previous one is still on its way, this
# many seconds in a row, is a flood too (4429). No client needs even one such sync (a sync
# is sent on connect, after a gap, after a reconnect); a crowd sending them within every
# message limit kept both processes busy reading tables for as long as it was let
# (issue #22), so this watch is quicker than the rate limit's.
DOBON_WS_SYNC_FLOOD_SECONDS = float(env_str("DOBON_WS_SYNC_FLOOD_SECONDS", "2"))
# After a socket is closed as a flood (4429), new sockets from its client address are
# told to come back later (4411, before any database work) for this many seconds: a
# crowd that floods and reconnects at once is not read again at once.
DOBON_WS_FLOOD_COOLDOWN_SECONDS = float(env_str("DOBON_WS_FLOOD_COOLDOWN_SECONDS", "20"))
# Oversized messages in a row before the socket is closed (4413); fewer answer too_large.
DOBON_WS_MAX_OVERSIZE_IN_A_ROW = env_int("DOBON_WS_MAX_OVERSIZE_IN_A_ROW", 3)
# Open room sockets per user over every process; the next one is closed with 4409.
DOBON_WS_MAX_SOCKETS_PER_USER = env_int("DOBON_WS_MAX_SOCKETS_PER_USER", 8)
# Program (API token) sockets per user, counted apart: a stolen token's sockets cannot take
# the owner's browser sockets' place.
DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER = env_int("DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER", 8)
# Bytes the server may hold for a client that does not read before dropping it (4499).
DOBON_WS_MAX_SEND_BUFFER = env_int("DOBON_WS_MAX_SEND_BUFFER", 262144)
# A socket whose process died stops counting (cap, presence) after this many seconds.
DOBON_WS_SOCKET_TTL = env_int("DOBON_WS_SOCKET_TTL", 30)
# `python -m dobon_site.server` on SIGTERM: stop listening, finish the moves begun, close
# every socket with 1012, and exit within this many seconds whatever hangs (issue #30).
# Keep it below the supervisor's own stop timeout (systemd's TimeoutStopSec).
DOBON_SHUTDOWN_SECONDS = float(env_str("DOBON_SHUTDOWN_SECONDS", "10"))
# Admission before any database work (game/live/admission.py), per server process:
# open sockets per client address (4410), new handshakes per second per address (4411,
# bursts up to the same number) and open sockets in the process (4503). The address is
# the peer's, or behind DOBON_PROXY_COUNT proxies the X-Forwarded-For entry that many
# from the right.
DOBON_WS_MAX_SOCKETS_PER_ADDRESS = env_int("DOBON_WS_MAX_SOCKETS_PER_ADDRESS", 64)
DOBON_WS_HANDSHAKES_PER_SECOND = env_int("DOBON_WS_HANDSHAKES_PER_SECOND", 20)
DOBON_WS_MAX_SOCKETS_PER_PROCESS = env_int("DOBON_WS_MAX_SOCKETS_PER_PROCESS", 5000)
# New sockets per second per server process, whatever their addresses, in bursts up to
# DOBON_WS_HANDSHAKE_BURST_PER_PROCESS; the next are told to come back later (4411, before
# any database work). A socket let in costs about 10 CPU-ms to open and close (issue #22:
# sockets churning from 50 addresses took both processes' whole cores), so 30 a second
# keep most of a core for the tables already open. An address that tried nothing for
# 2 s (a newcomer, a reload) may overdraw the spent budget by the burst again. A
# restart's reconnect storm of 2,000 sockets gets back in within about 30 s over two
# processes, about a minute on one (docs/performance.md).
DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND = env_int(
    "DOBON_WS_HANDSHAKES_PER_PROCESS_PER_SECOND", 30
)
DOBON_WS_HANDSHAKE_BURST_PER_PROCESS = env_int("DOBON_WS_HANDSHAKE_BURST_PER_PROCESS", 60)
# Sockets let in connect (session, user, room, groups, first table) this many at a time
# per server process; the others wait their turn without CPU (game/live/admission.py):
# a burst let in at once would otherwise hold up every move in the process at each step.
DOBON_WS_CONNECTS_AT_ONCE = env_int("DOBON_WS_CONNECTS_AT_ONCE", 4)
# A new socket told to come back later (4411) gets that answer after this many seconds,
# waiting without CPU: a client that tries again as soon as it is refused (a persistent
# attacker's loop) then costs one refused handshake per this time, not one per round trip.
DOBON_WS_REFUSAL_SECONDS = float(env_str("DOBON_WS_REFUSAL_SECONDS", "1"))
# Budgets per server process over many sockets (game/live/budgets.py, issue #22).
# A `sync` reads and sends the whole table; clients send one only after a gap in the
# versions or on reconnect (static/js/table/socket.js, docs/bot-client.py), and the
# server answers one on connect. A sync over budget is answered late, never refused.
# Per user (browser and program sockets together): 2 a second is far above a gap now and
# then, and the burst covers every socket the user may hold reconnecting at once (after a
# server restart: the connect table and the resuming sync, 2 per socket).
DOBON_WS_SYNCS_PER_SECOND = env_int("DOBON_WS_SYNCS_PER_SECOND", 2)
DOBON_WS_SYNC_BURST = env_int(
    "DOBON_WS_SYNC_BURST",
    2 * (DOBON_WS_MAX_SOCKETS_PER_USER + DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER),
)
# Per client address: a household or a school behind one NAT needs a sync a second or so
# in all; the burst covers every socket the address may open reconnecting at once.
DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND = env_int("DOBON_WS_SYNCS_PER_ADDRESS_PER_SECOND", 10)
DOBON_WS_SYNC_BURST_PER_ADDRESS = env_int(
    "DOBON_WS_SYNC_BURST_PER_ADDRESS", 2 * DOBON_WS_MAX_SOCKETS_PER_ADDRESS
)
# Messages per second per client address over all its sockets, in bursts of as many,
# counted before parsing; over it `rate_limited` (sustained: 4429). People playing by hand
# send a message every few seconds each, so a school of 30 sends a few a second; the
# fastest senders are programs in a fast match, at most the per-socket limit each
# (docs/bots-api.md: the sample client keeps to 16): one owner running a full
# DOBON_WS_MAX_PROGRAM_SOCKETS_PER_USER of programs (8 × 20 = 160) from one machine,
# with browser tabs open, stays within 200. A crowd of 64 sockets could send 1,280.
DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND = env_int(
    "DOBON_WS_MESSAGES_PER_ADDRESS_PER_SECOND", 200
)
# Messages per second per user over all the user's sockets in this process, in bursts up
# to DOBON_WS_MESSAGE_BURST_PER_USER, counted before parsing; over it `rate_limited`
# (sustained: 4429), as per address. People send a few messages a second; the fastest
# real senders are one owner's programs all seated in one fast match (59 versions a
# second over four programs, docs/bots-api.md), within 80. A user's 8 + 8 sockets at the
# per-socket limit could send 320.
DOBON_WS_MESSAGES_PER_USER_PER_SECOND = env_int("DOBON_WS_MESSAGES_PER_USER_PER_SECOND", 80)
DOBON_WS_MESSAGE_BURST_PER_USER = env_int("DOBON_WS_MESSAGE_BURST_PER_USER", 160)
# Sockets of non-members watching one room, over every process; the next is closed (4412).
DOBON_WS_MAX_WATCHERS_PER_ROOM = env_int("DOBON_WS_MAX_WATCHERS_PER_ROOM", 300)
# Of those, the sockets one account may hold in a room it is not a member of, and the
# places only the room's invited guests may take (issue #31).
DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT = env_int("DOBON_WS_MAX_WATCHER_SOCKETS_PER_ACCOUNT", 3)
DOBON_WS_WATCHER_PLACES_FOR_GUESTS = env_int("DOBON_WS_WATCHER_PLACES_FOR_GUESTS", 30)
# After a socket from a client address is refused by a room's watcher cap (4412), that
# address's next sockets into that room are told to come back later (4411, before any
# database work) for this many seconds: a crowd retrying costs one full check per address
# and room in that time. A member behind the address gets in on a later try.
DOBON_WS_WATCHERS_FULL_SECONDS = float(env_str("DOBON_WS_WATCHERS_FULL_SECONDS", "5"))
# At most one presence frame per room in this many seconds (changes meanwhile share it).
DOBON_WS_PRESENCE_SECONDS = float(env_str("DOBON_WS_PRESENCE_SECONDS", "1"))
# Every this many seconds a server process moves its long-lived objects out of the
# garbage collector's reach (gc.freeze), and every DOBON_GC_FULL_SECONDS it collects
# everything once (game/live/memory.py); 0 switches both off.
DOBON_GC_FREEZE_SECONDS = float(env_str("DOBON_GC_FREEZE_SECONDS", "60"))
DOBON_GC_FULL_SECONDS = float(env_str("DOBON_GC_FULL_SECONDS", "600"))
# Threads per process for the sockets' database work: reads (connect, sync) and moves
# run on separate pools, so a flood of reads cannot queue in front of a move. One read
# thread: reading a table is mostly Python (the ORM), so a second thread added little
# but took the GIL from the event loop in 5 ms slices, and every step of a move waited
# for it (issue #22: a crowd's victim p99 151–294 ms with two, 34–83 ms with one).
DOBON_WS_READ_THREADS = env_int("DOBON_WS_READ_THREADS", 1)
DOBON_WS_WRITE_THREADS = env_int("DOBON_WS_WRITE_THREADS", 2)

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DOBON_DB_POOL", default=True
):
    # psycopg's pool (Django 5.1+): channels closes the connection before every message it
    # dispatches, which with CONN_MAX_AGE = 0 meant a new PostgreSQL session (~6 ms of
    # server CPU) for most moves; a close now hands the connection back to the pool.
    # Room for every database thread of a daphne process (the sockets' reads and moves,
    # Django's own thread for pages and handshakes, one spare), so none waits for another.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DOBON_DB_POOL_MIN", 1),
        "max_size": env_int(
            "DOBON_DB_POOL_MAX", DOBON_WS_READ_THREADS + DOBON_WS_WRITE_THREADS + 2
        ),
        "timeout": 10,
    }

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
# Only behind a proxy that sets (and overwrites) this header, e.g.
# SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto; unset, a client cannot claim HTTPS.
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(env_str("SECURE_PROXY_SSL_HEADER"))
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy of every page (dobon_site/security.py adds the websocket origin):
# scripts and styles only from our own static files, nothing inline.
DOBON_CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}

# Logs (game/logs.py): plain text (the default) or, with DOBON_LOG_FORMAT=json, one JSON
# object a line with the request, room, game and user ids where known. No line at any
# level carries a card of a hidden hand: Django's SQL lines (DEBUG, with DEBUG on) keep
# the statements' shape without their values, where the games' states travel, and
# redis-py's lines of the pub/sub messages read (the pushes) are dropped.
DOBON_LOG_FORMAT = env_str("DOBON_LOG_FORMAT", "text").strip().lower() or "text"
if DOBON_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"DOBON_LOG_FORMAT must be text or json, not {DOBON_LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "game.logs.ContextFilter"},
        "query_values": {"()": "game.logs.QueryValuesFilter"},
        "drop": {"()": "game.logs.DropFilter"},
    },
    "formatters": {"json": {"()": "game.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            **({"formatter": "json"} if DOBON_LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # django-axes logs every login at INFO; lockouts (WARNING) are what an operator needs.
        "daphne": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        "django.db.backends": {"filters": ["query_values"]},
        # redis-py writes every pub/sub message it reads (the moves' pushes) at DEBUG.
        "push_response": {"filters": ["drop"]},
    },
}
# In JSON, Celery workers and beat log through this configuration too, instead of
# replacing the root logger's handler with celery's own text format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = DOBON_LOG_FORMAT != "json"

# Tests only: lets game.services.fixed_setups start a game from a fixed deck. Never read
# from the environment, so no deployment can switch it on; tests set it themselves.
DOBON_TEST_SETUPS_ALLOWED = False
