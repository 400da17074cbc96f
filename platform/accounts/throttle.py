"""Log-in throttling for the web form: after too many failures from one address, wait."""

from __future__ import annotations

from django.contrib.auth.views import LoginView
from django.core.cache import cache

MAX_FAILURES = 10
WINDOW_SECONDS = 600


def _key(request) -> str:
    return f"login-failures:{request.META.get('REMOTE_ADDR', '?')}"


class ThrottledLoginView(LoginView):
    def post(self, request, *args, **kwargs):
        if cache.get(_key(request), 0) >= MAX_FAILURES:
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, f"Too many failed log-ins from your address; try again in "
                                 f"{WINDOW_SECONDS // 60} minutes.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        key = _key(self.request)
        cache.add(key, 0, WINDOW_SECONDS)
        try:
            cache.incr(key)
        except ValueError:
            cache.set(key, 1, WINDOW_SECONDS)
        return super().form_invalid(form)
