"""A bot that plays legally or commits one chosen protocol offence: `python3 misbehave.py MODE`.

Modes: fair (answers with the first legal action), garbage, too-long, wrong-id, illegal, silent-start,
silent-move, exit-early, exit-handshake, flood-lines, flood-bytes, not-object, bad-utf8, stderr-chatter,
slow-then-fast (spends some of the time bank), daemon (leaves a double-forked process running),
deep-nesting, huge-number, nan (JSON the json module reads but that is not standard JSON or cannot be
used), surrogate-name (announces a name holding a lone surrogate escape), close-stdin (closes its
input after reading the hello, then answers it and stays alive), close-stdout (closes its output
after the handshake and stays alive), close-stdin-at-request (reads its first request, then closes its
input and stays alive without answering), steady-slow (answers every request legally after 0.4 s),
stderr-flood (writes newlines to stderr without end at its first request), escape-keys (answers with
an action holding terminal escape sequences in an unknown key and in its stderr), burn (sleeps SLEEP_MS if
given, then thinks BURN_MS of its own CPU time on every request, then answers legally).
"""

import json
import os
import sys
import time

MODE = sys.argv[1]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def spawn_daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.environ.get("DAEMON_PIDFILE", "/tmp/kozyr-daemon.pid"), "w") as f:
                f.write(str(os.getpid()))
            os.closerange(0, 3)
            time.sleep(600)
        os._exit(0)
    os.wait()


hello = receive()
if MODE == "exit-handshake":
    sys.exit(3)
if MODE == "silent-start":
    time.sleep(60)
if MODE == "daemon":
    spawn_daemon()
if MODE == "close-stdin":
    os.close(0)
    send({"type": "ready"})
    time.sleep(60)
send({"type": "ready", "name": "\ud800" if MODE == "surrogate-name" else f"misbehave-{MODE}"})
if MODE == "close-stdout":
    os.close(1)
    time.sleep(60)
requests = 0
while True:
    message = receive()
    if message["type"] != "request":
        continue
    requests += 1
    if MODE == "close-stdin-at-request":
        os.close(0)
        time.sleep(60)
    if MODE == "stderr-chatter":
        for i in range(100):
            print(f"thinking {requests}.{i} " + "x" * 1000, file=sys.stderr)
    if MODE == "stderr-flood":
        while True:
            os.write(2, b"\n" * 65536)
    if MODE == "escape-keys":
        sys.stderr.write("\x1b]0;owned\x07\x1b[2Jcleared\n")
        sys.stderr.flush()
        send({"type": "action", "id": message["id"],
              "action": {**message["legal_actions"][0], "\x1b]52;c;cGF5bG9hZA==\x07\x1b[2J": 1}})
        continue
    if MODE == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    if MODE == "too-long":
        sys.stdout.write("[" * 70000 + "\n")
        sys.stdout.flush()
        continue
    if MODE == "not-object":
        send([1, 2, 3])
        continue
    if MODE == "bad-utf8":
        sys.stdout.buffer.write(b'{"type":"action","id":1,"x":"\xff\xfe"}\n')
        sys.stdout.flush()
        continue
    if MODE == "deep-nesting":
        sys.stdout.write(f'{{"type":"action","id":{message["id"]},"action":{"[" * 5000 + "]" * 5000}}}\n')
        sys.stdout.flush()
        continue
    if MODE == "huge-number":
        sys.stdout.write(f'{{"type":"action","id":{"9" * 5000}}}\n')
        sys.stdout.flush()
        continue
    if MODE == "nan":
        send({"type": "action", "id": message["id"], "action": {**message["legal_actions"][0], "note": float("nan")}})
        continue
    if MODE == "wrong-id":
        send({"type": "action", "id": message["id"] + 100, "action": message["legal_actions"][0]})
        continue
    if MODE == "illegal":
        send({"type": "action", "id": message["id"], "action": {"type": "no-such-move"}})
        continue
    if MODE == "silent-move":
        time.sleep(60)
    if MODE == "exit-early" and requests == 2:
        sys.exit(7)
    if MODE == "flood-lines":
        while True:
            sys.stdout.write("\n" * 65536)
    if MODE == "flood-bytes":
        while True:
            sys.stdout.write("x" * 65536)
    if MODE == "slow-then-fast" and requests == 1:
        time.sleep(0.5)
    if MODE == "steady-slow":
        time.sleep(0.4)
    if MODE == "burn":  # thinks on the CPU for BURN_MS of its own CPU time, however long the host makes that take
        time.sleep(int(os.environ.get("SLEEP_MS", "0")) / 1000)  # and first sleeps SLEEP_MS, if given: its own time
        until = time.process_time() + int(os.environ["BURN_MS"]) / 1000
        while time.process_time() < until:
            pass
    send({"type": "action", "id": message["id"], "action": message["legal_actions"][0]})
