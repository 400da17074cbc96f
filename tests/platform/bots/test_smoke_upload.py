"""An uploaded Python bot is checked, stored, validated by a real match in the sandbox, and becomes ready."""

from bots.models import BotVersion
from matches.models import Match
from play.tasks import play_match
from tests.platform.conftest import python_bot


def test_it_validates_an_uploaded_python_bot(alice, bura_bot, upload, settings):
    response = upload(alice, "alice-bura", "main.py", python_bot("bura"))
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == "pending"
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == "ready", version.reason
    bura_bot.refresh_from_db()
    assert bura_bot.current_version == version
    match = Match.objects.get(pk=version.validation_match_id)
    assert match.status == "finished" and match.replay_sha256
