"""The starter kits (examples/<game>/<language>/ in the repository) as one zip each, to download from the
site: the folder as it is, ready for `arena play` and for upload as a .zip."""

from __future__ import annotations

import io
import zipfile
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse

EXAMPLES = settings.REPO_DIR / "examples"
LANGUAGES = {"python": "Python", "js": "JavaScript", "cpp": "C++", "rust": "Rust", "go": "Go", "java": "Java"}
SKIPPED = ("__pycache__", ".pyc", ".DS_Store")


def kits() -> list[dict[str, str]]:
    """Every kit there is, in a stable order: game, language, its label and file name."""
    found = []
    for game_dir in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        for language, label in LANGUAGES.items():
            if (game_dir / language).is_dir():
                found.append({"game": game_dir.name, "language": language, "label": label,
                              "filename": f"kozyr-{game_dir.name}-{language}.zip"})
    return found


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not p.is_symlink() and not any(part.endswith(SKIPPED) for part in p.parts))


@lru_cache(maxsize=16)
def _zipped(folder: Path, stamp: tuple[tuple[str, float], ...]) -> bytes:
    """The kit's bytes; ``stamp`` (names and mtimes) makes an edited kit a new cache entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _files(folder):
            info = zipfile.ZipInfo(path.relative_to(folder).as_posix(), date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def kit_zip(request, game: str, language: str):
    wanted = next((kit for kit in kits() if kit["game"] == game and kit["language"] == language), None)
    if wanted is None:  # only the kits listed above: nothing else under examples/ is reachable from here
        raise Http404(f"no starter kit for {game} in {language}")
    folder = EXAMPLES / game / language
    data = _zipped(folder, tuple((p.name, p.stat().st_mtime) for p in _files(folder)))
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{wanted["filename"]}"'
    response["Cache-Control"] = "public, max-age=3600"
    return response
