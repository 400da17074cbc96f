"""Two colluding bots in different sandboxes: `covert.py send` raises or lowers one bit on every shared kernel
object it can reach; `covert.py receive` reads each of them. Driven line by line by the test: the sender
answers "ok" once the bit is set, the receiver answers with what it decoded per channel (0, 1 or the error
that stopped it). `covert.py exposed` lists the machine-wide counters a bot can read (any of them can be
modulated by another bot: memory, threads, forks, I/O, open files, filesystem caches, socket totals...).
"""
import ctypes
import errno
import fcntl
import json
import mmap
import os
import signal
import socket
import struct
import sys

# A read-only system file every sandbox sees (the same host inode); the bot runtime image has no os-release.
SHARED_FILE = "/usr/lib/os-release" if os.path.exists("/usr/lib/os-release") else os.__file__
SHARED_DIR = "/usr/lib"
F_OFD_GETLK, F_OFD_SETLK = 36, 37
F_NOTIFY, DN_ACCESS, DN_MULTISHOT = 1026, 0x1, 0x80000000
POSIX_FADV_DONTNEED = 4
RWF_NOWAIT = 8
SYS_CACHESTAT = 451
IN_ACCESS, IN_OPEN, IN_NONBLOCK = 0x1, 0x20, 0o4000
FAN_CLASS_NOTIF, FAN_REPORT_FID, FAN_NONBLOCK, FAN_MARK_ADD = 0, 0x200, 0x2, 0x1
FAN_ACCESS, FAN_OPEN = 0x1, 0x20
AT_FDCWD = -100
SEEK_DATA = 3
EXTENT_LOOKUPS = 200_000  # the host's own activity adds at most a few thousand hits between two probes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]


def flock_struct(kind: int) -> bytes:
    return struct.pack("=hhxxxxqqixxxx", kind, os.SEEK_SET, 0, 0, 0)


def checked(result: int) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def attempt(probe):
    try:
        return probe()
    except OSError as error:
        return f"error:{errno.errorcode.get(error.errno, error.errno)}"


# -- sender -----------------------------------------------------------------------------------------------
class Sender:
    def __init__(self):
        self.file = os.open(SHARED_FILE, os.O_RDONLY)
        self.anon = os.eventfd(0)
        self.posix = os.open(SHARED_FILE, os.O_RDONLY)
        self.ofd = os.open(SHARED_FILE, os.O_RDONLY)

    def hit_the_extent_cache(self) -> None:
        # Each SEEK_DATA looks the file's extents up in the filesystem's cache: ext4 counts every hit in a
        # machine-wide figure (/proc/fs/ext4/<disk>/es_shrinker_info), without any disk I/O.
        for _ in range(EXTENT_LOOKUPS):
            os.lseek(self.file, 0, SEEK_DATA)

    def set(self, bit: int) -> None:
        if bit:
            for action in (
                lambda: fcntl.flock(self.file, fcntl.LOCK_EX),
                lambda: fcntl.flock(self.anon, fcntl.LOCK_EX),
                lambda: fcntl.fcntl(self.posix, fcntl.F_SETLK, flock_struct(fcntl.F_RDLCK)),
                lambda: fcntl.fcntl(self.ofd, F_OFD_SETLK, flock_struct(fcntl.F_RDLCK)),
                lambda: os.pread(self.file, 4096, 0),  # an access: inotify, fanotify, dnotify; and the page cache
                lambda: os.utime("/dev/null"),
                self.hit_the_extent_cache,
            ):
                attempt(action)
        else:
            for action in (
                lambda: fcntl.flock(self.file, fcntl.LOCK_UN),
                lambda: fcntl.flock(self.anon, fcntl.LOCK_UN),
                lambda: fcntl.fcntl(self.posix, fcntl.F_SETLK, flock_struct(fcntl.F_UNLCK)),
                lambda: fcntl.fcntl(self.ofd, F_OFD_SETLK, flock_struct(fcntl.F_UNLCK)),
                lambda: os.posix_fadvise(self.file, 0, 0, POSIX_FADV_DONTNEED),
            ):
                attempt(action)


