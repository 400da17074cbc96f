"""deploy/k8s's manifests played by this host's Podman (4.3): `kubectl kustomize`, then deploy/podman-kube.py
(the Pods, ConfigMaps and volumes Podman takes, generated, never kept), then `podman kube play` on a network of
their own. PostgreSQL, Redis, the migrations, web, a worker and beat as the manifests run them, with the compose
stack test's local images; the worker's bots in containers of the host's engine through its API socket (the
node's socket of worker.yaml). An upload through the API is validated, and plays a ladder match to its end. Then
`podman kube down` and the site's volumes, network and folder removed: nothing of this site left, and another
site's container on the same engine untouched.

Minutes of real processes: marked `site`, run by `make test-site`."""

from __future__ import annotations

import io
import os
import secrets
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from arena.client import Site
from tests.platform.deploy.test_compose_stack import LOCAL_IMAGES, engine_socket, free_port, images, run  # noqa: F401
from tests.support.polling import wait_until

pytestmark = [pytest.mark.site, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[3]
BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"
# The manifests' images (kustomization.yaml's registry name for the platform) -> the ones built here.
IMAGES = {"registry.example.org/kozyr-platform:latest": LOCAL_IMAGES["PLATFORM_IMAGE"],
          "postgres:16": LOCAL_IMAGES["POSTGRES_IMAGE"], "redis:7": LOCAL_IMAGES["REDIS_IMAGE"]}
# Podman's default nofile (1048576) is above what this host lets a container set ("error setting rlimit type 7"):
# the limits docker-compose.yml gives every service, for every container kube play makes (its pods' infra ones too).
CONTAINERS_CONF = '[containers]\ndefault_ulimits = ["nofile=8192:8192", "nproc=4096:4096"]\n'


def bot_archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", (BOTS / "first_legal.py").read_bytes())
    return buffer.getvalue()


def played_manifests(prefix: str, port: int, socket: Path, worker_dir: Path) -> str:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (Debian: kubernetes-client): kustomize renders the manifests")
    rendered = run(kubectl, "kustomize", str(REPO / "deploy" / "k8s")).stdout
    postgres, redis = secrets.token_hex(12), secrets.token_hex(12)
    settings = {"KOZYR_SITE_ID": prefix, "ALLOWED_HOSTS": "localhost,127.0.0.1", "KOZYR_BEHIND_PROXY": "false",
                "SECURE_SSL_REDIRECT": "false", "KOZYR_SANDBOX_ALLOW_WEAK": "true", "WEB_CONCURRENCY": "1",
                "KOZYR_SANDBOX_DOCKER_IMAGE": LOCAL_IMAGES["KOZYR_SANDBOX_DOCKER_IMAGE"],
                "SECRET_KEY": secrets.token_urlsafe(48), "POSTGRES_PASSWORD": postgres, "REDIS_PASSWORD": redis,
                "DATABASE_URL": f"postgres://kozyr:{postgres}@postgres:5432/kozyr",
                "CELERY_BROKER_URL": f"redis://:{redis}@redis:6379/0",
                "KOZYR_METRICS_TOKEN": secrets.token_urlsafe(32)}
    arguments = [f"--image={old}={new}" for old, new in IMAGES.items()]
    arguments += [f"--set={name}={value}" for name, value in settings.items()]
    # The maintenance worker's jobs go to the worker here (its default queues include maintenance): one
    # Celery process fewer on a small host.
    arguments += ["--prefix", prefix, "--engine-socket", str(socket), "--worker-dir", str(worker_dir),
                  "--publish", f"web={port}", "--leave-out", "maintenance"]
    done = subprocess.run([sys.executable, str(REPO / "deploy" / "podman-kube.py"), *arguments], input=rendered,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_podman_plays_the_manifests_and_a_bot_is_validated_and_plays_the_ladder(images, engine_socket, tmp_path):  # noqa: F811
    prefix = f"kzkube{os.getpid()}"
    port = free_port()
    worker_dir = Path(f"/var/lib/kozyr-worker-{prefix}")  # the same path in the worker and on the host
    worker_dir.mkdir(exist_ok=True)
    os.chown(worker_dir, 10001, 10001)
    played = tmp_path / "played.yaml"
    played.write_text(played_manifests(prefix, port, engine_socket.path, worker_dir))
    documents = [doc for doc in yaml.safe_load_all(played.read_text()) if doc]
    pods = {doc["metadata"]["name"] for doc in documents if doc["kind"] == "Pod"}
    assert pods == {f"{prefix}-{role}" for role in ("postgres", "redis", "migrate", "web", "worker", "beat")}
    volumes = sorted(doc["metadata"]["name"] for doc in documents if doc["kind"] == "PersistentVolumeClaim")
    assert volumes == [f"{prefix}-data-postgres", f"{prefix}-media"]
    (tmp_path / "containers.conf").write_text(CONTAINERS_CONF)
    engine = {**os.environ, "CONTAINERS_CONF": str(tmp_path / "containers.conf")}
    # Another site's bot container on the same engine, long past its deadline: never this site's to reap.
    stranger = run("podman", "create", "--label", "kozyr.sandbox=1", "--label", "kozyr.sandbox.site=another-site",
                   "--label", "kozyr.sandbox.deadline=1", "--label", "kozyr.sandbox.owner=elsewhere:1:1",
                   "--network", "none", LOCAL_IMAGES["KOZYR_SANDBOX_DOCKER_IMAGE"], "true").stdout.strip()
    url = f"http://127.0.0.1:{port}"
    began = time.monotonic()
    timings: dict[str, float] = {}
    try:
        run("podman", "network", "create", "--label", f"app.kubernetes.io/instance={prefix}", prefix)
        run("podman", "kube", "play", "--network", prefix, str(played), env=engine, timeout=300)
        timings["played"] = time.monotonic() - began

        def healthy() -> bool:
            try:
                return Site(url).request("GET", "/healthz")["status"] == "ok"
            except Exception:
                return False

        wait_until(healthy, 300, "the web pod's /healthz")
        timings["up to healthy"] = time.monotonic() - began

        def migrated() -> list[str]:  # the Job's one run: migrations, then the house bots
            state = run("podman", "inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}",
                        f"{prefix}-migrate-migrate").stdout.split()
            return state if state[0] == "exited" else []

        assert wait_until(migrated, 120, "the migrate pod's end") == ["exited", "0"]
        manage(prefix, "from bots.models import Bot; Bot.objects.exclude(game='kozel').update(active=False);"
                       "from accounts.models import User; User.objects.create_user('kube', password='a-long-pass-1')")
        token = Site(url).request("POST", "/api/v1/auth/token/",
                                  {"username": "kube", "password": "a-long-pass-1", "name": "kube test"})["token"]
        site = Site(url, token)
        site.request("POST", "/api/v1/bots/", {"name": "kube-kozel", "game": "kozel"})
        uploaded = time.monotonic()
        version = site.request("POST", "/api/v1/bots/kube-kozel/versions/", files={"file": ("bot.zip", bot_archive())})

        def validated() -> dict:
            state = site.request("GET", f"/api/v1/bots/kube-kozel/versions/{version['number']}/")
            return state if state["status"] != "pending" else {}

        state = wait_until(validated, 300, "the upload's validation in a bot container of the host's engine")
        assert state["status"] == "ready", state
        timings["bot ready"] = time.monotonic() - uploaded

        def ladder_match() -> dict:
            page = site.request("GET", "/api/v1/matches/?bot=kube-kozel&kind=ladder&status=finished")
            return page["results"][0] if page["results"] else {}

        match = wait_until(ladder_match, 300, "a ladder match of the upload, finished")
        assert {seat["bot"] for seat in match["seats"]} > {"kube-kozel"}, match
        timings["ladder match"] = time.monotonic() - uploaded
        # worker.yaml's liveness probe, as Podman runs it (on a host without systemd, only when asked).
        done = run("podman", "healthcheck", "run", f"{prefix}-worker-worker", check=False, timeout=90)
        if done.returncode != 0:  # what the probe said (its command sends its output to /dev/null)
            said = run("podman", "exec", f"{prefix}-worker-worker", "sh", "-c", "cd /srv/kozyr/app/platform && "
                       'celery -A config inspect ping --timeout 10 --destination "worker@$(hostname)"', check=False)
            raise AssertionError(f"the worker's liveness probe failed: {said.stdout[-2000:]}{said.stderr[-2000:]}")
    finally:
        run("podman", "kube", "down", str(played), check=False, timeout=300)
        for leftover in site_containers(prefix):  # a bot a killed match left; the reaper's job, normally
            run("podman", "rm", "--force", leftover, check=False)
        run("podman", "volume", "rm", "--force", *volumes, check=False)
        run("podman", "network", "rm", "--force", prefix, check=False)
        shutil.rmtree(worker_dir, ignore_errors=True)
        print(f"\n[kube play: {', '.join(f'{k} {v:.0f} s' for k, v in timings.items())}]")
    assert run("podman", "pod", "ps", "--quiet", "--filter", f"label=app.kubernetes.io/instance={prefix}").stdout == ""
    assert not [name for name in run("podman", "ps", "--all", "--format", "{{.Names}}").stdout.split()
                if name.startswith(f"{prefix}-")]
    assert site_containers(prefix) == []
    existing = set(run("podman", "volume", "ls", "--format", "{{.Name}}").stdout.split())
    assert not existing & set(volumes)
    assert run("podman", "container", "exists", stranger, check=False).returncode == 0  # another site's, kept
    run("podman", "rm", "--force", stranger)


def manage(prefix: str, code: str) -> str:
    """``code`` run by `manage shell` in the web pod, its look-up of the PostgreSQL pod asked again (at most
    twice) when the network's DNS server dropped it: Debian's aardvark-dns 1.4 rebinds its sockets on every
    container start and stop in a network (containers/aardvark-dns#389). Only this probe asks again: the
    site's own processes are what is tested."""
    command = ("podman", "exec", f"{prefix}-web-web", "/srv/kozyr/app/deploy/entrypoint.sh", "manage", "shell",
               "--verbosity", "0", "-c", code)
    for _ in range(2):
        done = run(*command, check=False)
        if done.returncode == 0 or f"failed to resolve host '{prefix}-postgres'" not in done.stderr:
            break
        time.sleep(1)
    else:
        done = run(*command, check=False)
    assert done.returncode == 0, f"manage shell exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout.strip()


def site_containers(site: str) -> list[str]:
    return run("podman", "ps", "--all", "--quiet", "--filter", f"label=kozyr.sandbox.site={site}").stdout.split()
