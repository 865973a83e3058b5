"""The Django project: configuration only. settings (read from the environment through
env), the URL map (urls), the ASGI application with the websocket routes (asgi), Celery
(celery), the server entry point (server), security headers and checks (security), and
the one translation catalog (locale/)."""
