"""The docker-compose deployment, tested without a Docker engine: the files parse and follow the Compose
Specification, the services and settings they pass match what the code reads, bots stay off every
network, and the image's entry point and web health check do what the compose file relies on."""

from __future__ import annotations

import configparser
import copy
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from config import capacity
from config.celery_settings import MAINTENANCE_QUEUE, OPEN_QUEUE, QUEUE_ORDER, SANDBOXED_QUEUE
from sandbox import Limits
from sandbox.backends import docker as container_backend
from sandbox.backends.container_engine import DEFAULT_IMAGE, Engine
from tests.support.resources import free_port

REPO = Path(__file__).resolve().parents[3]
COMPOSE = REPO / "docker-compose.yml"
ENV_EXAMPLE = REPO / "deploy" / "env.example"
ENTRYPOINT = REPO / "deploy" / "entrypoint.sh"
HEALTHCHECK = REPO / "deploy" / "healthcheck.py"
SETTINGS = REPO / "platform" / "config" / "settings.py"
PLATFORM_SERVICES = ("migrate", "web", "worker", "maintenance", "beat")
# Read by the entry point, gunicorn or docker compose itself, never by Django (so never KOZYR_*).
PROCESS_VARIABLES = {"POSTGRES_PASSWORD", "REDIS_PASSWORD", "DOCKER_GID", "WEB_PORT", "WEB_CONCURRENCY",
                     "WORKER_CONCURRENCY", "WORKERS", "POSTGRES_IMAGE", "REDIS_IMAGE", "PLATFORM_IMAGE",
                     "ENGINE_SOCKET", "WORKER_DIR"}
# Read by the engine's CLI in the worker (podman's remote mode), passed to it by the sandbox.
ENGINE_VARIABLES = {"CONTAINER_HOST"}
PRODUCTION_OVERRIDES = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/kozyr",
                        "SECRET_KEY": "deployment-test-key-" + "k7Qz" * 12}
SLOW_START_SECONDS = 90  # gunicorn importing Django on a loaded 2-core machine


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def service(name: str) -> dict:
    return compose()["services"][name]


def env_example() -> dict[str, str]:
    """The active NAME=value lines, as compose's env_file reads them."""
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, separator, value = line.partition("=")
            assert separator, f"env.example: not NAME=value: {line!r}"
            values[name] = value
    return values


