"""A Python bot's failure says why in its own words (issue 36, "Python failures hide the real error"): a syntax
error, or an exception at the first request, puts the exception and its file and line in the version's rejection
reason (its owner's alone), and the owner's stderr of the request the bot died at is served for the viewer. Real
sandboxed bots, played in-process by the worker's task."""

from __future__ import annotations

from pathlib import Path

from bots.models import BotVersion
from matches.models import Seat
from play.tasks import play_match
from tests.platform.conftest import zip_of

BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"


def rejected(alice, bura_bot, upload, source: str) -> BotVersion:
    assert upload(alice, bura_bot.name, "bot.zip", zip_of({"main.py": (BOTS / source).read_bytes()})).status_code == 201
    version = BotVersion.objects.filter(bot=bura_bot).latest("number")
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    return version


def test_a_syntax_error_is_named_with_its_line_in_the_reason(alice, bura_bot, upload):
    version = rejected(alice, bura_bot, upload, "syntax_error.py")
    assert version.reason.startswith("crash (exited): SyntaxError: invalid syntax at main.py:6; the bot exited "
                                     "with code 1 waiting for 'ready' after hello"), version.reason
    seat = Seat.objects.get(match_id=version.validation_match_id, version=version)
    assert "SyntaxError" not in seat.detail  # a seat's detail is public; the bot's stderr is not


def test_an_exception_at_the_first_request_is_named_and_its_stderr_served_at_that_request(alice, bob, bura_bot,
                                                                                          upload, client):
    version = rejected(alice, bura_bot, upload, "raises_at_first_request.py")
    assert "ValueError: no action I like among " in version.reason and " at main.py:8; the bot exited with code 1 " \
        "answering request " in version.reason, version.reason
    seat = Seat.objects.get(match_id=version.validation_match_id, version=version)
    client.force_login(alice)
    logs = client.get(f"/matches/{seat.match_id}/stderr/").json()["seats"][str(seat.seat)]
    died_at = version.reason.split("answering request ")[1].split(";")[0]
    assert any(line.startswith("ValueError: no action I like") for line in logs[died_at]), logs
    client.force_login(bob)
    assert client.get(f"/matches/{seat.match_id}/stderr/").status_code == 404
