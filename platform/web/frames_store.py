"""A replay view's frames, computed once and kept in media storage; requests are served by slicing them.

A view (one seat's eyes, or "all") of one replay is named by the replay's SHA-256, the view and FORMAT, so a
stored view never goes stale: a new replay is a new name, a new frame shape a new FORMAT. It is kept as
chunks of CHUNK frames, one encoded frame per line, gzipped (a long Burraco match's every-seat view is
~7 MB of JSON and ~150 KB stored), and a manifest naming each chunk's SHA-256 with the view's meta. Every
file is written atomically (a temporary file renamed over the name; an object store's single PUT), the
chunks before the manifest, so a reader that finds a manifest finds every chunk it names, and checks each
against its hash.

The cache holds only a short lock per view being computed (so concurrent first views compute it once),
never frames: the cache is Redis, the broker's own server, in production.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection

ROOT = "frames"  # the folder of media storage that holds every stored view
FORMAT = 3  # bump when the frames' shape changes (stored views of other formats are never read)
CHUNK = 100  # frames per stored chunk: the viewer asks for 100 at a time
LOCK_SECONDS = 120  # how long other requests wait for a view being computed before computing it themselves
POLL_SECONDS = 0.1

logger = logging.getLogger(__name__)

# compute() -> (steps, meta, every frame from step 0 to steps in order)
Compute = Callable[[], tuple[int, dict[str, Any], Iterable[dict[str, Any]]]]


class StoredFramesCorrupt(Exception):
    """A stored chunk that does not match its manifest's hash (or a manifest that does not parse)."""


def folder(sha256: str) -> str:
    """Where every stored view of one replay lives."""
    return f"{ROOT}/{sha256[:2]}/{sha256}"


def _view_folder(sha256: str, view: str) -> str:
    return f"{folder(sha256)}/v{FORMAT}-{view}"


@dataclass(frozen=True)
class StoredView:
    sha256: str
    view: str
    steps: int
    meta: dict[str, Any]
    chunks: list[str]  # SHA-256 of each stored chunk file

    def lines(self, start: int, stop: int) -> list[bytes]:
        """The encoded frames ``start`` .. ``stop`` (both included, 0 <= start <= stop <= steps)."""
        first, last = start // CHUNK, stop // CHUNK
        lines: list[bytes] = []
        for index in range(first, last + 1):
            lines += _read_chunk(self.sha256, self.view, index, self.chunks[index])
        return lines[start - first * CHUNK: stop - first * CHUNK + 1]


def _chunk_name(sha256: str, view: str, index: int) -> str:
    return f"{_view_folder(sha256, view)}/chunk-{index:05d}.jsonl.gz"


def _manifest_name(sha256: str, view: str) -> str:
    return f"{_view_folder(sha256, view)}/manifest.json"


def _read_chunk(sha256: str, view: str, index: int, digest: str) -> list[bytes]:
    name = _chunk_name(sha256, view, index)
    try:
        with default_storage.open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise StoredFramesCorrupt(f"{name} is missing") from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise StoredFramesCorrupt(f"{name} does not match its manifest")
    return gzip.decompress(data).split(b"\n")


def _read_manifest(sha256: str, view: str) -> StoredView | None:
    name = _manifest_name(sha256, view)
    try:
        with default_storage.open(name, "rb") as handle:
            manifest = orjson.loads(handle.read())
    except FileNotFoundError:
        return None
    except orjson.JSONDecodeError as err:
        raise StoredFramesCorrupt(f"{name} does not parse: {err}") from None
    return StoredView(sha256, view, manifest["steps"], manifest["meta"], manifest["chunks"])


