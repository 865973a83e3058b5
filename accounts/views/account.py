"""Sign up, log in and out, change the password, and the public face of a player."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from accounts import throttle
from accounts.forms import LOOK_ALIKE_MESSAGE, PasswordChangeForm, SignupForm
from accounts.models import User
from game.history import ratings, selectors


def _safe_next(request: HttpRequest) -> str:
    """Where to go after signing up: the `next` the login page would honour, or the lobby."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed else ""


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("game:lobby")
    if request.method == "POST":
        if throttle.signup_blocked(request):
            # Refused unread: a flood creates no accounts and hashes no passwords.
            return render(
                request,
                "accounts/signup.html",
                {"form": SignupForm(), "next": _safe_next(request), "throttled": True},
                status=429,
            )
        throttle.record_signup_attempt(request, request.POST.get("username", ""))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = _create_account(form)
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome, %(name)s!") % {"name": user.username})
            return redirect(_safe_next(request) or resolve_url("game:lobby"))
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)})


def _create_account(form: SignupForm) -> User | None:
    """Save the new account, or None with a form error if a look-alike name won a race
    since the form was checked (the unique username_key says so)."""
    try:
        with transaction.atomic():
            user: User = form.save()
            return user
    except IntegrityError:
        form.add_error("username", LOOK_ALIKE_MESSAGE)
        return None


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True


class LogoutView(auth_views.LogoutView):
    """POST only (Django's own rule): a link or prefetch must not log anyone out."""

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        messages.info(request, _("You are logged out."))
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    form_class = PasswordChangeForm

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        # Any new password revokes the tokens (accounts/signals.py) unless kept here.
        form.user._keep_api_tokens = not form.cleaned_data["revoke_tokens"]
        messages.success(self.request, _("Your password has been changed."))
        return super().form_valid(form)

    def get_success_url(self) -> str:
        return self.request.user.get_absolute_url()  # type: ignore[union-attr]


@login_required
def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    # Private rooms show up only for people who may see them anyway.
    visible = (
        Q(room__is_public=True)
        | Q(room__owner=request.user)
        | Q(room__memberships__user=request.user)
    )
    seats = (
        player.memberships.filter(visible)
        .select_related("room", "room__owner")
        .distinct()
        .order_by("joined_at")
    )
    context = {"player": player, "seats": seats}
    context.update(selectors.profile_context(player, request.user))  # match history
    context["ratings"] = ratings.profile_ratings(player)  # docs/ratings.md
    return render(request, "accounts/profile.html", context)
