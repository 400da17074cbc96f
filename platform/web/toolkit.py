"""The bot author's toolkit (`arena`, toolkit/pyproject.toml) built as a wheel and served by the site.

A hosted site's users have no checkout: they `pip install` the wheel from here. It is built from the site's own
arena/ and sandbox/ folders, so it plays exactly the referee and engines the site plays. The build runs once per
state of those sources (their digest names its folder under VAR_DIR/toolkit/), from a copy in a temporary folder
(the checkout stays untouched, and two processes never build in the same place), under a file lock (a second
process waits, then finds it built). `manage.py build_toolkit` builds it ahead of the first request.

The wheel's URL carries its own SHA-256 (content-addressed: a URL never changes what it serves, so it is cached
for good) and the page shows the whole digest, which pip checks given `#sha256=` after the URL.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpResponseNotFound
from django.shortcuts import render

from web.docs_pages import nav

PACKAGES = ("arena", "sandbox")
PYPROJECT = Path("toolkit") / "pyproject.toml"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.egg-info")
# zip entries dated 1980-01-01 (setuptools' bdist_wheel reads it): the same sources give the same bytes
SOURCE_DATE_EPOCH = "315532800"
BUILD_TIMEOUT_S = 300


class ToolkitError(RuntimeError):
    """The wheel could not be built; the message is pip's own last lines."""


@dataclass(frozen=True)
class Wheel:
    path: Path
    sha256: str

    @property
    def filename(self) -> str:
        return self.path.name

    @property
    def short(self) -> str:
        return self.sha256[:16]

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def _sources(repo: Path) -> Iterator[Path]:
    yield repo / PYPROJECT
    for package in PACKAGES:
        for path in sorted((repo / package).rglob("*")):
            if path.is_file() and not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts) \
                    and path.suffix not in (".pyc", ".so"):
                yield path


def source_digest(repo: Path) -> str:
    digest = hashlib.sha256()
    for path in _sources(repo):
        digest.update(str(path.relative_to(repo)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def root() -> Path:
    return Path(settings.VAR_DIR) / "toolkit"


def _built(folder: Path) -> Wheel | None:
    wheels = sorted(folder.glob("*.whl"))
    digest_file = folder / "sha256"
    if len(wheels) != 1 or not digest_file.exists():
        return None
    return Wheel(wheels[0], digest_file.read_text().strip())


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(repo: Path, out: Path) -> Path:
    """Build the toolkit's wheel from a copy of ``repo``'s packages into ``out``; returns the wheel's path."""
    with tempfile.TemporaryDirectory(prefix="kozyr-toolkit-") as tmp:
        source = Path(tmp) / "src"
        for package in PACKAGES:
            shutil.copytree(repo / package, source / package, ignore=SKIP)
        (source / PYPROJECT).parent.mkdir(parents=True)
        shutil.copy2(repo / PYPROJECT, source / PYPROJECT)
        # no build isolation and no index: setuptools is the site's own, so building needs no network
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                   "--no-index", "--disable-pip-version-check", "--wheel-dir", str(out),
                   str(source / PYPROJECT.parent)]
        env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "PIP_NO_CACHE_DIR": "1"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=BUILD_TIMEOUT_S,
                              cwd=tmp, check=False)
        wheels = sorted(out.glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise ToolkitError(f"building the toolkit's wheel failed (pip exited {done.returncode}): {tail}")
        return wheels[0]


def wheel() -> Wheel:
    """The wheel of the site's current sources, built on first need."""
    repo = Path(settings.REPO_DIR)
    folder = root() / source_digest(repo)[:24]
    found = _built(folder)
    if found:
        return found
    root().mkdir(parents=True, exist_ok=True)
    with _locked(root() / ".lock"):
        found = _built(folder)  # another process built it while this one waited
        if found:
            return found
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root()))
        try:
            path = build(repo, staging)
            (staging / "sha256").write_text(hashlib.sha256(path.read_bytes()).hexdigest() + "\n")
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        # the builds of earlier sources are served no more (download() answers only the current one)
        for old in root().iterdir():
            if old.is_dir() and old != folder and not old.name.startswith(".building-"):
                shutil.rmtree(old, ignore_errors=True)
    found = _built(folder)
    assert found is not None
    return found


def download(request, short: str, filename: str):
    """The wheel at its content-addressed URL. Only the current build is served: an older URL is a 404 that
    names where the current one is."""
    current = wheel()
    if short != current.short or filename != current.filename:
        return HttpResponseNotFound(f"No such toolkit build: the current one is "
                                    f"/downloads/{current.short}/{current.filename}\n", content_type="text/plain")
    response = FileResponse(current.path.open("rb"), content_type="application/octet-stream",
                            as_attachment=True, filename=current.filename)
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    response["X-Checksum-Sha256"] = current.sha256
    return response


def get_started(request):
    """How a bot author gets `arena` from this site and uses it: install, log in, play, upload, connect."""
    current = wheel()
    site = request.build_absolute_uri("/").rstrip("/")
    url = request.build_absolute_uri(f"/downloads/{current.short}/{current.filename}")
    context = {"title": "Get started", "wheel": current, "wheel_url": url, "site": site,
               "nav": nav("get-started")}
    return render(request, "web/get_started.html", context)
