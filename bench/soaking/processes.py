"""The site's processes: each one started, stopped and killed in a session of its own (web, workers, beat),
the folder, database and Redis databases they run on, their supervision (restarted when they die by
themselves), and the scan for bot processes left behind by a killed or stopped worker."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil
import psycopg
import redis

from bench import soak_edge as edge
from bench.soaking.common import BIN, OWNER_KEY, REPO, say
from config.celery_settings import QUEUE_ORDER
from tests.support.resources import private_sandbox_env
from tests.support.workers import DatabaseProxy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gone(proc: psutil.Process) -> bool:
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def state_id(folder: Path) -> str:
    """The sandbox's name for a state folder (sandbox.identity.state_id): its cgroups are
    kozyr-sandbox/<state id>-<pid>-<random>.<run>."""
    info = os.stat(folder)
    return hashlib.sha256(f"{info.st_dev}:{info.st_ino}".encode()).hexdigest()[:8]


class Service:
    """One process of the site (web, a worker, beat) in a session of its own, appending to its own log."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path, cwd: Path, ready: str | None):
        self.name, self.argv, self.env, self.log_path, self.cwd, self.ready_marker = name, argv, env, log, cwd, ready
        self.proc: subprocess.Popen | None = None
        self.offset = 0
        self.starts = 0
        self.intended_down = True  # True while the soak means it to be stopped (or dead)
        self.unexpected_exits = 0
        self.ended: dict[int, float] = {}  # incarnation (the value of starts) -> when it ended

    def start(self) -> None:
        self.offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.starts += 1
        self.intended_down = False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(self.offset)
            return log.read().decode(errors="replace")

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise SystemExit(f"{self.name} exited at start-up:\n{self.output()[-3000:]}")
            if self.ready_marker is None or self.ready_marker in self.output():
                return
            time.sleep(0.2)
        raise SystemExit(f"{self.name} not ready after {timeout:.0f} s:\n{self.output()[-3000:]}")

    def pool(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children()
        except (psutil.NoSuchProcess, AttributeError):
            return []

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except (psutil.NoSuchProcess, AttributeError):
            return []

    def kill(self) -> None:
        """SIGKILL the process group (the main process and its pool), as the OOM killer or a power cut would. The
        bots are in sessions of their own: they must die with their parent by themselves (--die-with-parent)."""
        self.intended_down = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.ended.setdefault(self.starts, time.time())

    def stop(self, grace: float = 90) -> None:
        """SIGTERM to the main process, as a process manager sends it (a worker's warm shutdown finishes the
        matches it plays; its pool's children must not get the signal themselves), then SIGKILL to the group."""
        self.intended_down = True
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                say(f"{self.name} did not stop within {grace:.0f} s; killing it")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        if self.proc is not None:
            self.ended.setdefault(self.starts, time.time())


class Site:
    """The processes of one soak and the environment they share."""

    def __init__(self, args, root: Path, db_name: str, proxy: DatabaseProxy):
        self.args, self.root, self.db_name, self.proxy = args, root, db_name, proxy
        self.port = free_port()
        self.secret = secrets.token_urlsafe(50)
        self.logs = root / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.web_db = edge.ProxyProcess(self.logs / "web-db-proxy.log")  # the web tier's way to PostgreSQL
        self.direct_db = f"postgres://postgres@127.0.0.1:5432/{db_name}"
        self.proxied_db = f"postgres://postgres@127.0.0.1:{proxy.port}/{db_name}"
        self.web_proxied_db = f"postgres://postgres@127.0.0.1:{self.web_db.port}/{db_name}"
        (root / "media").mkdir(exist_ok=True)
        self.lock = threading.Lock()
        self.web = self._web()
        self.workers = [self._worker(f"w{i + 1}", ",".join(QUEUE_ORDER), args.concurrency)
                        for i in range(args.workers)]
        self.maintenance = (self._worker("maintenance", "maintenance", args.maintenance_concurrency)
                            if args.maintenance_worker else None)
        self.beat = self._beat("beat")
        self.beat2: Service | None = None
        self.state_ids = {state_id(self.root / f"state-{w.name}") for w in self.all_workers()}

    def env(self, name: str, database: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("KOZYR_", "DJANGO_")) and k not in (
            "DATABASE_URL", "CELERY_BROKER_URL", "MEDIA_ROOT", "SECRET_KEY", "SANDBOX_BACKEND", "DEBUG")}
        var = self.root / f"var-{name}"
        var.mkdir(exist_ok=True)
        return {**keep, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": database,
                "CELERY_BROKER_URL": self.args.redis, "KOZYR_LIVE_REDIS_URL": self.args.relay_redis,
                "MEDIA_ROOT": str(self.root / "media"),
                "SECRET_KEY": self.secret, "KOZYR_VAR_DIR": str(var), "SANDBOX_BACKEND": "bwrap",
                "KOZYR_SANDBOX_ALLOW_WEAK": "true", "KOZYR_LADDER_QUEUE_DEPTH": str(self.args.depth),
                # the faults are the point, not the search bots' strength: a ladder of matches of seconds
                "KOZYR_HOUSE_SEARCH_BOTS": "false",
                "KOZYR_LEASE_SECONDS": str(self.args.lease_seconds),
                # people sit down again as soon as a match ends, for longer than an hour's allowance
                "KOZYR_CASUAL_PER_HOUR": "10000"}

    def _web(self) -> Service:
        # deploy/entrypoint.sh's web (and deploy/supervisord.conf's): ASGI, so the port serves arena connect too
        argv = [str(BIN / "gunicorn"), "config.asgi:application", "--worker-class", "config.web_worker.WebWorker",
                "--preload", "--chdir", str(REPO / "platform"),
                "--bind", f"127.0.0.1:{self.port}", "--workers", "2", "--timeout", "60",
                "--control-socket", str(self.root / "gunicorn.ctl"),
                "--access-logfile", str(self.logs / "web-access.log"),
                "--error-logfile", str(self.logs / "web-error.log")]
        return Service("web", argv, self.env("web", self.web_proxied_db), self.logs / "web.log", REPO, None)

    def _worker(self, name: str, queues: str, concurrency: int) -> Service:
        env = self.env(name, self.proxied_db)
        state = self.root / f"state-{name}"
        state.mkdir(mode=0o711, exist_ok=True)
        env.update(private_sandbox_env(state))
        argv = [str(BIN / "celery"), "-A", "config", "worker", "--queues", queues, "--concurrency", str(concurrency),
                "--hostname", f"{name}@%h", "--loglevel", "INFO"]
        return Service(name, argv, env, self.logs / f"{name}.log", REPO / "platform", "ready.")

    def _beat(self, name: str) -> Service:
        env = self.env(name, self.direct_db)
        argv = [str(BIN / "celery"), "-A", "config", "beat", "--schedule", str(self.root / f"var-{name}" / "schedule"),
                "--loglevel", "INFO"]
        return Service(name, argv, env, self.logs / f"{name}.log", REPO / "platform", "beat: Starting")

    def all_workers(self) -> list[Service]:
        return self.workers + ([self.maintenance] if self.maintenance else [])

    def services(self) -> list[Service]:
        return [self.web, *self.all_workers(), self.beat] + ([self.beat2] if self.beat2 else [])

    def start(self, meanwhile) -> None:
        """Web and workers boot while ``meanwhile`` migrates the database (they touch it only for requests and
        tasks); beat, which sends tasks at once, starts after it. The web's database proxy first."""
        self.web_db.start()
        for service in [self.web, *self.all_workers()]:
            service.start()
        meanwhile()
        self.beat.start()
        for service in [self.web, *self.all_workers(), self.beat]:
            service.wait_ready()
        wait_http(self.port)

    def stop(self) -> None:
        """Beat, then the workers (a warm shutdown finishes the matches they play), then the web: a remote seat's
        connection lives in the web process, and stopping it first would leave those matches to the grace."""
        for beat in (self.beat2, self.beat):
            if beat:
                beat.stop(grace=20)
        threads = [threading.Thread(target=w.stop) for w in self.all_workers()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.web.stop(grace=30)
        self.web_db.cut()


def wait_http(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        time.sleep(0.3)
    raise SystemExit("the web server did not answer /healthz")


class ProcessesMixin:
    """The soak's set-up and clean-up of the site, the supervision of its processes and the leftovers' scan."""

    def prepare(self) -> None:
        args = self.args
        self.db_name = f"kozyr_soak_{os.getpid()}"
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        urls = [args.redis] + ([] if edge.same_database(args.relay_redis, args.redis) else [args.relay_redis])
        owned = [redis.Redis.from_url(url) for url in urls]
        for url, database in zip(urls, owned, strict=True):
            other = database.get(OWNER_KEY)
            if other and other.decode() != self.owner:
                raise SystemExit(f"another soak ({other.decode()}) uses {url}; pass another --redis or --relay-redis")
        self.redis, self.owned = owned[0], owned  # ours from here on: flushed now and at the end
        self.relay = owned[-1]
        for database in owned:
            database.flushdb()
            database.set(OWNER_KEY, self.owner, ex=30)
        self.root = Path(tempfile.mkdtemp(prefix="kozyr-soak-"))
        self.root.chmod(0o711)  # the sandbox uids traverse it to the workers' state folders
        say(f"folder {self.root}, database {self.db_name}, broker {args.redis}, relay {args.relay_redis}")
        with psycopg.connect(f"{args.postgres}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {self.db_name}")
        self.db_url = f"{args.postgres}/{self.db_name}"
        self.proxy = DatabaseProxy()
        self.site = Site(args, self.root, self.db_name, self.proxy)
        harness = self.site.env("harness", self.site.direct_db)  # this process's Django: the soak's database
        os.environ.clear()
        os.environ.update(harness)
        import django

        django.setup()
        from django.conf import settings

        self.relay_url = settings.LIVE_REDIS_URL  # --relay-redis, as the site's processes have it

    def cleanup(self, keep_folder: bool) -> None:
        if hasattr(self, "proxy"):
            self.proxy.close()
        if hasattr(self, "site"):
            self.site.web_db.cut()
        for database in getattr(self, "owned", []):
            with contextlib.suppress(Exception):
                database.flushdb()
        if not self.args.keep and hasattr(self, "db_name"):
            with psycopg.connect(f"{self.args.postgres}/postgres", autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
        if hasattr(self, "root") and not keep_folder:
            shutil.rmtree(self.root, ignore_errors=True)

    def _supervise(self) -> None:
        """A process that died when the soak did not kill it is counted and started again (a restart policy)."""
        for service in self.site.services():
            if service.intended_down or service.alive():
                continue
            service.unexpected_exits += 1
            service.ended.setdefault(service.starts, time.time())
            self.figures.inc("unexpected exits")
            say(f"{service.name} exited by itself ({service.proc.returncode}): {service.output()[-600:]!r}; restarting")
            service.start()
        for bot in self.remote_bots:  # its author's supervisor would start it again, too
            if not bot.intended_down and not bot.alive():
                self.figures.inc("arena connect exits")
                say(f"arena connect of {bot.name} exited ({bot.proc.returncode}): {bot.output()[-600:]!r}; restarting")
                bot.start()
        proxy = self.site.web_db
        if not proxy.intended_down and not proxy.alive():
            self.figures.inc("unexpected exits")
            say(f"the web's database proxy exited by itself: {proxy.output()[-600:]!r}; restarting")
            proxy.start()

    def _sample_processes(self) -> None:
        with self.tracked_lock:
            for service in self.site.all_workers():
                if not service.alive():
                    continue
                for proc in service.descendants():
                    with contextlib.suppress(psutil.Error):
                        key = (proc.pid, proc.create_time())
                        self.tracked.setdefault(key, (proc, service.name, service.starts))

    def _check_tracked(self, grace: float = 15) -> None:
        """A process seen under a worker incarnation that ended more than ``grace`` seconds ago is left behind."""
        services = {s.name: s for s in self.site.all_workers()}
        now = time.time()
        with self.tracked_lock:
            for key, (proc, name, incarnation) in list(self.tracked.items()):
                if gone(proc):
                    del self.tracked[key]
                    continue
                ended = services[name].ended.get(incarnation)
                if ended is not None and now - ended > grace:
                    self._left_behind(proc, f"{name} (start {incarnation})")
                    del self.tracked[key]

    def _left_behind(self, proc: psutil.Process, owner: str) -> None:
        with contextlib.suppress(psutil.Error):
            info = f"pid {proc.pid} {proc.name()} {' '.join(proc.cmdline())[:120]!r} (ppid {proc.ppid()})"
            self.findings.add("leftovers", f"{proc.pid}:{proc.create_time()}", f"{info} outlived its worker {owner}")
            proc.kill()

    def _final_process_scan(self) -> None:
        """Every worker is stopped: nothing it started may still run, and nothing may be in the soak's cgroups."""
        time.sleep(2)
        with self.tracked_lock:
            for proc, name, _ in self.tracked.values():
                if not gone(proc):
                    self._left_behind(proc, f"{name} (stopped at the end)")
        for proc in self.sandboxed():
            self._left_behind(proc, "a sandbox cgroup of the soak")

    def sandboxed(self) -> list[psutil.Process]:
        """Live processes in the soak's sandbox cgroups (kozyr-sandbox/<a worker's state id>-...)."""
        pattern = re.compile(r"/kozyr-sandbox/(" + "|".join(sorted(self.site.state_ids)) + r")-")
        found = []
        for proc_dir in Path("/proc").iterdir():
            if not proc_dir.name.isdigit():
                continue
            with contextlib.suppress(OSError, psutil.Error):
                if pattern.search((proc_dir / "cgroup").read_text()):
                    proc = psutil.Process(int(proc_dir.name))
                    if not gone(proc):
                        found.append(proc)
        return found
