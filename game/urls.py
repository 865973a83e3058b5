from django.urls import URLPattern

from game import urls_play

app_name = "game"
urlpatterns: list[URLPattern] = []
urlpatterns += urls_play.urlpatterns
