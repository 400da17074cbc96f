"""Build one dump: stream a month's open-data matches into a replay file and an index, then list them.

Memory stays bounded whatever the month holds: matches are read by one streaming query in chunks, each
chunk's seats by one query, each replay copied as it is stored, and the index written a row group at a time.
The replay file is the stored replays' own gzip members, each followed by a member holding a newline: one
valid gzip file (RFC 1952 allows members in sequence; ``zcat`` and Python's gzip read them as one stream) of
one replay per line, with no replay decompressed or compressed again. Files are written to a temporary
folder, stored under the attempt's own names, and only then named by the ``Dump`` row (``ready``) in the
same conditional update that checks the lease, so a crash leaves no half dump listed (docs/data.md).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
import socket
import tempfile
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from arena.games import resolve
from arena.games.options import rules_to_dict
from bots import blobs
from bots.models import REMOTE_RUNTIME
from matches.models import Seat
from opendata import select
from opendata.models import Dump
from ratings.models import RatingSnapshot

FORMAT = "kozyr-open-data"
VERSION = 1
CHUNK = 2_000  # matches per query of seats, and per batch of index rows
ROW_GROUP = 10_000  # index rows per Parquet row group: the unit of memory of the writer and of a reader
LEASE = timedelta(hours=2)  # longer than any build (a million matches take minutes): a live build is never taken
NEWLINE = gzip.compress(b"\n", mtime=0)
# A seat's stderr is private to its bot's owner. Replays stored since the bad-input fixes (play/match.py,
# store_replay) hold none, but a site older than that stored some: any stderr_tail that is not empty. Inside a
# JSON string a quote is escaped, so this pattern can only be the field itself.
STDERR = re.compile(rb'"stderr_tail":\s*\[\s*[^\]\s]')

SEAT_TYPE = pa.struct([
    ("seat", pa.int8()), ("bot", pa.string()), ("version", pa.int32()), ("owner", pa.string()),
    ("rating", pa.float64()), ("remote", pa.bool_()), ("rank", pa.int16()), ("score", pa.float64()),
    ("verdict", pa.string()), ("code", pa.string()),
])
INDEX_SCHEMA = pa.schema([
    ("match_id", pa.int64()), ("line", pa.int64()), ("game", pa.string()), ("preset", pa.string()),
    ("kind", pa.string()), ("ranked", pa.bool_()), ("rules", pa.string()), ("overrides", pa.string()),
    ("started", pa.timestamp("us", tz="UTC")), ("finished", pa.timestamp("us", tz="UTC")),
    ("duplicate_set", pa.string()), ("rotation", pa.int16()), ("ended_by", pa.string()),
    ("points", pa.list_(pa.float64())), ("seats", pa.list_(SEAT_TYPE)),
    ("replay_sha256", pa.string()), ("replay_size", pa.int64()),
])
COLUMNS = {
    "match_id": "the match's id on the site (/matches/ID/, /api/v1/matches/ID/)",
    "line": "the match's line in the replay file, from 1",
    "game": "the game family", "preset": "the preset played",
    "kind": "ladder, challenge or tournament", "ranked": "whether it counted for the ratings",
    "rules": "every rule option as played (JSON)", "overrides": "the options changed from the preset (JSON)",
    "started": "when play began (UTC)", "finished": "when the match ended (UTC); it sets the month",
    "duplicate_set": "the matches that played the same deal with the seats rotated share it",
    "rotation": "the rotation of the seats within the duplicate set",
    "ended_by": "rules, forfeit or decision-limit (docs/replay.md)", "points": "each seat's points",
    "seats": "per seat: seat, bot, version, owner, rating (official Elo of the version at the last refit before "
             "the match ended; null if none yet), remote (played over `arena connect`), rank, score, verdict, code",
    "replay_sha256": "SHA-256 of the replay's .json.gz as /api/v1/matches/ID/replay/ serves it",
    "replay_size": "bytes of that .json.gz",
}


@dataclass
class Written:
    path: Path
    size: int
    sha256: str


class HashingWriter:
    """A binary file that counts and hashes what goes through it."""

    def __init__(self, path: Path):
        self.path = path
        self.handle = open(path, "wb")  # noqa: SIM115 (closed by finish)
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> None:
        self.handle.write(data)
        self.digest.update(data)
        self.size += len(data)

    def finish(self) -> Written:
        self.handle.close()
        return Written(self.path, self.size, self.digest.hexdigest())


def file_digest(path: Path) -> Written:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return Written(path, path.stat().st_size, digest.hexdigest())


def _chunks(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _seats_of(match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Each match's seats, in seat order, with the version's official rating at the time the match ended."""
    rating = (RatingSnapshot.objects.filter(bot=OuterRef("version__bot"), version=OuterRef("version"),
                                            preset=OuterRef("match__preset"), at__lte=OuterRef("match__finished"))
              .order_by("-at").values("rating")[:1])
    rows = (Seat.objects.filter(match_id__in=match_ids).order_by("match_id", "seat")
            .annotate(rating=Subquery(rating))
            .values("match_id", "seat", "rank", "score", "verdict", "code", "rating", "version__number",
                    "version__runtime", "version__bot__name", "version__bot__owner__username"))
    seats: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        seats.setdefault(row["match_id"], []).append({
            "seat": row["seat"], "bot": row["version__bot__name"], "version": row["version__number"],
            "owner": row["version__bot__owner__username"], "rating": row["rating"],
            "remote": row["version__runtime"] == REMOTE_RUNTIME, "rank": row["rank"], "score": row["score"],
            "verdict": row["verdict"], "code": row["code"]})
    return seats


