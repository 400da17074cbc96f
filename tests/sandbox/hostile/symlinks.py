"""Plant symlinks to host paths wherever it can write, hoping the host follows them when cleaning up."""
import json
import os
import sys

results = {}
for place in ("/tmp", "/bot", "/dev/shm"):
    for index, target in enumerate(sys.argv[1:]):
        link = f"{place}/escape-{index}"
        try:
            os.symlink(target, link)
            results[link] = "planted"
        except OSError as exc:
            results[link] = f"error {exc.errno}"
print(json.dumps(results), flush=True)
