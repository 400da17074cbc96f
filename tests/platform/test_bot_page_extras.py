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
