"""bwrap's seccomp policy (sandbox/seccomp_filter.py) as an OCI seccomp profile for the container backend.

The engines' default profiles differ and are looser (Podman's lets a bot unshare a user namespace, call
keyctl and mount, and open netlink and vsock sockets); with this profile a bot meets the same refusals
under either backend. Passed as `--security-opt seccomp=FILE`: the Docker CLI sends the file's contents to
the daemon, so FILE need only exist where the worker runs.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import platform
import tempfile
from functools import cache

from .. import seccomp_filter as policy
from ..state import state_dir

ARCHITECTURES = {"x86_64": "SCMP_ARCH_X86_64", "aarch64": "SCMP_ARCH_AARCH64"}


def _refuse(names, error: int, args: list[dict] | None = None) -> dict:
    rule = {"names": sorted(names), "action": "SCMP_ACT_ERRNO", "errnoRet": error}
    if args:
        rule["args"] = args
    return rule


def _arg(index: int, op: str, value: int, value_two: int = 0) -> dict:
    return {"index": index, "value": value, "valueTwo": value_two, "op": op}


def profile() -> dict:
    """The profile as a dict. Only the native architecture is listed: other ABIs (i386, x32) are refused
    by the kernel filter's architecture check, as under bwrap."""
    rules = [_refuse(policy.REFUSED_SYSCALLS, errno.EPERM)]
    # The shared-kernel-object rules (covert channels between bots) exist in newer trees of seccomp_filter.
    for error, names in getattr(policy, "SHARED_OBJECT_SYSCALLS", {}).items():
        rules.append(_refuse(names, error))
    for command in getattr(policy, "LOCK_COMMANDS", ()):
        rules.append(_refuse(["fcntl"], errno.ENOLCK, [_arg(1, "SCMP_CMP_EQ", command)]))
    if hasattr(policy, "F_NOTIFY"):
        rules.append(_refuse(["fcntl"], errno.EPERM, [_arg(1, "SCMP_CMP_EQ", policy.F_NOTIFY)]))
    if hasattr(policy, "RWF_NOWAIT"):
        nowait = [_arg(5, "SCMP_CMP_MASKED_EQ", policy.RWF_NOWAIT, policy.RWF_NOWAIT)]
        rules.append(_refuse(["preadv2", "pwritev2"], errno.EOPNOTSUPP, nowait))
    rules.append(_refuse(["clone3"], errno.ENOSYS))
    for flag in policy.NAMESPACE_FLAGS:
        rules.append(_refuse(["clone"], errno.EPERM, [_arg(0, "SCMP_CMP_MASKED_EQ", flag, flag)]))
    allowed = policy.ALLOWED_SOCKET_FAMILIES
    for family in range(max(allowed)):
        if family not in allowed:
            rules.append(_refuse(["socket"], errno.EAFNOSUPPORT, [_arg(0, "SCMP_CMP_EQ", family)]))
    rules.append(_refuse(["socket"], errno.EAFNOSUPPORT, [_arg(0, "SCMP_CMP_GT", max(allowed))]))
    architecture = ARCHITECTURES.get(platform.machine())
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "architectures": [architecture] if architecture else [],
        "syscalls": rules,
    }


@cache
def profile_path() -> str:
    """A file holding the profile, written once per content (named by its hash, so never stale). It lives in
    the sandbox's state folder: a worker in a container shares that folder with the host at the same path
    (docker-compose.yml), so an engine that reads the path itself (Podman's remote API) finds the file."""
    text = json.dumps(profile(), indent=1, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = state_dir() / f"kozyr-seccomp-{digest}.json"
    if not path.exists() or path.read_text() != text:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".kozyr-seccomp-")
        with os.fdopen(fd, "w") as sink:
            sink.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    return str(path)
