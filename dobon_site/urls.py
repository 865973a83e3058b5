from django.conf.urls.i18n import i18n_patterns  # noqa: F401  (kept for future locale URLs)
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("game.urls")),
]
