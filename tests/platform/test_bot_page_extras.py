"""What the bot and match pages promise beyond results: trophies, the owner's logs, challenges, live status."""

from __future__ import annotations

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from matches.tasks import play_match


def test_it_shows_a_bots_trophies_on_its_page(client, alice, as_user, house_bots, django_assert_max_num_queries):
    from tests.platform.test_tournaments_platform import host_tournament, run_to_the_end
    from tournaments import running
    from tournaments.models import Tournament, Trophy

    field = ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]
    pk = host_tournament(alice, as_user, field, name="Trophy Cup")
    running.start(Tournament.objects.get(pk=pk))
    run_to_the_end(pk)
    trophies = {t.place: t.bot.name for t in Trophy.objects.filter(tournament_id=pk)}
    assert sorted(trophies) == [1, 2, 3]
    with django_assert_max_num_queries(40):
        html = client.get(f"/bots/{trophies[1]}/").content.decode()
    assert "Trophies" in html and f'won <a href="/tournaments/{pk}/">Trophy Cup</a>' in html
    assert f'second in <a href="/tournaments/{pk}/">Trophy Cup</a>' in client.get(
        f"/bots/{trophies[2]}/").content.decode()
    loser = next(name for name in field if name not in trophies.values())
    assert "Trophies" not in client.get(f"/bots/{loser}/").content.decode()


@pytest.fixture
def logged_match(bura_bot, house_bots):
    """A match of alice's bot against a house bot, with a stderr log stored for alice's seat."""
    from bots import blobs
    from bots.models import BotVersion

    version = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    match = actions.create_duplicate_set(kind="ladder", preset="bura",
                                         versions=[version, house_version("bura", "greedy")])[0]
    seat = match.seats.get(version=version)
    data = b"[1] thinking about the trump\n[2] playing QS"
    seat.log_sha256, seat.log_size = blobs.put("logs", data), len(data)
    seat.save()
    return match, seat.seat, data


def test_the_match_page_offers_the_owner_their_bots_log(client, alice, bob, logged_match):
    match, seat, data = logged_match
    link = f'href="/api/v1/matches/{match.pk}/seats/{seat}/log/"'
    client.force_login(alice)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert link in html and "stderr log</a>" in html
    answer = client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/")
    assert answer.status_code == 200 and answer.content == data
    assert html.count('class="seat-log"') == 1  # the house bot's seat has no log, and is not alice's


def test_nobody_else_sees_or_gets_the_log(client, bob, logged_match):
    match, seat, _ = logged_match
    link = f'href="/api/v1/matches/{match.pk}/seats/{seat}/log/"'
    assert link not in client.get(f"/matches/{match.pk}/").content.decode()
    assert client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/").status_code in (401, 403)  # signed out
    client.force_login(bob)
    assert link not in client.get(f"/matches/{match.pk}/").content.decode()
    assert client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/").status_code == 404