def env_example_commented() -> set[str]:
    """Settings documented in env.example but left at the image's value (`# NAME=value`)."""
    return set(re.findall(r"^# ([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(), flags=re.MULTILINE))


def settings_names() -> set[str]:
    """Every environment variable platform/config/settings.py reads (env.str("NAME", …), env.int(…), …)."""
    return set(re.findall(r'env\.\w+\(\s*"([A-Z][A-Z0-9_]*)"', SETTINGS.read_text()))


def sandbox_names() -> set[str]:
    """The KOZYR_* names settings.py accepts because the sandbox package reads them itself."""
    listed = re.search(r"READ_BY_THE_SANDBOX = \(([^)]*)\)", SETTINGS.read_text())
    assert listed, "settings.py no longer lists READ_BY_THE_SANDBOX"
    return set(re.findall(r'"(KOZYR_[A-Z0-9_]+)"', listed.group(1)))


def production_environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """env.example as a container would see it, with a reachable database, a real key and a private var/."""
    return {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **env_example(), **PRODUCTION_OVERRIDES,
            "KOZYR_VAR_DIR": str(tmp_path / "var"), **extra}


# --- the compose file --------------------------------------------------------------------------------


def test_compose_file_follows_the_compose_specification():
    validator = jsonschema.Draft202012Validator(json.loads((REPO / "deploy" / "compose-spec.json").read_text()))
    document = compose()
    assert [error.message for error in validator.iter_errors(document)] == []
    misspelt = copy.deepcopy(document)
    misspelt["services"]["web"]["healtcheck"] = misspelt["services"]["web"].pop("healthcheck")
    assert any("healtcheck" in error.message for error in validator.iter_errors(misspelt))


def test_every_part_of_the_site_is_a_service():
    services = compose()["services"]
    assert {"db", "redis", "migrate", "web", "worker", "maintenance", "beat"} <= set(services)
    # the upstream images unless .env names others (deploy/build-local-images.sh's, where no registry is)
    assert re.fullmatch(r"\$\{POSTGRES_IMAGE:-postgres:\d+\}", services["db"]["image"])
    assert re.fullmatch(r"\$\{REDIS_IMAGE:-redis:\d+\}", services["redis"]["image"])
    for name in PLATFORM_SERVICES:
        assert services[name]["image"] == "${PLATFORM_IMAGE:-kozyr-platform:latest}", name
        assert services[name]["build"] == ".", name
        assert services[name]["env_file"] == ".env", name
        assert services[name]["command"] == [name], name
        assert "privileged" not in services[name] and services[name]["cap_drop"] == ["ALL"], name
        assert services[name]["init"] is True, name


def test_health_checks():
    services = compose()["services"]
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert "redis-cli ping" in " ".join(services["redis"]["healthcheck"]["test"])
    web_test = services["web"]["healthcheck"]["test"]
    assert web_test[0] == "CMD" and web_test[1] == "/srv/kozyr/app/deploy/healthcheck.py"
    assert web_test[2] == "/healthz"  # answers 200 only when the web process reaches the database
    assert "inspect ping" in " ".join(services["worker"]["healthcheck"]["test"])


def test_nothing_of_the_platform_starts_before_the_database_is_migrated():
    services = compose()["services"]
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    for name in ("web", "worker", "maintenance", "beat"):
        waits_for = services[name]["depends_on"]
        assert waits_for["migrate"]["condition"] == "service_completed_successfully", name
        assert waits_for["db"]["condition"] == "service_healthy", name
        assert waits_for["redis"]["condition"] == "service_healthy", name


def test_named_volumes_keep_the_database_and_the_media():
    document = compose()
    declared = set(document["volumes"])
    assert {"db-data", "media"} <= declared
    mounts = {name: [v for v in spec.get("volumes", []) if isinstance(v, str)] for name, spec in
              document["services"].items()}
    assert "db-data:/var/lib/postgresql/data" in mounts["db"]
    media_root = "/srv/kozyr/media"  # the image's MEDIA_ROOT
    assert f"MEDIA_ROOT={media_root}" in (REPO / "Dockerfile").read_text()
    for name in ("web", "worker"):  # uploads are written by web and read (bots), written (replays) by workers
        assert f"media:{media_root}" in mounts[name], name
    used = {mount.split(":")[0] for spec in mounts.values() for mount in spec if not mount.startswith(("/", "${"))}
    assert used <= declared


def test_workers_scale_and_reach_the_host_engine():
    worker = service("worker")
    assert "container_name" not in worker and "ports" not in worker  # both would break --scale worker=N
    assert worker["environment"]["SANDBOX_BACKEND"] == "docker"
    assert "${ENGINE_SOCKET:-/var/run/docker.sock}:/var/run/docker.sock" in worker["volumes"]
    assert worker["environment"]["CONTAINER_HOST"] == "unix:///var/run/docker.sock"  # a podman CLI's way there
    assert worker["environment"]["KOZYR_SANDBOX_STATE_DIR"].startswith(worker["environment"]["KOZYR_VAR_DIR"])
    assert worker["group_add"] == ["${DOCKER_GID:-999}"]
    # The engine resolves a bot's bind-mounted folder on the host: the worker's var/ (its bot cache) must
    # have the same path inside the container as outside.
    var_dir = worker["environment"]["KOZYR_VAR_DIR"]
    assert f"{var_dir}:{var_dir}" in worker["volumes"]
    for name in ("web", "beat", "migrate"):
        assert not any("docker.sock" in v for v in service(name).get("volumes", [])), name


def test_bot_containers_never_join_a_network():
    """Bots run beside the workers on the host's engine, and never on the compose network (or any)."""
    for engine in (Engine(), Engine("podman", "podman", "4", "runc")):
        argv = container_backend.run_command(["python3", "bot.py"], REPO, Limits(), name="kozyr-bot-test",
                                             deadline=0, env={}, image_name="img", engine=engine)
        networks = [argv[i + 1] for i, arg in enumerate(argv) if arg in ("--network", "--net")]
        assert networks == ["none"], engine
        assert not any(arg.startswith(("--network=", "--net=")) for arg in argv)
    worker = service("worker")
    assert worker.get("network_mode") is None and worker["networks"] == ["backend"]
    runtime = service("bot-runtime")
    assert runtime["network_mode"] == "none" and runtime["profiles"] == ["images"]
    # the image the workers start bots from is the one compose builds from sandbox/image/
    # (the one .env names, as the workers do: `run --rm bot-runtime` checks the image they will use)
    assert runtime["image"] == f"${{KOZYR_SANDBOX_DOCKER_IMAGE:-{DEFAULT_IMAGE}}}"
    assert runtime["build"] == "sandbox/image"


def test_web_is_published_only_to_the_local_reverse_proxy():
    assert service("web")["ports"] == ["127.0.0.1:${WEB_PORT:-8000}:8000"]
    for name, spec in compose()["services"].items():
        if name != "web":
            assert "ports" not in spec, f"{name} must not be reachable from outside"


def test_the_image_is_the_one_the_services_run():
    dockerfile = (REPO / "Dockerfile").read_text()
    # the upstream base images by default; deploy/build-local-images.sh passes local ones
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim$", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^FROM \$\{PYTHON_IMAGE\}$", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^RUN pip install \. ", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^USER kozyr:kozyr$", dockerfile, flags=re.MULTILINE)  # never root at run time
    assert 'ENTRYPOINT ["/srv/kozyr/app/deploy/entrypoint.sh"]' in dockerfile
    assert "collectstatic" in dockerfile
    # what the compose file and the entry point expect inside the image
    assert service("web")["healthcheck"]["test"][1] == "/srv/kozyr/app/deploy/healthcheck.py"
    assert "/srv/kozyr/app/platform" in " ".join(service("worker")["healthcheck"]["test"])


def test_the_build_context_has_what_the_image_copies_and_no_secrets():
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}  # fmt: skip
    assert {".env", ".git", ".venv", "var"} <= ignored
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", (REPO / "Dockerfile").read_text(), flags=re.MULTILINE)
    sources = [name for line in copied for name in line.split()]
    assert {"arena", "sandbox", "platform", "manage.py", "deploy", "pyproject.toml", "README.md"} <= set(sources)
    for source in sources:
        assert (REPO / source).exists(), source
        assert source not in ignored, f".dockerignore leaves {source} out of the build context"


# --- settings: what compose and env.example pass is what the code reads ------------------------------


def test_the_settings_reader_finds_the_settings():
    names = settings_names()
    assert {"KOZYR_ENV", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL", "SANDBOX_BACKEND",
            "MEDIA_ROOT", "KOZYR_VAR_DIR"} <= names
    assert {"KOZYR_SANDBOX_DOCKER_IMAGE", "KOZYR_CONTAINER_ENGINE"} <= sandbox_names()