class RulesCache:
    """Every option as played, per preset and overrides: a month has a handful of distinct ones."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str], str] = {}

    def __call__(self, preset: str, overrides: dict[str, Any]) -> str:
        key = (preset, json.dumps(overrides, sort_keys=True))
        if key not in self.known:
            if len(self.known) > 1000:
                self.known.clear()
            self.known[key] = json.dumps(rules_to_dict(resolve(preset, overrides)[1]), separators=(",", ":"))
        return self.known[key]


def write_files(preset: str, month: date, folder: Path) -> dict[str, Any]:
    """The replay file and the index of ``preset``'s ``month`` in ``folder``; what was written."""
    stem = f"kozyr-{preset}-{month:%Y-%m}"
    replays = HashingWriter(folder / f"{stem}.jsonl.gz")
    index_path = folder / f"{stem}.index.parquet"
    rules_of = RulesCache()
    missing = stripped = 0
    line = 0
    pending: list[dict[str, Any]] = []
    matches = (select.dump_matches(preset, month).order_by("finished", "id")
               .values("id", "game", "preset", "kind", "ranked", "overrides", "started", "finished", "duplicate_set",
                       "rotation", "result", "replay_sha256", "replay_size"))
    with pq.ParquetWriter(index_path, INDEX_SCHEMA, compression="zstd") as index:
        for chunk in _chunks(matches.iterator(chunk_size=CHUNK)):
            seats = _seats_of([m["id"] for m in chunk])
            for match in chunk:
                try:
                    data = blobs.get("replays", match["replay_sha256"])
                except (blobs.BlobMissing, blobs.BlobCorrupt):
                    missing += 1  # storage lost or damaged it: left out and counted, never a damaged line
                    continue
                if STDERR.search(zlib.decompress(data, wbits=31)):
                    data = without_stderr(data)
                    stripped += 1
                replays.write(data)
                replays.write(NEWLINE)
                line += 1
                result = match["result"] or {}
                pending.append({
                    "match_id": match["id"], "line": line, "game": match["game"], "preset": match["preset"],
                    "kind": match["kind"], "ranked": match["ranked"],
                    "rules": rules_of(match["preset"], match["overrides"]),
                    "overrides": json.dumps(match["overrides"], separators=(",", ":"), sort_keys=True),
                    "started": match["started"], "finished": match["finished"],
                    "duplicate_set": str(match["duplicate_set"]), "rotation": match["rotation"],
                    "ended_by": result.get("ended_by"),
                    "points": [float(p) for p in result.get("points") or []],
                    "seats": seats.get(match["id"], []),
                    "replay_sha256": match["replay_sha256"], "replay_size": match["replay_size"]})
            if len(pending) >= ROW_GROUP:
                index.write_table(pa.Table.from_pylist(pending, schema=INDEX_SCHEMA))
                pending = []
        if pending or line == 0:  # an empty month still gets a readable (empty) index
            index.write_table(pa.Table.from_pylist(pending, schema=INDEX_SCHEMA))
    return {"replays": replays.finish(), "index": file_digest(index_path), "matches": line, "missing": missing,
            "stderr_removed": stripped}


def without_stderr(data: bytes) -> bytes:
    """A stored replay (gzip) with every seat's stderr tail emptied, as store_replay stores one now."""
    replay = json.loads(zlib.decompress(data, wbits=31))
    replay["verdicts"] = [{**v, "stderr_tail": []} for v in replay.get("verdicts", [])]
    return gzip.compress(json.dumps(replay, separators=(",", ":"), ensure_ascii=False).encode(), mtime=0)


