"""A remote bot written to cheat (issue 34, "Done when"; docs/matches.md, "What is hidden until when").

The cheater is a client of the remote bots' wire protocol written here from docs/protocol.md ("The wire
protocol") alone: one websocket with its bot's remote token, answering every hello and request with a legal
action. Its owner holds an API token and a logged-in session, and it reads the site anonymously as well. Three
times while its own duplicate set is being played it holds its answer (within its clock) and takes everything
the site offers: every frame it was sent, every GET path of the OpenAPI schema filled with the ids it found so
far, every page reachable from the home page, and each match's replay, frames, logs and live views (the
public one, every seat, "everything"), as its owner and as nobody. The site is served by uvicorn as in
production, and a worker thread plays the matches. Then the test, which knows the real seeds, judges what the
cheater learned with the engine anyone may download:

(a) no answer and no frame holds a seed of a deal still in play, in decimal or in hex;
(b) no number it found rebuilds a deal in play, tried as the seed and as the base seed (``arena play --seed``);
(c) no answer shows a card of a match in play that the cheater had not already seen from its own seat (not the
    opponent's hand, not the stock; of a match it does not play, no card at all), and the live views of
    "everything" and of the opponent's seat are refused;
(d) its set's partner rotation does not deal its opponent the hand it held (a remote seat's rotations are dealt
    afresh), and a sealed set's finished rotation shows nothing of its deal while its partner is still to play;
(e) once every match of a deal has ended, its seed and replay are shown, and the same attacks then succeed: the
    checks above can see a leak.
"""

from __future__ import annotations

import gzip
import html
import json
import queue
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from tests.support.polling import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# When the cheater stops to look around: (which of its matches, counted from 0; which request, from 1). The
# first request of each match (nothing played yet but the deal) and a later one of the first match (cards
# drawn from the stock, tricks taken).
LOOKS = {(0, 1), (0, 6), (1, 1)}
U64 = 2**64
IN_PLAY = ("queued", "running")
# Paths a crawler must not follow: other sites' business, files, and anything that changes state.
NOT_PAGES = ("/static/", "/docs/", "/kits/", "/admin/", "/api/docs", "/api/redoc", "/login", "/logout", "/signup",
             "/password")
WRITES = re.compile(r"/(revoke|retire|cancel|stop|join|leave|start|pause|resume|rematch|answer|new|entrants)/")
PAGES = ("/bots/", "/matches/", "/games/", "/challenges/", "/tournaments/", "/live/", "/play/", "/profile/",
         "/api/v1/")
LINK = re.compile(r'(?:href|src|action|data-[\w-]+)="(/[^"#]*)"')
PAGE_CAP = 150  # pages per reader and look: the whole of this small site, with room to spare
VALUE_CAP = 12  # values tried per query parameter


# ---------------------------------------------------------------------------------------------------- the site

@pytest.fixture
def site(asgi_site):
    return asgi_site


@pytest.fixture
def cheater_bot(alice, house_bots):
    """alice's bot with a ready remote version, and its remote token."""
    from bots.actions import do_create_bot, make_current
    from bots.remote import do_make_remote_version

    bot = do_create_bot(alice, game="bura", name="peeker", presets=["bura"])
    version, token = do_make_remote_version(bot)
    version.status = "ready"  # as if validated: its validation match is one more match, not this test's point
    version.save(update_fields=["status"])
    make_current(version)
    return bot, token


# ---------------------------------------------------------------------------------------------------- the cheater

@dataclass
class Game:
    """One match as the cheater saw it over its connection."""

    start: dict[str, Any]
    requests: list[dict[str, Any]] = field(default_factory=list)
    over: bool = False


