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


def test_no_two_test_files_share_a_name():
    """The test folders are not packages, so pytest imports each test file by its bare name: a second file of the
    same name in another folder stops the whole collection ("import file mismatch")."""
    seen: dict[str, list[str]] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
