"""The site's one authentication backend: Django's (usernames and passwords in the user table), with every
check under the log-in limits (accounts/throttle.py).

Whatever calls ``authenticate(request, username=…, password=…)`` (the site's log-in form, the admin's, the API's
token log-in, any form added later) is limited by the request's address and the account, and a refusal
(LoginRefused) leaves it before the password is looked at. A call without a request (a shell, the test client's
``login()``) has no address to count by and is not limited.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from accounts.throttle import check_password_under_limits


class LimitedModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if request is None or username is None or password is None:
            return super().authenticate(request, username, password, **kwargs)
        return check_password_under_limits(request, username,
                                           lambda: super(LimitedModelBackend, self).authenticate(
                                               request, username, password, **kwargs))
