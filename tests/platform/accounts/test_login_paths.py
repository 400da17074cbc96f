"""Every path that checks a password is under the one set of log-in limits (accounts/throttle.py): the site's
log-in form, /admin/login/, the API's token log-in, and the old-password check of the password-change pages,
the site's and the admin's. The report: 30 wrong passwords for `admin` on /admin/login/, then the right one
was accepted. (tests/platform/accounts/test_login_limits.py proves the policy's rules on the site's form and the API.)
"""

from __future__ import annotations

import pytest
from django.contrib.auth.views import LoginView, PasswordChangeView
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts.models import ApiToken

PASSWORD = "a-long-password-1"
NEW_PASSWORD = "another-long-password-9"
ATTACKER, ELSEWHERE = "203.0.113.9", "198.51.100.20"
REFUSAL = "Too many failed log-ins from your address"


def form_outcome(response, client: Client, done) -> str:
    """"ok", "wrong" (the form again) or "refused" (429, Retry-After, the form saying why)."""
    if response.status_code == 302 and done(client):
        return "ok"
    if response.status_code == 429:
        assert REFUSAL in response.content.decode(), response.content.decode()[:2000]
        assert int(response["Retry-After"]) > 0
        return "refused"
    assert response.status_code == 200, response.status_code
    assert not done(client)
    return "wrong"


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


class SiteLogin:
    def attempt(self, user, password: str, address: str) -> str:
        client = Client(REMOTE_ADDR=address)
        response = client.post("/login/", {"username": user.username, "password": password})
        return form_outcome(response, client, logged_in)


class AdminLogin:
    def attempt(self, user, password: str, address: str) -> str:
        client = Client(REMOTE_ADDR=address)
        response = client.post("/admin/login/?next=/admin/", {"username": user.username, "password": password,
                                                              "next": "/admin/"})
        return form_outcome(response, client, logged_in)


class ApiTokenLogin:
    def attempt(self, user, password: str, address: str) -> str:
        before = ApiToken.objects.count()
        response = APIClient().post("/api/v1/auth/token/", {"username": user.username, "password": password,
                                                             "name": "cli"}, format="json", REMOTE_ADDR=address)
        if response.status_code == 201:
            return "ok"
        assert ApiToken.objects.count() == before
        if response.status_code == 429:
            error = response.json()["error"]
            assert error["code"] == "throttled" and REFUSAL in error["message"], error
            assert int(response["Retry-After"]) > 0
            return "refused"
        assert response.status_code == 401, response.status_code
        return "wrong"


class PasswordChange:
    """A signed-in session (left open somewhere) changing its password: the old one is a password check."""

    url = "/password/"

    def attempt(self, user, password: str, address: str) -> str:
        client = Client(REMOTE_ADDR=address)
        client.force_login(user)
        response = client.post(self.url, {"old_password": password, "new_password1": NEW_PASSWORD,
                                          "new_password2": NEW_PASSWORD})

        def changed(_client) -> bool:
            user.refresh_from_db()
            return user.check_password(NEW_PASSWORD)

        return form_outcome(response, client, changed)


class AdminPasswordChange(PasswordChange):
    url = "/admin/password_change/"


@pytest.fixture(params=[SiteLogin, AdminLogin, ApiTokenLogin, PasswordChange, AdminPasswordChange],
                ids=["site-login", "admin-login", "api-token-login", "password-change", "admin-password-change"])
def path(request):
    return request.param()


@pytest.fixture
def admin(make_user):
    return make_user("admin", PASSWORD, is_staff=True, is_superuser=True)


def test_thirty_wrong_passwords_then_the_right_one_is_refused_on_every_path(path, admin):
    answers = [path.attempt(admin, f"guess-{i}", ATTACKER) for i in range(30)]
    assert answers == ["wrong"] * 10 + ["refused"] * 20, answers
    assert path.attempt(admin, PASSWORD, ATTACKER) == "refused"
    # The limit, not the account: the owner elsewhere still gets in (or changes the password).
    assert path.attempt(admin, PASSWORD, ELSEWHERE) == "ok"


def test_the_paths_share_one_count(admin):
    """Guesses spread over the paths add up: the admin's form gets none more for the site's having been tried."""
    paths = [SiteLogin(), AdminLogin(), ApiTokenLogin(), PasswordChange(), AdminPasswordChange()]
    answers = [paths[i % len(paths)].attempt(admin, f"guess-{i}", ATTACKER) for i in range(12)]
    assert answers == ["wrong"] * 10 + ["refused"] * 2, answers


def views_in(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from views_in(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def test_no_page_checks_a_password_outside_the_limits(settings):
    """A log-in or password-change view, a backend, an admin site: each is the limited one."""
    from django.contrib import admin as django_admin

    from accounts.admin_site import KozyrAdminSite
    from accounts.views import ThrottledLoginView, ThrottledPasswordChangeView

    assert settings.AUTHENTICATION_BACKENDS == ["accounts.backends.LimitedModelBackend"]
    assert isinstance(django_admin.site, KozyrAdminSite)
    checked = []
    for route, callback in views_in(get_resolver().url_patterns):
        view = getattr(callback, "view_class", None)
        if view is not None and issubclass(view, LoginView):
            assert issubclass(view, ThrottledLoginView), route
            checked.append(route)
        if view is not None and issubclass(view, PasswordChangeView):
            assert issubclass(view, ThrottledPasswordChangeView), route
            checked.append(route)
    assert sorted(checked) == ["login/", "password/"], checked  # the admin's are KozyrAdminSite's methods


def test_a_new_account_stays_signed_in_with_the_one_backend(db):
    """Signing up logs the person in through the site's one backend, so the next page still knows them."""
    client = Client()
    answer = client.post("/signup/", {"username": "newcomer", "email": "", "password1": PASSWORD,
                                      "password2": PASSWORD})
    assert answer.status_code == 302
    assert client.get("/profile/").status_code == 200


def test_the_limited_pages_show_their_forms(admin):
    client = Client()
    assert client.get("/admin/login/").status_code == 200
    client.force_login(admin)
    for page in ("/password/", "/admin/password_change/"):
        answer = client.get(page)
        assert answer.status_code == 200 and b'name="old_password"' in answer.content, page
