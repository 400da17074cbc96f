"""`arena login`, `arena upload --wait` and `arena bots` against a live site (real HTTP, the test database)."""

from __future__ import annotations

import json
import stat

import pytest

from arena import cli
from tests.platform.conftest import EXAMPLES

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch, tmp_path, house_bots, thread_worker):
    """The live site, a config folder of our own, and validation matches played by a worker thread."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return live_server.url


def test_it_logs_in_with_a_password_and_keeps_the_token_private(site, alice, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt: "alice")
    monkeypatch.setattr("getpass.getpass", lambda prompt: "a-long-password-1")
    assert cli.main(["login", site]) == 0
    path = tmp_path / "config" / "kozyr" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    saved = json.loads(path.read_text())["sites"][site]
    assert saved["username"] == "alice" and saved["token"].startswith("kz_")
    assert "logged in" in capsys.readouterr().out


def test_it_shows_the_servers_message_for_a_wrong_password(site, alice, monkeypatch, capsys):
    monkeypatch.setattr("getpass.getpass", lambda prompt: "wrong")
    assert cli.main(["login", site, "--username", "alice"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "arena: error: wrong username or password (or the account is suspended) (HTTP 401)"


def test_it_uploads_waits_for_validation_and_lists_my_bots(site, alice, token_for, capsys):
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    bot_dir = EXAMPLES / "bura" / "python"
    assert cli.main(["upload", str(bot_dir), "--game", "bura", "--bot", "cli-bot", "--wait"]) == 0
    out = capsys.readouterr().out
    assert "created bot cli-bot (bura)" in out and "v1 is ready" in out
    assert cli.main(["bots"]) == 0
    listing = capsys.readouterr().out
    assert "cli-bot  (bura, active, current v1)" in listing and "ready" in listing


def test_it_exits_1_with_the_reason_when_validation_rejects_the_bot(site, alice, token_for, tmp_path, capsys):
    crasher = tmp_path / "crash.py"
    crasher.write_bytes((EXAMPLES.parent / "tests" / "data" / "bots" / "crash.py").read_bytes())
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    assert cli.main(["upload", str(crasher), "--game", "bura", "--bot", "crasher", "--wait"]) == 1
    assert "v1 was rejected: crash" in capsys.readouterr().out


def test_it_refuses_an_upload_before_login_and_a_bad_url(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    assert cli.main(["bots"]) == 2
    assert "not logged in" in capsys.readouterr().err
    assert cli.main(["login", "ftp://example.org", "--token", "x"]) == 2
    assert "is not a site address" in capsys.readouterr().err


def test_it_keeps_one_token_per_site_and_picks_a_site_per_command(site, alice, bob, token_for, tmp_path, capsys,
                                                                  monkeypatch):
    # One live server under two addresses stands in for two sites, each logged in to as someone else.
    other = site.replace("localhost", "127.0.0.1")
    assert other != site
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    assert cli.main(["login", other, "--token", token_for(bob)]) == 0
    capsys.readouterr()
    assert cli.main(["sites"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing == sorted([f"  {site}  as alice", f"* {other}  as bob"], key=lambda line: line[2:])
    saved = json.loads((tmp_path / "config" / "kozyr" / "credentials.json").read_text())
    assert set(saved["sites"]) == {site, other} and saved["default"] == other
    assert cli.main(["upload", str(EXAMPLES / "bura" / "python"), "--game", "bura", "--bot", "alices-bot",
                     "--site", site]) == 0
    from bots.models import Bot

    assert Bot.objects.get(name="alices-bot").owner == alice  # --site chose alice's token, not the default's
    monkeypatch.setenv("KOZYR_SITE", site.split("://")[1])  # a host name is enough
    assert cli.main(["bots"]) == 0
    assert "alices-bot" in capsys.readouterr().out
    monkeypatch.delenv("KOZYR_SITE")
    assert cli.main(["sites", "--default", site]) == 0
    assert f"* {site}  as alice" in capsys.readouterr().out.splitlines()
    assert cli.main(["bots", "--site", "https://elsewhere.example"]) == 2
    err = capsys.readouterr().err
    assert "not logged in to https://elsewhere.example" in err and site in err


def test_it_reads_a_one_site_credentials_file_of_the_earlier_form(site, alice, token_for, tmp_path, capsys):
    folder = tmp_path / "config" / "kozyr"
    folder.mkdir(parents=True)
    (folder / "credentials.json").write_text(json.dumps({"url": site, "token": token_for(alice),
                                                         "username": "alice"}))
    assert cli.main(["bots"]) == 0
    assert cli.main(["login", site.replace("localhost", "127.0.0.1"), "--token", token_for(alice)]) == 0
    saved = json.loads((folder / "credentials.json").read_text())
    assert site in saved["sites"] and len(saved["sites"]) == 2  # the old site kept beside the new one