def test_every_variable_passed_is_one_the_platform_reads():
    known = settings_names() | sandbox_names()
    assert not {name for name in PROCESS_VARIABLES if name.startswith("KOZYR_")}
    assert not PROCESS_VARIABLES & known
    passed = set(env_example()) | env_example_commented()
    for name in PLATFORM_SERVICES:
        passed |= set(service(name).get("environment", {}))
    assert passed - known - PROCESS_VARIABLES - ENGINE_VARIABLES == set()
    # a KOZYR_* name Django does not read stops every container at start-up
    assert {name for name in passed if name.startswith("KOZYR_")} <= known


def test_process_variables_are_really_used():
    text = COMPOSE.read_text() + ENTRYPOINT.read_text()
    for name in PROCESS_VARIABLES - {"WEB_CONCURRENCY"}:
        assert re.search(rf"\$\{{{name}\b", text), f"{name} is in env.example but nothing reads it"
    assert "gunicorn" in ENTRYPOINT.read_text()  # WEB_CONCURRENCY is gunicorn's own setting


def test_env_example_documents_every_setting():
    documented = set(env_example()) | env_example_commented()
    assert settings_names() - documented == set()
    operations = (REPO / "docs" / "operations.md").read_text()
    container_settings = {name for name in sandbox_names() if "DOCKER" in name or "CONTAINER" in name}
    for name in settings_names() | PROCESS_VARIABLES | container_settings:
        assert f"`{name}`" in operations, f"docs/operations.md does not describe {name}"


def test_env_example_is_for_production():
    values = env_example()
    assert values["KOZYR_ENV"] == "production"
    assert values["SANDBOX_BACKEND"] == "docker"
    assert values["DEBUG"] == "false"
    assert values["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in values["DATABASE_URL"]
    assert values["CELERY_BROKER_URL"].startswith("redis://") and "@redis:6379/" in values["CELERY_BROKER_URL"]
    assert values["POSTGRES_PASSWORD"] in values["DATABASE_URL"]
    assert values["REDIS_PASSWORD"] in values["CELERY_BROKER_URL"]
    assert len(values["SECRET_KEY"]) < 50  # the placeholder is refused: nobody runs with a published key


def test_compose_interpolations_are_all_in_env_example():
    interpolated = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", COMPOSE.read_text()))
    assert interpolated == {"POSTGRES_PASSWORD", "REDIS_PASSWORD", "DOCKER_GID", "WEB_PORT", "POSTGRES_IMAGE",
                            "REDIS_IMAGE", "PLATFORM_IMAGE", "ENGINE_SOCKET", "WORKER_DIR",
                            "KOZYR_SANDBOX_DOCKER_IMAGE", "WORKERS"}  # fmt: skip
    assert interpolated <= set(env_example())


def test_the_image_installs_what_the_redis_broker_imports():
    """`pip install .` (the image) has no dev tools: kombu's Redis transport imports `packaging`, which only its
    `redis` extra brings. Found by running the image: the worker died with ModuleNotFoundError."""
    assert urlsplit(env_example()["CELERY_BROKER_URL"]).scheme == "redis"
    declared = [Requirement(text) for text in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
                ["dependencies"]]  # fmt: skip
    if any(r.name in ("kombu", "celery") and "redis" in r.extras for r in declared):
        return
    names = {canonicalize_name(r.name) for r in declared}
    needed = {canonicalize_name(Requirement(text).name) for text in importlib.metadata.requires("kombu") or []
              if Requirement(text).marker and Requirement(text).marker.evaluate({"extra": "redis"})}
    assert needed and needed - names == set()


def run_manage(tmp_path: Path, *arguments: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "manage.py"), *arguments], cwd=tmp_path,
                          env=production_environment(tmp_path, **extra), capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def test_env_example_placeholder_key_is_refused(tmp_path):
    done = run_manage(tmp_path, "check", SECRET_KEY=env_example()["SECRET_KEY"])
    assert done.returncode != 0
    assert done.stderr.strip() == "kozyr: bad setting: SECRET_KEY: expected at least 50 characters in production"


