from __future__ import annotations

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import UserChangeForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.usernames import normalize_username, username_key

LOOK_ALIKE_MESSAGE = _(
    "This name looks too much like an existing player's name (letters from other "
    "alphabets, capitals, full-width or invisible characters count as the same). "
    "Please choose another."
)


def check_username_free(username: str, exclude_pk: int | None = None) -> str:
    """The username as it will be stored (NFKC), unless it or a look-alike is taken."""
    username = normalize_username(username)
    taken = User.objects.filter(username_key=username_key(username))
    if exclude_pk is not None:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        raise forms.ValidationError(LOOK_ALIKE_MESSAGE, code="look_alike")
    return username


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    """Username and password; the e-mail address is optional (for password resets later)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        # Django's own check may already have refused the name (it then returns None).
        username = super().clean_username()
        return check_username_free(username) if username else username


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Django's form, with the choice to keep the API tokens (revoked by default: a new
    password is often a reaction to a leak, and a token is as good as the password for
    playing the user's seats)."""

    revoke_tokens = forms.BooleanField(
        label=_("Also revoke my API tokens (programs will need a new token)"),
        required=False,
        initial=True,
    )


class AdminUserCreationForm(auth_forms.AdminUserCreationForm):  # type: ignore[type-arg]
    """The admin's "add user" form, with the same look-alike check as sign-up."""

    class Meta(auth_forms.AdminUserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self) -> str:
        # Django's own check may already have refused the name (it then returns None).
        username = super().clean_username()
        return check_username_free(username) if username else username


class AdminUserChangeForm(UserChangeForm):  # type: ignore[type-arg]
    class Meta(UserChangeForm.Meta):
        model = User

    def clean_username(self) -> str:
        return check_username_free(self.cleaned_data["username"], exclude_pk=self.instance.pk)
