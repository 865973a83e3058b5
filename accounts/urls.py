from django.urls import path

app_name = "accounts"
urlpatterns: list = []
