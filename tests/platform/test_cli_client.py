"""`arena login`, `arena upload --wait` and `arena bots` against a live site (real HTTP, the test database)."""

from __future__ import annotations

import json
import stat
import threading

import pytest

from arena import cli
from matches import actions
from tests.platform.conftest import EXAMPLES

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch, tmp_path, house_bots):
    """The live site, a config folder of our own, and validation matches played as a worker would."""
    from matches.tasks import play_match

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(actions, "publish", lambda match_id, queue: threading.Thread(
        target=play_match, args=(match_id,), daemon=True).start())
    return live_server.url


def test_it_logs_in_with_a_password_and_keeps_the_token_private(site, alice, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt: "alice")
    monkeypatch.setattr("getpass.getpass", lambda prompt: "a-long-password-1")
    assert cli.main(["login", site]) == 0
    path = tmp_path / "config" / "kozyr" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    saved = json.loads(path.read_text())
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
    crasher.write_bytes((EXAMPLES.parent / "tests" / "platform" / "bots" / "crash.py").read_bytes())
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    assert cli.main(["upload", str(crasher), "--game", "bura", "--bot", "crasher", "--wait"]) == 1
    assert "v1 was rejected: crash" in capsys.readouterr().out


def test_it_refuses_an_upload_before_login_and_a_bad_url(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    assert cli.main(["bots"]) == 2
    assert "not logged in" in capsys.readouterr().err
    assert cli.main(["login", "ftp://example.org", "--token", "x"]) == 2
    assert "is not a site address" in capsys.readouterr().err
