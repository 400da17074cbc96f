"""The starter kits can be downloaded from the site: a zip per game and language, linked from the starter
kits page, that plays as it is (the zip is what an upload takes) and holds nothing but the kit's files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from arena.botspec import built, parse_bot
from arena.referee import TimeControl
from arena.runner import build_schedule, run_job

REPO = Path(__file__).resolve().parents[3]
KITS = [(game, language) for game in ("bura", "kozel", "burraco")
        for language in ("python", "js", "cpp", "rust", "go", "java")]


@pytest.mark.parametrize(("game", "language"), KITS)
def test_every_kit_downloads_as_a_zip_of_its_folder(client, game, language):
    answer = client.get(f"/kits/kozyr-{game}-{language}.zip")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
    assert answer["Content-Disposition"] == f'attachment; filename="kozyr-{game}-{language}.zip"'
    names = zipfile.ZipFile(io.BytesIO(answer.content)).namelist()
    folder = REPO / "examples" / game / language
    assert names == sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()
                           and "__pycache__" not in p.parts)


def test_the_starter_kits_page_links_every_kit(client):
    page = client.get("/docs/starter-kits/").content.decode()
    for game, language in KITS:
        assert f'href="/kits/kozyr-{game}-{language}.zip"' in page


@pytest.mark.parametrize("path", ["/kits/kozyr-training-python.zip", "/kits/kozyr-bura-perl.zip",
                                  "/kits/kozyr-..-python.zip", "/kits/kozyr-bura-.zip"])
def test_nothing_else_under_examples_is_served(client, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_downloaded_kit_plays_a_match_as_it_is(client, tmp_path, language):
    data = client.get(f"/kits/kozyr-bura-{language}.zip").content
    (tmp_path / "kit.zip").write_bytes(data)
    spec = built(parse_bot(str(tmp_path / "kit.zip"), tmp_path / "staging", []), backend="unsafe", cache=None)
    schedule = build_schedule(preset="bura", overrides={"match": "deals:1"},
                              bots=[spec, parse_bot("builtin:random", tmp_path / "staging", ["random"])], games=1,
                              base_seed=3, duplicate=False, time_control=TimeControl(), sandbox="unsafe")
    result, _ = run_job(schedule.jobs[0])
    assert all(seat["verdict"] == "ok" for seat in result["seats"]), result["seats"]
