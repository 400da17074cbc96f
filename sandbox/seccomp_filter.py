"""The seccomp filter loaded into every bwrap-sandboxed bot: refuse the kernel interfaces a card-game bot
never needs and that carry most of the kernel's attack surface or could undo the other layers.

It is a deny list on top of namespaces, not an allow list: interpreters (Python, Node) use a wide and
version-dependent set of ordinary syscalls, and an allow list that breaks a runtime upgrade would be
disabled in practice. Refused calls fail with EPERM (clone3 with ENOSYS, so libc falls back to clone,
whose flags a filter can inspect). Syscalls from other ABIs (i386, x32) are killed by libseccomp's
architecture check.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from functools import cache

import pyseccomp as seccomp

REFUSED_SYSCALLS = (
    # Inspecting or steering other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    # Kernel keyrings, eBPF, perf, io_uring, userfaultfd: large attack surface, no use to a bot.
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # Namespaces and mounts: the sandbox's own walls.
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    # Host administration (already refused without capabilities; refused here whatever the capabilities).
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "iopl", "ioperm",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "name_to_handle_at", "open_by_handle_at",
    "lookup_dcookie", "vhangup", "uselib", "personality",
)  # fmt: skip

# Kernel objects every sandbox reaches through the same host inode or counter, which two bots could use to
# talk (docs/sandbox.md, "What a bot can observe"): advisory locks (flock; fcntl record, OFD and lease
# commands below) are taken on the shared inodes of /usr, /dev and even on the one anonymous inode behind
# every eventfd/epoll fd; inotify/fanotify watches see other sandboxes' opens and reads; timestamps of the
# world-writable device nodes can be set to "now"; sysinfo() reports machine-wide free memory and thread
# counts; POSIX message queues and AIO contexts count against per-user and machine-wide quotas;
# cachestat() reads the page cache. Refused with the errno a program already handles for "not available".
SHARED_OBJECT_SYSCALLS = {
    errno.ENOLCK: ("flock",),
    errno.ENOSYS: ("inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_init",
                   "fanotify_mark", "sysinfo", "cachestat", "mq_open", "mq_unlink", "mq_timedsend",
                   "mq_timedreceive", "mq_notify", "mq_getsetattr", "io_setup", "io_destroy", "io_submit",
                   "io_cancel", "io_getevents", "io_pgetevents"),
    errno.EPERM: ("utime", "utimes", "futimesat", "utimensat"),
}  # fmt: skip
# fcntl commands (uapi/asm-generic/fcntl.h): F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK/SETLK/SETLKW,
# F_SETLEASE, F_GETLEASE refused with ENOLCK; F_NOTIFY (dnotify) with EPERM.
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025)
F_NOTIFY = 1026
# preadv2/pwritev2 with RWF_NOWAIT fail when the data is not in the page cache: a cache probe. The kernel's
# own answer for a file that cannot do NOWAIT is EOPNOTSUPP, which callers already handle.
RWF_NOWAIT = 0x8

# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (linux/sched.h; os.CLONE_* needs 3.12).
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)

# Sockets: only local ones (AF_UNIX). IP would reach nothing in the empty network namespace (an isolated
# loopback), but every TCP or UDP socket moves machine-wide counters that /proc/net/sockstat and
# /proc/net/protocols show in every namespace (sockets allocated, memory in use): a bot holding a dozen
# loopback connections signalled bits to another sandbox through them. Every other family (netlink, packet,
# vsock, bluetooth, alg, ...) is refused too.
ALLOWED_SOCKET_FAMILIES = (socket.AF_UNIX,)


@cache
def bpf_program() -> bytes:
    """The compiled filter as raw BPF, in the format bwrap's --seccomp FD expects."""
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # Every syscall of the bot runs the filter: a binary search over the syscall numbers instead of a linear
    # list of ~100 comparisons.
    with contextlib.suppress(ValueError, RuntimeError, OSError, AttributeError):
        rules.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED_SYSCALLS:
        _add(rules, refuse, name)
    for error, names in SHARED_OBJECT_SYSCALLS.items():
        for name in names:
            _add(rules, seccomp.ERRNO(error), name)
    for command in LOCK_COMMANDS:
        rules.add_rule(seccomp.ERRNO(errno.ENOLCK), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.EQ, F_NOTIFY))
    for name in ("preadv2", "pwritev2"):
        rules.add_rule(seccomp.ERRNO(errno.EOPNOTSUPP), name, seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    refuse_family = seccomp.ERRNO(errno.EAFNOSUPPORT)
    highest_allowed = max(ALLOWED_SOCKET_FAMILIES)
    for family in range(highest_allowed):
        if family not in ALLOWED_SOCKET_FAMILIES:
            rules.add_rule(refuse_family, "socket", seccomp.Arg(0, seccomp.EQ, family))
    rules.add_rule(refuse_family, "socket", seccomp.Arg(0, seccomp.GT, highest_allowed))
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb") as sink:
            rules.export_bpf(sink)
        chunks = []
        while chunk := os.read(read_end, 65536):
            chunks.append(chunk)
    finally:
        os.close(read_end)
    return b"".join(chunks)


def _add(rules, action, name: str) -> None:
    # Skipped when not a syscall on this architecture (or unknown to this libseccomp).
    with contextlib.suppress(ValueError, RuntimeError, OSError):
        rules.add_rule(action, name)


def program_fd() -> int:
    """A pipe's read end holding the filter. The caller keeps its own copy of the fd: bwrap reads the
    filter only after every mount succeeded, so bytes still unread after the run mean setup failed."""
    program = bpf_program()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end
