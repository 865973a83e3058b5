"""Celery app: `celery -A dobon_site worker` and `celery -A dobon_site beat`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dobon_site.settings")

app = Celery("dobon_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
