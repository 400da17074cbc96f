"""What keeps the site busy: the accounts and their bots (starter kits, slow bots, misbehaving ones) uploaded
through the HTTP API, new versions all along, readers of the pages and the API, round robins one after
another, remote bots through the real `arena connect`, and people at live tables."""

from __future__ import annotations

import collections
import contextlib
import http.client
import io
import json
import random
import secrets
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import psycopg

from bench import soak_edge as edge
from bench.soaking.common import REPO, say
from bench.soaking.invariants import AUDIT_SQL, Findings
from bench.soaking.report import Figures

SOAK_BOTS = REPO / "bench" / "bots" / "soak"
FIRST_LEGAL = REPO / "tests" / "data" / "bots" / "first_legal.py"  # plays after the delay in its 'delay' file
HOSTILE = ("crash", "stall", "flood-stdout", "flood-stderr")
PEOPLE_OPPONENT, PEOPLE_PRESET = "greedy-bura", "bura"  # a house bot: built in, no sandbox to start per match
PEOPLE_PASSWORD = "a-long-soak-password-1"


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class Web:
    """HTTP to the site; every answer is counted and a 5xx (or no answer) is an invariant failure, unless
    ``outage(now, source, what)`` accounts for it as the web-db-outage fault's (Soak.outage_5xx)."""

    def __init__(self, port: int, findings: Findings, figures: Figures, outage=lambda at, source, what: False):
        self.port, self.findings, self.figures, self.outage = port, findings, figures, outage

    def call(self, method: str, path: str, *, token: str | None = None, body: bytes | None = None,
             content_type: str | None = None, role: str = "reader") -> tuple[int, bytes]:
        headers = {"Accept": "application/json, text/html"}
        if token:
            headers["Authorization"] = f"Token {token}"
        if content_type:
            headers["Content-Type"] = content_type
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            status, data = response.status, response.read()
            connection.close()
        except OSError as err:
            status, data = 0, str(err).encode()
        self.record(role, method, path, status, data, time.monotonic() - started)
        return status, data

    def record(self, role: str, method: str, path: str, status: int, data: bytes, seconds: float) -> None:
        self.figures.inc(f"http {role} requests")
        if status == 0 or status >= 500:
            if self.outage(time.time(), "http", f"{role} {method} {path} -> {status or 'no answer'}"):
                return
            self.figures.inc(f"http {role} 5xx or no answer")
            self.findings.add("http", f"{role}:{method}:{path}:{time.time():.0f}",
                              f"{role} {method} {path} -> {status or 'no answer'}: {data[:200]!r}")
        else:
            self.figures.peak(f"http {role} slowest s", seconds)

    def get(self, path: str, role: str = "reader") -> tuple[int, bytes]:
        return self.call("GET", path, role=role)

    def post_json(self, path: str, token: str, payload: dict, role: str) -> tuple[int, dict]:
        status, data = self.call("POST", path, token=token, body=json.dumps(payload).encode(),
                                 content_type="application/json", role=role)
        with contextlib.suppress(ValueError):
            return status, json.loads(data or b"{}")
        return status, {}

    def upload(self, bot: str, token: str, filename: str, data: bytes) -> tuple[int, dict]:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        status, answer = self.call("POST", f"/api/v1/bots/{bot}/versions/", token=token, body=body,
                                   content_type=f"multipart/form-data; boundary={boundary}", role="upload")
        with contextlib.suppress(ValueError):
            return status, json.loads(answer or b"{}")
        return status, {}


@dataclass
class BotSpec:
    name: str
    game: str
    preset: str
    kind: str  # example, slow, or one of HOSTILE
    owner: str
    uploads: int = 0

    def payload(self) -> tuple[str, bytes]:
        """A new file for this bot (a nonce makes each upload a new version)."""
        self.uploads += 1
        nonce = f"{self.name}-{self.uploads}-{secrets.token_hex(4)}"
        if self.kind == "example":
            source = (REPO / "examples" / self.game / "python" / "main.py").read_bytes()
            return "main.py", source + f"\n# soak upload {nonce}\n".encode()
        if self.kind == "slow":
            return "slow.zip", zipped({"main.py": FIRST_LEGAL.read_bytes(), "delay": b"0.15", "nonce": nonce.encode()})
        behaviour = {"kind": self.kind, "chance": 0.4, "within": 8, "nonce": nonce}
        return "hostile.zip", zipped({"main.py": (SOAK_BOTS / "misbehave.py").read_bytes(),
                                      "behaviour.json": json.dumps(behaviour).encode()})


