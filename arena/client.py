"""``arena login``, ``arena upload``, ``arena bots``, ``arena challenge``, ``arena sites``, ``arena remote`` and
``arena connect``: the terminal's client of Kozyr sites.

It speaks HTTP to the site's API (``/api/v1/``) with the standard library only; arena never imports
Django. The tokens, one per site, are kept in ``$XDG_CONFIG_HOME/kozyr/credentials.json`` (default
``~/.config``), readable by its owner only. Every error the server sends is shown as the one-line
``error.message`` it carries.
"""

from __future__ import annotations

import argparse
import getpass
import io
import json
import os
import shutil
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from pathlib import Path
from typing import Any

GAMES = ("bura", "kozel", "burraco")
WAIT_SECONDS = 600
POLL_SECONDS = 1.0


class ClientError(Exception):
    """One line for the terminal: what went wrong talking to the site."""


# ---- credentials -------------------------------------------------------------------------------------------
# credentials.json: {"default": URL, "sites": {URL: {"token": ..., "username": ...}}}. `arena login URL` adds
# or replaces one site and makes it the default; `--site` (or KOZYR_SITE) picks another for one command. A
# file of the earlier one-site form ({"url", "token", "username"}) is read as a single site.

SITE_SETTING = "KOZYR_SITE"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kozyr"


def credentials_path() -> Path:
    return config_dir() / "credentials.json"


