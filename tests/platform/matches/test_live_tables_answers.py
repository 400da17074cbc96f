"""What a table's page needs to answer once and to offer only what the rules allow (issue 36): the lines say
whether the seat said ready and which open request was answered already (so a reopened page sends neither
again, and gets no 409), and ``check/`` says which plays the rules would refuse, in the rules' words, without
playing any."""

from __future__ import annotations

import time

import orjson
import pytest

from tests.platform.matches.test_live_tables import play_in_thread, sit_down

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def person(house_bots, make_user, monkeypatch, settings):
    from django.test import Client

    from matches import actions

    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: None)  # the test plays them
    # each test answers a request or two, then resigns (or, in the last, lets the person's clock end the match)
    settings.PERSON_MOVE_SECONDS, settings.PERSON_BANK_SECONDS = 5, 0
    client = Client()
    client.force_login(make_user("ann"))
    return client


def post(client, url: str, body: dict):
    return client.post(url, orjson.dumps(body), content_type="application/json")


def first_request(client, match_id: int, timeout: float = 30) -> tuple[dict, int]:
    """Say ready as the page does, then wait for the seat's first request: (the request, lines read)."""
    after, deadline = 0, time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/play/{match_id}/lines/?after={after}").json()
        for entry in body["lines"]:
            if entry["m"]["type"] == "hello":
                assert not body["ready"]
                assert post(client, f"/play/{match_id}/answer/", {"type": "ready"}).status_code == 200
            if entry["m"]["type"] == "request":
                return entry["m"], after + len(body["lines"])
        after += len(body["lines"])
        time.sleep(0.05)
    raise AssertionError("no request came")


def test_a_reopened_page_is_told_it_said_ready_and_answered_its_request(person):
    client = person
    match_id = sit_down(client, "greedy-bura", "bura")
    played = play_in_thread(match_id)
    request, read = first_request(client, match_id)
    fresh = client.get(f"/play/{match_id}/lines/?after=0").json()  # a page opened afresh reads every line
    assert fresh["ready"] is True and fresh["answered"] == []
    action = request["legal_actions"][0]
    assert post(client, f"/play/{match_id}/answer/", {"type": "action", "id": request["id"],
                                                      "action": action}).status_code == 200
    assert request["id"] in client.get(f"/play/{match_id}/lines/?after={read}&open={request['id']}").json()["answered"]
    assert client.get(f"/play/{match_id}/lines/?open=x").status_code == 400
    client.post(f"/play/{match_id}/resign/")  # the match ends at the seat's next turn, not at its clock's end
    played["thread"].join(timeout=60)
    assert played["result"] == "finished"


def test_check_says_the_rule_that_refuses_a_play_and_passes_a_legal_one(person):
    client = person
    match_id = sit_down(client, "greedy-bura", "bura")
    played = play_in_thread(match_id)
    request, _ = first_request(client, match_id)
    hand = request["observation"]["hand"]
    legal = request["legal_actions"][0]
    missing = next(c for c in ("AS", "AH", "AD", "AC", "TS", "TH") if c not in hand)
    wrong = {**legal, "cards": [missing]}
    answer = post(client, f"/play/{match_id}/check/", {"id": request["id"], "actions": [legal, wrong]})
    assert answer.status_code == 200, answer.content
    ok, refused = answer.json()["refusals"]
    assert ok is None
    assert refused["code"] and missing in refused["message"], refused  # the rules' own words
    stale = post(client, f"/play/{match_id}/check/", {"id": request["id"] + 5, "actions": [wrong]}).json()
    assert stale["refusals"] == [None]  # not this position: the referee alone decides
    for bad in ({"id": request["id"], "actions": []}, {"id": "1", "actions": [legal]},
                {"id": request["id"], "actions": [legal] * 33}, {"id": request["id"], "actions": ["x"]}):
        answer = post(client, f"/play/{match_id}/check/", bad)
        assert answer.status_code == 400 and "1 to 32 actions" in answer.json()["error"]["message"], bad
    assert post(client, f"/play/{match_id}/answer/", {"type": "action", "id": request["id"],
                                                      "action": legal}).status_code == 200
    client.post(f"/play/{match_id}/resign/")  # the match ends at the seat's next turn, not at its clock's end
    played["thread"].join(timeout=60)
    assert played["result"] == "finished"


def test_a_running_matchs_page_counts_no_decisions_yet(person, settings):
    """"Decisions 0" read as a fact while the match was being played: the column waits for the end."""
    from matches import relay
    from matches.models import Match

    settings.LIVE_DELAY_SECONDS = 0
    client = person
    match_id = sit_down(client, "greedy-bura", "bura")
    match = Match.objects.get(pk=match_id)
    Match.objects.filter(pk=match_id).update(status="running")
    relay.start_match(relay.attempt_name(match), [0, 1])
    page = client.get(f"/matches/{match_id}/").content.decode()
    rows = page[page.index("<th>Decisions</th>"):page.index("</tbody>")]
    assert rows.count('title="counted when the match ends">—') == 2 and "<td>0</td></tr>" not in rows
    frames = client.get(f"/matches/{match_id}/live/").json()
    assert frames["meta"]["points_kind"] == "penalty"  # the scale of its replay, while it runs
