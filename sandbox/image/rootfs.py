#!/usr/bin/env python3
"""Assemble the bot runtime image's root filesystem from the Debian packages installed on this system.

    python3 rootfs.py PACKAGES_FILE OUT_DIR       # copy the runtimes' files into OUT_DIR
    python3 rootfs.py --key PACKAGES_FILE         # print a hash of everything the result depends on
    python3 rootfs.py --closure PACKAGES_FILE     # print the packages that go in, with their versions

PACKAGES_FILE (sandbox/image/packages.txt, generated from sandbox/runtimes.py) names the runtime packages.
Their run-time dependency closure is read from dpkg's database and exactly the files dpkg lists for those
packages are copied (no shell, no package manager, no coreutils), minus documentation and Node's bundled
package managers. Both builds use this script: the Dockerfile in its build stage on bookworm-slim, and
build-local.sh on this host, so the two images hold the same files.

Standard library only, Python >= 3.9: it runs under the interpreter it is packaging.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import sys
from pathlib import Path

DPKG = Path("/var/lib/dpkg")
# Needed to install or configure packages, never to run a bot: a dependency on them is not followed.
INSTALL_TIME_ONLY = frozenset({"dpkg", "debconf", "install-info", "ca-certificates", "debianutils"})
# Paths (and everything under them) never copied: documentation, Node's npm and corepack, and /var (package
# state such as ca-certificates-java's, nothing a bot runs with; the sandbox tests check /var is absent).
# Headers are kept: the C++ compiler builds bots in the image.
EXCLUDED = ("/usr/share/doc", "/usr/share/man", "/usr/share/info", "/usr/share/lintian", "/var",
            "/usr/lib/node_modules", "/usr/bin/npm", "/usr/bin/npx", "/usr/bin/corepack",
            "/usr/share/systemtap", "/usr/share/bash-completion")  # fmt: skip
# Parts of packages outside the closure that every runtime expects: the C.UTF-8 locale (LANG=C.UTF-8 in
# every sandbox; Perl warns at each start without it).
PARTS: dict[str, tuple[str, ...]] = {"libc-bin": ("/usr/lib/locale/C.utf8",)}
ALTERNATIVES = "/etc/alternatives"
MERGED_USR = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
MOUNT_POINTS = ("bot", "dev", "proc", "sys", "tmp")
PASSWD = "root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
GROUP = "root:x:0:\nnogroup:x:65534:\n"


def read_package_list(path: Path) -> list[str]:
    names = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return [name for name in names if name]


def installed_packages(status_file: Path = DPKG / "status") -> dict[str, dict[str, str]]:
    """Every installed package's dpkg fields, by name."""
    packages: dict[str, dict[str, str]] = {}
    for stanza in status_file.read_text(encoding="utf-8", errors="replace").split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields.get("Package") and fields.get("Status", "").endswith(" installed"):
            packages[fields["Package"]] = fields
    return packages


