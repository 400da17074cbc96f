"""Start threads until refused, report how many, then hold them."""
import json
import threading
import time

started = 0
error = None
while started < 100000:
    try:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    except RuntimeError as exc:
        error = str(exc)
        break
    started += 1
print(json.dumps({"started": started, "error": error}), flush=True)
time.sleep(3600)
