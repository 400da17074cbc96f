"""The bot author's toolkit as the site serves it: a wheel of arena (and the sandbox it plays through) with
neither Django nor the platform, installed into a fresh virtualenv and used there, and the "Get started" page
that offers it with its digest."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLE_BOT = REPO / "examples" / "bura" / "python"


@pytest.fixture
def toolkit_wheel(settings, tmp_path_factory):
    from web import toolkit

    settings.VAR_DIR = tmp_path_factory.mktemp("var")
    return toolkit.wheel()


def run(command: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    # nothing of this checkout's environment leaks in: no PYTHONPATH, no active virtualenv
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def test_the_wheel_holds_arena_and_the_sandbox_only_and_needs_no_django(toolkit_wheel):
    with zipfile.ZipFile(toolkit_wheel.path) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert {name.split("/")[0] for name in names} == {"arena", "sandbox", "kozyr_arena-0.1.0.dist-info"}
    assert "sandbox/native/launch.c" in names  # the sandbox's launcher is compiled from it on first use
    assert not [n for n in names if n.endswith((".pyc", ".so"))]
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    core = sorted(r.split(">")[0].split("<")[0].split("=")[0].strip() for r in requires if "extra ==" not in r)
    assert core == ["orjson", "psutil", "pyseccomp", "rich", "websockets"]
    assert not [r for r in requires if "django" in r.lower() or "celery" in r.lower()]
    assert "arena = arena.cli:main" in entry_points
    assert hashlib.sha256(toolkit_wheel.path.read_bytes()).hexdigest() == toolkit_wheel.sha256


def test_the_same_sources_build_the_same_wheel(toolkit_wheel, tmp_path):
    from web import toolkit

    again = toolkit.build(REPO, tmp_path)
    assert hashlib.sha256(again.read_bytes()).hexdigest() == toolkit_wheel.sha256


@pytest.mark.slow
def test_the_wheel_installs_in_a_fresh_virtualenv_without_the_platform_and_plays(toolkit_wheel, tmp_path):
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    python, arena = venv / "bin" / "python", venv / "bin" / "arena"
    installed = run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                     str(toolkit_wheel.path)], tmp_path)
    assert installed.returncode == 0, installed.stderr

    no_django = run([str(python), "-c", "import django"], tmp_path)
    assert no_django.returncode != 0 and "No module named 'django'" in no_django.stderr
    where = run([str(python), "-c", "import arena, sandbox; print(arena.__file__); print(sandbox.__file__)"], tmp_path)
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(str(venv)) for line in where.stdout.split()), where.stdout  # not this checkout's

    games = run([str(arena), "games"], tmp_path)
    assert games.returncode == 0, games.stderr
    assert "bura" in games.stdout and "burraco" in games.stdout

    # a bot of the author's own, run in the sandbox (bubblewrap), against a house bot, with a replay
    played = run([str(arena), "play", "bura", str(EXAMPLE_BOT), "builtin:greedy", "--games", "2", "--seed", "7",
                  "--replays", str(tmp_path / "out"), "--json", str(tmp_path / "results.json")], tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    replays = sorted((tmp_path / "out").glob("*.json.gz"))
    assert replays
    replayed = run([str(arena), "replay", str(replays[0]), "--seat", "0"], tmp_path)
    assert replayed.returncode == 0, replayed.stderr


def test_get_started_offers_the_wheel_with_its_digest_and_serves_it(client, toolkit_wheel):
    page = client.get("/docs/get-started/")
    assert page.status_code == 200
    html = page.content.decode()
    url = f"/downloads/{toolkit_wheel.short}/{toolkit_wheel.filename}"
    assert f'pip install "http://testserver{url}#sha256={toolkit_wheel.sha256}"' in html
    for command in ("arena login http://testserver", "arena play bura", "arena upload", "arena connect"):
        assert command in html, command

    download = client.get(url)
    assert download.status_code == 200
    body = b"".join(download.streaming_content)
    assert hashlib.sha256(body).hexdigest() == toolkit_wheel.sha256
    assert "immutable" in download["Cache-Control"]

    stale = client.get(f"/downloads/0000000000000000/{toolkit_wheel.filename}")
    assert stale.status_code == 404
    assert url in stale.content.decode()  # the refusal names the current build


@pytest.mark.parametrize(("slug", "heading"), [("api", "The REST API"), ("training", "Training bots"),
                                                ("protocol", "7. Remote bots")])
def test_the_docs_serve_the_api_training_and_remote_bot_guides_and_link_them(client, slug, heading):
    page = client.get(f"/docs/{slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert heading in html
    nav = html[html.index('<nav aria-label="documents">'):]
    for link in ('/docs/get-started/', '/docs/api/', '/docs/training/', '/docs/protocol/#7-remote-bots'):
        # the page's own entry is marked as the current one, not linked
        assert f'href="{link}"' in nav or link == f"/docs/{slug}/", link
    assert '<strong aria-current="page">' in nav


def test_a_new_build_removes_the_builds_of_earlier_sources(settings, tmp_path):
    from web import toolkit

    settings.VAR_DIR = tmp_path
    earlier = tmp_path / "toolkit" / "0123456789abcdef01234567"
    earlier.mkdir(parents=True)
    (earlier / "kozyr_arena-0.0.9-py3-none-any.whl").write_bytes(b"an earlier build")
    (earlier / "sha256").write_text("0" * 64 + "\n")
    current = toolkit.wheel()
    assert not earlier.exists()
    assert current.path.exists() and toolkit.wheel() == current  # the second call finds it built
