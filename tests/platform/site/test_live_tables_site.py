"""A live table on the embedded default, as `make run` starts it (SQLite, the embedded Redis, supervisord):
a person plays over plain HTTP, the worker is SIGKILLed with the person at the table and the match ends
aborted (never replayed: the person's moves cannot be), then a rematch is played to its end on the restarted
worker and rates the person."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.support.polling import wait_until
from tests.support.supervised_site import REPO, Site, embedded_env, free_port, shell, status

pytestmark = [pytest.mark.slow, pytest.mark.site]
PASSWORD = "a-long-password-1"


class Person:
    """A person's browser, without the browser: a cookie jar, the CSRF token, the table's endpoints."""

    def __init__(self, url: str):
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def token(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def open(self, path: str, data: bytes | None = None, headers: dict | None = None):
        request = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, answer.geturl(), answer.read()
        except urllib.error.HTTPError as err:
            return err.code, err.geturl(), err.read()

    def log_in(self, username: str) -> None:
        _, _, page = self.open("/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
        form = urllib.parse.urlencode({"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token})
        code, url, _ = self.open("/login/", form.encode(), {"Referer": self.url + "/login/"})
        assert code == 200 and "/login/" not in url, url

    def post_form(self, path: str, fields: dict) -> str:
        form = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.token()}).encode()
        code, url, body = self.open(path, form, {"Referer": self.url + "/"})
        assert code == 200, body[-500:]
        return url

    def sit_down(self, opponent: str, preset: str) -> int:
        url = self.post_form("/play/", {"opponent": opponent, "preset": preset})
        assert "/play/" in url, url
        return int(url.rstrip("/").split("/")[-1])

    def lines(self, match_id: int, after: int) -> dict:
        code, _, body = self.open(f"/play/{match_id}/lines/?after={after}")
        assert code == 200, body
        return json.loads(body)

    def answer(self, match_id: int, message: dict) -> int:
        code, _, _ = self.open(f"/play/{match_id}/answer/", json.dumps(message).encode(),
                               {"Content-Type": "application/json", "X-CSRFToken": self.token(),
                                "Referer": self.url + "/"})
        return code

    def play(self, match_id: int, rng: random.Random, moves: int | None = None, timeout: float = 240) -> dict:
        """Answer as the page does; stop after ``moves`` answers, or when the match is over."""
        after, answered = 0, 0
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body = self.lines(match_id, after)
            for entry in body["lines"]:
                message = entry["m"]
                if message["type"] == "hello":
                    assert self.answer(match_id, {"type": "ready"}) == 200
                elif message["type"] == "request":
                    if moves is not None and answered >= moves:
                        return body
                    action = rng.choice(message["legal_actions"])
                    assert self.answer(match_id, {"type": "action", "id": message["id"], "action": action}) == 200
                    answered += 1
            after += len(body["lines"])
            if body["status"] in ("finished", "aborted"):
                return body
            time.sleep(0.05)
        raise AssertionError(f"match {match_id} did not reach its end in {timeout} s")


def kill_tree(pid: int) -> None:
    """SIGKILL a process and all of its children: a worker machine's crash, pool included."""
    with contextlib.suppress(psutil.NoSuchProcess):
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        for process in processes:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGKILL)


def test_a_person_plays_the_embedded_site_and_a_killed_worker_aborts_the_match():
    var = Path(tempfile.mkdtemp(prefix="kz-live-")) / "var"
    port = free_port()
    env = {**embedded_env(var, port), "KOZYR_LADDER_QUEUE_DEPTH": "0", "KOZYR_LEASE_SECONDS": "5"}
    setup = subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, capture_output=True,
                           text=True, timeout=180, cwd=REPO)
    assert setup.returncode == 0, setup.stderr
    shell(env, f"from accounts.models import User; User.objects.create_user('dora', password='{PASSWORD}')")
    site = Site(var, port, KOZYR_LADDER_QUEUE_DEPTH="0", KOZYR_LEASE_SECONDS="5")
    try:
        wait_until(lambda: status(f"{site.url}/healthz") == 200, 90, "the web server " + site.output()[-2000:])
        person = Person(site.url)
        person.log_in("dora")
        match_id = person.sit_down("greedy-bura", "bura")
        assert person.play(match_id, random.Random(2), moves=3)["status"] == "running"
        worker = site.pid("tables")  # a person's match is played in the open queue's worker of threads
        kill_tree(worker)
        body = wait_until(lambda: (lambda b: b if b["status"] != "running" else None)(person.lines(match_id, 0)),
                          90, "beat to notice the dead worker " + site.output()[-2000:], every=1)
        assert body["status"] == "aborted", body
        assert "stopped renewing its lease" in body["failure"]
        _, _, page = person.open(f"/matches/{match_id}/")
        assert b"aborted" in page and b"Rematch" in page
        wait_until(lambda: site.pid("tables") not in (0, worker), 60, "the tables worker to be started again")
        again = person.post_form(f"/play/{match_id}/rematch/", {})
        rematch = int(again.rstrip("/").split("/")[-1])
        assert rematch != match_id
        assert person.play(rematch, random.Random(3))["status"] == "finished"
        rated = shell(env, "from ratings.models import Rating; r = Rating.objects.get(bot__name='@dora', "
                           "preset='bura'); print(r.games)")
        assert rated == "1"  # the aborted match counts for nothing, the rematch once
        assert shell(env, f"from matches.models import Match; print(Match.objects.get(pk={match_id}).attempts)") \
            == "1"  # never replayed
    finally:
        site.stop()
        shutil.rmtree(var.parent, ignore_errors=True)