def write_atomically(name: str, data: bytes) -> None:
    """Store ``data`` under ``name`` so a reader sees the whole file or none of it (replacing any old one)."""
    try:
        path = Path(default_storage.path(name))
    except NotImplementedError:  # an object store: one PUT is atomic
        if default_storage.exists(name):
            default_storage.delete(name)
        saved = default_storage.save(name, ContentFile(data))
        if saved != name:  # another writer stored the same name meanwhile (same content): drop our copy
            default_storage.delete(saved)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, default_storage.file_permissions_mode or 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _compute_and_store(sha256: str, view: str, compute: Compute) -> StoredView:
    began = time.perf_counter()
    steps, meta, frames = compute()
    digests: list[str] = []
    batch: list[bytes] = []
    stored_bytes = 0

    def flush() -> None:
        nonlocal stored_bytes
        data = gzip.compress(b"\n".join(batch), compresslevel=5)
        write_atomically(_chunk_name(sha256, view, len(digests)), data)
        digests.append(hashlib.sha256(data).hexdigest())
        stored_bytes += len(data)
        batch.clear()

    for frame in frames:
        batch.append(orjson.dumps(frame))  # JSON escapes newlines in strings: one frame is one line
        if len(batch) == CHUNK:
            flush()
    if batch:
        flush()
    if len(digests) != steps // CHUNK + 1:
        raise RuntimeError(f"replay {sha256}: {len(digests)} chunks computed for {steps} steps")
    write_atomically(_manifest_name(sha256, view),
                     orjson.dumps({"format": FORMAT, "steps": steps, "chunk": CHUNK, "chunks": digests, "meta": meta}))
    logger.info("replay %s view %s: frames computed and stored (%d steps, %d chunks, %d KB) in %.2f s",
                sha256[:12], view, steps, len(digests), stored_bytes // 1024, time.perf_counter() - began)
    return StoredView(sha256, view, steps, meta, digests)


def stored_view(sha256: str, view: str, compute: Compute) -> StoredView:
    """The stored frames of this view, computed and stored first if they are not there yet.

    Concurrent first requests for one view (threads or processes sharing the cache) compute it once: the
    others wait for its manifest, and compute it themselves only if the lock's holder gave up."""
    found = _read_manifest(sha256, view)
    if found is not None:
        return found
    lock = f"frames-lock:{FORMAT}:{sha256}:{view}"
    if not cache.add(lock, os.getpid(), LOCK_SECONDS):
        _give_back_connection()
        deadline = time.monotonic() + LOCK_SECONDS
        while time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            found = _read_manifest(sha256, view)
            if found is not None:
                return found
            if cache.add(lock, os.getpid(), LOCK_SECONDS):
                break  # the holder finished without storing it (its replay failed to re-run): our turn
        else:
            logger.warning("replay %s view %s: waited %d s for another computation; computing it here",
                           sha256[:12], view, LOCK_SECONDS)
    try:
        # Asked again under the lock: its holder may have stored the view and let go between our last look
        # and our taking the lock.
        found = _read_manifest(sha256, view)
        return found if found is not None else _compute_and_store(sha256, view, compute)
    finally:
        cache.delete(lock)


def _give_back_connection() -> None:
    """A request about to wait (up to LOCK_SECONDS) for another's computation holds no database connection
    meanwhile: under the web process's bounded pool, a few such waits would stall every other request."""
    if not connection.in_atomic_block:
        connection.close()  # back to the pool; a later query takes one again


def forget(sha256: str, view: str) -> None:
    """Drop a view's manifest, so the next request computes it again (its chunks are then overwritten)."""
    default_storage.delete(_manifest_name(sha256, view))


def stored_lines(sha256: str, view: str, compute: Compute, start: int, stop: int) -> tuple[StoredView, list[bytes]]:
    """(the stored view, its encoded frames ``start`` .. ``stop`` clipped to the match: none when ``start`` is
    past its end); a damaged stored view is computed again."""
    for attempt in (1, 2):
        try:
            stored = stored_view(sha256, view, compute)
            return stored, stored.lines(start, min(stop, stored.steps)) if 0 <= start <= stored.steps else []
        except StoredFramesCorrupt as err:
            if attempt == 2:
                raise
            logger.warning("replay %s view %s: %s; computing it again", sha256[:12], view, err)
            forget(sha256, view)
    raise AssertionError("unreachable")