class CheatingBot(threading.Thread):
    """The cheater's connection, speaking the wire protocol itself: a pong at once to a ping, ``ready`` to a
    hello, a legal action to a request; at a LOOKS request it keeps reading (and ponging) but holds its answer
    until the test has looked around for it."""

    def __init__(self, url: str, token: str):
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.frames: list[str] = []  # every frame the site sent, as sent
        self.games: list[Game] = []
        self.looking: queue.Queue[tuple[int, int]] = queue.Queue()
        self.go_on = threading.Event()
        self.measured = threading.Event()
        self.stopping = threading.Event()
        self.trouble: list[Any] = []  # abandon and error frames, or what ended the connection

    def run(self) -> None:
        try:
            with ws_connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                            open_timeout=10) as ws:
                self.talk(ws)
        except BaseException as err:  # whatever ended the connection: the test reports it
            self.trouble.append(err)

    def talk(self, ws) -> None:
        held: str | None = None
        by_name: dict[str, Game] = {}
        while not self.stopping.is_set():
            if held is not None and self.go_on.is_set():
                self.go_on.clear()
                ws.send(held)
                held = None
            try:
                text = ws.recv(timeout=0.05)
            except TimeoutError:
                continue
            self.frames.append(text)
            frame = json.loads(text)
            kind = frame["type"]
            if kind == "ping":
                ws.send(json.dumps({"type": "pong", "id": frame["id"]}))
            elif kind == "rtt":
                self.measured.set()
            elif kind == "start":
                by_name[frame["match"]] = Game(frame)
                self.games.append(by_name[frame["match"]])
            elif kind == "over":
                by_name[frame["match"]].over = True
            elif kind in ("abandon", "error"):
                self.trouble.append(frame)
            elif kind == "line":
                game = by_name[frame["match"]]
                message = json.loads(frame["line"])
                if message["type"] == "hello":
                    answer: dict[str, Any] = {"type": "ready", "name": "peeker"}
                elif message["type"] == "request":
                    game.requests.append(message)
                    answer = {"type": "action", "id": message["id"], "action": play_on(message["legal_actions"])}
                else:
                    continue
                line = json.dumps({"type": "line", "match": frame["match"], "line": json.dumps(answer)})
                spot = (self.games.index(game), len(game.requests))
                if message["type"] == "request" and spot in LOOKS:
                    held = line
                    self.looking.put(spot)
                else:
                    ws.send(line)

    def next_look(self, timeout: float) -> tuple[int, int]:
        try:
            return self.looking.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the cheater never reached its next look: {len(self.games)} matches, "
                                 f"{[len(g.requests) for g in self.games]} requests, {self.trouble}") from None

    def stop(self) -> None:
        self.stopping.set()
        self.join(10)


