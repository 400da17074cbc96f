"""The production stack, built and run here: the images from deploy/build-local-images.sh (no registry), the
compose file under podman-compose, bots in containers of the host's Podman (through its API socket, as a
worker on a podman host runs them). Two workers: one in the main project, one as a second worker host (its
own compose project and network, reaching PostgreSQL and Redis only through the ports deploy/publish-data.yml
publishes, with its own worker folder). An upload validated and on the ladder, every service's health check
passing, a worker container SIGKILLed mid-match and its match finished once by the other, the dead worker's
bot containers reaped, a backup restored, then `down` leaving nothing.

Minutes of real processes (the first image build most of all): marked `site`, run by `make test-site`."""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from arena.client import Site
from tests.platform.workers import wait_for

pytestmark = [pytest.mark.site, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).parent / "bots"
COMPOSE = REPO / ".venv" / "bin" / "podman-compose"
WORKER_DIR = Path("/var/lib/kozyr-worker")  # the same path in the worker and on the host (docker-compose.yml)
SECOND_HOST_WORKER_DIR = Path("/var/lib/kozyr-worker-host2")  # a worker host's own folder (WORKER_DIR)
SOCKET_GROUP = 64999  # the group the engine socket is given to, as DOCKER_GID says
LOCAL_IMAGES = {"POSTGRES_IMAGE": "localhost/kozyr-postgres:15", "REDIS_IMAGE": "localhost/kozyr-redis:7",
                "PLATFORM_IMAGE": "localhost/kozyr-platform:latest",
                "KOZYR_SANDBOX_DOCKER_IMAGE": "localhost/kozyr-bot-runtime:latest"}


