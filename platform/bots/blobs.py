"""Content-addressed files in the storage backend (bot uploads, builds, replays, logs).

A blob's name is derived from its SHA-256, so saving is idempotent (two workers storing the same replay
write the same name) and a reader verifies what it fetched.
"""

from __future__ import annotations

import hashlib

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage


class BlobMissing(Exception):
    pass


class BlobCorrupt(Exception):
    pass


def blob_name(kind: str, sha256: str) -> str:
    return f"{kind}/{sha256[:2]}/{sha256}"


def put(kind: str, data: bytes) -> str:
    """Store ``data`` once; returns its SHA-256."""
    digest = hashlib.sha256(data).hexdigest()
    name = blob_name(kind, digest)
    if not default_storage.exists(name):
        saved = default_storage.save(name, ContentFile(data))
        if saved != name:  # a concurrent writer got there first and the backend renamed ours: drop the copy
            default_storage.delete(saved)
    return digest


def get(kind: str, sha256: str) -> bytes:
    name = blob_name(kind, sha256)
    try:
        with default_storage.open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise BlobMissing(f"{name} is not in storage") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise BlobCorrupt(f"{name} does not match its hash")
    return data


def delete(kind: str, sha256: str) -> None:
    """Remove a blob (gone already is fine). The caller decides nothing names it any more: a blob is shared by
    everything with the same bytes (bots.actions.release_build checks the versions)."""
    default_storage.delete(blob_name(kind, sha256))
