"""`arena challenge` against a live site: it prints the matches, and with --wait their result."""

from __future__ import annotations

import pytest

from arena import cli, client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch, tmp_path, house_bots, thread_worker):
    """The live site, a config folder of our own, and a worker thread playing matches as they are published."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(client, "WAIT_SECONDS", 120)
    return live_server.url


@pytest.fixture
def ready_bot(alice):
    from bots.actions import do_create_bot
    from bots.models import BotVersion

    bot = do_create_bot(alice, game="bura", name="cli-challenger")
    bot.current_version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", status="ready")
    bot.save()
    return bot


def test_it_challenges_and_waits_for_the_result(site, alice, ready_bot, token_for, capsys):
    from matches.models import Match

    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    capsys.readouterr()
    assert cli.main(["challenge", "cli-challenger", "random-bura", "--preset", "bura", "--wait"]) == 0
    out = capsys.readouterr().out
    matches = list(Match.objects.filter(kind="challenge").order_by("rotation"))
    assert len(matches) == 2 and all(m.status == "finished" for m in matches)
    assert out.startswith("cli-challenger challenges random-bura on bura: 2 unranked matches, a duplicate set: "
                          "the same cards, the seats swapped")
    for match in matches:
        assert f"{site}/matches/{match.pk}/" in out
        seats = sorted(match.seats.all(), key=lambda s: s.rank)
        if seats[0].rank != seats[1].rank:
            assert f"match {match.pk}: {seats[0].version.bot.name} beat {seats[1].version.bot.name}" in out
        else:
            assert f"match {match.pk}: a draw" in out
    assert "result: " in out and "(1 a match won, 0.5 a draw)" in out


def test_it_prints_the_servers_reason_for_a_refused_challenge(site, alice, ready_bot, token_for, capsys):
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    assert cli.main(["challenge", "cli-challenger", "random-bura", "--preset", "bura-3p"]) == 2
    assert "bura-3p is a 3-sided game; a challenge is between two bots" in capsys.readouterr().err
