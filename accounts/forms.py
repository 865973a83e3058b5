from __future__ import annotations

from django.contrib.auth.forms import UserCreationForm

from accounts.models import User


class SignupForm(UserCreationForm):
    """Username and password; the e-mail address is optional (for password resets later)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")
