from django.urls import URLPattern, path

from accounts import views, views_tokens

app_name = "accounts"
urlpatterns: list[URLPattern] = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("u/<str:username>/", views.profile, name="profile"),
    path("account/tokens/", views_tokens.token_list, name="tokens"),
    path("account/tokens/<int:token_id>/revoke/", views_tokens.revoke, name="revoke_token"),
]
