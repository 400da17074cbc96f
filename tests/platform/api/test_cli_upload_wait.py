"""`arena upload --wait` when the site, not the bot, failed the validation: the version is in `error` (docs/
matches.md: never the bot's fault), and the owner is told so, with an exit status of its own, never that the
bot was rejected."""

from __future__ import annotations

import pytest

from arena import cli
from bots.models import BotVersion
from tests.platform.api.test_cli_client import site  # noqa: F401  (the live site, validations played in threads)
from tests.platform.conftest import EXAMPLES

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_validation_the_site_could_not_play_is_not_reported_as_a_rejection(site, alice, token_for,  # noqa: F811
                                                                             settings, monkeypatch, capsys):
    import play.match

    def engine_down(job):
        raise RuntimeError("the container engine does not answer")

    monkeypatch.setattr(play.match, "play", engine_down)
    settings.MAX_ATTEMPTS = 1  # the first infrastructure failure is the last
    assert cli.main(["login", site, "--token", token_for(alice)]) == 0
    capsys.readouterr()
    code = cli.main(["upload", str(EXAMPLES / "bura" / "python"), "--game", "bura", "--bot", "unlucky", "--wait"])
    out = capsys.readouterr().out
    assert BotVersion.objects.get(bot__name="unlucky", number=1).status == BotVersion.Status.ERROR
    assert code == 3, out
    assert "rejected" not in out
    assert "v1 could not be validated, through no fault of the bot: the validation match could not be played" in out
    assert "the container engine does not answer" in out and "upload it again" in out
