from django.urls import URLPattern, path

from accounts.views import account, tokens

app_name = "accounts"
urlpatterns: list[URLPattern] = [
    path("signup/", account.signup, name="signup"),
    path("login/", account.LoginView.as_view(), name="login"),
    path("logout/", account.LogoutView.as_view(), name="logout"),
    path("password/", account.PasswordChangeView.as_view(), name="password_change"),
    path("u/<str:username>/", account.profile, name="profile"),
    path("account/tokens/", tokens.token_list, name="tokens"),
    path("account/tokens/<int:token_id>/revoke/", tokens.revoke, name="revoke_token"),
]
