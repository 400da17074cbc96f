"""The /proc entries both isolating backends cover: machine-wide figures that another bot can move at will,
so a covert channel between bots. bwrap binds an empty file or folder over each (backends/bwrap.py); Podman
masks them with `--security-opt mask=` (backends/docker.py); Docker has no such option.

Covered: free memory, thread and fork counts, CPU, interrupt and disk counters, open files and dentries,
pressure, swap in use, the number of cgroups, the filesystems' own statistics under /proc/fs such as ext4's
extent-cache hits, which a bot moves with lseek(SEEK_DATA) on any /usr file. Left readable: the bot's own
processes, static facts (cpuinfo, version, filesystems...), files only root may read (slabinfo,
pagetypeinfo, timer_list...), the network namespace's own /proc/net, and counters no bot can move (locks
and ptys: the seccomp filter refuses locks and there is no pty device; keys: keyctl is refused; the
machine-wide TCP/UDP figures of /proc/net/sockstat: IP sockets are refused). Each mask is one more mount in
bwrap's set-up (~0.1 ms), hence no more than these.
"""

PROC_MASKED_FILES = ("meminfo", "stat", "loadavg", "uptime", "vmstat", "zoneinfo", "buddyinfo", "diskstats",
                     "softirqs", "interrupts", "schedstat", "swaps", "cgroups")  # fmt: skip
PROC_MASKED_DIRS = ("pressure", "sys/fs", "fs")
