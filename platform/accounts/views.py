"""The log-in, password-change and password-reset pages (the site's; the admin's are accounts/admin_site.py). The
log-in limits are checked where the password is (accounts/backends.py, accounts/forms.py); a page whose form they
refused answers 429 with Retry-After, the form saying why.

A password reset is Django's own (a link with a one-use token, valid for PASSWORD_RESET_TIMEOUT, mailed through
EMAIL_BACKEND). Whether an account has the address is never said: a known and an unknown address get the same
page, and the same limits count both, per address of the client and per e-mail address (so nobody can fill a
person's inbox)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import (
    LoginView,
    PasswordChangeView,
    PasswordResetConfirmView,
    PasswordResetDoneView,
    PasswordResetView,
)

from accounts import limits
from accounts.forms import LimitedPasswordChangeForm
from accounts.limits import Limit, RateLimited
from accounts.throttle import answered_as_refused

RESETS_PER_CLIENT = Limit("reset-address", 10, 3600, "password-reset requests from one address")
RESETS_PER_EMAIL = Limit("reset-email", 3, 3600, "password-reset e-mails to one address")


class ThrottledLoginView(LoginView):
    def form_invalid(self, form):
        return answered_as_refused(super().form_invalid(form), form)


class ThrottledPasswordChangeView(PasswordChangeView):
    form_class = LimitedPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form):
        return answered_as_refused(super().form_invalid(form), form)


def timeout_hours() -> dict:
    return {"timeout_hours": settings.PASSWORD_RESET_TIMEOUT // 3600}


class ThrottledPasswordResetView(PasswordResetView):
    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"


    def form_valid(self, form):
        try:  # counted before knowing whether an account has the address: the answer must not depend on it
            spent = limits.spend(RESETS_PER_CLIENT, limits.client_key(self.request))
            try:
                limits.spend(RESETS_PER_EMAIL, limits.account_key(form.cleaned_data["email"]))
            except RateLimited:
                limits.give_back(RESETS_PER_CLIENT, limits.client_key(self.request), spent)
                raise
        except RateLimited as err:
            form.add_error(None, f"Too many password-reset requests: {err}.")
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(err.wait)
            return response
        self.extra_email_context = timeout_hours()
        return super().form_valid(form)


class ResetSentView(PasswordResetDoneView):
    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **timeout_hours()}


class ResetConfirmView(PasswordResetConfirmView):
    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), **timeout_hours()}