def run(*command: str, timeout: float = 120, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if check and done.returncode != 0:
        output = f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{output}")
    return done


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def host_address() -> str:
    """This machine's own address (the source of its default route): where the data ports are published, as
    a main host publishes them on its private address."""
    route = run("ip", "-4", "-o", "route", "get", "192.0.2.200").stdout.split()
    return route[route.index("src") + 1]


def env_file(port: int, engine_socket: Path, data: dict[str, str]) -> str:
    """deploy/env.example with this test's secrets and local images, as an operator fills it in."""
    values = {**data, "SECRET_KEY": secrets.token_urlsafe(48), "ALLOWED_HOSTS": "localhost,127.0.0.1",
              "KOZYR_BEHIND_PROXY": "false", "SECURE_SSL_REDIRECT": "false", "KOZYR_SANDBOX_ALLOW_WEAK": "true",
              "DOCKER_GID": str(SOCKET_GROUP), "WEB_PORT": str(port), "KOZYR_LEASE_SECONDS": "20",
              "ENGINE_SOCKET": str(engine_socket), **LOCAL_IMAGES}
    lines = []
    for line in (REPO / "deploy" / "env.example").read_text().splitlines():
        name = line.split("=", 1)[0]
        if not line.startswith("#") and "=" in line and name in values:
            line = f"{name}={values.pop(name)}"
        lines.append(line.replace("replace-postgres-password", "stack-pg-1").replace("replace-redis-password",
                                                                                       "stack-redis-1"))
    return "\n".join(lines + [f"{name}={value}" for name, value in values.items()]) + "\n"


class Stack:
    def __init__(self, folder: Path, name: str, files: tuple[str, ...] = ("docker-compose.yml",)):
        self.folder, self.name, self.files = folder, name, files

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        files = [argument for name in self.files for argument in ("-f", name)]
        return run(str(COMPOSE), "-p", self.name, *files, *args, cwd=self.folder, timeout=timeout)

    def piped(self, *args: str, data: bytes | None = None) -> bytes:
        """`compose exec -T …` with bytes in and out, as the backup commands of docs/operations.md run."""
        done = subprocess.run([str(COMPOSE), "-p", self.name, "exec", "-T", *args], cwd=self.folder, input=data,
                              capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, f"{args}: {done.stderr.decode(errors='replace')[-2000:]}"
        return done.stdout

    def manage(self, code: str) -> str:
        done = run("podman", "exec", f"{self.name}_web_1", "/srv/kozyr/app/deploy/entrypoint.sh", "manage", "shell",
                   "--verbosity", "0", "-c", code)
        return done.stdout.strip()

    def containers(self) -> list[str]:
        listing = run("podman", "ps", "--all", "--format", "{{.Names}}",
                      "--filter", f"label=io.podman.compose.project={self.name}")
        return listing.stdout.split()


@pytest.fixture(scope="module")
def images():
    if shutil.which("podman") is None or os.geteuid() != 0:
        pytest.skip("the stack test needs podman and root (sandbox/image/install-engine.sh installs podman)")
    began = time.monotonic()
    built = run(str(REPO / "deploy" / "build-local-images.sh"), timeout=1800)
    print(f"\n{built.stdout.strip()}\n[images: {time.monotonic() - began:.0f} s]")


@pytest.fixture
def engine_socket(tmp_path):
    """The host's Podman API, as `podman system service` serves it on a podman host."""
    folder = Path(f"/run/kozyr-stack-{os.getpid()}")
    folder.mkdir(mode=0o755, exist_ok=True)
    path = folder / "podman.sock"
    service = subprocess.Popen(["podman", "system", "service", "--time=0", f"unix://{path}"],
                               stdout=subprocess.DEVNULL, stderr=open(tmp_path / "service.log", "wb"))  # noqa: SIM115
    wait_for(path.exists, 30, "the podman API socket")
    os.chown(path, 0, SOCKET_GROUP)
    os.chmod(path, 0o660)
    yield path
    service.terminate()
    service.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


def slow_bot() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", (BOTS / "first_legal.py").read_bytes())
        archive.writestr("delay", "0.15")  # long enough matches to kill a worker in the middle of one
    return buffer.getvalue()


def second_worker_host(main: Stack, folder: Path, main_env: str, data: dict[str, str]) -> Stack:
    """A worker host as docs/operations.md, "Adding worker machines", sets one up: the same compose file, only
    the worker started (`--no-deps`), its own project and network, DATABASE_URL and CELERY_BROKER_URL at the
    main host's published ports, its own WORKER_DIR. The media are shared the way an NFS export declared as the
    `media` volume shares them: here the main project's volume itself."""
    folder.mkdir()
    shutil.copy(REPO / "docker-compose.yml", folder / "docker-compose.yml")
    (folder / "shared-media.yml").write_text(f"volumes:\n  media:\n    external: true\n    name: {main.name}_media\n")
    address = data["DATA_ADDRESS"]
    lines = []
    for line in main_env.splitlines():
        name = line.split("=", 1)[0]
        if name == "DATABASE_URL":
            line = f"DATABASE_URL=postgres://kozyr:stack-pg-1@{address}:{data['DB_PUBLISHED_PORT']}/kozyr"
        elif name == "CELERY_BROKER_URL":
            line = f"CELERY_BROKER_URL=redis://:stack-redis-1@{address}:{data['REDIS_PUBLISHED_PORT']}/0"
        elif name == "WORKER_DIR":
            line = f"WORKER_DIR={SECOND_HOST_WORKER_DIR}"
        lines.append(line)
    (folder / ".env").write_text("\n".join(lines) + "\n")
    return Stack(folder, f"{main.name}h", ("docker-compose.yml", "shared-media.yml"))


def bot_containers(owner_host: str) -> set[str]:
    """The bot containers (running or exited) that a worker of this container host started."""
    listing = run("podman", "ps", "--all", "--no-trunc", "--filter", "label=kozyr.sandbox=1", "--format",
                  '{{.ID}} {{index .Labels "kozyr.sandbox.owner"}}').stdout.splitlines()
    rows = [line.split() for line in listing]
    return {row[0] for row in rows if len(row) == 2 and row[1].startswith(f"{owner_host}:")}


def test_the_stack_plays_uploads_survives_a_killed_worker_and_leaves_nothing(images, engine_socket, tmp_path):
    for folder in (WORKER_DIR, SECOND_HOST_WORKER_DIR):
        folder.mkdir(exist_ok=True)
        os.chown(folder, 10001, 10001)
    port = free_port()
    data = {"DATA_ADDRESS": host_address(), "DB_PUBLISHED_PORT": str(free_port()),
            "REDIS_PUBLISHED_PORT": str(free_port())}
    folder = tmp_path / "site"
    folder.mkdir()
    shutil.copy(REPO / "docker-compose.yml", folder / "docker-compose.yml")
    shutil.copy(REPO / "deploy" / "publish-data.yml", folder / "publish-data.yml")
    main_env = env_file(port, engine_socket, data)
    (folder / ".env").write_text(main_env)
    stack = Stack(folder, f"kzstack{os.getpid()}", ("docker-compose.yml", "publish-data.yml"))
    host2 = second_worker_host(stack, tmp_path / "worker-host", main_env, data)
    url = f"http://127.0.0.1:{port}"
    began = time.monotonic()
    try:
        # --no-deps: podman 4.3 cannot start a container that --requires a finished one (migrate); the
        # entry point waits for the database and the migrations instead (docs/operations.md).
        stack.compose("up", "-d", "--no-deps")
        host2.compose("up", "-d", "--no-deps", "worker")
        worker_names = (f"{stack.name}_worker_1", f"{host2.name}_worker_1")
        assert set(worker_names) <= set(stack.containers()) | set(host2.containers())
        # The second host's worker is on its own network only: it reaches the data through the published ports.
        networks = json.loads(run("podman", "inspect", "--format", "{{json .NetworkSettings.Networks}}",
                                  worker_names[1]).stdout)
        assert set(networks) == {f"{host2.name}_backend"}, networks

        def healthy() -> bool:
            try:
                return Site(url).request("GET", "/healthz")["status"] == "ok"
            except Exception:
                return False

        wait_for(healthy, 300, "the web service's /healthz")
        up_seconds = time.monotonic() - began
        stack.manage("from bots.models import Bot; Bot.objects.exclude(game='kozel').update(active=False);"
                     "from accounts.models import User; User.objects.create_user('stack', password='a-long-pass-1')")
        token = Site(url).request("POST", "/api/v1/auth/token/",
                                  {"username": "stack", "password": "a-long-pass-1", "name": "stack test"})["token"]
        site = Site(url, token)
        site.request("POST", "/api/v1/bots/", {"name": "slow-kozel", "game": "kozel"})
        version = site.request("POST", "/api/v1/bots/slow-kozel/versions/", files={"file": ("slow.zip", slow_bot())})

        def validated() -> dict:
            state = site.request("GET", f"/api/v1/bots/slow-kozel/versions/{version['number']}/")
            return state if state["status"] != "pending" else {}

        state = wait_for(validated, 300, "the upload's validation in a bot container")
        assert state["status"] == "ready", state  # played in containers of the host's engine, not rejected

        # Every health check compose declares passes. Podman runs them on systemd timers; a host without
        # systemd (this one) runs them only when asked, as `podman healthcheck run` does here.
        checked = [name for name in stack.containers() + host2.containers()
                   if not name.endswith(("_migrate_1", "_beat_1"))]
        for name in checked:
            done = run("podman", "healthcheck", "run", name, check=False, timeout=90)
            assert done.returncode == 0 and "unhealthy" not in done.stdout, (name, done.stdout, done.stderr)
            health = run("podman", "inspect", "--format", "{{.State.Health.Status}}", name).stdout.strip()
            assert health == "healthy", (name, health)
        assert len(checked) == 6  # db, redis, web, maintenance, and a worker on each host

        tried: set[int] = set()

        def running_ladder_match() -> dict:
            page = site.request("GET", "/api/v1/matches/?bot=slow-kozel&kind=ladder&status=running")
            fresh = [m for m in page["results"] if m["id"] not in tried and m["attempts"] == 1]
            return fresh[0] if fresh else {}

        # Both hosts take work through the same broker and database.
        hosts_seen: set[str] = set()
        workers = {run("podman", "inspect", "--format", "{{.Config.Hostname}}", name).stdout.strip(): name
                   for name in worker_names}

        def both_hosts_played() -> bool:
            owners = stack.manage("from matches.models import Match; print(' '.join(set(m.split(':')[0] for m in "
                                  "Match.objects.exclude(lease_owner='').values_list('lease_owner', flat=True))))")
            hosts_seen.update(owners.split())
            return set(workers) <= hosts_seen

        wait_for(both_hosts_played, 300, "matches leased by a worker of each host")
        # A match can end in the seconds between being found running and its worker's kill: then it was not
        # killed, and the next one is tried (the killed worker comes back: restart unless-stopped). A match
        # still running after the kill was killed, since only its dead worker could have finished it.
        for _ in range(3):
            victim = wait_for(running_ladder_match, 300, "a ladder match of the new bot to be running")
            tried.add(victim["id"])
            owner = stack.manage("from matches.models import Match; "
                                 f"print(Match.objects.get(pk={victim['id']}).lease_owner)")
            host = owner.split(":")[0]
            if not host:
                continue  # finished already
            assert host in workers, (owner, workers)
            orphans = bot_containers(host)
            assert orphans, "the victim's worker runs its bots in containers of the host's engine"
            # SIGKILL from outside, as the kernel's OOM killer or a crash would: the container's first process
            # dies and its whole pid namespace with it. (`podman kill` would count as a stop by hand, after
            # which `restart: unless-stopped` leaves it down.)
            os.kill(int(run("podman", "inspect", "--format", "{{.State.Pid}}", workers[host]).stdout),
                    signal.SIGKILL)
            if site.request("GET", f"/api/v1/matches/{victim['id']}/")["status"] == "running":
                break
        else:
            raise AssertionError(f"every ladder match tried ended before its worker was killed: {sorted(tried)}")

        def finished() -> dict:
            match = site.request("GET", f"/api/v1/matches/{victim['id']}/")
            return match if match["status"] in ("finished", "failed") else {}

        done = wait_for(finished, 300, "the killed worker's match to be finished by the other")
        assert done["status"] == "finished" and done["attempts"] == 2, done
        scored = stack.manage(f"from matches.models import Seat; s = Seat.objects.filter(match={victim['id']});"
                              "print(s.count(), s.exclude(verdict='').count())")
        assert scored == f"{len(done['seats'])} {len(done['seats'])}"  # one result: every seat scored once
        # The dead worker's bot containers are removed (by its worker restarting on the same host, or by
        # beat's reaper once they exited): the engine keeps none of them.
        wait_for(lambda: not orphans & bot_containers(host), 300, "the killed worker's bot containers to be reaped")

        stack.manage("from bots.models import Bot; Bot.objects.update(active=False); from matches.models import Match;"
                     "Match.objects.filter(status='queued').update(status='cancelled')")
        quiet = stack.manage  # a site with nothing to play stops cleanly: every bot container removed by its worker
        wait_for(lambda: quiet("from matches.models import Match; print(Match.objects.filter(status='running')"
                               ".count())") == "0", 300, "the running matches to end")
        # Backup and restore exactly as docs/operations.md says, for a project that is not called kozyr.
        replay_url = f"{url}/api/v1/matches/{victim['id']}/replay/"
        replay = urllib.request.urlopen(replay_url, timeout=30).read()
        finished_count = "from matches.models import Match; print(Match.objects.filter(status='finished').count())"
        before = stack.manage(finished_count)
        dump = stack.piped("db", "pg_dump", "-U", "kozyr", "-Fc", "kozyr")
        media = stack.piped("web", "tar", "-C", "/srv/kozyr/media", "-czf", "-", ".")
        stack.manage("from matches.models import Match; Match.objects.all().delete()")
        stack.piped("web", "sh", "-c", "rm -rf /srv/kozyr/media/*")
        assert stack.manage(finished_count) == "0"
        stack.piped("db", "pg_restore", "-U", "kozyr", "-d", "kozyr", "--clean", "--if-exists", data=dump)
        stack.piped("web", "tar", "-C", "/srv/kozyr/media", "-xzf", "-", data=media)
        assert stack.manage(finished_count) == before
        assert urllib.request.urlopen(replay_url, timeout=30).read() == replay
        print(f"\n[stack up to healthy: {up_seconds:.0f} s; whole test: {time.monotonic() - began:.0f} s; "
              f"backup: {len(dump) + len(media)} bytes]")
    finally:
        logs = {name: run("podman", "logs", "--tail", "40", name, check=False).stdout
                for name in stack.containers() + host2.containers()}
        # the worker host first: it holds the main project's media volume
        host2.compose("down", "-v", "--remove-orphans", "--timeout", "20")
        stack.compose("down", "-v", "--remove-orphans", "--timeout", "20")  # quiet by now, unless a step failed
        print(json.dumps({name: text[-1500:] for name, text in logs.items()}, indent=1))
    assert stack.containers() == [] and host2.containers() == []
    volumes = run("podman", "volume", "ls", "--format", "{{.Name}}").stdout.split()
    networks = run("podman", "network", "ls", "--format", "{{.Name}}").stdout.split()
    assert not [v for v in volumes if v.startswith(stack.name)], volumes
    assert not [n for n in networks if n.startswith(stack.name)], networks
    # Bots end with their input; a container that exited after its worker's last look may wait for beat's
    # reaper (EXITED_GRACE_SECONDS), which `down` stopped: none may still be running.
    running = run("podman", "ps", "--quiet", "--filter", "label=kozyr.sandbox=1").stdout.split()
    leftovers = run("podman", "ps", "--all", "--quiet", "--filter", "label=kozyr.sandbox=1").stdout.split()
    if leftovers:
        run("podman", "rm", "--force", *leftovers)
    assert running == [], "bot containers still running after down"
