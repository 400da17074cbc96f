"""Log-in limits (accounts/throttle.py), through the real views: the web form and the API's token log-in.

The client's address comes from REMOTE_ADDR and KOZYR_TRUSTED_PROXIES only (accounts/limits.py); a client
that rotates X-Forwarded-For gains nothing. Brute force from one address is stopped; an attacker elsewhere
cannot lock the owner out: an address that has not failed for the account, or that the owner has logged in
from before, still gets in with the right password.
"""

from __future__ import annotations

import uuid

import pytest
import redis
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts.limits import address_key, client_ip
from accounts.models import ApiToken
from tests.platform.config.test_settings import manage
from tests.support.resources import redis_url

REDIS_URL = redis_url("spare")
PASSWORD = "a-long-password-1"
LOGIN = "/api/v1/auth/token/"
PROXY = "10.0.0.2"  # what gunicorn sees behind the documented proxy (compose's port forwarding)


class Web:
    """The log-in form. Answers "ok" (logged in), "wrong" (the form again), "refused" (429)."""

    def attempt(self, username: str, password: str, address: str, forwarded: str | None = None) -> str:
        client = Client()
        extra = {"REMOTE_ADDR": address, **({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {})}
        response = client.post("/login/", {"username": username, "password": password}, **extra)
        if response.status_code == 302:
            assert "_auth_user_id" in client.session
            return "ok"
        assert "_auth_user_id" not in client.session
        if response.status_code == 429:
            assert "Too many failed log-ins" in response.content.decode()
            assert int(response["Retry-After"]) > 0
            return "refused"
        assert response.status_code == 200, response.status_code
        return "wrong"


class Api:
    """POST /api/v1/auth/token/ (what `arena login` sends)."""

    def attempt(self, username: str, password: str, address: str, forwarded: str | None = None) -> str:
        extra = {"REMOTE_ADDR": address, **({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {})}
        before = ApiToken.objects.count()
        response = APIClient().post(LOGIN, {"username": username, "password": password, "name": "cli"},
                                    format="json", **extra)
        if response.status_code == 201:
            assert ApiToken.objects.count() == before + 1
            return "ok"
        assert ApiToken.objects.count() == before
        if response.status_code == 429:
            error = response.json()["error"]
            assert error["code"] == "throttled" and "Too many failed log-ins" in error["message"], error
            assert error["retry_after_seconds"] > 0 and int(response["Retry-After"]) > 0
            return "refused"
        assert response.status_code == 401, response.status_code
        return "wrong"


@pytest.fixture(params=[Web, Api], ids=["web", "api"])
def path(request):
    return request.param()


# ---- the client's address ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("proxies", "remote", "forwarded", "expected"), [
    (0, "203.0.113.9", None, "203.0.113.9"),
    (0, "203.0.113.9", "198.51.100.1", "203.0.113.9"),            # no proxy trusted: the header is the client's
    (1, PROXY, "198.51.100.7", "198.51.100.7"),
    (1, PROXY, "1.2.3.4, 198.51.100.7", "198.51.100.7"),         # the client's own entry is ignored
    (2, PROXY, "1.2.3.4, 198.51.100.7, 10.0.0.1", "198.51.100.7"),
    (2, PROXY, "198.51.100.7", "198.51.100.7"),                  # fewer entries: the leftmost is a proxy's
    (1, PROXY, None, PROXY),                                     # straight to gunicorn (a health check)
    (1, PROXY, "  ", PROXY),
    (1, PROXY, "2001:DB8:0:0::7", "2001:db8::7"),
], ids=lambda value: repr(value))
def test_it_takes_the_client_address_from_the_trusted_proxies_only(settings, proxies, remote, forwarded, expected):
    settings.TRUSTED_PROXIES = proxies
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    assert client_ip(RequestFactory().get("/", REMOTE_ADDR=remote, **extra)) == expected


def test_it_counts_an_ipv6_client_by_its_64_block():
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_key("198.51.100.7") == "198.51.100.7"


