"""The match list: filters, newest first, a cursor through the pages, and a fixed number of queries."""

from __future__ import annotations

from bots.actions import house_version
from matches import actions
from play.tasks import play_match


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


def test_63_bit_seeds_come_as_text_so_javascript_reads_them_exactly(api, house_bots, monkeypatch):
    big = 2**62 + 12345  # a JavaScript Number holds integers exactly only up to 2**53
    monkeypatch.setattr(actions, "new_base_seed", lambda: big)
    match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                 seat_versions=[house_version("bura", "greedy"), house_version("bura", "random")])
    assert play_match(match.pk) == "finished"
    match.refresh_from_db()
    detail = api.get(f"/api/v1/matches/{match.pk}/").json()
    assert detail["base_seed"] == str(big) and detail["seed"] == str(match.seed)
    assert detail["result"]["seed"] == str(match.result["seed"])  # stored as a number, served as text
    assert detail["result"]["ranks"] == match.result["ranks"]  # small integers stay numbers
    listed = api.get("/api/v1/matches/").json()["results"][0]
    assert listed["base_seed"] == str(big) and isinstance(listed["result"]["seed"], str)