# -- receiver ---------------------------------------------------------------------------------------------
class Receiver:
    def __init__(self):
        self.dnotify_signals = 0
        self.dnotify_seen = 0
        self.inotify = attempt(self._inotify)
        self.fanotify = attempt(self._fanotify)
        self.dnotify = attempt(self._dnotify)
        self.devnull_mtime = attempt(lambda: os.stat("/dev/null").st_mtime_ns)
        self.ino = os.stat(SHARED_FILE).st_ino
        self.extent_hits = attempt(self._extent_cache_hits)

    def _inotify(self) -> int:
        fd = checked(libc.inotify_init1(IN_NONBLOCK))
        checked(libc.inotify_add_watch(fd, SHARED_FILE.encode(), IN_ACCESS | IN_OPEN))
        return fd

    def _fanotify(self) -> int:
        fd = checked(libc.fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK, os.O_RDONLY))
        checked(libc.fanotify_mark(fd, FAN_MARK_ADD, FAN_ACCESS | FAN_OPEN, AT_FDCWD, SHARED_FILE.encode()))
        return fd

    def _dnotify(self) -> int:
        def count(*_):
            self.dnotify_signals += 1

        signal.signal(signal.SIGIO, count)
        fd = os.open(SHARED_DIR, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.fcntl(fd, F_NOTIFY, DN_ACCESS | DN_MULTISHOT)
        return fd

    def _events(self, fd) -> object:
        if isinstance(fd, str):
            return fd
        try:
            return int(len(os.read(fd, 65536)) > 0)
        except BlockingIOError:
            return 0

    def drain(self) -> None:
        """Forget the events the receiver's own probes caused."""
        for fd in (self.inotify, self.fanotify):
            while not isinstance(fd, str) and self._events(fd):
                pass
        self.dnotify_seen = self.dnotify_signals

    def probe(self) -> dict:
        seen = {
            "inotify": self._events(self.inotify),
            "fanotify": self._events(self.fanotify),
            "dnotify": self.dnotify if isinstance(self.dnotify, str) else int(self.dnotify_signals > self.dnotify_seen),
            "devnull-mtime": attempt(self._mtime_changed),
            "proc-locks": attempt(self._proc_locks),
            "flock-file": attempt(lambda: self._flock(os.open(SHARED_FILE, os.O_RDONLY))),
            "flock-anon-inode": attempt(lambda: self._flock(os.eventfd(0))),
            "posix-lock": attempt(lambda: self._getlk(fcntl.F_GETLK)),
            "ofd-lock": attempt(lambda: self._getlk(F_OFD_GETLK)),
            "page-cache-mincore": attempt(self._mincore),
            "page-cache-cachestat": attempt(self._cachestat),
            "page-cache-nowait-read": attempt(self._nowait_read),
            "ext4-extent-cache": attempt(self._extent_cache_moved),
        }
        self.drain()
        return seen

    @staticmethod
    def _extent_cache_hits() -> int:
        total = 0
        for disk in os.listdir("/proc/fs/ext4"):
            with open(f"/proc/fs/ext4/{disk}/es_shrinker_info") as handle:
                total += next(int(line.split("/")[0]) for line in handle if "cache hits" in line)
        return total

    def _extent_cache_moved(self) -> int:
        now = self._extent_cache_hits()
        moved = int(now - self.extent_hits > EXTENT_LOOKUPS // 2)
        self.extent_hits = now
        return moved

    def _mtime_changed(self) -> int:
        now = os.stat("/dev/null").st_mtime_ns
        changed = int(now != self.devnull_mtime)
        self.devnull_mtime = now
        return changed

    def _proc_locks(self) -> int:
        with open("/proc/locks") as handle:
            return int(any(line.split()[5].endswith(f":{self.ino}") for line in handle if len(line.split()) > 5))

    def _flock(self, fd: int) -> int:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 1
        finally:
            os.close(fd)
        return 0

    def _getlk(self, command: int) -> int:
        fd = os.open(SHARED_FILE, os.O_RDONLY)
        try:
            answer = fcntl.fcntl(fd, command, flock_struct(fcntl.F_WRLCK))
        finally:
            os.close(fd)
        return int(struct.unpack("=hhxxxxqqixxxx", answer)[0] != fcntl.F_UNLCK)

    def _mincore(self) -> int:
        fd = os.open(SHARED_FILE, os.O_RDONLY)
        address = libc.mmap(None, ctypes.c_size_t(4096), mmap.PROT_READ, mmap.MAP_SHARED, fd, ctypes.c_long(0))
        os.close(fd)
        checked(-1 if address in (None, ctypes.c_void_p(-1).value) else 0)
        try:
            resident = ctypes.create_string_buffer(1)
            checked(libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(4096), resident))
            return resident.raw[0] & 1
        finally:
            libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(4096))

    def _cachestat(self) -> int:
        fd = os.open(SHARED_FILE, os.O_RDONLY)
        try:
            cache_range = struct.pack("=QQ", 0, 4096)
            out = ctypes.create_string_buffer(40)
            checked(libc.syscall(SYS_CACHESTAT, fd, ctypes.c_char_p(cache_range), out, 0))
            return int(struct.unpack("=5Q", out.raw)[0] > 0)
        finally:
            os.close(fd)

    def _nowait_read(self) -> int:
        fd = os.open(SHARED_FILE, os.O_RDONLY)
        try:
            os.preadv(fd, [bytearray(4096)], 0, RWF_NOWAIT)
            return 1
        except BlockingIOError:
            return 0
        finally:
            os.close(fd)


