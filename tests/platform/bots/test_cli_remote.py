"""`arena remote` against a live site: it makes a remote version (and its bot), shows its token once with the
`arena connect` command, and shows, renews and revokes the bot's tokens; the site's refusals are printed."""

from __future__ import annotations

import re

import pytest

from arena import cli

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = re.compile(r"^token: (kzr_remote_\S+)$", re.MULTILINE)


@pytest.fixture
def site(live_server, monkeypatch, tmp_path, house_bots):
    """The live site and a config folder of our own. No match is played: a remote version stays pending until
    it connects, and nothing here connects."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return live_server.url


@pytest.fixture
def logged_in(site, alice, token_for, capsys):
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    capsys.readouterr()
    return site


def made_token(out: str) -> str:
    found = TOKEN.findall(out)
    assert len(found) == 1, out  # printed once, on its own line
    return found[0]


def test_it_makes_a_remote_version_and_shows_renews_and_revokes_its_tokens(logged_in, alice, capsys):
    from bots.models import Bot, RemoteConnection
    from bots.remote import open_connection, remote_version, token_bot

    site = logged_in
    assert cli.main(["remote", "far-cli", "--game", "bura", "--preset", "bura", "--preset", "bura-3p"]) == 0
    out = capsys.readouterr().out
    bot = Bot.objects.get(name="far-cli")
    assert bot.owner == alice and bot.game == "bura" and sorted(bot.presets) == ["bura", "bura-3p"]
    assert "created bot far-cli (bura, playing bura, bura-3p)" in out
    assert "made far-cli v1 (remote): pending until it connects" in out
    first = made_token(out)
    assert "shown only now" in out
    assert f"arena connect --site {site} --bot far-cli --token {first} -- ./my_bot" in out
    assert "replace ./my_bot with your bot's command" in out
    found = token_bot(first)  # the token printed is one the site takes, for this bot only
    assert found is not None and found.bot_id == bot.pk
    version = bot.versions.get()
    assert (version.number, version.runtime, version.status) == (1, "remote", "pending")

    # `arena bots` lists the version with its runtime
    assert cli.main(["bots"]) == 0
    assert re.search(r"^  v1\s+pending\s+remote\s", capsys.readouterr().out, re.MULTILINE)

    # the API lists the token by its prefix
    assert cli.main(["remote", "far-cli", "--status"]) == 0
    out = capsys.readouterr().out
    assert "far-cli: no open connection" in out
    assert re.search(rf"^  {re.escape(first[:15])}…  created \S+ \S+  last used never  live$", out, re.MULTILINE)
    assert "allowance: 500 ms" in out  # the cap: nothing measured yet

    # a second remote version of an existing bot needs no --game
    assert cli.main(["remote", "far-cli"]) == 0
    out = capsys.readouterr().out
    assert "created bot" not in out and "made far-cli v2 (remote)" in out
    second = made_token(out)

    assert cli.main(["remote", "far-cli", "--new-token"]) == 0
    out = capsys.readouterr().out
    third = made_token(out)
    assert "shown only now" in out and f"--token {third} -- ./my_bot" in out
    assert len({first, second, third}) == 3 and all(token_bot(t) for t in (first, second, third))

    # an open connection (its row, as the site's websocket handler writes one) with a measured round trip
    connection = open_connection(token_bot(first), remote_version(bot), address="127.0.0.1", max_matches=3)
    RemoteConnection.objects.filter(pk=connection.pk).update(rtt_p95_ms=12, rtt_samples=40)
    assert cli.main(["remote", "far-cli", "--status"]) == 0
    out = capsys.readouterr().out
    assert "far-cli: 1 open connection\n" in out
    assert re.search(r"^  v2\s+since \S+ \S+  round trip p95 12 ms \(40 samples\)  3 matches at once$", out,
                     re.MULTILINE)
    assert out.count(" live\n") == 3 and "tokens (3, newest first):" in out
    assert all(f"  {t[:15]}…  created" in out for t in (first, second, third))
    assert re.search(rf"^  {re.escape(first[:15])}…  created \S+ \S+  last used \d{{4}}-\S+ \S+  live$", out,
                     re.MULTILINE)  # used by the connection
    assert "allowance: 12 ms" in out

    assert cli.main(["remote", "far-cli", "--revoke"]) == 0
    assert "revoked 3 tokens of far-cli" in capsys.readouterr().out
    assert not any(token_bot(t) for t in (first, second, third))
    assert cli.main(["remote", "far-cli", "--status"]) == 0
    out = capsys.readouterr().out
    assert out.count(" live\n") == 0 and out.count("  revoked ") == 3
    assert cli.main(["remote", "far-cli", "--revoke"]) == 0
    assert "far-cli had no token to revoke" in capsys.readouterr().out


def test_it_prints_the_sites_reason_when_it_refuses(logged_in, alice, bob, token_for, capsys):
    from bots.actions import do_create_bot, system_user
    from bots.models import Bot, BotVersion, RemoteToken

    do_create_bot(bob, game="bura", name="bobs-bot")
    for args in (["remote", "bobs-bot"], ["remote", "bobs-bot", "--status"], ["remote", "bobs-bot", "--new-token"],
                 ["remote", "bobs-bot", "--revoke"], ["remote", "greedy-bura"]):
        assert cli.main(args) == 2, args
        assert "arena: error: no such bot (HTTP 404)" in capsys.readouterr().err, args
    assert not RemoteToken.objects.exists()
    assert not BotVersion.objects.filter(runtime="remote").exists()

    assert cli.main(["remote", "no-such-bot"]) == 2  # nothing to make it from
    assert "there is no bot no-such-bot yet: give --game GAME to create it" in capsys.readouterr().err
    assert not Bot.objects.filter(name="no-such-bot").exists()
    assert cli.main(["remote", "bobs-bot", "--game", "kozel"]) == 2
    assert "bot bobs-bot plays bura, not kozel" in capsys.readouterr().err
    assert cli.main(["remote", "new-bot", "--game", "bura", "--preset", "kozel-2p"]) == 2  # the site validates
    err = capsys.readouterr().err
    assert "arena: error: " in err and "(HTTP 400)" in err and not Bot.objects.filter(name="new-bot").exists()
    do_create_bot(alice, game="bura", name="alices-bot")
    assert cli.main(["remote", "alices-bot", "--preset", "bura"]) == 2  # presets are set when a bot is created
    assert "bot alices-bot already exists and plays" in capsys.readouterr().err
    assert cli.main(["remote", "bobs-bot", "--status", "--game", "bura"]) == 2
    assert "--game and --preset are for making a remote version" in capsys.readouterr().err

    # the house bots' owner is told why a house bot has no remote version
    assert cli.main(["login", logged_in, "--token", token_for(system_user())]) == 0
    capsys.readouterr()
    for args in (["remote", "greedy-bura"], ["remote", "greedy-bura", "--new-token"]):
        assert cli.main(args) == 2, args
        assert "house bots are built in and have no remote versions (HTTP 400)" in capsys.readouterr().err, args
    assert not RemoteToken.objects.exists()
    assert not BotVersion.objects.filter(runtime="remote").exists()
