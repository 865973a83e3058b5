"""The Django project: configuration only. settings (read from the environment through
env), the URL map (urls), the ASGI application with the websocket routes (asgi), Celery
(celery), the server entry point (server), security headers and checks (security), and
the one translation catalog (locale/).

The Celery app is loaded with the project, so that every process — a daphne sending a
due game or a CPU move to the workers, not only `celery -A dobon_site` — sends its tasks
through the configured broker rather than Celery's default (AMQP on localhost)."""

from dobon_site.celery import app as celery_app

__all__ = ("celery_app",)