def test_drf_and_the_site_read_the_same_trusted_proxies_setting(tmp_path):
    code = ("from django.conf import settings; from rest_framework.settings import api_settings;"
            "print(settings.TRUSTED_PROXIES, api_settings.NUM_PROXIES)")
    done = manage("shell", "--verbosity", "0", "-c", code, tmp_path=tmp_path, KOZYR_TRUSTED_PROXIES="2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]
    done = manage("shell", "--verbosity", "0", "-c", code, tmp_path=tmp_path)
    assert done.stdout.split() == ["0", "0"], "locally no proxy is trusted unless configured"
    bad = manage("check", tmp_path=tmp_path, KOZYR_TRUSTED_PROXIES="one")
    assert bad.returncode != 0
    assert bad.stderr.strip() == "kozyr: bad setting: KOZYR_TRUSTED_PROXIES='one': expected an integer from 0 to 10"


# ---- X-Forwarded-For ------------------------------------------------------------------------------------

def test_it_ignores_a_rotated_x_forwarded_for_without_trusted_proxies(alice, path, settings):
    """The report: 40 wrong passwords, each with a new X-Forwarded-For, then the right one got a token."""
    settings.TRUSTED_PROXIES = 0
    answers = [path.attempt("alice", f"guess-{i}", "203.0.113.9", forwarded=f"198.51.{i}.{i}") for i in range(40)]
    assert answers == ["wrong"] * 10 + ["refused"] * 30, answers
    assert path.attempt("alice", PASSWORD, "203.0.113.9", forwarded="192.0.2.200") == "refused"


def test_it_counts_the_address_the_trusted_proxy_appended(alice, path, settings):
    """Behind the documented proxy every request comes from PROXY: an attacker's failures must not lock the
    owner out (they did: eleven wrong passwords), and the attacker's own forged entries must not help."""
    settings.TRUSTED_PROXIES = 1
    attacker = [path.attempt("alice", f"guess-{i}", PROXY, forwarded=f"10.9.{i}.1, 203.0.113.66") for i in range(12)]
    assert attacker == ["wrong"] * 10 + ["refused"] * 2, attacker
    assert path.attempt("alice", PASSWORD, PROXY, forwarded="6.6.6.6, 203.0.113.66") == "refused"
    assert path.attempt("alice", PASSWORD, PROXY, forwarded="198.51.100.7") == "ok", "the owner was locked out"


# ---- brute force from one address, and nobody locked out from elsewhere ----------------------------------

def test_it_blocks_brute_force_from_one_address(alice, bob, path):
    answers = [path.attempt("alice", f"guess-{i}", "203.0.113.5") for i in range(10)]
    assert answers == ["wrong"] * 10, answers
    assert path.attempt("alice", PASSWORD, "203.0.113.5") == "refused", "the right password got through"
    assert path.attempt("bob", PASSWORD, "203.0.113.5") == "refused", "the address could go on with another account"
    assert path.attempt("alice", PASSWORD, "198.51.100.7") == "ok", "the owner elsewhere was locked out"


def test_it_lets_the_owner_in_after_40_wrong_passwords_from_other_addresses(alice, path):
    answers = [path.attempt("alice", f"guess-{i}", f"203.0.113.{i + 1}") for i in range(40)]
    assert answers == ["wrong"] * 40, answers
    # the account is under attack now: an address that failed for it waits, whatever it sends ...
    assert path.attempt("alice", "guess-again", "203.0.113.1") == "refused"
    assert path.attempt("alice", PASSWORD, "203.0.113.2") == "refused"
    # ... and an address that has not failed gets its try: the owner's
    assert path.attempt("alice", PASSWORD, "198.51.100.7") == "ok", "an attack from elsewhere locked the owner out"


def test_it_gives_an_address_ten_tries_at_an_account_that_is_not_under_attack(alice, path):
    answers = [path.attempt("alice", f"guess-{i}", "203.0.113.5") for i in range(3)]
    assert answers == ["wrong"] * 3
    assert path.attempt("alice", PASSWORD, "203.0.113.5") == "ok", "a few typos locked the owner out"


def test_it_keeps_the_owners_usual_address_working_through_an_attack(alice, path):
    assert path.attempt("alice", PASSWORD, "198.51.100.7") == "ok"  # home, some day before the attack
    answers = [path.attempt("alice", f"guess-{i}", f"203.0.113.{i + 1}") for i in range(40)]
    assert answers == ["wrong"] * 40, answers
    typos = [path.attempt("alice", "a-long-pasword-1", "198.51.100.7") for _ in range(3)]
    assert typos == ["wrong"] * 3, "the owner's usual address was limited like the attacker's"
    assert path.attempt("alice", PASSWORD, "198.51.100.7") == "ok"
    # from a new address the owner gets one try while the attack goes on
    assert path.attempt("alice", "a-long-pasword-1", "192.0.2.44") == "wrong"
    assert path.attempt("alice", PASSWORD, "192.0.2.44") == "refused"


def test_a_known_address_is_still_limited_for_brute_force(alice, path):
    assert path.attempt("alice", PASSWORD, "203.0.113.5") == "ok"
    answers = [path.attempt("alice", f"guess-{i}", "203.0.113.5") for i in range(11)]
    assert answers == ["wrong"] * 10 + ["refused"], answers
    assert path.attempt("alice", PASSWORD, "203.0.113.5") == "refused"


def test_the_web_form_and_the_api_share_the_counters(alice):
    web, api = Web(), Api()
    answers = [(web if i % 2 else api).attempt("alice", f"guess-{i}", "203.0.113.5") for i in range(10)]
    assert answers == ["wrong"] * 10
    assert web.attempt("alice", PASSWORD, "203.0.113.5") == "refused"
    assert api.attempt("alice", PASSWORD, "203.0.113.5") == "refused"


def test_a_refused_log_in_does_not_check_the_password(alice, path):
    """Refusing must be cheap: no user lookup, no password hash (the form must not be validated either)."""
    for i in range(10):
        path.attempt("alice", f"guess-{i}", "203.0.113.5")
    from django.contrib.auth.signals import user_login_failed

    seen = []

    def failed(**kwargs):
        seen.append(kwargs)

    user_login_failed.connect(failed)
    try:
        assert path.attempt("alice", PASSWORD, "203.0.113.5") == "refused"
        assert path.attempt("alice", "guess", "203.0.113.5") == "refused"
    finally:
        user_login_failed.disconnect(failed)
    assert seen == [], "authenticate() ran for a refused log-in"


# ---- on Redis, production's cache -------------------------------------------------------------------------

@pytest.fixture
def redis_cache(settings):
    """Django's cache on a real Redis under a prefix of this test's own; yields this test's keys' TTLs."""
    prefix = f"limits-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": REDIS_URL, "KEY_PREFIX": prefix}}
    server = redis.Redis.from_url(REDIS_URL)
    yield lambda: {key: server.ttl(key) for key in server.scan_iter(match=f"{prefix}:*", count=1000)}
    for key in server.scan_iter(match=f"{prefix}:*", count=1000):
        server.delete(key)


def test_the_limits_hold_on_redis_and_every_counter_expires(alice, redis_cache):
    api = Api()
    assert [api.attempt("alice", f"guess-{i}", "203.0.113.5") for i in range(11)] == ["wrong"] * 10 + ["refused"]
    assert [api.attempt("alice", f"guess-{i}", f"198.51.100.{i + 1}") for i in range(20)] == ["wrong"] * 20
    assert api.attempt("alice", PASSWORD, "198.51.100.1") == "refused"  # under attack: one try per address
    assert api.attempt("alice", PASSWORD, "192.0.2.7") == "ok"
    ttls = redis_cache()
    assert len(ttls) > 20, ttls
    assert all(ttl > 0 for ttl in ttls.values()), "a counter without an expiry stays in Redis for ever"
