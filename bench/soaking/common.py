"""What every part of the soak shares: where the repository and its virtualenv are, the recovery job's
period, the key that marks a Redis database as one soak's, and the log line every thread writes with ``say``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from config.celery_settings import CELERY_BEAT_SCHEDULE

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / ".venv" / "bin"
RECOVER_EVERY = float(CELERY_BEAT_SCHEDULE["recover-matches"]["schedule"])
OWNER_KEY = "kozyr-soak:owner"  # which soak uses this Redis database (two would flush each other)

START = time.time()


def say(message: str) -> None:
    print(f"[soak {time.time() - START:7.1f}s] {message}", file=sys.stderr, flush=True)