def test_env_example_passes_the_deploy_security_checks(tmp_path):
    done = run_manage(tmp_path, "check", "--deploy", "--tag", "security", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stdout + done.stderr


def test_env_example_passes_every_deploy_check(tmp_path):
    """All of them, the schema generator's (drf_spectacular runs it under --deploy) included."""
    done = run_manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout


# --- the image's entry point and the programs of `make run` (deploy/supervisord.conf) ------------------


def programs() -> dict[str, str]:
    """program name -> its command line in the process manager's configuration."""
    parser = configparser.RawConfigParser(inline_comment_prefixes=None)
    parser.read(REPO / "deploy" / "supervisord.conf")
    return {section.removeprefix("program:"): parser[section]["command"]
            for section in parser.sections() if section.startswith("program:")}


def queues(command: str) -> tuple[str, ...]:
    words = shlex.split(command.replace("\\\n", " "))
    return tuple(words[words.index("--queues") + 1].split(","))


@pytest.fixture
def fake_programs(tmp_path):
    """A PATH where celery, gunicorn and python print where and how they were started instead of running."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for program in ("celery", "gunicorn", "python"):
        script = folder / program
        script.write_text(f'#!/bin/sh\necho "{program} cwd=$PWD"\nfor a in "$@"; do echo "arg=$a"; done\n')
        script.chmod(0o755)
    return folder


def entrypoint(tmp_path, path: Path, *arguments: str, **extra: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{path}:/usr/bin:/bin", "KOZYR_VAR_DIR": str(tmp_path / "var"), **extra}
    return subprocess.run(["sh", str(ENTRYPOINT), *arguments], env=env, capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def invocations(done: subprocess.CompletedProcess) -> list[tuple[str, list[str]]]:
    """Each fake program started, in order: (its "name cwd=…" line, its arguments)."""
    assert done.returncode == 0, done.stderr
    runs: list[tuple[str, list[str]]] = []
    for line in done.stdout.splitlines():
        if line.startswith("arg="):
            runs[-1][1].append(line.removeprefix("arg="))
        else:
            runs.append((line, []))
    return runs


def started(done: subprocess.CompletedProcess) -> tuple[str, list[str]]:
    """The role's own program: the last one started (the wait for the database comes first)."""
    return invocations(done)[-1]


@pytest.mark.parametrize(("role", "wait"), [("web", ["--migrated"]), ("worker", ["--migrated"]),
                                            ("maintenance", ["--migrated"]), ("beat", ["--migrated"]),
                                            ("migrate", [])])
def test_every_role_waits_for_the_database_and_its_migrations_first(tmp_path, fake_programs, role, wait):
    runs = invocations(entrypoint(tmp_path, fake_programs, role, SANDBOX_BACKEND="bwrap"))
    head, args = runs[0]
    # its lines logged in the site's format (config/command_log.py), not written as plain text
    assert head == f"python cwd={REPO / 'platform'}" and args == ["-m", "config.command_log", "await_site", *wait]


def test_worker_consumes_the_site_queues_in_priority_order(tmp_path, fake_programs):
    # make run: the open queue is the tables program's and the sandboxed queue the bots program's (threads),
    # every other queue the worker's, in order
    assert queues(programs()["worker"]) == tuple(q for q in QUEUE_ORDER if q not in (OPEN_QUEUE, SANDBOXED_QUEUE))
    assert set().union(*(queues(command) for command in programs().values() if "--queues" in command)) == set(
        QUEUE_ORDER)
    head, args = started(entrypoint(tmp_path, fake_programs, "worker", SANDBOX_BACKEND="bwrap",
                                    WORKER_CONCURRENCY="5"))
    assert head == f"celery cwd={REPO / 'platform'}"
    assert args[:3] == ["-A", "config", "worker"]
    assert tuple(args[args.index("--queues") + 1].split(",")) == QUEUE_ORDER
    assert args[args.index("--concurrency") + 1] == "5"
    assert args[args.index("--hostname") + 1] == "worker@%h"


def test_the_open_queue_is_played_in_threads_by_the_tables_program_and_role(tmp_path, fake_programs):
    words = shlex.split(programs()["tables"])
    assert queues(programs()["tables"]) == (OPEN_QUEUE,) and words[words.index("--pool") + 1] == "threads"
    head, args = started(entrypoint(tmp_path, fake_programs, "tables", SANDBOX_BACKEND="bwrap",
                                    TABLES_CONCURRENCY="80"))
    assert head == f"celery cwd={REPO / 'platform'}" and args[:3] == ["-A", "config", "worker"]
    assert tuple(args[args.index("--queues") + 1].split(",")) == (OPEN_QUEUE,)
    assert args[args.index("--pool") + 1] == "threads" and args[args.index("--concurrency") + 1] == "80"
    # a compose worker takes every queue until its operator gives the open queue to a tables service
    _, split = started(entrypoint(tmp_path, fake_programs, "worker", SANDBOX_BACKEND="bwrap",
                                  WORKER_QUEUES="maintenance,ladder"))
    assert split[split.index("--queues") + 1] == "maintenance,ladder"


def test_the_sandboxed_queue_is_played_in_threads_as_many_as_the_host_admits(tmp_path, fake_programs, monkeypatch):
    words = shlex.split(programs()["bots"])
    assert words[words.index("-m") + 1] == "config.capacity" and words[words.index("--pool") + 1] == "threads"
    assert queues(programs()["bots"]) == (SANDBOXED_QUEUE,) and "--concurrency" not in words  # the host's own
    head, args = started(entrypoint(tmp_path, fake_programs, "bots", SANDBOX_BACKEND="bwrap"))
    assert head == f"python cwd={REPO / 'platform'}" and args[:3] == ["-m", "config.capacity", "worker"]
    assert tuple(args[args.index("--queues") + 1].split(",")) == (SANDBOXED_QUEUE,)
    assert args[args.index("--pool") + 1] == "threads" and args[args.index("--hostname") + 1] == "bots@%h"
    # admission: two matches a core, as long as every admitted match's bots fit in three quarters of the memory
    assert capacity.sandboxed_slots(2, 24 * 1024) == 4
    assert capacity.sandboxed_slots(16, 4096) == 6  # 3 GiB / (2 bots x 256 MiB)
    assert capacity.sandboxed_slots(1, 512) == 1  # never none
    assert capacity.sandboxed_slots(2, 24 * 1024, per_core=5) == 10
    monkeypatch.setenv("BOTS_CONCURRENCY", "7")
    assert capacity.configured_slots() == 7
    monkeypatch.setenv("BOTS_CONCURRENCY", "0")
    with pytest.raises(SystemExit, match="BOTS_CONCURRENCY='0': expected a whole number of at least 1"):
        capacity.configured_slots()
    monkeypatch.delenv("BOTS_CONCURRENCY")
    monkeypatch.setenv("BOTS_MATCHES_PER_CORE", "3")
    assert capacity.configured_slots() == capacity.sandboxed_slots(capacity.cores(), capacity.memory_mb(), 3)
    # what the program runs: the virtualenv's celery with the admission as its concurrency
    monkeypatch.setenv("BOTS_CONCURRENCY", "9")
    ran: list = []
    monkeypatch.setattr(capacity.os, "execvp", lambda program, argv: ran.append((program, argv)))
    capacity.main(["worker", "--queues", SANDBOXED_QUEUE])
    celery = str(Path(sys.executable).parent / "celery")
    assert ran == [(celery, [celery, "-A", "config", "worker", "--queues", SANDBOXED_QUEUE, "--concurrency", "9"])]


def test_a_maintenance_worker_takes_only_beats_jobs(tmp_path, fake_programs):
    assert QUEUE_ORDER[0] == MAINTENANCE_QUEUE  # every worker takes a due job before its next match
    assert queues(programs()["maintenance"]) == (MAINTENANCE_QUEUE,)
    head, args = started(entrypoint(tmp_path, fake_programs, "maintenance"))
    assert head == f"celery cwd={REPO / 'platform'}" and args[:3] == ["-A", "config", "worker"]
    assert tuple(args[args.index("--queues") + 1].split(",")) == (MAINTENANCE_QUEUE,)
    assert args[args.index("--hostname") + 1] == "maintenance@%h"
    compose = yaml.safe_load(COMPOSE.read_text())
    assert compose["services"]["maintenance"]["command"] == ["maintenance"]


def test_web_and_beat_start_like_make_run(tmp_path, fake_programs):
    web = programs()["web"]
    assert "gunicorn config.asgi:application --worker-class config.web_worker.WebWorker --preload" in web
    head, args = started(entrypoint(tmp_path, fake_programs, "web"))
    assert head.startswith("gunicorn ") and args[0] == "config.asgi:application"
    assert args[args.index("--worker-class") + 1] == "config.web_worker.WebWorker"  # websockets share the port
    assert args[args.index("--chdir") + 1] == str(REPO / "platform")
    assert args[args.index("--bind") + 1] == "0.0.0.0:8000"
    assert "--preload" in args  # a bad setting stops gunicorn (test below) instead of a worker boot loop
    assert "--workers" not in args  # gunicorn reads WEB_CONCURRENCY itself
    assert args[args.index("--logger-class") + 1] == "config.gunicorn_logs.Logger"  # its lines in the site's format
    assert "--logger-class config.gunicorn_logs.Logger" in web
    assert "celery -A config beat" in programs()["beat"]
    head, args = started(entrypoint(tmp_path, fake_programs, "beat"))
    assert head == f"celery cwd={REPO / 'platform'}" and args[:3] == ["-A", "config", "beat"]
    assert args[args.index("--schedule") + 1] == str(tmp_path / "var" / "celerybeat-schedule")


def test_migrate_runs_migrations_then_registers_the_house_bots(tmp_path, fake_programs):
    done = entrypoint(tmp_path, fake_programs, "migrate")
    assert done.returncode == 0, done.stderr
    logged = ["-m", "config.command_log"]  # their lines as log records, JSON in production
    assert invocations(done) == [(f"python cwd={REPO / 'platform'}", [*logged, "await_site"]),
                                 (f"python cwd={REPO / 'platform'}", [*logged, "migrate", "--noinput"]),
                                 (f"python cwd={REPO / 'platform'}", [*logged, "house_bots"])]


def test_worker_without_the_engine_socket_says_so(tmp_path, fake_programs):
    if Path("/var/run/docker.sock").exists():
        pytest.skip("this machine has a Docker socket: the missing-socket message cannot be provoked")
    done = entrypoint(tmp_path, fake_programs, "worker", SANDBOX_BACKEND="docker")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == ("kozyr: SANDBOX_BACKEND=docker but /var/run/docker.sock is not mounted into "
                                   "this container")


def test_unwritable_var_dir_is_one_clear_line(tmp_path, fake_programs):
    if os.geteuid() == 0:
        target = "/proc/kozyr-not-writable"  # not even root can create folders in /proc
    else:
        target = "/kozyr-not-writable"
    done = entrypoint(tmp_path, fake_programs, "beat", KOZYR_VAR_DIR=target)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"kozyr: KOZYR_VAR_DIR={target} is not a folder uid ")