def play_on(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal action that keeps the deal going (no claim to have won it): the longer the match, the more it
    can look."""
    return next((action for action in legal if action.get("type") != "claim"), legal[0])


# ---------------------------------------------------------------------------------------------------- its reading

@dataclass
class Answer:
    reader: str
    url: str
    status: int
    text: str
    data: Any = None  # the JSON answer, parsed
    method: str = "GET"

    def __str__(self) -> str:
        return f"{self.reader}: {self.method} {self.url} ({self.status})"


class Reader:
    """The cheater's HTTP client: its owner (API token and a logged-in session) or nobody."""

    def __init__(self, site: str, name: str, token: str | None = None, session: tuple[str, str] | None = None):
        self.name = name
        self.http = httpx.Client(base_url=site, timeout=30,
                                 headers={"Authorization": f"Token {token}"} if token else {},
                                 cookies=dict([session]) if session else {})

    def get(self, url: str) -> Answer:
        response = self.http.get(url)
        body = response.content
        if response.headers.get("content-type", "").startswith("application/gzip"):
            body = gzip.decompress(body)  # a replay download
        text = body.decode("utf-8", "replace")
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        return Answer(self.name, url, response.status_code, text, data)


def items_of(data: Any) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return data["results"]
    return data if isinstance(data, list) else []


def pairs(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of a JSON value, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from pairs(item)
    elif isinstance(value, list):
        for item in value:
            yield from pairs(item)


def values_named(name: str, answers: Iterable[Answer]) -> list[Any]:
    """What the answers say under ``name`` (or in a list under its plural), in order, once each."""
    found: list[Any] = []
    for answer in answers:
        for key, value in pairs(answer.data):
            for one in (value if key == f"{name}s" and isinstance(value, list) else [value] if key == name else []):
                if isinstance(one, str | int | bool) and one != "" and one not in found:
                    found.append(one)
    return found


def as_query(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else quote(str(value), safe="")


class Crawl:
    """One reader's look around the whole site."""

    def __init__(self, reader: Reader):
        self.reader = reader
        self.got: dict[str, Answer] = {}

    def get(self, url: str) -> Answer:
        if url not in self.got:
            self.got[url] = self.reader.get(url)
            answer = self.got[url]
            following = answer.data.get("next") if isinstance(answer.data, dict) else None
            if isinstance(following, str) and following:  # every page of a list
                parts = urlsplit(following)
                self.get(parts.path + (f"?{parts.query}" if parts.query else ""))
        return self.got[url]

    def at(self, path: str) -> list[Answer]:
        """The answers fetched for ``path`` (any query: a list's every page)."""
        return [a for url, a in self.got.items() if url.split("?")[0] == path and a.status == 200]

    def candidates(self, name: str, prefix: str) -> list[Any]:
        """The values a path parameter takes: the items of the collection it indexes (the GET of the path up to
        it), else what the resource above says under that name, else anything found under that name."""
        listed = self.at(prefix)
        if listed:
            return [v for v in dict.fromkeys(item.get(name) for a in listed for item in items_of(a.data)
                                             if isinstance(item, dict)) if v not in (None, "")]
        above = self.at(prefix.rstrip("/").rsplit("/", 1)[0] + "/")
        return values_named(name, above) if above else values_named(name, self.got.values())

    def fill(self, template: str) -> list[str]:
        urls = [""]
        for part in re.split(r"(\{\w+\})", template):
            if not part.startswith("{"):
                urls = [url + part for url in urls]
                continue
            name = "id" if part[1:-1] in ("id", "pk") else part[1:-1]
            urls = [url + quote(str(value), safe="") for url in urls for value in self.candidates(name, url)]
        return urls

    def api(self) -> None:
        """Every GET of the OpenAPI schema, lists before what they list, and each of its query parameters with the
        values its answer shows for it (a list of matches filtered by each bot, status, duplicate set it shows)."""
        schema = self.get("/api/schema/?format=json").data
        paths = {p: ops["get"] for p, ops in schema["paths"].items() if "get" in ops}
        for template in sorted(paths, key=lambda p: (p.count("{"), p)):
            for url in self.fill(template):
                listed = [self.get(url)]
                for parameter in paths[template].get("parameters", []):
                    if parameter["in"] == "query":
                        for value in values_named(parameter["name"], listed)[:VALUE_CAP]:
                            self.get(f"{url}?{parameter['name']}={as_query(value)}")

    def pages(self) -> None:
        """Every page reachable from the home page, and each match's own endpoints (the viewer's frames, logs
        and live views in every view, the table), which pages name only in scripts."""
        matches = self.at("/api/v1/matches/")
        ids = [m["id"] for a in matches for m in items_of(a.data)]
        sets = [m["duplicate_set"] for a in matches for m in items_of(a.data)]
        todo = ["/", "/live/playing/", "/healthz", "/metrics", *(f"/challenges/{s}/" for s in dict.fromkeys(sets))]
        for pk in ids:
            seats = [str(s["seat"]) for s in (self.get(f"/api/v1/matches/{pk}/").data or {}).get("seats", [])]
            todo += [f"/matches/{pk}/", f"/matches/{pk}/stderr/", f"/play/{pk}/", f"/play/{pk}/lines/",
                     *(f"/matches/{pk}/frames/?seat={v}&count=200" for v in ["all", *seats]),
                     *(f"/matches/{pk}/live/?seat={v}&start=0&count=200" for v in ["public", "all", *seats])]
        fetched = 0
        while todo and fetched < PAGE_CAP:
            url = todo.pop(0)
            if url in self.got:
                continue
            answer = self.get(url)
            fetched += 1
            if answer.data is None:
                todo += [link for link in map(html.unescape, LINK.findall(answer.text))
                         if (link == "/" or link.startswith(PAGES)) and not link.startswith(NOT_PAGES)
                         and not WRITES.search(link) and link not in self.got]
        assert not [url for url in todo if url not in self.got], f"more than {PAGE_CAP} pages to read: raise the cap"

    def everything(self) -> list[Answer]:
        self.api()
        self.pages()
        return list(self.got.values())


# ---------------------------------------------------------------------------------------------------- the judge

DIGITS = re.compile(r"\d+")
HEX = re.compile(r"[0-9a-fA-F]{8,}")
TOKEN = re.compile(r"[0-9A-Za-z?]+")


def numbers_in(text: str) -> set[int]:
    """Every whole number a text holds, in decimal or in hex (and every 16-digit window of a longer hex run, as
    a 64-bit seed could hide in one)."""
    found = {int(d) for d in DIGITS.findall(text) if len(d) <= 20}
    for run in HEX.findall(text):
        found.add(int(run, 16))
        found.update(int(run[i:i + 16], 16) for i in range(len(run) - 15))
    return {n for n in found if 0 <= n < U64}


def seed_texts(base_seed: int) -> set[str]:
    """A deal's base seed and seed (``derive_seed(base_seed, 0)``) as text: decimal, hex, and the seed read as a
    signed 64-bit number."""
    from arena.cards import derive_seed

    texts = set()
    for value in (base_seed, derive_seed(base_seed, 0)):
        texts |= {str(value), f"{value:x}", f"{value:016x}"}
        if value >= 2**63:
            texts.add(str(value - U64))
    return texts


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def cards_in(value: Any, deck: set[str]) -> set[str]:
    """The cards a JSON value (or a page's text) names anywhere: in lists, in hands, in words."""
    texts = [value] if isinstance(value, str) else strings(value)
    return {token for text in texts for token in TOKEN.findall(text) if token in deck}


def card_lists(value: Any, deck: set[str]) -> Iterator[list[str]]:
    """Every list of cards in a JSON value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from card_lists(item, deck)
    elif isinstance(value, list):
        if value and all(isinstance(item, str) and item in deck for item in value):
            yield value
        for item in value:
            yield from card_lists(item, deck)


def rules_of(match):
    from arena.games import resolve

    return resolve(match.preset, match.overrides)[1]


def start_state(match):
    """The deal as the referee made it: the engine anyone may download, given the match's real seed."""
    from arena.games import new_match

    return new_match(rules_of(match), match.seed)


def hand(state, seat: int) -> list[str]:
    return sorted(state.observation(seat)["hand"])


def deck_of(state) -> set[str]:
    return {card for seat in range(state.num_seats) for card in hand(state, seat)} | set(state.stock)


def signature(state) -> tuple:
    """What makes a deal: every seat's hand and the stock in its order."""
    return tuple(tuple(hand(state, seat)) for seat in range(state.num_seats)), tuple(state.stock)


def rebuilt(numbers: set[int], matches: Iterable[Any]) -> list[tuple[int, int]]:
    """(number, match) for each number that rebuilds the deal of one of the matches with the public engine, tried
    as a game's seed and as a base seed (``arena play --seed N`` deals game 0 from ``derive_seed(N, 0)``)."""
    from arena.cards import derive_seed
    from arena.games import new_match

    found: list[tuple[int, int]] = []
    for rules in {repr(rules_of(m)): rules_of(m) for m in matches}.values():
        wanted: dict[tuple, list[int]] = {}
        for m in matches:
            if rules_of(m) == rules:
                wanted.setdefault(signature(start_state(m)), []).append(m.pk)  # a sealed set's rotations: one deal
        for number in numbers:
            for seed in (number, derive_seed(number, 0)):
                found += [(number, pk) for pk in wanted.get(signature(new_match(rules, seed)), [])]
    return found


def stored_replay(match) -> dict[str, Any]:
    from bots import blobs

    return json.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))


def own_knowledge(match, seat: int) -> list[set[str]]:
    """The cards ``seat`` had seen after each step of its match: its own view's frames up to that step (the
    hands it held, the cards shown to it, the table)."""
    from arena.replay_frames import ReplayRun

    run = ReplayRun(stored_replay(match))
    deck = deck_of(start_state(match))
    known: list[set[str]] = []
    seen: set[str] = set()
    for frame in run.frames(seat, 0, run.steps):
        seen |= cards_in(frame, deck)
        known.append(set(seen))
    return known


@dataclass
class Look:
    """What the cheater gathered at one stop, and what the judge knew then."""

    spot: tuple[int, int]
    match_id: int  # the match it was playing
    step: int  # the actions played in it so far
    in_play: dict[int, list[int]]  # base seed -> the matches of each deal in play (its own among them)
    answers: list[Answer]
    frames: list[str]  # every frame its connection had been sent by then

    def texts(self) -> Iterator[tuple[str, str]]:
        for answer in self.answers:
            yield str(answer), answer.text
        for frame in self.frames:
            yield "a frame of its connection", frame

    def matches(self) -> list[int]:
        return [pk for pks in self.in_play.values() for pk in pks]


def in_play_now() -> dict[int, list[int]]:
    """Every deal in play (the base seed of a queued or running match) and all of its matches, ended or not."""
    from matches.models import Match

    seeds = set(Match.objects.filter(status__in=IN_PLAY).values_list("base_seed", flat=True))
    deals: dict[int, list[int]] = {}
    for pk, seed in Match.objects.filter(base_seed__in=seeds).order_by("pk").values_list("pk", "base_seed"):
        deals.setdefault(seed, []).append(pk)
    return deals


def about(answer: Answer, pk: int) -> Any:
    """What an answer says of one match: all of it when its URL names the match, the match's entries when it
    lists matches, else None."""
    if re.search(rf"/(matches|play)/{pk}/", answer.url):
        return answer.data if answer.data is not None else answer.text
    listed = [item for item in items_of(answer.data)
              if isinstance(item, dict) and item.get("id") == pk and "seats" in item]
    return listed or None


def about_another_match(answer: Answer, pk: int) -> bool:
    """Whether an answer's URL names one match other than ``pk`` (its page, replay, frames, logs or table)."""
    named = re.search(r"/(?:matches|play)/(\d+)/", answer.url)
    return named is not None and int(named.group(1)) != pk


def cards_shown(answers: Iterable[Answer], pk: int, known: set[str], deck: set[str]) -> list[str]:
    """The answers that show a card of match ``pk`` outside ``known``, and those cards."""
    found = []
    for answer in answers:
        said = about(answer, pk)
        extra = cards_in(said, deck) - known if said is not None else set()
        if extra:
            found.append(f"{answer} shows {sorted(extra)}")
    return found


def live_view(url: str) -> str:
    found = re.search(r"seat=(\w+)", url)
    return found.group(1) if found else "public"


# ---------------------------------------------------------------------------------------------------- the test

def test_a_cheating_remote_bot_learns_no_hidden_card_of_a_deal_still_in_play(site, cheater_bot, alice, token_for,
                                                                            monkeypatch, settings):
    from django.test import Client

    from arena.referee import TimeControl
    from arena.replay_frames import ReplayRun
    from bots.actions import house_version
    from matches import actions, relay
    from matches.models import Match
    from play.tasks import play_match

    # The strongest position the site allows: live views with no delay at all, and a bank long enough for the
    # cheater's looks (a real one would spread them over its clock).
    settings.LIVE_DELAY_SECONDS = 0
    monkeypatch.setattr(actions, "STANDARD_TIME", TimeControl(move_ms=1_000, bank_ms=300_000))

    # Another deal in play, of sealed seats: one rotation played, its partner still to play.
    sealed = actions.create_duplicate_set(kind=Match.Kind.LADDER, preset="bura", ranked=True, held=True,
                                          versions=[house_version("bura", "random"), house_version("bura", "greedy")])
    assert sealed[0].base_seed == sealed[1].base_seed  # sealed seats share the deal
    assert play_match(sealed[0].pk) == "finished"

    bot, token = cheater_bot
    cheater = CheatingBot(site.replace("http://", "ws://") + f"/api/remote/connect/?bot={bot.name}", token)
    cheater.start()
    assert cheater.measured.wait(30), cheater.trouble
    browser = Client()
    browser.force_login(alice)
    session = (settings.SESSION_COOKIE_NAME, browser.cookies[settings.SESSION_COOKIE_NAME].value)
    owner = Reader(site, "the owner", token=token_for(alice), session=session)
    nobody = Reader(site, "anonymous")

    # Its owner challenges a house bot: the reply is the first thing it reads.
    reply = owner.http.post("/api/v1/challenges/", json={"bot": bot.name, "opponent": "greedy-bura"})
    assert reply.status_code == 201, reply.text
    challenge = Answer("the owner", "/api/v1/challenges/", 201, reply.text, reply.json(), method="POST")
    mine = [m["id"] for m in challenge.data]

    looks: list[Look] = []
    for _ in LOOKS:
        spot = cheater.next_look(120)
        playing = cheater.games[spot[0]].start["match_id"]
        match = Match.objects.get(pk=playing)
        step = len(relay.actions(relay.attempt_name(match)))
        deals = in_play_now()
        answers = Crawl(owner).everything() + Crawl(nobody).everything()
        # A look, mid-match: nothing moved meanwhile.
        assert Match.objects.get(pk=playing).status == "running" and in_play_now() == deals, (
            list(Match.objects.get(pk=playing).seats.values_list("verdict", "code", "detail")), cheater.trouble)
        looks.append(Look(spot, playing, step, deals, [challenge, *answers] if not looks else answers,
                          list(cheater.frames)))
        cheater.go_on.set()

    wait_until(lambda: not Match.objects.filter(pk__in=mine, status__in=IN_PLAY).exists(), 120,
               "the cheater's matches to end")
    assert play_match(sealed[1].pk) == "finished"  # the sealed deal's last match: every deal is over now
    assert not in_play_now()
    after = Crawl(nobody).everything()
    cheater.stop()

    ended = {m.pk: m for m in Match.objects.filter(pk__in=[*mine, sealed[0].pk, sealed[1].pk])}
    for pk in mine:
        seat = ended[pk].seats.get(version__bot=bot)
        # It looked while it played on within its clock, on the attempt the judge followed.
        assert (ended[pk].status, seat.verdict, ended[pk].attempts) == ("finished", "ok", 1), (seat.code, seat.detail)
    assert not cheater.trouble  # no abandoned attempt, no error from the site, no connection lost
    games = {g.start["match_id"]: g for g in cheater.games}
    assert sorted(games) == sorted(mine) and all(g.over for g in games.values())
    seats = {pk: game.requests[0]["observation"]["seat"] for pk, game in games.items()}
    held = {pk: sorted(game.requests[0]["observation"]["hand"]) for pk, game in games.items()}
    for pk in mine:  # the judge's engine deals what the site dealt
        assert held[pk] == hand(start_state(ended[pk]), seats[pk])
    first, second = sorted(mine, key=lambda pk: ended[pk].rotation)
    assert [look.match_id for look in looks] == [first, first, second]

    # (a) No seed of a deal in play in any answer or frame it had by then; no seed at all in a frame.
    for look in looks:
        secrets = {text: pks for seed, pks in look.in_play.items() for text in seed_texts(seed)}
        for where, text in look.texts():
            shown = [f"{s} (matches {secrets[s]})" for s in secrets if s in text.lower()]
            assert not shown, f"look {look.spot}: {where} holds the seed of a deal in play: {shown}"
    every_seed = {text for m in ended.values() for text in seed_texts(m.base_seed)}
    for frame in cheater.frames:
        assert not [s for s in every_seed if s in frame.lower()], f"a frame holds a seed: {frame}"

    # (b) No number it found rebuilds a deal in play (its own match's: the hand its first request showed), as a
    # seed or as a base seed.
    for look in looks:
        numbers = set().union(*(numbers_in(text) for _, text in look.texts()))
        assert len(numbers) > 100  # it did read the site
        found = rebuilt(numbers, [ended[pk] for pk in look.matches()])
        assert not found, (f"look {look.spot}: (number, match) whose deal it rebuilds: {found}; found in "
                           f"{[w for w, t in look.texts() if any(str(n) in t for n, _ in found)]}")

    # (c) No answer shows a card of a match in play it had not seen from its own seat (of a match it does not
    # play: no card at all), nor the opponent's hand or the stock; the live views of every hand and of the
    # opponent's seat are nobody's.
    knowledge = {pk: own_knowledge(ended[pk], seats[pk]) for pk in mine}
    for look in looks:
        for pk in look.matches():
            known = knowledge[pk][look.step] if pk == look.match_id else set()
            assert cards_shown(look.answers, pk, known, deck_of(start_state(ended[pk]))) == [], f"look {look.spot}"
        pk, seat = look.match_id, seats[look.match_id]
        opponent = 1 - seat
        deck, known = deck_of(start_state(ended[pk])), knowledge[pk][look.step]
        state = ReplayRun(stored_replay(ended[pk])).state_at(look.step)
        hidden, stock = hand(state, opponent), list(state.stock)
        # Another match's own answers (a finished, public rotation's replay) hold lists of the same deck's cards:
        # a one-card list of its own may equal the opponent's last card by chance, and tells nothing of this deal.
        for answer in [a for a in look.answers if not about_another_match(a, pk)]:
            for cards in card_lists(answer.data, deck):
                assert sorted(cards) != hidden or set(cards) <= known, f"{answer} shows the opponent's hand"
                assert len(stock) < 3 or cards not in (stock, stock[::-1]), f"{answer} shows the stock's order"
        live = {(a.reader, live_view(a.url)): a for a in look.answers if f"/matches/{pk}/live/" in a.url}
        for reader in ("the owner", "anonymous"):
            assert live[reader, "all"].status == 403, live[reader, "all"].text
            assert live[reader, str(opponent)].status == 403, live[reader, str(opponent)].text
            assert live[reader, "public"].status == 200 and live[reader, "public"].data["steps"] == look.step
        assert live["the owner", str(seat)].status == 200  # its own seat: what it knows already
        assert live["anonymous", str(seat)].status == 403

    # (d) Its set's partner rotation deals its opponent afresh (so the first rotation's deal is over, and public,
    # while the second is played); a sealed deal's played rotation shows nothing while its partner is to play.
    assert ended[first].base_seed != ended[second].base_seed
    assert hand(start_state(ended[second]), seats[first]) != held[first], "the opponent was dealt the cheater's hand"
    assert all(first not in look.matches() for look in looks if look.match_id == second)
    for look in looks:
        assert sealed[0].pk in look.matches() and sealed[1].pk in look.matches()
        shown = [a for a in look.answers if a.url.split("?")[0] in (f"/api/v1/matches/{sealed[0].pk}/replay/",
                                                                    f"/matches/{sealed[0].pk}/frames/")]
        assert len(shown) >= 4  # the replay and each view's frames, as its owner and as nobody
        for answer in shown:
            assert answer.status == 404 and answer.data["error"]["code"] == "embargoed", f"{answer}: {answer.text}"

    # (e) Every deal over: the seeds and replays are shown, and the attacks above now succeed.
    def read(url: str) -> Answer:
        return next(a for a in after if a.reader == "anonymous" and a.url == url)

    for pk, match in ended.items():
        detail = read(f"/api/v1/matches/{pk}/")
        assert (detail.data["seed"], detail.data["base_seed"]) == (str(match.seed), str(match.base_seed))
        assert f"--seed {match.base_seed}" in read(f"/matches/{pk}/").text
        replay = read(f"/api/v1/matches/{pk}/replay/")
        assert replay.status == 200 and replay.data["seed"] == match.seed
        assert read(f"/matches/{pk}/frames/?seat=all&count=200").status == 200
    numbers = set().union(*(numbers_in(a.text) for a in after))
    assert {pk for _, pk in rebuilt(numbers, ended.values())} == set(ended)  # (b) sees a seed once shown
    assert cards_shown(after, first, knowledge[first][0], deck_of(start_state(ended[first])))  # (c) sees a hand
