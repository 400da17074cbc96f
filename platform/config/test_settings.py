"""Settings for the test suite: the real PostgreSQL, an in-memory broker (tests call tasks directly; the
end-to-end tests start real workers on Redis), and a private var/ per test run."""

import os
import sys
import tempfile
from pathlib import Path

# tests.support names this test process's resources. A process a test starts with these settings (cwd platform/)
# finds it at the repository root, appended so that the standard library's `platform` stays first.
if str(ROOT := Path(__file__).resolve().parents[2]) not in sys.path:
    sys.path.append(str(ROOT))
from tests.support.resources import redis_url

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kozyr")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")
os.environ.setdefault("KOZYR_VAR_DIR", tempfile.mkdtemp(prefix="kozyr-test-var-"))
os.environ.setdefault("KOZYR_SANDBOX_ALLOW_WEAK", "true")
os.environ.setdefault("KOZYR_WORKER_SELF_STOP", "false")  # a task in the test process must never SIGTERM pytest
# Live tables: the real Redis, this test process's own database there (never the environment's, which every
# xdist process would share).
os.environ["KOZYR_LIVE_REDIS_URL"] = redis_url("live")
# The house ladder of the tests plays in seconds: the search bots (tens of seconds a match) are registered but off
# it, and the tests about them turn them on.
os.environ.setdefault("KOZYR_HOUSE_SEARCH_BOTS", "false")

from config.settings import *  # noqa: F403

# One test database per test run, so two runs on one machine (a developer's and CI's) never share one.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": f"test_kozyr_{os.getpid()}"}  # noqa: F405

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast; the real hasher is not under test