def bot_specs(count: int, owners: list[str]) -> list[BotSpec]:
    kinds = ([("bura", "bura", kind) for kind in HOSTILE for _ in range(4)]
             + [("bura", "bura", "slow")] * 4 + [("kozel", "kozel", "example")] * 8
             + [("burraco", "burraco-2p", "example")] * 4)
    kinds += [("bura", "bura", "example")] * max(0, count - len(kinds))
    specs, numbers = [], collections.Counter()
    for i, (game, preset, kind) in enumerate(kinds):
        numbers[(game, kind)] += 1
        specs.append(BotSpec(f"soak-{game}-{kind}-{numbers[(game, kind)]:02d}", game, preset, kind,
                             owners[i % len(owners)]))
    return specs


class LoadMixin:
    """The accounts, the bots and the load on the site, each load a thread of its own until ``stop_load``."""

    def populate(self) -> None:
        """Migrations, house bots, the audit triggers, the accounts and their API tokens."""
        from django.core.management import call_command

        args = self.args
        t0 = time.monotonic()
        call_command("migrate", verbosity=0, interactive=False)
        say(f"migrated in {time.monotonic() - t0:.1f} s")
        from accounts.models import SYSTEM_USERNAME
        from bots.actions import ensure_house_bots
        from bots.models import Bot

        ensure_house_bots()
        if not args.house_bots:  # the ladder is the uploaded bots' (house bots still validate uploads)
            Bot.objects.filter(owner__username=SYSTEM_USERNAME).update(active=False)
        if args.people:  # a person sits down only against an active bot
            Bot.objects.filter(name=PEOPLE_OPPONENT).update(active=True)
        with psycopg.connect(self.db_url, autocommit=True) as conn:
            conn.execute(AUDIT_SQL)
        self.set_sizes = self._set_sizes()
        self.users = self._users()
        self.specs = bot_specs(args.bots, list(self.users))
        self.remote_owners = self._users("soak-remote", args.remote_bots)  # owners of nothing else
        self._people_accounts()
        from django.db import connections

        connections.close_all()

    def _set_sizes(self) -> dict[str, int]:
        """The largest duplicate set of each preset: the ladder may stand that much minus one above its depth."""
        from arena.games import all_presets
        from arena.games.seating import layout
        from arena.runner import rotations, seat_assignment

        sizes = {}
        for preset in all_presets():
            seats, teams = layout(preset, {})
            base = seat_assignment(list(range(len(teams))), seats, teams) if len(teams) < seats else list(range(seats))
            sizes[preset] = len({tuple(base[(s - r) % seats] for s in range(seats))
                                 for r in range(rotations(seats, True))})
        return sizes

    def _users(self, prefix: str = "soak-user", count: int | None = None) -> dict[str, str]:
        from accounts.actions import do_create_token
        from accounts.models import User

        tokens = {}
        for i in range(self.args.users if count is None else count):
            user = User.objects.create_user(username=f"{prefix}-{i:02d}", password=None)  # API tokens only
            tokens[user.username] = do_create_token(user, "soak", None)[1]
        return tokens

    def _people_accounts(self) -> None:
        from accounts.models import User

        for i in range(self.args.people):
            User.objects.create_user(username=f"soak-person-{i:02d}", password=PEOPLE_PASSWORD)

    def seed(self) -> None:
        """Bots created and uploaded through the API, six at a time (an account has at most three versions
        waiting for validation, so the bots are spread over --users accounts)."""
        t0 = time.monotonic()
        queue = list(self.specs)
        lock = threading.Lock()

        def uploader():
            while True:
                with lock:
                    if not queue:
                        return
                    spec = queue.pop(0)
                status, answer = self.web.post_json("/api/v1/bots/", self.users[spec.owner], {
                    "name": spec.name, "game": spec.game, "presets": [spec.preset]}, role="upload")
                if status != 201:
                    say(f"could not create bot {spec.name}: {status} {answer}")
                    continue
                self.upload(spec)

        threads = [threading.Thread(target=uploader) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        say(f"{len(self.specs)} bots created and uploaded in {time.monotonic() - t0:.1f} s")

    def upload(self, spec: BotSpec) -> None:
        filename, data = spec.payload()
        status, answer = self.web.upload(spec.name, self.users[spec.owner], filename, data)
        self.figures.inc("uploads sent")
        if status == 201:
            self.figures.inc("uploads accepted")
        elif status == 429:
            self.figures.inc("uploads throttled")
        elif status < 500:
            self.figures.inc("uploads refused")
            say(f"upload of {spec.name} refused: {status} {answer}")

    def seed_then_upload(self) -> None:
        self.seed()
        self._wait_for_validations()
        self.uploads_all_along()

    def _wait_for_validations(self) -> None:
        """Until 90% of the first uploads are validated (at most --seed-wait); then say how they ended."""
        deadline = time.monotonic() + self.args.seed_wait
        while time.monotonic() < deadline:
            with self.db() as conn:
                pending, total = conn.execute("SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FROM "
                                              "bots_botversion WHERE runtime <> 'builtin'").fetchone()
            if total and pending <= total * 0.1:
                break
            time.sleep(1)
        with self.db() as conn:
            states = dict(conn.execute("SELECT status, count(*) FROM bots_botversion WHERE runtime <> 'builtin' "
                                       "GROUP BY status").fetchall())
        say(f"validations: {states}")

    def reader(self, number: int) -> None:
        rng = random.Random(self.args.seed * 1000 + number)
        pages = ["/", "/healthz", "/games/bura/", "/games/kozel/", "/games/burraco-2p/", "/bots/", "/tournaments/",
                 "/api/v1/bots/", "/api/v1/matches/", "/api/v1/leaderboards/bura/", "/api/v1/leaderboards/kozel/",
                 "/api/v1/tournaments/", "/api/v1/presets/", "/api/v1/games/", "/api/v1/matches/?kind=ladder"]
        while not self.stop_load.is_set():
            choice = rng.random()
            if choice < 0.3 or not self.recent_matches:
                path = rng.choice(pages)
            elif choice < 0.55:
                spec = rng.choice(self.specs)
                path = rng.choice([f"/bots/{spec.name}/", f"/api/v1/bots/{spec.name}/",
                                   f"/api/v1/bots/{spec.name}/versions/", f"/api/v1/matches/?bot={spec.name}"])
            elif choice < 0.9:
                match = rng.choice(self.recent_matches)
                path = rng.choice([f"/matches/{match}/", f"/api/v1/matches/{match}/",
                                   f"/api/v1/matches/{match}/replay/", f"/matches/{match}/frames/"])
            elif self.tournaments:
                pk = rng.choice(self.tournaments)
                path = rng.choice([f"/tournaments/{pk}/", f"/api/v1/tournaments/{pk}/",
                                   f"/api/v1/tournaments/{pk}/standings/", f"/api/v1/tournaments/{pk}/crosstable/",
                                   f"/api/v1/tournaments/{pk}/rounds/"])
            else:
                a, b = rng.sample([s for s in self.specs if s.preset == "bura"], 2)
                path = f"/api/v1/head-to-head/?a={a.name}&b={b.name}&preset=bura"
            self.web.get(path)
            self.stop_load.wait(self.args.reader_pause)

    def uploads_all_along(self) -> None:
        """New versions while the site plays: bots off the ladder (rejected or suspended) first, then any bot,
        and now and then a new bot."""
        made = 0
        while not self.stop_load.wait(self.args.upload_every):
            with self.db() as conn:
                idle = [row[0] for row in conn.execute(
                    "SELECT b.name FROM bots_bot b LEFT JOIN bots_botversion v ON v.id = b.current_version_id "
                    "WHERE b.name LIKE 'soak-%%' AND (b.suspended_reason <> '' OR v.id IS NULL)")]
                waiting = {row[0] for row in conn.execute(
                    "SELECT DISTINCT u.username FROM bots_botversion v JOIN bots_bot b ON b.id = v.bot_id "
                    "JOIN accounts_user u ON u.id = b.owner_id WHERE v.status = 'pending'")}
            free = [spec for spec in self.specs if spec.owner not in waiting]
            if not free:
                continue
            if made % 5 == 4:
                owner = self.rng.choice(sorted({spec.owner for spec in free}))
                spec = BotSpec(f"soak-late-{made:03d}", "bura", "bura", self.rng.choice(["example", *HOSTILE]), owner)
                status, _ = self.web.post_json("/api/v1/bots/", self.users[owner],
                                               {"name": spec.name, "game": "bura", "presets": ["bura"]}, role="upload")
                if status == 201:
                    self.specs.append(spec)
            else:
                spec = self.rng.choice([s for s in free if s.name in idle] or free)
            self.upload(spec)
            made += 1

    def tournaments_all_along(self) -> None:
        """A round robin hosted, joined and started through the API; another when it ends."""
        host = sorted(self.users)[0]
        token = self.users[host]
        number = 0
        while not self.stop_load.is_set():
            with self.db() as conn:
                ready = {row[0]: row[1] for row in conn.execute(
                    "SELECT b.name, v.status FROM bots_bot b JOIN bots_botversion v ON v.id = b.current_version_id "
                    "WHERE b.name LIKE 'soak-bura-%%' AND v.status = 'ready' AND b.suspended_reason = ''")}
            good = sorted(n for n in ready if "-example-" in n or "-slow-" in n)
            bad = sorted(n for n in ready if n not in good)
            if len(good) < 5:
                self.stop_load.wait(2)
                continue
            number += 1
            entrants = self.rng.sample(good, 5) + (self.rng.sample(bad, 1) if bad else [])
            starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
            status, answer = self.web.post_json("/api/v1/tournaments/", token, {
                "name": f"Soak Cup {number}", "preset": "bura", "overrides": {"match": "deals:2"},
                "format": "round_robin", "entry": "private", "starts_at": starts}, role="tournament")
            if status != 201:
                say(f"tournament not created: {status} {answer}")
                self.stop_load.wait(10)
                continue
            pk = answer["id"]
            for name in entrants:
                status, answer = self.post_until_answered(f"/api/v1/tournaments/{pk}/join/", token, {"bot": name},
                                                          role="tournament")
                if status != 201:
                    say(f"{name} could not join tournament {pk}: {status} {answer}")
            status, answer = self.post_until_answered(f"/api/v1/tournaments/{pk}/start/", token, {},
                                                      role="tournament")
            if status != 200:
                say(f"tournament {pk} not started: {status} {answer}")
                continue
            self.tournaments.append(pk)
            self.figures.inc("tournaments started")
            say(f"tournament {pk} started with {len(entrants)} entrants")
            while not self.stop_load.wait(3):
                status, data = self.web.get(f"/api/v1/tournaments/{pk}/", role="tournament")
                state = json.loads(data).get("status") if status == 200 else None
                if state in ("finished", "cancelled"):
                    self.figures.inc(f"tournaments {state}")
                    say(f"tournament {pk} {state}")
                    break

    def post_until_answered(self, path: str, token: str, payload: dict, role: str) -> tuple[int, dict]:
        """A POST sent again while the site answers 5xx (the web's database away), as a client would, for up
        to two minutes; then the last answer."""
        deadline = time.monotonic() + 120
        while True:
            status, answer = self.web.post_json(path, token, payload, role=role)
            if 0 < status < 500 or time.monotonic() > deadline or self.stop_load.wait(2):
                return status, answer

    def start_remote_bots(self) -> None:
        """Each remote bot created through the API by an account of its own, its remote version made there (the
        answer carries the token), and `arena connect` started as its author would; the version's validation
        match is then played over that connection, and the ladder takes it."""
        for i, token in enumerate(token for _, token in sorted(self.remote_owners.items())):
            name = f"soak-remote-{i + 1:02d}"
            status, answer = self.web.post_json("/api/v1/bots/", token, {"name": name, "game": "bura",
                                                                          "presets": ["bura"]}, role="remote")
            if status != 201:
                raise RuntimeError(f"could not create the remote bot {name}: {status} {answer}")
            status, answer = self.web.post_json(f"/api/v1/bots/{name}/remote/", token, {}, role="remote")
            if status != 201:
                raise RuntimeError(f"could not make {name}'s remote version: {status} {answer}")
            bot = edge.RemoteBot(name, answer["token"], f"http://127.0.0.1:{self.site.port}", self.root / name,
                                 self.args.remote_max_matches, self.args.remote_think)
            bot.start()
            self.remote_bots.append(bot)
        if self.remote_bots:
            say(f"remote bots connecting: {', '.join(b.name for b in self.remote_bots)}")

    def person(self, number: int) -> None:
        """A person at live tables against the house bot, until the load stops; the match at hand is finished."""
        person = edge.Person(f"http://127.0.0.1:{self.site.port}", f"soak-person-{number:02d}", PEOPLE_PASSWORD,
                             PEOPLE_OPPONENT, PEOPLE_PRESET, self.web.record, self.stop_load,
                             self.args.seed * 7919 + number, say)
        self.people.append(person)
        person.run()