# -- machine-wide counters ---------------------------------------------------------------------------------
GLOBAL_FILES = ("/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/uptime", "/proc/vmstat", "/proc/zoneinfo",
                "/proc/buddyinfo", "/proc/diskstats", "/proc/softirqs", "/proc/interrupts", "/proc/pressure/cpu",
                "/proc/pressure/memory", "/proc/pressure/io", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
                "/proc/sys/fs/dentry-state", "/proc/sys/fs/aio-nr", "/proc/swaps", "/proc/cgroups")  # fmt: skip
# Readable but not movable by a bot, so not listed: /proc/locks (locks are refused), /proc/sys/kernel/pty/nr
# (no pty device in the sandbox; /dev/ptmx is probed below).


def exposed() -> list[str]:
    found = []
    for path in GLOBAL_FILES:
        try:
            with open(path, "rb") as handle:
                if handle.read(4096).strip():
                    found.append(path)
        except OSError:
            pass
    for folder, _, files in os.walk("/proc/fs"):  # filesystems' own statistics (ext4's caches, jbd2's journal)
        for name in files:
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    if handle.read(4096).strip():
                        found.append(os.path.join(folder, name))
            except OSError:
                pass
    for family in (socket.AF_INET, socket.AF_INET6):  # each TCP/UDP socket moves /proc/net/sockstat's totals
        try:
            socket.socket(family, socket.SOCK_STREAM).close()
            found.append(f"socket({family.name})")
        except OSError:
            pass
    if libc.sysinfo(ctypes.create_string_buffer(256)) == 0:
        found.append("sysinfo()")
    try:
        os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
        found.append("/dev/ptmx")
    except OSError:
        pass
    return found


def main() -> None:
    role = sys.argv[1]
    if role == "exposed":
        print(json.dumps(exposed()), flush=True)
        return
    party = Sender() if role == "send" else Receiver()
    print('{"type": "ready"}', flush=True)
    for line in sys.stdin:
        if role == "send":
            party.set(int(line))
            print("ok", flush=True)
        else:
            print(json.dumps(party.probe()), flush=True)


main()
