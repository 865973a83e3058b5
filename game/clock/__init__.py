"""What runs the one clock: the timeout sweep inside Celery beat (beat) or, with the
laptop defaults, an asyncio loop inside the ASGI process (scheduler). The sweep itself is
the service game/services/clock.py."""