def manifest(dump: Dump, written: dict[str, Any], withheld: dict[str, int], game: str) -> dict[str, Any]:
    replays, index = written["replays"], written["index"]
    return {
        "format": FORMAT, "version": VERSION, "preset": dump.preset, "game": game, "month": dump.label,
        "built": timezone.now().isoformat(), "matches": written["matches"],
        "kinds": [str(kind) for kind in select.PUBLIC_KINDS],
        "withheld": withheld,
        "files": [
            {"kind": "replays", "name": replays.path.name, "size": replays.size, "sha256": replays.sha256,
             "lines": written["matches"],
             "format": "gzip; one kozyr-replay version 1 JSON object per line (docs/replay.md), in the order of "
                       "the index's line column"},
            {"kind": "index", "name": index.path.name, "size": index.size, "sha256": index.sha256,
             "rows": written["matches"], "format": "Apache Parquet, zstd", "columns": COLUMNS},
        ],
    }


def claim(dump_id: int, owner: str) -> bool:
    """Take the build of a dump not ready, unless a live build holds it (a crashed one's lease has expired)."""
    now = timezone.now()
    return Dump.objects.filter(pk=dump_id, status=Dump.Status.BUILDING).filter(
        Q(lease_expires__isnull=True) | Q(lease_expires__lt=now)).update(
        lease_owner=owner, lease_expires=now + LEASE, attempt=F("attempt") + 1) == 1


class ScratchFile(File):
    """A finished file in the scratch folder. Its ``temporary_file_path`` lets the file-system storage move it
    into place (a rename on the same disk) instead of copying gigabytes; a remote storage streams it."""

    def temporary_file_path(self) -> str:
        return str(self.local)


def _store(local: Path, name: str) -> str:
    with open(local, "rb") as handle:
        scratch = ScratchFile(handle, name=local.name)
        scratch.local = local
        return default_storage.save(name, scratch)


def build(dump_id: int, owner: str | None = None) -> str:
    """Build the dump ``dump_id`` if no live build holds it: "ready", "busy" (another build holds it) or
    "lost" (this build's lease was taken meanwhile; its files are removed)."""
    owner = owner or f"{socket.gethostname()}:{os.getpid()}"
    if not claim(dump_id, owner):
        return "busy"
    dump = Dump.objects.get(pk=dump_id)
    started = time.monotonic()
    game = resolve(dump.preset)[0]
    withheld = select.withheld(dump.preset, dump.month)
    prefix = f"opendata/{dump.preset}/{dump.label}/attempt-{dump.attempt}"
    stored: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="kozyr-dump-", dir=_scratch()) as scratch:
            written = write_files(dump.preset, dump.month, Path(scratch))
            if written["missing"]:
                withheld["replay_missing"] = written["missing"]
            if written["stderr_removed"]:
                withheld["stderr_removed_from"] = written["stderr_removed"]
            document = manifest(dump, written, withheld, game)
            manifest_path = Path(scratch) / f"kozyr-{dump.preset}-{dump.label}.manifest.json"
            manifest_path.write_text(json.dumps(document, indent=2) + "\n")
            files = {"replays": written["replays"], "index": written["index"], "manifest": file_digest(manifest_path)}
            names = {}
            for kind, done in files.items():
                names[kind] = _store(done.path, f"{prefix}/{done.path.name}")
                stored.append(names[kind])
        with transaction.atomic():
            listed = Dump.objects.filter(pk=dump_id, lease_owner=owner, attempt=dump.attempt).update(
                status=Dump.Status.READY, built=timezone.now(), seconds=round(time.monotonic() - started, 3),
                matches=written["matches"], withheld=withheld, lease_owner="", lease_expires=None,
                **{f"{kind}_{field}": value for kind, done in files.items()
                   for field, value in (("name", names[kind]), ("size", done.size), ("sha256", done.sha256))})
    except BaseException:
        # A build that fails (a full disk, a lost database) gives its claim back at once, so that the next run
        # of the beat job tries again; one whose process is killed keeps it until the lease expires.
        _remove(stored)
        Dump.objects.filter(pk=dump_id, lease_owner=owner, status=Dump.Status.BUILDING).update(
            lease_owner="", lease_expires=None)
        raise
    if not listed:
        _remove(stored)
        return "lost"
    _remove_other_attempts(dump)
    return "ready"


def _scratch() -> str | None:
    folder = Path(getattr(settings, "VAR_DIR", tempfile.gettempdir())) / "opendata-scratch"
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


def _remove(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)


def _remove_other_attempts(dump: Dump) -> None:
    """Files a crashed attempt stored before it died: named by no row, so nobody can be reading them."""
    base = f"opendata/{dump.preset}/{dump.label}"
    try:
        folders, _ = default_storage.listdir(base)
    except (FileNotFoundError, NotImplementedError):
        return
    for folder in folders:
        if folder != f"attempt-{dump.attempt}":
            try:
                _, files = default_storage.listdir(f"{base}/{folder}")
            except FileNotFoundError:
                continue
            _remove([f"{base}/{folder}/{name}" for name in files])
            # A file-system storage keeps the emptied folder; an object store has none to remove.
            with contextlib.suppress(NotImplementedError, OSError):
                os.rmdir(default_storage.path(f"{base}/{folder}"))
