"""Log-in limits, one policy for every path that checks a password.

Every password check runs through :func:`check_password_under_limits`: ``authenticate()`` through the site's
authentication backend (accounts/backends.py), so the site's log-in form, ``/admin/login/`` and the API's token
log-in (what ``arena login`` calls) alike; and the old-password check of the password-change forms, the site's
and the admin's (accounts/forms.py). A refused check raises :class:`LoginRefused` before the password is looked
at; a form shows its message and its page answers 429 with ``Retry-After`` (accounts/views.py, accounts/
admin_site.py), the API its throttled error.

Addresses are :func:`accounts.limits.client_key` (the trusted proxies' view; an IPv6 /64 counts as one).
In a sliding window of 10 minutes:

1. **Per address.** An address may fail 10 log-ins, whatever the accounts; then every log-in from it is
   refused (429) until its failures slide out. One machine can neither guess one password nor try many
   accounts.
2. **Per account.** An account that failed 20 log-ins, from all addresses together, is *under attack*.
   While it is, an address may try it once per window: a distributed attacker gets one guess per address
   instead of ten.
3. **Known addresses.** An address that logged in to the account in the last 30 days is known for it: it
   is limited by its own failures for that account only (10), under attack or not, and rule 1 does not
   apply to it.

Why nobody elsewhere can lock the owner out: rule 1 counts an address's own failures, rule 2 never
refuses an address's first try at the account, rule 3 counts only the pair's own failures. So a correct
password from an address that has not failed for the account in the window (and has not failed 10 times
itself) always succeeds, whatever other addresses did; and from an address it has logged in from before,
even after a few typos (tests/platform/accounts/test_login_limits.py). A success takes back its own provisional
count but never clears earlier failures: an attacker logging in to an account of their own between
guesses would reset their address.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from django.core.exceptions import ValidationError

from accounts.limits import Counter, Limit, RateLimited, account_key, client_key, in_words

T = TypeVar("T")

WINDOW_SECONDS = 600
PER_ADDRESS = Limit("login-address", 10, WINDOW_SECONDS, "failed log-ins from one address")
PER_PAIR = Limit("login-pair", 10, WINDOW_SECONDS, "failed log-ins to one account from one address")
PER_ACCOUNT = Limit("login-account", 20, WINDOW_SECONDS, "failed log-ins to one account")
UNDER_ATTACK_TRIES = 1  # per address and window, at an account under attack, from an address not known for it
KNOWN_SECONDS = 30 * 86400


class LoginAttempt:
    """One log-in: ``begin()`` before the password is checked (RateLimited when refused), then
    ``failed()`` or ``succeeded()``."""

    def __init__(self, request, username: str):
        self.address = client_key(request)
        self.account = account_key(username)
        self.pair = f"{self.account}:{self.address}"
        self.held: list[tuple[Counter, str]] = []

    @property
    def known_key(self) -> str:
        return f"kz-login-known:{self.pair}"

    def begin(self) -> None:
        """Count the attempt as a failure before checking it (so concurrent guesses cannot all slip under
        the limit), or refuse it counting nothing."""
        if cache.get(self.known_key):
            pair = Counter(PER_PAIR, self.pair)
            self.held = [(pair, self._take(pair, "Too many failed log-ins to this account from your address"))]
            return
        address = Counter(PER_ADDRESS, self.address)
        self.held = [(address, self._take(address, "Too many failed log-ins from your address"))]
        pair = Counter(PER_PAIR, self.pair, count=UNDER_ATTACK_TRIES)
        self.held.append((pair, pair.add()))
        if pair.used() > UNDER_ATTACK_TRIES and Counter(PER_ACCOUNT, self.account).used() >= PER_ACCOUNT.count:
            self._release()
            wait = pair.wait()
            raise RateLimited(f"Too many failed log-ins to this account from many addresses: while they go on, an "
                              f"address it has not logged in from gets one try per {WINDOW_SECONDS // 60} minutes. "
                              f"Try again in {in_words(wait)}, or from an address you have logged in from before.",
                              wait)

    @staticmethod
    def _take(counter: Counter, what: str) -> str:
        try:
            return counter.take()
        except RateLimited as err:
            raise RateLimited(f"{what} (at most {counter.limit.count} per {WINDOW_SECONDS // 60} minutes); "
                              f"try again in {in_words(err.wait)}.", err.wait) from None

    def _release(self) -> None:
        for counter, key in self.held:
            counter.remove(key)
        self.held = []

    def failed(self) -> None:
        self.held = []  # the provisional counts stay: they were failures
        Counter(PER_ACCOUNT, self.account).add()

    def succeeded(self) -> None:
        self._release()
        cache.set(self.known_key, True, KNOWN_SECONDS)


class LoginRefused(ValidationError):
    """A password check the limits refused before it ran. A ValidationError, so a form shows its message as
    its error (the reason and when to try again); ``wait`` is the seconds for ``Retry-After``."""

    def __init__(self, refused: RateLimited):
        super().__init__(str(refused), code="throttled")
        self.refused = refused
        self.wait = refused.wait


def check_password_under_limits(request, username: str, check: Callable[[], T]) -> T:
    """``check()`` (the password check: a user, or True, when the password is right; falsy when wrong) for
    ``username`` from the request's address, counted under the log-in limits: LoginRefused, and no check at all,
    when they refuse it."""
    attempt = LoginAttempt(request, username)
    try:
        attempt.begin()
    except RateLimited as err:
        raise LoginRefused(err) from None
    result = check()
    if result:
        attempt.succeeded()
    else:
        attempt.failed()
    return result


def refusal_of(form) -> LoginRefused | None:
    """The LoginRefused among a form's errors, if the limits refused its password check."""
    for errors in form.errors.as_data().values():
        for error in errors:
            if isinstance(error, LoginRefused):
                return error
    return None


def answered_as_refused(response, form):
    """A page whose form the limits refused answers 429 with ``Retry-After`` (the form says why)."""
    refusal = refusal_of(form)
    if refusal is not None:
        response.status_code = 429
        response["Retry-After"] = str(refusal.wait)
    return response
