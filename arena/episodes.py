"""``arena episodes``: download a site's public matches (replays) in bulk, resumably, every file verified.

    arena episodes --bot greedy-bura --since 2026-11-01 --out data/

Lists the site's episodes (``/api/v1/episodes/``, newest first, a cursor through the pages) with the filters
given, and saves each replay as ``OUT/<preset>-<id>.json.gz``: written to a ``.part`` file, checked against the
SHA-256 the list gives, then renamed, so a file with its final name is always whole and right. Run again, it
skips every file already there whose hash checks (a file that does not check is fetched again) and fetches the
rest: an interrupted download resumes. ``OUT/episodes.ndjson`` gets the listed rows (seats, bots, result),
one JSON object per line (not ``.jsonl``, which ``arena.data`` reads as replays), rewritten whole at the end of
each run. No log-in is needed: the episodes are public.
``arena.data.load(OUT)`` turns the folder into training data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.client import SITE_SETTING, ClientError, Site, known_sites, load_credentials, normalise_url, server_message

ATTEMPTS = 3  # a download whose bytes do not check is fetched again this many times in all
PAGE_SIZE = 500


def add_command(sub) -> None:
    episodes = sub.add_parser(
        "episodes", help="download a site's public matches (replays) in bulk; resumes, verifies every hash",
        description="Saves each listed match's replay as OUT/<preset>-<id>.json.gz, checked against its "
                    "SHA-256, and the list as OUT/episodes.ndjson. Run again to resume: files already there "
                    "and whole are kept. docs/data.md")
    episodes.add_argument("--bot", metavar="NAME", help="the matches this bot sat in")
    episodes.add_argument("--version", type=int, metavar="N", help="with --bot: that version's matches only")
    episodes.add_argument("--preset", metavar="P", help="one preset's matches only")
    episodes.add_argument("--since", type=_date, metavar="DATE", help="finished on or after (YYYY-MM-DD, UTC)")
    episodes.add_argument("--until", type=_date, metavar="DATE", help="finished before (YYYY-MM-DD, UTC)")
    episodes.add_argument("--limit", type=int, metavar="N", help="at most N matches, newest first")
    episodes.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to save them in")
    episodes.add_argument("--site", metavar="URL",
                          help=f"the site (a URL, or a site you logged in to); default ${SITE_SETTING} or the "
                               f"last site logged in to")
    episodes.add_argument("--quiet", action="store_true", help="print only the summary line")


def _date(text: str) -> str:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: give it as YYYY-MM-DD") from None


def site_for(wanted: str | None) -> Site:
    """A site logged in to (its token sent), or any site's URL (read as a visitor)."""
    wanted = wanted or os.environ.get(SITE_SETTING)
    if wanted is None or wanted in known_sites()["sites"] or "://" not in wanted:
        credentials = load_credentials(wanted)
        return Site(credentials["url"], credentials.get("token"))
    return Site(normalise_url(wanted))


def listing(site: Site, filters: dict[str, Any], limit: int | None = None) -> Iterator[dict[str, Any]]:
    """Every listed episode, following the cursor from page to page."""
    query = urllib.parse.urlencode({k: v for k, v in {**filters, "page_size": PAGE_SIZE}.items() if v is not None})
    path: str | None = f"/api/v1/episodes/?{query}"
    given = 0
    while path is not None:
        page = site.request("GET", path)
        for row in page["results"]:
            if limit is not None and given >= limit:
                return
            given += 1
            yield row
        following = page.get("next")
        path = None
        if following:
            parts = urllib.parse.urlsplit(following)
            path = f"{parts.path}?{parts.query}"
            base = urllib.parse.urlsplit(site.url).path
            if base and path.startswith(base):  # a site served under a path prefix
                path = path[len(base):]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(site: Site, path: str) -> bytes:
    headers = {"User-Agent": "arena-cli"}
    if site.token:
        headers["Authorization"] = f"Token {site.token}"
    request = urllib.request.Request(site.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=site.timeout) as response:
            return response.read()
    except urllib.error.HTTPError as err:
        raise ClientError(server_message(err)) from None
    except (urllib.error.URLError, OSError) as err:
        raise ClientError(f"cannot reach {site.url}: {getattr(err, 'reason', err)}") from None


def save_replay(site: Site, row: dict[str, Any], out: Path) -> bool:
    """Make ``out/<preset>-<id>.json.gz`` the match's verified replay; False when it was there already."""
    target = out / f"{row['preset']}-{row['id']}.json.gz"
    wanted = row["replay_sha256"]
    if target.exists() and sha256_of(target) == wanted:
        return False
    partial = target.with_name(target.name + ".part")
    for _ in range(ATTEMPTS):
        data = fetch(site, f"/api/v1/matches/{row['id']}/replay/")
        if hashlib.sha256(data).hexdigest() == wanted:
            partial.write_bytes(data)
            os.replace(partial, target)  # atomic: a file under its final name is always whole
            return True
    partial.unlink(missing_ok=True)
    raise ClientError(f"the replay of match {row['id']} does not match its SHA-256 {wanted} after {ATTEMPTS} "
                      f"downloads; nothing was saved for it")


def run(args: argparse.Namespace) -> int:
    try:
        if args.version is not None and not args.bot:
            raise ClientError("--version needs --bot: the version number of which bot?")
        if args.limit is not None and args.limit < 1:
            raise ClientError("--limit must be 1 or more")
        site = site_for(args.site)
        out: Path = args.out
        out.mkdir(parents=True, exist_ok=True)
        filters = {"bot": args.bot, "version": args.version, "preset": args.preset, "since": args.since,
                   "until": args.until}
        fetched = kept = 0
        index = out / "episodes.ndjson.part"
        with open(index, "w") as rows:
            for row in listing(site, filters, args.limit):
                rows.write(json.dumps(row, separators=(",", ":")) + "\n")
                if save_replay(site, row, out):
                    fetched += 1
                    if not args.quiet:
                        print(f"match {row['id']} ({row['preset']}): saved")
                else:
                    kept += 1
        os.replace(index, out / "episodes.ndjson")
    except ClientError as err:
        from arena.protocol import printable

        print(f"arena: error: {printable(str(err))}", file=sys.stderr)
        return 2
    print(f"{fetched + kept} matches in {out}: {fetched} downloaded, {kept} already there, every SHA-256 checked")
    return 0
