"""The bot runtime image: built from sandbox/runtimes.py and nothing else, and every promised runtime runs in
it, under the container backend's full confinement."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from sandbox import Limits, start
from sandbox.image import rootfs
from sandbox.runtimes import (
    LIBRARIES,
    PACKAGES,
    RUNTIMES,
    TOOLCHAINS,
    VERSION_ARGUMENTS,
    package_list,
    printed_version,
    promise,
    promised_version,
    version_matches,
)
from tests.sandbox.conftest import finish, read_until

IMAGE_DIR = Path(__file__).parents[2] / "sandbox" / "image"


def test_the_package_list_is_generated_from_the_runtimes():
    assert (IMAGE_DIR / "packages.txt").read_text() == package_list()
    assert rootfs.read_package_list(IMAGE_DIR / "packages.txt") == [
        *(PACKAGES[name] for name in (*RUNTIMES, *TOOLCHAINS)), *(package for _, package in LIBRARIES.values())]


def test_the_dockerfile_installs_that_list_with_the_promised_versions():
    dockerfile = (IMAGE_DIR / "Dockerfile").read_text()
    assert "COPY packages.txt rootfs.py /build/" in dockerfile
    assert "apt-get install -y --no-install-recommends $(sed 's/#.*//' /build/packages.txt)" in dockerfile
    assert "python3 /build/rootfs.py /build/packages.txt /rootfs" in dockerfile
    assert re.findall(r"(?m)^FROM (\S+)", dockerfile) == ["debian:bookworm-slim", "scratch"]
    assert "COPY --from=build /rootfs/ /" in dockerfile
    # bookworm's own Python and Perl are the promised ones; Node comes from NodeSource's channel of its major.
    assert (promised_version("python3"), promised_version("perl")) == ("3.11", "5.36")
    assert re.search(r"(?m)^ARG NODE_MAJOR=(\d+)$", dockerfile).group(1) == promised_version("node")


def test_a_version_matches_its_promise_only_on_a_component_boundary():
    assert version_matches("python3", "3.11.2\n") and version_matches("node", "20.20.2")
    assert not version_matches("python3", "3.1.0") and not version_matches("perl", "5.361.0")
    # compilers print their name first: the first number is the version
    assert version_matches("rustc", "rustc 1.63.0 (4b91a6ea7 2022-08-08)") and version_matches("g++", "12.2.0")
    assert version_matches("go", "go version go1.19.8 linux/amd64") and not version_matches("go", "go1.190")
    assert printed_version("openjdk 17.0.17 2025-10-21\nOpenJDK Runtime") == "17.0.17" and version_matches(
        "java", "openjdk 17.0.17 2025-10-21")


def test_the_closure_follows_alternatives_and_virtual_packages_but_not_install_time_tools(tmp_path):
    installed = {
        "run": {"Package": "run", "Depends": "libfoo (>= 1), missing-one | libbar:any", "Pre-Depends": "dpkg"},
        "libfoo": {"Package": "libfoo", "Depends": "libc-virtual"},
        "libbar": {"Package": "libbar"},
        "libc": {"Package": "libc", "Provides": "libc-virtual (= 2)"},
        "dpkg": {"Package": "dpkg", "Depends": "tar"},
    }
    assert rootfs.closure(["run"], installed) == ["libbar", "libc", "libfoo", "run"]
    with pytest.raises(SystemExit, match="run depends on absent, which is not installed"):
        rootfs.closure(["run"], {**installed, "run": {"Package": "run", "Depends": "absent"}})
    with pytest.raises(SystemExit, match="runtime packages not installed: nope"):
        rootfs.closure(["nope"], installed)


@pytest.mark.parametrize("command", sorted({*RUNTIMES, *TOOLCHAINS}))
def test_each_promised_runtime_and_compiler_runs_in_the_image_at_its_version(command, container_image, tmp_path):
    proc = start([command, *VERSION_ARGUMENTS[command]], tmp_path, Limits(wall_seconds=60, processes=64),
                 backend="docker")
    printed = read_until(proc, seconds=30).decode()
    run = finish(proc, printed.encode(), grace=10)
    assert run.report.outcome == "ok", (run.report.to_dict(), run.stderr)
    assert version_matches(command, printed), f"{command} printed {printed!r}; sandbox.runtimes promises " \
                                              f"{promise(command)}"


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_each_promised_python_library_imports_in_the_image_at_its_version(library, container_image, tmp_path):
    probe = f"import {library}; print({library}.__version__)"
    proc = start(["python3", "-c", probe], tmp_path, Limits(wall_seconds=60), backend="docker")
    printed = read_until(proc, seconds=30).decode()
    run = finish(proc, printed.encode(), grace=10)
    assert run.report.outcome == "ok", (run.report.to_dict(), run.stderr)
    assert version_matches(library, printed), f"{library} is {printed!r}; promised: {promise(library)}"


def test_the_image_holds_no_shell_package_manager_or_npm(container_image, tmp_path):
    probe = "import json, os; print(json.dumps({p: os.path.lexists(p) for p in __import__('sys').argv[1:]}))"
    paths = ["/bin/sh", "/usr/bin/bash", "/usr/bin/apt-get", "/usr/bin/dpkg", "/usr/bin/npm", "/usr/lib/node_modules",
             "/usr/bin/env", "/usr/bin/python3", "/usr/bin/node", "/usr/bin/perl"]  # fmt: skip
    proc = start(["python3", "-c", probe, *paths], tmp_path, Limits(wall_seconds=60), backend="docker")
    run = finish(proc, read_until(proc, seconds=30), grace=10)
    present = {path for path, exists in run.json().items() if exists}
    assert present == {"/usr/bin/python3", "/usr/bin/node", "/usr/bin/perl"}


@pytest.mark.skipif(not rootfs.DPKG.joinpath("status").exists(), reason="not a Debian system: no dpkg database")
def test_the_root_filesystem_holds_a_packages_files_and_nothing_of_its_documentation(tmp_path, capsys):
    packages = tmp_path / "packages.txt"
    packages.write_text("media-types  # one small package: /etc/mime.types and its documentation\n")
    root = tmp_path / "root"
    assert rootfs.main([str(packages), str(root)]) == 0
    assert (root / "etc" / "mime.types").read_bytes() == Path("/etc/mime.types").read_bytes()
    assert not (root / "usr" / "share" / "doc").exists()
    assert (root / "etc" / "passwd").read_text().startswith("root:x:0:0:")
    assert oct((root / "tmp").stat().st_mode & 0o7777) == "0o1777"
    assert (root / "usr" / "lib" / "locale" / "C.utf8").is_dir()  # libc-bin's part, for LANG=C.UTF-8
    if Path("/lib").is_symlink():
        assert (root / "lib").readlink() == Path("usr/lib")
    assert rootfs.main(["--closure", str(packages)]) == 0
    assert capsys.readouterr().out.startswith("media-types ")
    assert rootfs.main(["--key", str(packages)]) == 0
    first_key = capsys.readouterr().out
    packages.write_text("media-types\nlibc6\n")
    assert rootfs.main(["--key", str(packages)]) == 0
    assert capsys.readouterr().out != first_key  # another list, another image
    assert rootfs.main(["--bogus"]) == 2


def test_the_session_image_is_built_from_todays_inputs(container_image):
    if "KOZYR_SANDBOX_DOCKER_IMAGE" in os.environ:
        pytest.skip("testing a deployment's own image, not one built here")
    from sandbox.backends import container_engine

    engine, _ = container_engine.find_engine()
    template = '{{index .Config.Labels "kozyr.image.inputs"}}'
    label = subprocess.run(engine.command("image", "inspect", "--format", template, container_image),
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    key = subprocess.run(["/usr/bin/python3", str(IMAGE_DIR / "rootfs.py"), "--key", str(IMAGE_DIR / "packages.txt")],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert label.strip() == key.strip() != ""