# --- the web health check against a real gunicorn ------------------------------------------------------




def health(path: str, port: int, allowed_hosts: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HEALTHCHECK), path, str(port)], capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "ALLOWED_HOSTS": allowed_hosts}, timeout=60, check=False)


def web_command(tmp_path: Path, fake_programs: Path, port: int) -> list[str]:
    """The entry point's web command, as it would run, bound to a local test port with one process."""
    _, args = started(entrypoint(tmp_path, fake_programs, "web"))
    args[args.index("--bind") + 1] = f"127.0.0.1:{port}"
    return [sys.executable, "-m", "gunicorn", *args, "--workers", "1"]


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=30)


@pytest.fixture
def production_web(tmp_path, fake_programs):
    """gunicorn with env.example's production settings and a database nobody listens on."""
    port = free_port()
    env = production_environment(tmp_path, DATABASE_URL=f"postgres://kozyr@127.0.0.1:{free_port()}/nowhere")
    server = subprocess.Popen(web_command(tmp_path, fake_programs, port), env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + SLOW_START_SECONDS
    try:
        while health("/api/v1/games/", port, env["ALLOWED_HOSTS"]).returncode != 0:
            assert server.poll() is None, f"gunicorn exited with {server.returncode}"
            assert time.monotonic() < deadline, "gunicorn did not answer in time"
            time.sleep(0.5)
        yield port, env["ALLOWED_HOSTS"]
    finally:
        stop(server)


def test_web_with_a_bad_setting_ends_with_its_one_line(tmp_path, fake_programs):
    env = production_environment(tmp_path, KOZYR_LEASE_SECOND="60")
    server = subprocess.Popen(web_command(tmp_path, fake_programs, free_port()), env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        _, stderr = server.communicate(timeout=SLOW_START_SECONDS)
    finally:
        stop(server)
    assert server.returncode != 0
    assert stderr.strip().splitlines()[-1].startswith("kozyr: bad setting: KOZYR_LEASE_SECOND: unknown setting")


def test_web_health_check_reports_a_database_that_does_not_answer(production_web):
    port, allowed_hosts = production_web
    done = health("/api/v1/games/", port, allowed_hosts)  # gunicorn itself answers
    assert (done.returncode, done.stderr) == (0, "")
    unhealthy = health("/healthz", port, allowed_hosts)  # but nothing listens where its database should be
    assert unhealthy.returncode == 1 and "answered 503" in unhealthy.stderr
    missing = health("/api/v1/presets/no-such-preset/", port, allowed_hosts)
    assert missing.returncode == 1
    assert missing.stderr.strip() == ("unhealthy: GET /api/v1/presets/no-such-preset/ (Host: kozyr.example.org) "
                                      "answered 404")
    wrong_host = health("/api/v1/games/", port, "elsewhere.example.net")
    assert wrong_host.returncode == 1 and "answered 400" in wrong_host.stderr


def test_web_health_check_fails_when_nothing_listens():
    port = free_port()
    done = health("/api/v1/games/", port, "kozyr.example.org")
    assert done.returncode == 1
    assert done.stderr.startswith(f"unhealthy: GET /api/v1/games/ on port {port}: ")


def test_health_check_host_header_is_one_django_accepts():
    sys.path.insert(0, str(HEALTHCHECK.parent))
    try:
        import healthcheck
    finally:
        sys.path.remove(str(HEALTHCHECK.parent))
    assert healthcheck.host_header("kozyr.example.org,www.kozyr.example.org") == "kozyr.example.org"
    assert healthcheck.host_header(" .example.org") == "example.org"
    assert healthcheck.host_header("*") == "localhost"
    assert healthcheck.host_header("") == "localhost"
    assert healthcheck.main(["no-slash"]) == 2


def settings_tables() -> dict[str, list[str]]:
    """docs/operations.md's settings tables: each table's heading -> the names its rows document (a row may
    name several: `A`, `B`)."""
    text = (REPO / "docs" / "operations.md").read_text()
    section = text[text.index("## Settings"):text.index("\n## ", text.index("## Settings") + 1)]
    tables: dict[str, list[str]] = {}
    heading = ""
    for line in section.splitlines():
        if line.startswith("### "):
            heading = line
        elif line.startswith("| `"):
            tables.setdefault(heading, []).extend(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split(" | ")[0]))
    return tables


def test_the_settings_tables_name_each_setting_once_and_only_settings_the_code_reads():
    tables = settings_tables()
    names = [name for rows in tables.values() for name in rows]
    assert sorted({n for n in names if names.count(n) > 1}) == []  # one row per setting, never two that differ
    django, = (rows for heading, rows in tables.items() if "Read by Django" in heading)
    sandbox, = (rows for heading, rows in tables.items() if "Read by the sandbox" in heading)
    processes, = (rows for heading, rows in tables.items() if "entry point" in heading)
    assert set(django) == settings_names() - sandbox_names() - set(processes)
    assert set(sandbox) <= sandbox_names() | container_engine_settings()
    assert set(processes) == PROCESS_VARIABLES


def container_engine_settings() -> set[str]:
    from sandbox.backends import container_engine

    return {container_engine.ENGINE_SETTING, container_engine.RUNTIME_SETTING, container_engine.STORAGE_SETTING,
            "KOZYR_SANDBOX_DOCKER_IMAGE"}


def test_every_platform_process_reads_the_same_settings():
    """A setting means the same in every process (beat, web, workers): they share .env, and a service's own
    `environment` only places the worker's folders and engine, never changes what a setting means."""
    per_service = {"KOZYR_VAR_DIR", "KOZYR_SANDBOX_STATE_DIR", "SANDBOX_BACKEND", "CONTAINER_HOST"}
    for name in PLATFORM_SERVICES:
        spec = service(name)
        assert spec["env_file"] == ".env", name
        assert set(spec.get("environment", {})) <= per_service, name
    worker, maintenance = service("worker")["environment"], service("maintenance")["environment"]
    assert worker == maintenance  # both run beat's jobs (the ladder fill among them) with the same view


# --- logs: nothing plain among the JSON lines -----------------------------------------------------------


def test_the_entry_points_own_lines_are_json_in_production(tmp_path, fake_programs):
    target = '/proc/kozyr "quoted" \\ folder'  # not even root can create folders in /proc
    done = entrypoint(tmp_path, fake_programs, "beat", KOZYR_VAR_DIR=target, KOZYR_ENV="production")
    assert done.returncode == 1 and done.stdout == ""
    line, = done.stderr.splitlines()
    record = json.loads(line)
    assert record["level"] == "ERROR" and record["logger"] == "kozyr.entrypoint"
    assert record["message"].startswith(f"KOZYR_VAR_DIR={target} is not a folder uid ")
    assert record["time"].endswith("+00:00")
    plain = entrypoint(tmp_path, fake_programs, "beat", KOZYR_VAR_DIR=target, KOZYR_ENV="production",
                       KOZYR_LOG_FORMAT="plain")
    assert plain.stderr.startswith(f"kozyr: KOZYR_VAR_DIR={target} is not a folder uid ")


def test_a_command_run_before_a_role_logs_json_lines_in_production(tmp_path):
    env = production_environment(tmp_path, DATABASE_URL=f"postgres://kozyr@127.0.0.1:{free_port()}/nowhere")
    done = subprocess.run([sys.executable, "-m", "config.command_log", "await_site", "--timeout", "1"],
                          cwd=REPO / "platform", env=env, capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    records = [json.loads(line) for line in done.stderr.splitlines()]  # every line is JSON
    assert [(r["level"], r["logger"]) for r in records] == [("WARNING", "kozyr.await_site"),
                                                            ("ERROR", "kozyr.await_site")]  # fmt: skip
    assert records[0]["message"].startswith("kozyr: waiting: the database does not answer")
    assert records[1]["message"].startswith("await_site: gave up after 1 s: the database does not answer")


def test_gunicorn_logs_json_lines_in_production(tmp_path, fake_programs):
    """Its start-up, its workers' boots and exits and the access log: every line one JSON object."""
    port = free_port()
    env = production_environment(tmp_path, DATABASE_URL=f"postgres://kozyr@127.0.0.1:{free_port()}/nowhere")
    server = subprocess.Popen(web_command(tmp_path, fake_programs, port), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + SLOW_START_SECONDS
    try:
        while health("/api/v1/games/", port, env["ALLOWED_HOSTS"]).returncode != 0:
            assert server.poll() is None, f"gunicorn exited with {server.returncode}"
            assert time.monotonic() < deadline, "gunicorn did not answer in time"
            time.sleep(0.5)
    finally:
        server.terminate()
        stdout, stderr = server.communicate(timeout=60)
    records = [json.loads(line) for line in (stdout + stderr).splitlines()]
    messages = [(r["logger"], r["message"]) for r in records]
    assert any(logger == "gunicorn.error" and message.startswith("Starting gunicorn") for logger, message in messages)
    assert any(logger == "gunicorn.error" and message.startswith("Booting worker") for logger, message in messages)
    # uvicorn's worker writes the access lines, through gunicorn's access log handlers
    assert any(logger == "uvicorn.access" and '"GET /api/v1/games/ HTTP/1.1" 200' in message
               for logger, message in messages)  # fmt: skip


# --- what an operator's run of the stack found (issue 41) ------------------------------------------------


def test_every_service_has_explicit_open_file_and_process_limits():
    # An engine's default nofile may exceed what the host lets a container set ("error setting rlimit type 7"):
    # even `--profile images run --rm bot-runtime` failed without its own.
    for name, spec in compose()["services"].items():
        limits = spec.get("ulimits", {})
        assert {"nofile", "nproc"} <= set(limits), name
        assert all(isinstance(limits[kind]["hard"], int) for kind in ("nofile", "nproc")), name


def test_postgresql_stops_with_a_fast_shutdown():
    # SIGTERM starts PostgreSQL's smart shutdown, which waits for the pooled connections of web and workers
    # until the engine SIGKILLs it (exit 137); SIGINT is the fast one, the postgres image's STOPSIGNAL.
    assert service("db")["stop_signal"] == "SIGINT"
    build = (REPO / "deploy" / "build-local-images.sh").read_text()
    postgres = build[build.index("localhost/kozyr-postgres:15 \""):build.index("localhost/kozyr-redis:7 \"")]
    assert "'STOPSIGNAL SIGINT'" in postgres


def test_the_filled_in_env_file_is_never_committed():
    ignored = subprocess.run(["git", "check-ignore", "--quiet", ".env"], cwd=REPO, check=False)
    assert ignored.returncode == 0, ".env (the site's secrets) is not in .gitignore"
    kept = subprocess.run(["git", "check-ignore", "--quiet", "deploy/env.example"], cwd=REPO, check=False)
    assert kept.returncode == 1


def test_every_worker_host_of_a_site_names_the_same_site():
    # Bot containers carry the site's id and a worker reaps only its own site's (sandbox/backends/container_reaper.py).
    from sandbox.backends.container_engine import SITE_SETTING, SITE_SHAPE

    assert SITE_SHAPE.fullmatch(env_example()[SITE_SETTING])
    assert SITE_SETTING in sandbox_names()


def test_the_engine_socket_keeps_its_group_across_restarts_of_the_podman_service(tmp_path):
    # `podman system service` makes its socket afresh, root:root, at every start: deploy/engine-socket.sh
    # gives each one to the workers' group and starts the service again whenever it ends.
    if shutil.which("podman") is None or os.geteuid() != 0:
        pytest.skip("needs podman and root, as a podman host's init runs it")
    socket_path, group = tmp_path / "run" / "podman.sock", 64998
    keeper = subprocess.Popen(["sh", str(REPO / "deploy" / "engine-socket.sh"), str(socket_path), str(group)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip

    def served_to_the_group() -> int | None:
        """The pid of the podman service once the socket is there with the group's access, else None."""
        try:
            info = socket_path.stat()
        except FileNotFoundError:
            return None
        services = subprocess.run(["pgrep", "-P", str(keeper.pid), "-f", "podman system service"],
                                  capture_output=True, text=True, check=False).stdout.split()  # fmt: skip
        ready = info.st_gid == group and stat_mode(info) == 0o660 and len(services) == 1
        return int(services[0]) if ready else None

    try:
        first = wait_for_value(served_to_the_group, 30)
        os.kill(first, signal.SIGKILL)  # the service dies (an upgrade of podman, a crash)
        second = wait_for_value(lambda: (pid := served_to_the_group()) != first and pid, 30)
        assert second != first
        answer = subprocess.run(["podman", "--url", f"unix://{socket_path}", "version", "--format",
                                 "{{.Server.Version}}"], capture_output=True, text=True, timeout=60, check=False)
        assert answer.returncode == 0 and answer.stdout.strip(), answer.stderr
    finally:
        keeper.send_signal(signal.SIGTERM)
        keeper.wait(timeout=30)
    assert keeper.returncode == 0 and not socket_path.exists()
    usage = subprocess.run(["sh", str(REPO / "deploy" / "engine-socket.sh"), str(socket_path), "docker"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert usage.returncode == 2 and "numeric group id" in usage.stderr


def stat_mode(info: os.stat_result) -> int:
    return info.st_mode & 0o777


def wait_for_value(probe, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{probe} gave nothing within {seconds} s")


# --- the guide's commands (docs/operations.md) -----------------------------------------------------------


def test_every_compose_command_of_the_guide_names_real_services_options_and_files():
    from tests.platform.guide_commands import compose_commands, subcommand_options

    if not (REPO / ".venv" / "bin" / "podman-compose").exists():
        pytest.skip("podman-compose is not installed: the commands are checked against its options")
    merged = compose()
    services = set(merged["services"])
    profiles = {profile for spec in merged["services"].values() for profile in spec.get("profiles", [])}
    commands = [command for command in compose_commands() if command.subcommand]
    assert len(commands) >= 30  # the guide's deploying, podman, workers, backups, upgrading and monitoring steps
    problems = []
    for command in commands:
        known = subcommand_options(command.subcommand)
        if not known:
            problems.append(f"{command.text}: compose has no subcommand {command.subcommand!r}")
            continue
        problems += [f"{command.text}: {option} is not an option of `{command.subcommand}`"
                     for option in command.options if option.startswith("-") and option not in known]
        problems += [f"{command.text}: no service {name!r}" for name in command.services if name not in services]
        problems += [f"{command.text}: no file {name}" for name in command.files if not (REPO / name).is_file()]
        problems += [f"{command.text}: no profile {name!r}" for name in command.profiles if name not in profiles]
        if command.subcommand in ("exec", "run") and not command.services:
            problems.append(f"{command.text}: names no service")
    assert problems == []


def test_the_guides_check_of_its_commands_finds_what_is_wrong():
    from tests.platform.guide_commands import compose_commands

    wrong = compose_commands("`docker compose stop workers` and `podman-compose exec --indx 2 worker ps` and\n"
                             "```sh\nDATA_ADDRESS=1 docker compose -f nowhere.yml --profile imgs up -d\n```\n")
    assert [(c.subcommand, c.services, c.options, c.files, c.profiles) for c in wrong] == [
        ("up", [], ["-d"], ["nowhere.yml"], ["imgs"]), ("stop", ["workers"], [], [], []),
        ("exec", ["2"], ["--indx"], [], [])]  # an unknown option takes no value: its value reads as the service


def test_the_guides_backup_keeps_the_dump_private_and_restore_stops_every_worker_first():
    from tests.platform.guide_commands import block

    backup = block("backup").splitlines()
    assert backup[0] == "umask 077"  # the dump holds password hashes, the media every bot
    assert [line.split()[4] for line in backup[1:]] == ["db", "web"]  # the database first, then the media
    restore = block("restore").splitlines()
    assert restore[0] == "docker compose stop worker maintenance beat" and restore[-1] == "docker compose up -d"
    upgrade = block("upgrade").splitlines()
    assert upgrade.index("docker compose stop worker maintenance") < upgrade.index("docker compose up -d")
    # every worker of the host is one the file declares: `stop worker` and a bare `up -d` count them all
    assert service("worker")["scale"] == "${WORKERS:-1}"


def test_postgresql_is_one_major_version_wherever_the_guide_and_the_files_name_it():
    default = re.fullmatch(r"\$\{POSTGRES_IMAGE:-postgres:(\d+)\}", service("db")["image"]).group(1)
    assert env_example()["POSTGRES_IMAGE"] == f"postgres:{default}"
    guide = (REPO / "docs" / "operations.md").read_text()
    local = re.search(r"localhost/kozyr-postgres:(\d+)", (REPO / "deploy" / "build-local-images.sh").read_text())
    assert f"`postgres:{default}`" in guide and f"localhost/kozyr-postgres:{local.group(1)}" in guide
    assert f"({default} from the registry, {local.group(1)} in the local image" in guide
    assert f"/usr/lib/postgresql/{local.group(1)}/bin" in (REPO / "deploy" / "build-local-images.sh").read_text()


@pytest.mark.parametrize("role", ["worker", "maintenance", "beat"])
def test_celerys_plain_banner_is_left_out_of_json_logs(tmp_path, fake_programs, role):
    _, args = started(entrypoint(tmp_path, fake_programs, role, SANDBOX_BACKEND="bwrap", KOZYR_ENV="production"))
    assert args[:3] == ["--quiet", "-A", "config"]  # celery's global option: no start-up banner on stdout
    _, args = started(entrypoint(tmp_path, fake_programs, role, SANDBOX_BACKEND="bwrap"))
    assert args[:2] == ["-A", "config"]  # plain logs (make run's terminal, a local try) keep it


def test_the_alert_rules_watch_gauges_the_site_exports():
    rules = yaml.safe_load((REPO / "deploy" / "prometheus-alerts.yml").read_text())
    exported = set(re.findall(r'"(kozyr_[a-z_]+)"', (REPO / "platform" / "web" / "metrics.py").read_text()))
    assert exported, "platform/web/metrics.py names no gauge"
    used = set()
    for rule in rules["groups"][0]["rules"]:
        assert {"alert", "expr", "for", "annotations"} <= set(rule), rule
        used |= set(re.findall(r"kozyr_[a-z_]+", rule["expr"]))
    assert used and used <= exported, used - exported
    # beat has no health check: its two jobs' gauges stand for it
    assert {"kozyr_oldest_expired_lease_seconds", "kozyr_refit_last_timestamp_seconds"} <= used