def _names(relation: str) -> list[list[str]]:
    """'a (>= 1) | b:any, c' -> [['a', 'b'], ['c']]"""
    groups = []
    for group in relation.split(","):
        alternatives = [re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", item).strip().split(":")[0] for item in group.split("|")]
        alternatives = [name for name in alternatives if name]
        if alternatives:
            groups.append(alternatives)
    return groups


def closure(roots: list[str], installed: dict[str, dict[str, str]]) -> list[str]:
    """The runtime packages plus everything they need at run time, sorted. Fails naming what is missing."""
    providers: dict[str, str] = {}
    for name, fields in sorted(installed.items()):
        for provided in _names(fields.get("Provides", "")):
            providers.setdefault(provided[0], name)
    wanted, pending = set(), list(roots)
    missing = [name for name in roots if name not in installed]
    if missing:
        raise SystemExit(f"runtime packages not installed: {', '.join(missing)} (apt-get install them first)")
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        fields = installed[name]
        for group in _names(fields.get("Pre-Depends", "")) + _names(fields.get("Depends", "")):
            if any(alternative in INSTALL_TIME_ONLY for alternative in group):
                continue
            chosen = next((alt if alt in installed else providers[alt] for alt in group
                           if alt in installed or alt in providers), None)  # fmt: skip
            if chosen is None:
                raise SystemExit(f"{name} depends on {' | '.join(group)}, which is not installed")
            pending.append(chosen)
    return sorted(wanted)


def file_list(package: str, fields: dict[str, str]) -> list[str]:
    for candidate in (f"{package}:{fields.get('Architecture', '')}.list", f"{package}.list"):
        path = DPKG / "info" / candidate
        if path.exists():
            return [line for line in path.read_text(encoding="utf-8").splitlines() if line not in ("", "/.")]
    raise SystemExit(f"dpkg has no file list for {package}")


def excluded(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in EXCLUDED)


def canonical(path: str) -> str:
    """/lib/x.so -> /usr/lib/x.so on a merged-/usr system, so every file lands under the one real folder."""
    top, _, rest = path.lstrip("/").partition("/")
    if top in MERGED_USR and os.path.islink(f"/{top}") and os.readlink(f"/{top}") == f"usr/{top}":
        return f"/usr/{top}/{rest}".rstrip("/")
    return path


def copy_entry(source: str, root: Path) -> None:
    target = root / canonical(source).lstrip("/")
    if not os.path.lexists(source) or os.path.lexists(target):
        return
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    real_root = os.path.realpath(root)
    if os.path.realpath(parent) != real_root and not os.path.realpath(parent).startswith(real_root + os.sep):
        raise SystemExit(f"{source} would be written outside the image root through a symlink")
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
    elif os.path.isdir(source):
        target.mkdir()
        shutil.copystat(source, target)
    else:
        shutil.copy2(source, target)


def alternative_links() -> dict[str, str]:
    """Every link update-alternatives manages: link path (/usr/bin/java) -> its name in /etc/alternatives,
    from dpkg's records (each names its master link, then pairs of slave name and link, up to a blank line)."""
    links: dict[str, str] = {}
    folder = DPKG / "alternatives"
    if not folder.is_dir():
        return links
    for record in sorted(folder.iterdir()):
        lines = record.read_text(encoding="utf-8", errors="replace").splitlines()
        if len(lines) < 2:
            continue
        links[lines[1]] = record.name
        slaves = lines[2:lines.index("", 2)] if "" in lines[2:] else []
        for name, link in zip(slaves[0::2], slaves[1::2]):  # noqa: B905 (runs on Python 3.9)
            links[link] = name
    return links


def copy_alternatives(root: Path) -> None:
    """The commands and libraries update-alternatives links (java, javac, cc, libblas.so.3): made by
    maintainer scripts, so in no package's file list. Copied where the chosen file is in the image: the
    link and its /etc/alternatives link."""
    for link, name in sorted(alternative_links().items()):
        chosen = os.path.join(ALTERNATIVES, name)
        if os.path.islink(chosen) and os.path.lexists(root / canonical(os.readlink(chosen)).lstrip("/")) \
                and not excluded(link):
            copy_entry(chosen, root)
            copy_entry(link, root)


def bytecode_of(source: str) -> list[str]:
    """The .pyc files dpkg's maintainer scripts compiled for a module (not in the file list; a read-only
    root could never write them, and every bot start would compile the standard library again)."""
    if not source.endswith(".py"):
        return []
    folder, name = os.path.split(source)
    return sorted(glob.glob(os.path.join(glob.escape(folder), "__pycache__", glob.escape(name[:-3]) + ".*.pyc")))


def assemble(packages_file: Path, root: Path) -> list[str]:
    installed = installed_packages()
    packages = closure(read_package_list(packages_file), installed)
    root.mkdir(parents=True, exist_ok=False)
    for top in MERGED_USR:
        if os.path.islink(f"/{top}") and os.readlink(f"/{top}") == f"usr/{top}":
            (root / "usr" / top).mkdir(parents=True, exist_ok=True)
            os.symlink(f"usr/{top}", root / top)
    for package in packages:
        for path in file_list(package, installed[package]):
            if not excluded(path):
                copy_entry(path, root)
                for compiled in bytecode_of(path):
                    copy_entry(compiled, root)
    for package, prefixes in PARTS.items():
        for path in file_list(package, installed[package]):
            if any(path == prefix or path.startswith(prefix + "/") for prefix in prefixes):
                copy_entry(path, root)
    copy_alternatives(root)
    for name in MOUNT_POINTS:
        (root / name).mkdir(exist_ok=True)
    os.chmod(root / "tmp", 0o1777)
    (root / "etc").mkdir(exist_ok=True)
    (root / "etc" / "passwd").write_text(PASSWD)
    (root / "etc" / "group").write_text(GROUP)
    return packages


def inputs_key(packages_file: Path) -> str:
    """A hash of what the image is made of: the package list, this script, and the packages' versions."""
    installed = installed_packages()
    digest = hashlib.sha256()
    digest.update(Path(__file__).read_bytes())
    digest.update(packages_file.read_bytes())
    for package in [*closure(read_package_list(packages_file), installed), *PARTS]:
        digest.update(f"{package}={installed[package].get('Version', '')}\n".encode())
    return digest.hexdigest()[:16]


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--key":
        print(inputs_key(Path(argv[1])))
    elif len(argv) == 2 and argv[0] == "--closure":
        installed = installed_packages()
        for package in closure(read_package_list(Path(argv[1])), installed):
            print(package, installed[package].get("Version", ""))
    elif len(argv) == 2 and not argv[0].startswith("-"):
        packages = assemble(Path(argv[0]), Path(argv[1]))
        print(f"{len(packages)} packages copied into {argv[1]}", file=sys.stderr)
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
