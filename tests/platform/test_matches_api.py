"""The match list: filters, newest first, a cursor through the pages, and a fixed number of queries."""

from __future__ import annotations

from bots.actions import house_version
from matches import actions
from matches.tasks import play_match


def test_it_lists_filters_and_pages_matches_in_few_queries(api, house_bots, django_assert_max_num_queries):
    greedy, rand, p50 = (house_version("bura", n) for n in ("greedy", "random", "greedy-p50"))
    made = []
    for versions in ([greedy, rand], [p50, rand], [greedy, p50]):
        made += actions.create_duplicate_set(kind="ladder", preset="bura", versions=versions, ranked=True,
                                             overrides={"match": "deals:1"})
    for match in made[:2]:
        assert play_match(match.pk) == "finished"
    with django_assert_max_num_queries(4):
        page = api.get("/api/v1/matches/", {"page_size": 4}).json()
    assert [m["id"] for m in page["results"]] == sorted((m.pk for m in made), reverse=True)[:4]
    assert page["next"] and "cursor=" in page["next"]
    rest = api.get(page["next"]).json()
    assert [m["id"] for m in rest["results"]] == sorted((m.pk for m in made), reverse=True)[4:]
    mine = api.get("/api/v1/matches/", {"bot": "greedy-p50-bura"}).json()["results"]
    assert len(mine) == 4 and all(any(s["bot"] == "greedy-p50-bura" for s in m["seats"]) for m in mine)
    done = api.get("/api/v1/matches/", {"status": "finished", "kind": "ladder"}).json()["results"]
    assert {m["id"] for m in done} == {made[0].pk, made[1].pk}
    detail = api.get(f"/api/v1/matches/{made[0].pk}/").json()
    assert detail["reproduce"].startswith("arena play bura builtin:") and detail["seed"] == str(made[0].seed)
