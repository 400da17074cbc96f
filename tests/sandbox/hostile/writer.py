"""Try to write to its own code and to system paths; then to /tmp, which is allowed."""
import json
import os

results = {}
for path in ("/bot/writer.py", "/bot/new.py", "/usr/bin/kozyr", "/etc/passwd", "/x", "/dev/x", "/dev/shm/x",
             "/proc/sys/kernel/hostname", "/tmp/ok"):
    try:
        with open(path, "a") as handle:
            handle.write("owned\n")
        results[path] = "written"
    except OSError as exc:
        results[path] = f"error {exc.errno}"
try:
    os.chmod("/bot/writer.py", 0o777)
    results["chmod"] = "done"
except OSError as exc:
    results["chmod"] = f"error {exc.errno}"
print(json.dumps(results), flush=True)
