"""Password-change forms whose old-password check counts under the log-in limits (accounts/throttle.py): a
session left open somewhere must not become a way to guess its owner's password."""

from __future__ import annotations

from django.contrib.admin.forms import AdminPasswordChangeForm
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError

from accounts.throttle import check_password_under_limits


class LimitedOldPassword:
    """For a PasswordChangeForm: the request (for its address) comes with the user, and the old password is
    checked under the limits."""

    def __init__(self, user, *args, request, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old = self.cleaned_data["old_password"]
        if not check_password_under_limits(self.request, self.user.get_username(),
                                           lambda: self.user.check_password(old)):
            raise ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return old


class LimitedPasswordChangeForm(LimitedOldPassword, PasswordChangeForm):
    pass


class LimitedAdminPasswordChangeForm(LimitedOldPassword, AdminPasswordChangeForm):
    pass
