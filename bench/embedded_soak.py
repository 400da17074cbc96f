"""A soak of the embedded default, as `make run` starts it (supervisord, SQLite, the embedded Redis): the
house-bot ladder, an uploaded bot, and page and API readers, for N minutes. Prints what the site did and
every process exit the process manager saw; exits non-zero if a process died, a reader got a 5xx or no
connection, or the uploaded bot never played.

    .venv/bin/python bench/embedded_soak.py --minutes 30
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "platform")]

from tests.support.polling import wait_until  # noqa: E402
from tests.support.supervised_site import Site, embedded_env, free_port, shell, status  # noqa: E402

PAGES = ("/", "/games/bura/", "/bots/", "/bots/soak-bura/", "/tournaments/", "/docs/", "/api/v1/bots/",
         "/api/v1/matches/", "/api/v1/leaderboards/bura/", "/healthz")


def reader(url: str, stop: threading.Event, counts: collections.Counter, lock: threading.Lock) -> None:
    i = 0
    while not stop.is_set():
        code = status(url + PAGES[i % len(PAGES)])
        with lock:
            counts[code] += 1
        i += 1
        time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--readers", type=int, default=4)
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="kz-soak-")) / "var"
    port = free_port()
    extra = {"KOZYR_LADDER_QUEUE_DEPTH": "4", "WORKER_CONCURRENCY": "2"}  # make run's own defaults
    env = {**embedded_env(var, port), **extra}
    setup = subprocess.run([sys.executable, str(REPO / "manage.py"), "local_setup"], env=env, capture_output=True,
                           text=True, timeout=300, cwd=REPO)
    if setup.returncode:
        print(setup.stderr)
        return 1
    site = Site(var, port, **extra)
    failures: list[str] = []
    counts: collections.Counter = collections.Counter()
    lock = threading.Lock()
    stop = threading.Event()
    started = time.monotonic()
    try:
        wait_until(lambda: status(f"{site.url}/healthz") == 200, 120, "the web server")
        bot = (REPO / "examples" / "bura" / "python" / "main.py").as_posix()
        shell(env, "from accounts.models import User; from bots.actions import do_create_bot;"
                   " from matches.validation import do_upload_version;"
                   "from bots.upload import check_upload; import pathlib;"
                   "u = User.objects.create_user('soak', password='a-long-password-1');"
                   "b = do_create_bot(u, game='bura', name='soak-bura');"
                   f"do_upload_version(b, check_upload('main.py', pathlib.Path('{bot}').read_bytes()))")
        threads = [threading.Thread(target=reader, args=(site.url, stop, counts, lock), daemon=True)
                   for _ in range(args.readers)]
        for thread in threads:
            thread.start()
        deadline = started + args.minutes * 60
        while time.monotonic() < deadline:
            time.sleep(min(60.0, max(0.0, deadline - time.monotonic())))
            with lock:
                served = dict(counts)
            print(f"{(time.monotonic() - started) / 60:5.1f} min  readers: {served}", flush=True)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        figures = json.loads(shell(env, "import json; from django.db.models import Count; "
                                        "from matches.models import Match; from bots.models import BotVersion;"
                                        "v = BotVersion.objects.get(bot__name='soak-bura');"
                                        "print(json.dumps({'matches': {f'{k} {s}': n for k, s, n in "
                                        "Match.objects.values_list('kind', 'status').annotate(n=Count('id'))},"
                                        "'uploaded': v.status, 'uploaded_ladder_finished': Match.objects.filter("
                                        "kind='ladder', status='finished', seats__version=v).count()}))"))
    finally:
        stop.set()
        output = site.output()
        site.stop()
        shutil.rmtree(var.parent, ignore_errors=True)
    exits = [line for line in output.splitlines() if " exited: " in line]
    minutes = (time.monotonic() - started) / 60
    print(f"\nembedded default, {minutes:.1f} minutes, {args.readers} readers")
    for key, value in sorted(figures["matches"].items()):
        print(f"  matches {key:<22} {value}")
    print(f"  uploaded bot: {figures['uploaded']}, ladder matches finished: {figures['uploaded_ladder_finished']}")
    print(f"  reader answers: {dict(counts)}")
    print(f"  processes that exited: {len(exits)}")
    for line in exits:
        print(f"    {line}")
    if exits:
        failures.append("a process exited")
    if any(code >= 500 or code == 0 for code in counts):
        failures.append("a reader got a 5xx or no answer")
    if figures["uploaded"] != "ready" or not figures["uploaded_ladder_finished"]:
        failures.append("the uploaded bot did not validate and play")
    unrecoverable = output.count("Unrecoverable error")
    print(f"  'Unrecoverable error' lines: {unrecoverable}")
    if unrecoverable:
        failures.append("a worker hit an unrecoverable error")
    print("PASS" if not failures else f"FAIL: {'; '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
