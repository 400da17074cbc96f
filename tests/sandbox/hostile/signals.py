"""Signal everything it can reach: its parent, pid 1, every process (kill -1)."""
import json
import os
import signal

results = {}
for name, target in (("parent", os.getppid()), ("pid1", 1), ("everyone", -1)):
    try:
        os.kill(target, signal.SIGKILL)
        results[name] = "sent"
    except OSError as exc:
        results[name] = f"error {exc.errno}"
print(json.dumps(results), flush=True)
