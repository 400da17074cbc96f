"""The production stack, built and run here: the images from deploy/build-local-images.sh (no registry), the
compose file under podman-compose, bots in containers of the host's Podman (through its API socket, served
by deploy/engine-socket.sh as docs/operations.md says, and restarted once). Three workers: two in the main
project (WORKERS=2), one as a second worker host (its own compose project and network, reaching PostgreSQL and
Redis only through the ports deploy/publish-data.yml publishes, with its own worker folder), all of one site
(KOZYR_SITE_ID). The guide's smoke test, an upload validated and on the ladder, every service's health check
passing and the guide's ping of one scaled worker, bot containers labelled with their site and worker, a
worker container SIGKILLed mid-match and its match finished once by another, its bot containers reaped; the
second host's worker killed for good and its bots reaped by the main host's workers; the guide's backup and
restore run as written; PostgreSQL stopped cleanly; then `down` leaving nothing, and no other site's bot
container touched.

Minutes of real processes (the first image build most of all): marked `site`, run by `make test-site`."""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from arena.client import Site
from tests.support.polling import wait_until
from tests.support.resources import free_port

pytestmark = [pytest.mark.site, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[3]
BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"
COMPOSE = REPO / ".venv" / "bin" / "podman-compose"
WORKER_DIR = Path("/var/lib/kozyr-worker")  # the same path in the worker and on the host (docker-compose.yml)
SECOND_HOST_WORKER_DIR = Path("/var/lib/kozyr-worker-host2")  # a worker host's own folder (WORKER_DIR)
SOCKET_GROUP = 64999  # the group the engine socket is given to, as DOCKER_GID says
DNS_DROPPED = "Temporary failure in name resolution"  # a look-up the network's DNS server dropped
LOCAL_IMAGES = {"POSTGRES_IMAGE": "localhost/kozyr-postgres:15", "REDIS_IMAGE": "localhost/kozyr-redis:7",
                "PLATFORM_IMAGE": "localhost/kozyr-platform:latest",
                "KOZYR_SANDBOX_DOCKER_IMAGE": "localhost/kozyr-bot-runtime:latest"}


def run(*command: str, timeout: float = 120, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if check and done.returncode != 0:
        output = f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{output}")
    return done




def host_address() -> str:
    """This machine's own address (the source of its default route): where the data ports are published, as
    a main host publishes them on its private address."""
    route = run("ip", "-4", "-o", "route", "get", "192.0.2.200").stdout.split()
    return route[route.index("src") + 1]


def env_file(port: int, engine_socket: Path, data: dict[str, str], site: str) -> str:
    """deploy/env.example with this test's secrets and local images, as an operator fills it in."""
    values = {**data, "SECRET_KEY": secrets.token_urlsafe(48), "ALLOWED_HOSTS": "localhost,127.0.0.1",
              "KOZYR_SITE_ID": site, "WORKERS": "2",
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
        """``code`` run by `manage shell` in the web container. A look-up of ``db`` that the network's DNS
        server dropped is asked again: Debian's aardvark-dns 1.4 rebinds its sockets on every container start
        and stop in the network (containers/aardvark-dns#389), and this test starts and kills many. Only that
        error is asked again, at most twice, and only for this probe: the site's own processes are tested."""
        command = ("podman", "exec", f"{self.name}_web_1", "/srv/kozyr/app/deploy/entrypoint.sh", "manage", "shell",
                   "--verbosity", "0", "-c", code)
        for _ in range(2):
            done = run(*command, check=False)
            if done.returncode == 0 or DNS_DROPPED not in done.stderr:
                break
            time.sleep(1)
        else:
            done = run(*command, check=False)
        if done.returncode != 0:
            raise AssertionError(f"manage shell exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
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


class EngineSocket:
    """The host's Podman API as docs/operations.md serves it on a host without systemd: deploy/engine-socket.sh,
    which gives every new socket to the workers' group and starts `podman system service` again when it ends."""

    def __init__(self, path: Path, log: Path):
        self.path = path
        self.keeper = subprocess.Popen(["sh", str(REPO / "deploy" / "engine-socket.sh"), str(path), str(SOCKET_GROUP)],
                                       stdout=subprocess.DEVNULL, stderr=open(log, "wb"))  # noqa: SIM115

    def service(self) -> int | None:
        """The pid of the podman service, once its socket is there for the workers' group."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        pids = run("pgrep", "-P", str(self.keeper.pid), "-f", "podman system service", check=False).stdout.split()
        served = len(pids) == 1 and info.st_gid == SOCKET_GROUP and info.st_mode & 0o777 == 0o660
        return int(pids[0]) if served else None


@pytest.fixture
def engine_socket(tmp_path):
    folder = Path(f"/run/kozyr-stack-{os.getpid()}")
    socket = EngineSocket(folder / "podman.sock", tmp_path / "engine-socket.log")
    wait_until(socket.service, 30, "the podman API socket, for the workers' group")
    yield socket
    socket.keeper.terminate()
    socket.keeper.wait(timeout=30)
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
        elif name == "WORKERS":
            line = "WORKERS=1"
        lines.append(line)
    (folder / ".env").write_text("\n".join(lines) + "\n")
    return Stack(folder, f"{main.name}h", ("docker-compose.yml", "shared-media.yml"))


def site_containers(site: str, running: bool = False) -> list[dict[str, str]]:
    """This site's bot containers (running ones only, or all): id, owner and worker container."""
    template = '{{.ID}} {{index .Labels "kozyr.sandbox.owner"}} {{index .Labels "kozyr.sandbox.worker"}}'
    which = ["--filter", "status=running"] if running else ["--all"]
    listing = run("podman", "ps", *which, "--no-trunc", "--filter", f"label=kozyr.sandbox.site={site}",
                  "--format", template).stdout.splitlines()
    rows = [line.split() for line in listing]
    return [dict(zip(("id", "owner", "worker"), row, strict=True)) for row in rows if len(row) == 3]


def bot_containers(site: str, owner_host: str) -> set[str]:
    """The site's bot containers that a worker of this container host started."""
    return {row["id"] for row in site_containers(site) if row["owner"].startswith(f"{owner_host}:")}


def guide(stack: Stack, name: str | None = None, text: str | None = None, **replacements: str) -> str:
    """A block of docs/operations.md (or one of its commands), run as written in the project's folder, with
    `docker compose` this project's podman-compose, and `up -d` the guide's `up -d --no-deps` for a podman
    before 4.6. Returns its output."""
    from tests.platform.guide_commands import block

    script = block(name) if name else text or ""
    for old, new in {"docker compose": "compose", "up -d": "up -d --no-deps", **replacements}.items():
        script = script.replace(old, new)
    files = " ".join(f"-f {file}" for file in stack.files)
    done = run("bash", "-euo", "pipefail", "-c", f'compose() {{ "{COMPOSE}" -p {stack.name} {files} "$@"; }}\n{script}',
               cwd=stack.folder, timeout=900)
    return done.stdout


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
    site_id = f"kzstack{os.getpid()}"
    main_env = env_file(port, engine_socket.path, data, site_id)
    (folder / ".env").write_text(main_env)
    stack = Stack(folder, site_id, ("docker-compose.yml", "publish-data.yml"))
    host2 = second_worker_host(stack, tmp_path / "worker-host", main_env, data)
    # Another site's bot container on the same engine, long past its deadline: never this site's to reap.
    stranger = run("podman", "create", "--label", "kozyr.sandbox=1", "--label", "kozyr.sandbox.site=another-site",
                   "--label", "kozyr.sandbox.deadline=1", "--label", "kozyr.sandbox.owner=elsewhere:1:1",
                   "--network", "none", LOCAL_IMAGES["KOZYR_SANDBOX_DOCKER_IMAGE"], "true").stdout.strip()
    url = f"http://127.0.0.1:{port}"
    began = time.monotonic()
    timings: dict[str, float] = {}
    try:
        # --no-deps: podman 4.3 cannot start a container that --requires a finished one (migrate); the
        # entry point waits for the database and the migrations instead (docs/operations.md).
        stack.compose("up", "-d", "--no-deps")
        host2.compose("up", "-d", "--no-deps", "worker")
        worker_names = (f"{stack.name}_worker_1", f"{stack.name}_worker_2", f"{host2.name}_worker_1")
        assert set(worker_names) <= set(stack.containers()) | set(host2.containers())  # WORKERS=2 here, 1 there
        # The second host's worker is on its own network only: it reaches the data through the published ports.
        networks = json.loads(run("podman", "inspect", "--format", "{{json .NetworkSettings.Networks}}",
                                  worker_names[2]).stdout)
        assert set(networks) == {f"{host2.name}_backend"}, networks
        # The engine's API service restarts (an upgrade of podman, a crash): its new socket is the workers' again.
        first_service = engine_socket.service()
        os.kill(first_service, signal.SIGKILL)
        wait_until(lambda: engine_socket.service() not in (None, first_service), 30, "the engine socket served again")

        def healthy() -> bool:
            try:
                return Site(url).request("GET", "/healthz")["status"] == "ok"
            except Exception:
                return False

        wait_until(healthy, 300, "the web service's /healthz")
        timings["up to healthy"] = time.monotonic() - began
        # The guide's smoke test, before any proxy: as the proxy will ask (production redirects plain HTTP).
        assert json.loads(guide(stack, "smoke", **{"kozyr.example.org": "localhost",
                                                   "${WEB_PORT:-8000}": str(port)}))["status"] == "ok"
        # The image the workers start bots from, with its own limits (it failed on "error setting rlimit").
        runtime = stack.compose("--profile", "images", "run", "--rm", "bot-runtime")
        assert runtime.stdout.strip().startswith("Python 3."), runtime.stdout
        stack.manage("from bots.models import Bot; Bot.objects.exclude(game='kozel').update(active=False);"
                     "from accounts.models import User; User.objects.create_user('stack', password='a-long-pass-1')")
        token = Site(url).request("POST", "/api/v1/auth/token/",
                                  {"username": "stack", "password": "a-long-pass-1", "name": "stack test"})["token"]
        site = Site(url, token)
        site.request("POST", "/api/v1/bots/", {"name": "slow-kozel", "game": "kozel"})
        uploaded = time.monotonic()
        version = site.request("POST", "/api/v1/bots/slow-kozel/versions/", files={"file": ("slow.zip", slow_bot())})

        def validated() -> dict:
            state = site.request("GET", f"/api/v1/bots/slow-kozel/versions/{version['number']}/")
            return state if state["status"] != "pending" else {}

        state = wait_until(validated, 300, "the upload's validation in a bot container")
        assert state["status"] == "ready", state  # played in containers of the host's engine, not rejected
        timings["bot ready"] = time.monotonic() - uploaded

        # Every health check compose declares passes. Podman runs them on systemd timers; a host without
        # systemd (this one) runs them only when asked, as `podman healthcheck run` does here.
        checked = [name for name in stack.containers() + host2.containers()
                   if not name.endswith(("_migrate_1", "_beat_1"))]
        for name in checked:
            done = run("podman", "healthcheck", "run", name, check=False, timeout=90)
            assert done.returncode == 0 and "unhealthy" not in done.stdout, (name, done.stdout, done.stderr)
            health = run("podman", "inspect", "--format", "{{.State.Health.Status}}", name).stdout.strip()
            assert health == "healthy", (name, health)
        assert len(checked) == 7  # db, redis, web, maintenance, two workers here and one on the other host
        # The guide's ping of one container of the scaled worker service, as written.
        from tests.platform.guide_commands import compose_commands

        ping, = (c.text for c in compose_commands() if c.subcommand == "exec" and "--index" in c.options)
        second = run("podman", "inspect", "--format", "{{.Config.Hostname}}", worker_names[1]).stdout.strip()
        assert f"worker@{second}: OK" in guide(stack, text=ping)

        tried: set[int] = set()
        workers = {run("podman", "inspect", "--format", "{{.Config.Hostname}}", name).stdout.strip(): name
                   for name in worker_names}
        container_ids = {name: run("podman", "inspect", "--format", "{{.Id}}", name).stdout.strip()
                         for name in worker_names}

        def running_ladder_match(on_host: str | None = None) -> dict:
            page = site.request("GET", "/api/v1/matches/?bot=slow-kozel&kind=ladder&status=running")
            for match in page["results"]:
                if match["id"] in tried or match["attempts"] != 1:
                    continue
                if on_host is None:
                    return match
                owner = stack.manage(f"from matches.models import Match; print(Match.objects.get(pk={match['id']})"
                                     ".lease_owner)")
                if owner.startswith(f"{on_host}:"):
                    return match
            return {}

        # Both hosts take work through the same broker and database.
        hosts_seen: set[str] = set()

        def both_hosts_played() -> bool:
            owners = stack.manage("from matches.models import Match; print(' '.join(set(m.split(':')[0] for m in "
                                  "Match.objects.exclude(lease_owner='').values_list('lease_owner', flat=True))))")
            hosts_seen.update(owners.split())
            return {workers_host for workers_host, name in workers.items() if name != worker_names[1]} <= hosts_seen

        wait_until(both_hosts_played, 300, "matches leased by a worker of each host")
        # Every bot container carries the site and the container of the worker that started it.
        labelled = wait_until(lambda: site_containers(site_id, running=True), 120, "a bot container playing")
        assert all(row["worker"] in container_ids.values() for row in labelled), (labelled, container_ids)
        # A match can end in the seconds between being found running and its worker's kill: then it was not
        # killed, and the next one is tried (the killed worker comes back: restart unless-stopped). A match
        # still running after the kill was killed, since only its dead worker could have finished it.
        for _ in range(3):
            victim = wait_until(running_ladder_match, 300, "a ladder match of the new bot to be running")
            tried.add(victim["id"])
            owner = stack.manage("from matches.models import Match; "
                                 f"print(Match.objects.get(pk={victim['id']}).lease_owner)")
            host = owner.split(":")[0]
            if not host:
                continue  # finished already
            assert host in workers, (owner, workers)

            def containers_or_ended(match_id: int = victim["id"], on: str = host):
                # The match may end between being found running and this listing: its containers go first.
                found = bot_containers(site_id, on)
                if found:
                    return found
                return "ended" if site.request("GET", f"/api/v1/matches/{match_id}/")["status"] != "running" else None

            orphans = wait_until(containers_or_ended, 30, "the victim's worker to run its bots in containers of the "
                                 "host's engine (while its match runs)")
            if orphans == "ended":
                continue
            # SIGKILL from outside, as the kernel's OOM killer or a crash would: the container's first process
            # dies and its whole pid namespace with it. (`podman kill` would count as a stop by hand, after
            # which `restart: unless-stopped` leaves it down.)
            killed = time.monotonic()
            os.kill(int(run("podman", "inspect", "--format", "{{.State.Pid}}", workers[host]).stdout),
                    signal.SIGKILL)
            if site.request("GET", f"/api/v1/matches/{victim['id']}/")["status"] == "running":
                break
        else:
            raise AssertionError(f"every ladder match tried ended before its worker was killed: {sorted(tried)}")

        def finished() -> dict:
            match = site.request("GET", f"/api/v1/matches/{victim['id']}/")
            return match if match["status"] in ("finished", "failed") else {}

        done = wait_until(finished, 300, "the killed worker's match to be finished by the other")
        assert done["status"] == "finished" and done["attempts"] == 2, done
        timings["killed worker's match finished"] = time.monotonic() - killed
        scored = stack.manage(f"from matches.models import Seat; s = Seat.objects.filter(match={victim['id']});"
                              "print(s.count(), s.exclude(verdict='').count())")
        assert scored == f"{len(done['seats'])} {len(done['seats'])}"  # one result: every seat scored once
        # The dead worker's bot containers are removed (by its worker restarting on the same host, or by
        # beat's reaper once they exited): the engine keeps none of them.
        wait_until(lambda: not orphans & bot_containers(site_id, host), 300,
                   "the killed worker's bot containers to be reaped")

        # The second host's worker is killed for good (`podman kill`: a stop by hand, it stays down) in the
        # middle of a match: no worker of its own ever sweeps again, and its bots are reaped by the main
        # host's workers, sooner than any exited container's grace, because the engine no longer runs it.
        host2_name = next(h for h, name in workers.items() if name == worker_names[2])
        last_victim = wait_until(lambda: running_ladder_match(on_host=host2_name), 300,
                                 "a ladder match played by the second host")
        tried.add(last_victim["id"])
        left = bot_containers(site_id, host2_name)
        assert left, "the second host's worker runs its bots in containers of the engine"
        run("podman", "kill", worker_names[2])
        stopped = time.monotonic()
        wait_until(lambda: not left & bot_containers(site_id, host2_name), 100,
                   "the stopped worker's bot containers to be reaped by another worker")
        timings["stopped host's bots reaped"] = time.monotonic() - stopped
        assert run("podman", "inspect", "--format", "{{.State.Status}}", worker_names[2]).stdout.strip() == "exited"

        stack.manage("from bots.models import Bot; Bot.objects.update(active=False); from matches.models import Match;"
                     "Match.objects.filter(status='queued').update(status='cancelled')")
        quiet = stack.manage  # a site with nothing to play stops cleanly: every bot container removed by its worker
        # Nothing queued or running, for good: a dead worker's match whose lease ran out is put back in the queue by
        # beat (and would then be played), so what is queued meanwhile is cancelled too, until none is left.
        wait_until(lambda: quiet("from matches.models import Match; q = Match.objects.filter(status='queued');"
                               "q.update(status='cancelled');"
                               "print(Match.objects.filter(status__in=['queued', 'running']).count())") == "0",
                   300, "the running matches to end and none to be queued again")
        # Backup and restore exactly as docs/operations.md writes them, for a project that is not called kozyr.
        replay_url = f"{url}/api/v1/matches/{victim['id']}/replay/"
        replay = urllib.request.urlopen(replay_url, timeout=30).read()
        finished_count = "from matches.models import Match; print(Match.objects.filter(status='finished').count())"
        before = stack.manage(finished_count)
        guide(stack, "backup")
        backups = sorted(folder.glob("kozyr-*.dump")) + sorted(folder.glob("media-*.tar.gz"))
        assert len(backups) == 2 and all(path.stat().st_size > 0 for path in backups), backups
        assert {path.stat().st_mode & 0o777 for path in backups} == {0o600}  # umask 077: the owner's only
        stack.manage("from matches.models import Match; Match.objects.all().delete()")
        stack.piped("web", "sh", "-c", "rm -rf /srv/kozyr/media/*")
        assert stack.manage(finished_count) == "0"
        guide(stack, "restore", DATE=backups[0].name.removeprefix("kozyr-").removesuffix(".dump"))
        # The restore's `up -d` may recreate services (podman-compose does, for one whose settings it finds
        # changed): as an operator would, the site is used once it says it is healthy again, not before.
        wait_until(healthy, 300, "the web service's /healthz after the restore")
        assert stack.manage(finished_count) == before
        assert urllib.request.urlopen(replay_url, timeout=30).read() == replay
        # The restore's bare `up` brought back every worker the file declares (WORKERS), not one.
        running_workers = run("podman", "ps", "--filter", f"label=io.podman.compose.project={stack.name}",
                              "--filter", "label=io.podman.compose.service=worker", "--format", "{{.Names}}")
        assert sorted(running_workers.stdout.split()) == list(worker_names[:2])
        # Workers first (their grace), then PostgreSQL: a fast shutdown, not a SIGKILL at the end of the grace.
        stopping = time.monotonic()
        stack.compose("stop", "worker", "maintenance", "beat", "web")
        timings["site stop"] = time.monotonic() - stopping
        stopping = time.monotonic()
        stack.compose("stop", "db")
        timings["db stop"] = time.monotonic() - stopping
        db_exit = run("podman", "inspect", "--format", "{{.State.ExitCode}}", f"{stack.name}_db_1").stdout.strip()
        assert db_exit == "0" and timings["db stop"] < 30, (db_exit, timings)
        timings["whole test"] = time.monotonic() - began
        print(f"\n[timings, s: {json.dumps({k: round(v, 1) for k, v in timings.items()})}]")
    finally:
        logs = {name: run("podman", "logs", "--tail", "40", name, check=False).stdout
                for name in stack.containers() + host2.containers()}
        # the worker host first: it holds the main project's media volume
        host2.compose("down", "-v", "--remove-orphans", "--timeout", "20")
        stack.compose("down", "-v", "--remove-orphans", "--timeout", "20")  # quiet by now, unless a step failed
        print(json.dumps({name: text[-1500:] for name, text in logs.items()}, indent=1))
        # Bots end with their input; a container that exited after its worker's last look may wait for beat's
        # reaper (EXITED_GRACE_SECONDS), which `down` stopped: this site's are removed, no other's.
        running = run("podman", "ps", "--quiet", "--filter", f"label=kozyr.sandbox.site={site_id}").stdout.split()
        leftovers = run("podman", "ps", "--all", "--quiet", "--filter", f"label=kozyr.sandbox.site={site_id}")
        if leftovers.stdout.split():
            run("podman", "rm", "--force", *leftovers.stdout.split())
        strangers = run("podman", "ps", "--all", "--quiet", "--no-trunc", "--filter", f"id={stranger}").stdout.split()
        run("podman", "rm", "--force", stranger, check=False)
    assert strangers == [stranger], "another site's bot container was reaped"
    assert stack.containers() == [] and host2.containers() == []
    volumes = run("podman", "volume", "ls", "--format", "{{.Name}}").stdout.split()
    networks = run("podman", "network", "ls", "--format", "{{.Name}}").stdout.split()
    assert not [v for v in volumes if v.startswith(stack.name)], volumes
    assert not [n for n in networks if n.startswith(stack.name)], networks
    assert running == [], "bot containers still running after down"
