"""A forgotten password is reset by a link mailed to the account's address (Django's own views and tokens).
Whether an address belongs to an account is never said, and the requests are limited like log-ins."""

from __future__ import annotations

import re

import pytest

from config.env import Environment, SettingError

LINK = re.compile(r"https?://[^/\s]+(/password/reset/[^\s]+/[^\s]+/)")


def ask(client, email: str, address: str = "10.0.0.1"):
    return client.post("/password/reset/", {"email": email}, REMOTE_ADDR=address)


def test_it_mails_a_one_use_link_that_sets_a_new_password(client, make_user, mailoutbox):
    make_user("carol", email="carol@example.org")
    login = client.get("/login/").content.decode()
    assert 'href="/password/reset/"' in login
    answer = ask(client, "Carol@Example.org")
    assert answer.status_code == 302 and answer["Location"] == "/password/reset/sent/"
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["carol@example.org"]
    body = mailoutbox[0].body
    assert '"carol"' in body and "24 hours" in body
    link = LINK.search(body).group(1)
    form = client.get(link, follow=True)
    assert b"Choose a new password" in form.content
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "another-long-pass-2",
                                                    "new_password2": "another-long-pass-2"})
    assert done.status_code == 302 and done["Location"] == "/password/reset/done/"
    assert client.login(username="carol", password="another-long-pass-2")
    client.logout()
    again = client.get(link, follow=True)
    assert b"This link no longer works" in again.content  # used once: gone


def test_it_answers_an_unknown_address_exactly_as_a_known_one(client, make_user, mailoutbox):
    make_user("carol", email="carol@example.org")
    known, unknown = ask(client, "carol@example.org"), ask(client, "nobody@example.org")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert len(mailoutbox) == 1
    sent = client.get("/password/reset/sent/").content.decode()
    assert "If an account has that address" in sent


def test_it_limits_requests_per_e_mail_address_and_per_client(client, make_user, mailoutbox):
    make_user("carol", email="carol@example.org")
    for i in range(3):
        assert ask(client, "carol@example.org", f"10.0.1.{i}").status_code == 302
    refused = ask(client, "carol@example.org", "10.0.1.9")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many password-reset requests" in refused.content.decode()
    assert len(mailoutbox) == 3
    for i in range(3):  # an unknown address: counted and refused alike, so a refusal tells nothing either
        assert ask(client, "nobody@example.org", f"10.0.2.{i}").status_code == 302
    assert ask(client, "nobody@example.org", "10.0.2.9").status_code == 429
    for i in range(10):  # one client asking for many addresses
        ask(client, f"someone{i}@example.org", "10.0.3.1")
    assert ask(client, "else@example.org", "10.0.3.1").status_code == 429
    assert ask(client, "else@example.org", "10.0.3.2").status_code == 302


@pytest.mark.parametrize(("url", "expected"), [
    ("smtp+tls://kozyr:p%40ss@mail.example.org:587",
     {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "mail.example.org",
      "EMAIL_PORT": 587, "EMAIL_HOST_USER": "kozyr", "EMAIL_HOST_PASSWORD": "p@ss", "EMAIL_USE_TLS": True}),
    ("filemail:///srv/kozyr/mail", {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
                                    "EMAIL_FILE_PATH": "/srv/kozyr/mail"}),
    ("consolemail://", {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}),
])
def test_it_reads_the_mail_server_from_one_url(url, expected):
    assert Environment({"KOZYR_EMAIL_URL": url}).email("KOZYR_EMAIL_URL", "consolemail://") == expected


@pytest.mark.parametrize(("url", "says"), [("gopher://x", "expected smtp\\+tls://"),
                                           ("smtp+tls://:587", "names no mail server")])
def test_it_refuses_a_mail_url_it_cannot_use(url, says):
    with pytest.raises(SettingError, match=says):
        Environment({"KOZYR_EMAIL_URL": url}).email("KOZYR_EMAIL_URL", "consolemail://")
