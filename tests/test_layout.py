"""The repository layout keeps the standard library's `platform` module reachable."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_it_keeps_stdlib_platform_and_uuid_importable_from_the_repo_root():
    code = "import platform, uuid; print(platform.system()); print(uuid.uuid4().version)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    system, version = done.stdout.split()
    assert system == "Linux"
    assert version == "4"


def test_it_never_makes_platform_a_package():
    assert not (ROOT / "platform" / "__init__.py").exists()