def _read_sites(path: Path) -> dict[str, Any]:
    """The file's sites and default; an absent file is no site at all."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {"default": None, "sites": {}}
    except (OSError, ValueError) as err:
        raise ClientError(f"cannot read {path}: {err}; run `arena login URL` again") from None
    if isinstance(data, dict) and isinstance(data.get("url"), str) and isinstance(data.get("token"), str):
        data = {"default": data["url"], "sites": {data["url"]: {"token": data["token"],
                                                                 "username": data.get("username", "")}}}
    sites = data.get("sites") if isinstance(data, dict) else None
    if not isinstance(sites, dict) or not all(
            isinstance(entry, dict) and isinstance(entry.get("token"), str) for entry in sites.values()):
        raise ClientError(f"{path} is damaged; run `arena login URL` again")
    default = data.get("default")
    return {"default": default if default in sites else None, "sites": sites}


def save_credentials(url: str, token: str, username: str) -> Path:
    """Keep this site's token beside the others', and make it the default."""
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    path = credentials_path()
    known = _read_sites(path) if path.exists() else {"default": None, "sites": {}}
    known["sites"][url] = {"token": token, "username": username}
    known["default"] = url
    scratch = folder / ".credentials.json.new"
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(known, handle, indent=1, sort_keys=True)
    os.chmod(scratch, 0o600)  # the file may have existed with wider permissions
    os.replace(scratch, path)  # a crash mid-write never leaves the other sites' tokens half written
    return path


def known_sites() -> dict[str, Any]:
    return _read_sites(credentials_path())


def load_credentials(site: str | None = None) -> dict[str, str]:
    """The site to talk to: ``site`` (a logged-in URL, or its host name), else KOZYR_SITE, else the default."""
    known = known_sites()
    if not known["sites"]:
        raise ClientError("not logged in: run `arena login URL` first")
    wanted = site or os.environ.get(SITE_SETTING) or known["default"]
    if not wanted:
        raise ClientError(f"logged in to {len(known['sites'])} sites and none is the default: "
                          f"name one with --site ({', '.join(sorted(known['sites']))})")
    url = _match_site(wanted, known["sites"])
    return {"url": url, **known["sites"][url]}


def _match_site(wanted: str, sites: dict[str, Any]) -> str:
    if wanted in sites:
        return wanted
    with_scheme = wanted if "://" in wanted else f"https://{wanted}"
    try:
        normalised = normalise_url(with_scheme)
    except ClientError:
        normalised = None
    if normalised in sites:
        return normalised
    by_host = [url for url in sites if urllib.parse.urlsplit(url).netloc == wanted]
    if len(by_host) == 1:
        return by_host[0]
    raise ClientError(f"not logged in to {wanted}: run `arena login {wanted}` first"
                      f" (logged in to: {', '.join(sorted(sites))})")


# ---- HTTP ----------------------------------------------------------------------------------------------------

class Site:
    def __init__(self, url: str, token: str | None = None, timeout: float = 60):
        self.url = normalise_url(url)
        self.token = token
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None, *, form: dict | None = None,
                files: dict | None = None) -> Any:
        headers = {"Accept": "application/json", "User-Agent": "arena-cli"}
        data = None
        if files is not None:
            data, content_type = multipart(form or {}, files)
            headers["Content-Type"] = content_type
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as err:
            raise ClientError(server_message(err)) from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise ClientError(f"cannot reach {self.url}: {reason}") from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ClientError(f"{self.url}{path} answered something that is not JSON; is this a Kozyr site?") \
                from None


def normalise_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"{url!r} is not a site address; give one like https://kozyr.example.org")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def server_message(err: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(err.read() or b"{}")
        message = body["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = err.reason
    return f"{message} (HTTP {err.code})"


def multipart(form: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in form.items():
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode())
    for name, (filename, data) in files.items():
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                  f"Content-Type: application/octet-stream\r\n\r\n".encode())
        out.write(data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


# ---- the bot file --------------------------------------------------------------------------------------------

def bot_payload(path: Path) -> tuple[str, bytes]:
    """A file is sent as it is; a folder is zipped (its files at the zip's top level, links refused)."""
    if path.is_file():
        return path.name, path.read_bytes()
    if not path.is_dir():
        raise ClientError(f"{path} is neither a file nor a folder")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in sorted(path.rglob("*")):
            relative = item.relative_to(path)
            if any(part in ("__pycache__", ".git", "node_modules") for part in relative.parts):
                continue
            if item.is_symlink():
                raise ClientError(f"{item} is a symbolic link; bots may not contain links")
            if item.is_file():
                info = zipfile.ZipInfo(str(relative), date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = (item.stat().st_mode & 0o777 | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, item.read_bytes())
    return f"{path.resolve().name or 'bot'}.zip", buffer.getvalue()


# ---- commands ------------------------------------------------------------------------------------------------

def add_commands(sub) -> None:
    login = sub.add_parser("login", help="log in to a Kozyr site and keep an API token")
    login.add_argument("url", metavar="URL", help="the site, e.g. https://kozyr.example.org")
    login.add_argument("--token", help="an API token made on your profile page (no password asked)")
    login.add_argument("--username", help="your user name (asked when omitted)")

    upload = sub.add_parser("upload", help="upload a bot (creates it on the first upload)")
    upload.add_argument("path", type=Path, metavar="PATH", help="a script, a folder or a .zip")
    upload.add_argument("--game", required=True, choices=GAMES, help="the bot's game family")
    upload.add_argument("--bot", required=True, metavar="NAME", help="the bot's name on the site")
    upload.add_argument("--wait", action="store_true",
                        help="follow the validation match: exit 0 when ready, 1 when rejected, 3 when the site "
                             "could not validate it (its fault, not the bot's: upload it again later)")
    upload.add_argument("--no-open-data", action="store_true",
                        help="when it creates the bot: keep its public matches out of the site's open-data dumps "
                             "(by default they go in; docs/data.md)")

    bots = sub.add_parser("bots", help="my bots on the site, with their versions and status")

    sites = sub.add_parser("sites", help="the sites you are logged in to (* marks the default)")
    sites.add_argument("--default", metavar="URL", help="make this logged-in site the default")

    challenge = sub.add_parser("challenge", help="challenge another bot: an unranked duplicate set "
                                                 "(the same cards, the seats rotated)")
    challenge.add_argument("bot", metavar="MYBOT", help="one of your bots")
    challenge.add_argument("opponent", metavar="OPPONENT", help="any bot of the same game")
    challenge.add_argument("--preset", help="a two-sided preset both play (default: your bot's first)")
    challenge.add_argument("--wait", action="store_true", help="wait until the matches are played; print the result")
    remote = sub.add_parser(
        "remote", help="make a remote version of your bot (played from your machine by `arena connect`), "
                       "see its connections, make or revoke its tokens",
        description="Without an option: makes a remote version of the bot (creating the bot first when it does "
                    "not exist, as `arena upload` does), prints its token once and the `arena connect` command "
                    "that plays it. See docs/protocol.md, \"Remote bots\".")
    remote.add_argument("bot", metavar="NAME", help="one of your bots (created when it does not exist)")
    remote.add_argument("--game", choices=GAMES, help="the bot's game family (needed to create the bot)")
    remote.add_argument("--preset", action="append", metavar="P", dest="presets",
                        help="a preset the bot plays, when it is created (repeat for more; default: all)")
    action = remote.add_mutually_exclusive_group()
    action.add_argument("--status", action="store_true",
                        help="its open connections, its tokens and the clock allowance its seats get now")
    action.add_argument("--new-token", action="store_true",
                        help="one more token for its remote versions (shown once; the others stay valid)")
    action.add_argument("--revoke", action="store_true",
                        help="revoke every token of the bot; its connections close within seconds")
    for command in (upload, bots, challenge, remote):
        command.add_argument("--site", metavar="URL", help=f"a site you logged in to (default: the last one "
                                                            f"logged in to, or ${SITE_SETTING})")

    connect = sub.add_parser(
        "connect", help="play your bot's remote version from this machine: one connection to the site, "
                        "a fresh bot process per match",
        usage="arena connect --bot NAME [--token TOKEN] [--site URL] [--max-matches N] [--quiet] -- COMMAND ...",
        description="Plays the matches the site assigns to the bot's remote version: each one with a fresh "
                    "process of COMMAND (what `arena play` would start, e.g. `python3 my_bot.py`), which speaks "
                    "the ordinary protocol on stdin and stdout; its stderr stays on this terminal. Reconnects "
                    "when the connection drops; Ctrl-C stops. Exit status 2 when the site refuses the bot "
                    "(bad token, no remote version). See docs/protocol.md, \"Remote bots\".")
    connect.add_argument("--bot", required=True, metavar="NAME", help="the bot's name on the site")
    connect.add_argument("--token", metavar="TOKEN",
                         help=f"the bot's remote token (shown once when the remote version was made); "
                              f"default ${REMOTE_TOKEN_SETTING}, which keeps it off the command line")
    connect.add_argument("--site", metavar="URL",
                         help=f"the site, e.g. https://kozyr.example.org; needs no `arena login` (default: "
                              f"${SITE_SETTING}, or the last site logged in to)")
    connect.add_argument("--max-matches", type=_max_matches, default=4, metavar="N",
                         help="matches played at once, at most (default %(default)s; the site assigns no more)")
    connect.add_argument("--quiet", action="store_true",
                         help="print only errors and the site's reasons for closing, not a line per event")
    connect.add_argument("bot_command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                         help="the bot program and its arguments, after --")


REMOTE_TOKEN_SETTING = "KOZYR_REMOTE_TOKEN"
MAX_MATCHES_AT_ONCE = 16  # the site's own bound per connection


def _max_matches(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--max-matches must be a whole number, not {text!r}") from None
    if not 1 <= value <= MAX_MATCHES_AT_ONCE:
        raise argparse.ArgumentTypeError(f"--max-matches must be from 1 to {MAX_MATCHES_AT_ONCE}")
    return value


def cmd_login(args: argparse.Namespace) -> int:
    url = normalise_url(args.url)
    if args.token:
        site = Site(url, args.token)
    else:
        username = args.username or input("username: ").strip()
        password = getpass.getpass("password: ")
        answer = Site(url).request("POST", "/api/v1/auth/token/", {
            "username": username, "password": password, "name": f"arena on {socket.gethostname()}"[:64]})
        site = Site(url, answer["token"])
    me = site.request("GET", "/api/v1/me/")
    assert site.token is not None  # given, or just issued by the log-in above
    path = save_credentials(url, site.token, me["username"])
    print(f"logged in to {url} as {me['username']} (token kept in {path})")
    return 0


def _site(args: argparse.Namespace) -> tuple[Site, dict[str, str]]:
    credentials = load_credentials(getattr(args, "site", None))
    return Site(credentials["url"], credentials["token"]), credentials


def cmd_sites(args: argparse.Namespace) -> int:
    if args.default:
        chosen = load_credentials(args.default)
        save_credentials(chosen["url"], chosen["token"], chosen.get("username", ""))
    known = known_sites()
    if not known["sites"]:
        print("not logged in to any site: run `arena login URL`")
        return 0
    for url, entry in sorted(known["sites"].items()):
        print(f"{'*' if url == known['default'] else ' '} {url}  as {entry.get('username') or '?'}")
    return 0


def bot_or_create(site: Site, name: str, game: str | None, presets: list[str] | None = None,
                  open_data: bool = True) -> dict[str, Any]:
    """The bot called ``name``, created (for ``game``, playing ``presets``; empty: all) when it does not exist.
    A bot that exists must play ``game`` when one is given; whether it is the user's, the site says next."""
    try:
        bot = site.request("GET", f"/api/v1/bots/{urllib.parse.quote(name, safe='')}/")
    except ClientError as err:
        if "(HTTP 404)" not in str(err):
            raise
        if game is None:
            raise ClientError(f"there is no bot {name} yet: give --game GAME to create it") from None
        bot = site.request("POST", "/api/v1/bots/", {"name": name, "game": game, **({"presets": presets}
                                                                                    if presets else {}),
                                                     **({} if open_data else {"open_data": False})})
        print(f"created bot {bot['name']} ({bot['game']}"
              + (f", playing {', '.join(bot['presets'])}" if bot.get("presets") else "") + ")")
        # The author's choice about the open-data dumps, stated when the bot is made (docs/data.md).
        print("its public matches go into the site's open-data dumps (/data/)" if bot.get("open_data", open_data)
              else "its matches stay out of the site's open-data dumps (/data/)")
    if game is not None and bot["game"] != game:
        raise ClientError(f"bot {bot['name']} plays {bot['game']}, not {game}")
    return bot


def cmd_upload(args: argparse.Namespace) -> int:
    site, _ = _site(args)
    name = urllib.parse.quote(args.bot, safe="")
    filename, data = bot_payload(args.path)
    bot = bot_or_create(site, args.bot, args.game, open_data=not args.no_open_data)
    version = site.request("POST", f"/api/v1/bots/{name}/versions/", files={"file": (filename, data)})
    print(f"uploaded {bot['name']} v{version['number']} ({version['runtime']}, {version['size']} bytes): "
          f"{version['status']}")
    if not args.wait:
        return 0
    deadline = time.monotonic() + WAIT_SECONDS
    while version["status"] == "pending":
        if time.monotonic() > deadline:
            raise ClientError(f"still pending after {WAIT_SECONDS} s; check later with `arena bots`")
        time.sleep(POLL_SECONDS)
        version = site.request("GET", f"/api/v1/bots/{name}/versions/{version['number']}/")
    if version["status"] == "ready":
        print(f"v{version['number']} is ready: it is {bot['name']}'s current version and plays the ladder")
        return 0
    if version["status"] == "error":
        # The validation match could not be played (the site's infrastructure failed every attempt): nothing
        # is wrong with the bot, and the owner must not go looking for a bug in it.
        print(f"v{version['number']} could not be validated, through no fault of the bot: "
              f"{version.get('reason') or 'the site failed to play its validation match'}")
        return 3
    print(f"v{version['number']} was rejected: {version.get('reason') or 'no reason given'}")
    return 1


def cmd_bots(args: argparse.Namespace) -> int:
    site, credentials = _site(args)
    owner = urllib.parse.quote(credentials.get("username", ""), safe="")
    page = site.request("GET", f"/api/v1/bots/?owner={owner}&page_size=200")
    bots = page["results"]
    if not bots:
        print("no bots yet: `arena upload PATH --game GAME --bot NAME` creates one")
        return 0
    for bot in bots:
        state = "suspended" if bot.get("suspended") else ("active" if bot["active"] else "inactive")
        current = f"v{bot['current_version']}" if bot["current_version"] else "no ready version"
        print(f"{bot['name']}  ({bot['game']}, {state}, current {current})")
        if bot.get("suspended"):
            print(f"  {bot['suspended']}")
        versions = site.request("GET", f"/api/v1/bots/{urllib.parse.quote(bot['name'], safe='')}/versions/")
        for version in versions:
            line = f"  v{version['number']:<4} {version['status']:<9} {version['runtime']:<8} {version['created'][:19]}"
            if version.get("reason"):
                line += f"  {version['reason'][:200]}"
            print(line)
    return 0


DONE = ("finished", "failed", "cancelled")


def _sides(match: dict[str, Any]) -> str:
    return " v ".join(dict.fromkeys(seat["bot"] for seat in match["seats"]))


def _points(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def match_result(match: dict[str, Any]) -> str:
    """"alice-bura beat greedy-bura (12 to 4)", "a draw (6 to 6)", or the status of a match not finished."""
    if match["status"] != "finished":
        return match["status"] + (f": {match['failure']}" if match.get("failure") else "")
    best: dict[str, tuple[int, Any]] = {}  # bot -> (rank, points) of its side
    for seat in match["seats"]:
        best.setdefault(seat["bot"], (seat["rank"], _points(seat["score"])))
    ranked = sorted(best.items(), key=lambda item: item[1][0])
    score = " to ".join(str(points) for _, (_, points) in ranked)
    if len({rank for _, (rank, _) in ranked}) == 1:
        return f"a draw ({score})"
    if len(ranked) == 2:
        return f"{ranked[0][0]} beat {ranked[1][0]} ({score})"
    return "; ".join(f"{bot} #{rank} ({points})" for bot, (rank, points) in ranked)


def cmd_challenge(args: argparse.Namespace) -> int:
    site, _ = _site(args)
    body = {"bot": args.bot, "opponent": args.opponent, **({"preset": args.preset} if args.preset else {})}
    matches = site.request("POST", "/api/v1/challenges/", body)
    print(f"{args.bot} challenges {args.opponent} on {matches[0]['preset']}: {len(matches)} unranked "
          f"match{'es' if len(matches) != 1 else ''}, a duplicate set: the same cards, the seats swapped")
    for match in matches:
        print(f"  match {match['id']}: {_sides(match)}, {match['status']}  {site.url}/matches/{match['id']}/")
    if not args.wait:
        return 0
    deadline = time.monotonic() + WAIT_SECONDS
    while not all(m["status"] in DONE for m in matches):
        if time.monotonic() > deadline:
            raise ClientError(f"not played after {WAIT_SECONDS} s; see the matches' pages")
        time.sleep(POLL_SECONDS)
        matches = [m if m["status"] in DONE else site.request("GET", f"/api/v1/matches/{m['id']}/")
                   for m in matches]
    totals: dict[str, float] = {}
    for match in matches:
        print(f"  match {match['id']}: {match_result(match)}")
        if match["status"] == "finished":
            ranks = {seat["bot"]: seat["rank"] for seat in match["seats"]}
            for bot, rank in ranks.items():  # a win 1, a draw ½ (two sides)
                others = [r for b, r in ranks.items() if b != bot]
                totals[bot] = totals.get(bot, 0.0) + sum(1.0 if rank < r else 0.5 if rank == r else 0.0
                                                         for r in others) / max(len(others), 1)
    if totals:
        line = ", ".join(f"{bot} {_points(points)}" for bot, points in sorted(totals.items(), key=lambda kv: -kv[1]))
        print(f"result: {line} (1 a match won, 0.5 a draw)")
    return 0 if all(m["status"] == "finished" for m in matches) else 1


def _when(stamp: str | None, never: str = "never") -> str:
    return stamp[:19].replace("T", " ") if stamp else never


def cmd_remote(args: argparse.Namespace) -> int:
    if (args.status or args.new_token or args.revoke) and (args.game or args.presets):
        raise ClientError("--game and --preset are for making a remote version (and its bot); "
                          "not with --status, --new-token or --revoke")
    site, credentials = _site(args)
    path = f"/api/v1/bots/{urllib.parse.quote(args.bot, safe='')}/remote/"
    if args.status:
        return _remote_status(site, args.bot, site.request("GET", path))
    if args.revoke:
        revoked = site.request("POST", path + "revoke/")["revoked"]
        if not revoked:
            print(f"{args.bot} had no token to revoke")
        else:
            print(f"revoked {revoked} token{'s' if revoked != 1 else ''} of {args.bot}: its connections close "
                  f"within seconds; `arena remote {args.bot} --new-token` makes a new one")
        return 0
    if args.new_token:
        made = site.request("POST", path + "tokens/")
        print(f"a new token for {args.bot}'s remote versions (its other tokens stay valid until revoked)")
        _show_token(made)
        return 0
    bot = bot_or_create(site, args.bot, args.game, args.presets)
    mine = bot.get("owner", "").lower() == credentials.get("username", "").lower()  # else the site refuses it
    if mine and args.presets and sorted(bot.get("presets") or []) != sorted(args.presets):
        raise ClientError(f"bot {bot['name']} already exists and plays {', '.join(bot['plays'])}: --preset is "
                          f"only for a bot created here (change its presets on its page or with the API)")
    made = site.request("POST", f"/api/v1/bots/{urllib.parse.quote(bot['name'], safe='')}/remote/")
    version = made["version"]
    print(f"made {bot['name']} v{version['number']} ({version['runtime']}): {version['status']} until it connects "
          f"and plays its validation match, then on the ladder")
    _show_token(made)
    return 0


def _show_token(made: dict[str, Any]) -> None:
    print(f"token: {made['token']}")
    print("  shown only now: the site keeps only its digest, so copy it now (lost, it cannot be shown again;\n"
          "  `--new-token` makes another, `--revoke` revokes them all)")
    print("play it from your machine (replace ./my_bot with your bot's command, e.g. python3 my_bot.py):")
    print(f"  {made['connect']}")
    print(f"  (or export {REMOTE_TOKEN_SETTING}=<the token> and leave out --token: a command line is visible to "
          f"other users of the machine)")


def _remote_status(site: Site, name: str, state: dict[str, Any]) -> int:
    connections, tokens = state["connections"], state["tokens"]
    if connections:
        print(f"{name}: {len(connections)} open connection{'s' if len(connections) != 1 else ''}")
        for row in connections:
            p95 = f"{row['rtt_p95_ms']} ms" if row.get("rtt_p95_ms") is not None else "not measured yet"
            print(f"  v{row['version']:<4} since {_when(row['opened'])}  round trip p95 {p95} "
                  f"({row['rtt_samples']} samples)  {row['max_matches']} matches at once")
    else:
        print(f"{name}: no open connection (`arena connect` plays its remote version)")
    if tokens:
        print(f"tokens ({len(tokens)}, newest first):" if len(tokens) > 1 else "tokens (1):")
        for token in tokens:
            state_text = f"revoked {_when(token['revoked'])}" if token.get("revoked") else "live"
            print(f"  {token['prefix']}…  created {_when(token['created'])}  last used "
                  f"{_when(token.get('last_used'))}  {state_text}")
    else:
        print(f"no tokens: `arena remote {name}` makes a remote version and its token")
    allowance = state.get("allowance_ms")
    if allowance is None:
        print("allowance: none (no remote version to play)")
    else:
        print(f"allowance: {allowance} ms added to each startup's and move's clock for the network")
    return 0


def connect_site(wanted: str | None) -> str:
    """The site ``arena connect`` plays on: an address as given (no `arena login` needed: a remote bot's
    machine may hold no credentials), a logged-in site named by its host, or the logged-in default."""
    wanted = wanted or os.environ.get(SITE_SETTING) or None
    if wanted and "://" in wanted:
        return normalise_url(wanted)
    if wanted:
        try:
            return _match_site(wanted, known_sites()["sites"])
        except ClientError:
            return normalise_url(f"https://{wanted}")
    try:
        return load_credentials()["url"]
    except ClientError as err:
        raise ClientError(f"which site? give --site URL or set ${SITE_SETTING} ({err})") from None


def cmd_connect(args: argparse.Namespace) -> int:
    token = (args.token or os.environ.get(REMOTE_TOKEN_SETTING, "")).strip()
    if not token:
        raise ClientError(f"no token: set ${REMOTE_TOKEN_SETTING} (or give --token) to the token shown when the "
                          f"bot's remote version was made")
    command = args.bot_command[1:] if args.bot_command[:1] == ["--"] else args.bot_command
    if not command:
        raise ClientError("no bot to run: give its command after --, e.g. "
                          "`arena connect --bot NAME -- python3 my_bot.py`")
    if shutil.which(command[0]) is None:
        raise ClientError(f"cannot run the bot: {command[0]!r} is not a program found here "
                          f"(give a path such as ./my_bot, or an interpreter: python3 my_bot.py)")
    site = connect_site(args.site)
    from arena import remote  # websockets is loaded only for this command

    return remote.main(site=site, bot=args.bot, token=token, command=command, max_matches=args.max_matches,
                       quiet=args.quiet)


COMMANDS = {"login": cmd_login, "upload": cmd_upload, "bots": cmd_bots, "challenge": cmd_challenge,
            "sites": cmd_sites, "remote": cmd_remote, "connect": cmd_connect}


def run(args: argparse.Namespace) -> int:
    try:
        return COMMANDS[args.command](args)
    except ClientError as err:
        from arena.protocol import printable

        print(f"arena: error: {printable(str(err))}", file=sys.stderr)
        return 2
