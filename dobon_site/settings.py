"""Settings for Dobon UNO, read from the environment.

Laptop defaults need no servers: SQLite, the in-memory channel layer and an
in-process deadline scheduler. Setting DATABASE_URL switches to PostgreSQL and
REDIS_URL switches on channels-redis and Celery (see README.md).
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

from dobon_site.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)
# The "django-insecure-" prefix makes `check --deploy` flag this key if it reaches production.
_DEV_SECRET = "django-insecure-dobon-uno-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

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
    "accounts",
    "game",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "accounts.middleware.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
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

if REDIS_URL:
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
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: only used when a broker is configured. Without one, the ASGI process runs
# the same expiry function from an in-process scheduler (game/scheduler.py).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_BEAT_SCHEDULE = {
    # A sweep nobody picked up within its second is superseded by the next one: expire it
    # rather than let sweeps queue up in front of the precise ETA tasks.
    "expire-due-games": {
        "task": "game.tasks.expire_due_games_task",
        "schedule": 1.0,
        "options": {"expires": 1.0},
    },
}
DOBON_INPROCESS_SCHEDULER = env_bool("DOBON_INPROCESS_SCHEDULER", default=not CELERY_BROKER_URL)

# Opt-in: commit moves without waiting for PostgreSQL's WAL flush. Off by default because
# a database crash could lose acknowledged moves (game/services/play.py, _relax_commit).
DOBON_ASYNC_COMMIT = env_bool("DOBON_ASYNC_COMMIT", default=False)

# CPU players' thinking time in percent of their human-like 0.6–2 s (game/services/cpu.py).
DOBON_CPU_DELAY_PERCENT = env_int("DOBON_CPU_DELAY_PERCENT", 100)

# Live play limits (websocket protocol).
DOBON_WS_MAX_MESSAGE_BYTES = env_int("DOBON_WS_MAX_MESSAGE_BYTES", 4096)
DOBON_WS_MAX_MESSAGES_PER_SECOND = env_int("DOBON_WS_MAX_MESSAGES_PER_SECOND", 20)
# Over the rate limit this many seconds in a row: the socket is closed (4429).
DOBON_WS_FLOOD_SECONDS = env_int("DOBON_WS_FLOOD_SECONDS", 5)
# Oversized messages in a row before the socket is closed (4413); fewer answer too_large.
DOBON_WS_MAX_OVERSIZE_IN_A_ROW = env_int("DOBON_WS_MAX_OVERSIZE_IN_A_ROW", 3)
# Open room sockets per user over every process; the next one is closed with 4409.
DOBON_WS_MAX_SOCKETS_PER_USER = env_int("DOBON_WS_MAX_SOCKETS_PER_USER", 8)
# Bytes the server may hold for a client that does not read before dropping it (4499).
DOBON_WS_MAX_SEND_BUFFER = env_int("DOBON_WS_MAX_SEND_BUFFER", 262144)
# A socket whose process died stops counting (cap, presence) after this many seconds.
DOBON_WS_SOCKET_TTL = env_int("DOBON_WS_SOCKET_TTL", 30)
# Threads per process for the sockets' database work: reads (connect, sync) and moves
# run on separate pools, so a flood of reads cannot queue in front of a move.
DOBON_WS_READ_THREADS = env_int("DOBON_WS_READ_THREADS", 2)
DOBON_WS_WRITE_THREADS = env_int("DOBON_WS_WRITE_THREADS", 2)

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"daphne": {"level": "WARNING"}},
}
