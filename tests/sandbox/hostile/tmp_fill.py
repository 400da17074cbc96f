"""Fill /tmp, one 1 MiB file after another, until refused."""
import json

total = 0
error = None
index = 0
while total < 1 << 30:
    try:
        with open(f"/tmp/fill-{index}", "wb") as handle:
            handle.write(b"x" * (1 << 20))
        total += 1 << 20
        index += 1
    except OSError as exc:
        error = exc.errno
        break
print(json.dumps({"written_mb": total >> 20, "errno": error}), flush=True)
