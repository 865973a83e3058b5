from django.urls import path

app_name = "game"
urlpatterns: list = []
