"""The admin site (django.contrib.admin's, installed as accounts.apps.KozyrAdminConfig): its log-in and its
password change under the site's log-in limits. Its log-in form checks the password through authenticate(),
which the limits guard (accounts/backends.py); a refused one answers 429 here. Its password change checks the
old password under them too (accounts/forms.py)."""

from __future__ import annotations

from django.contrib.admin import AdminSite
from django.urls import reverse

from accounts.forms import LimitedAdminPasswordChangeForm
from accounts.throttle import answered_as_refused
from accounts.views import ThrottledPasswordChangeView


class KozyrAdminSite(AdminSite):
    def login(self, request, extra_context=None):
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        return response if form is None else answered_as_refused(response, form)

    def password_change(self, request, extra_context=None):
        """Django's own, with the old password checked under the limits."""
        options = {"form_class": LimitedAdminPasswordChangeForm,
                   "success_url": reverse("admin:password_change_done", current_app=self.name),
                   "extra_context": {**self.each_context(request), **(extra_context or {})}}
        if self.password_change_template is not None:
            options["template_name"] = self.password_change_template
        request.current_app = self.name
        return ThrottledPasswordChangeView.as_view(**options)(request)
