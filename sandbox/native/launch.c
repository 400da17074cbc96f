/* kozyr-launch: what launcher.Plan.child_setup does, in C, so the worker can start it with vfork instead of
 * forking the whole Python process twice (see sandbox/launcher.py, sandbox/native.py).
 *
 *   kozyr-launch [-f TARGET:SOURCE]... [-t V1_TASKS_FILE]... [-r RESOURCE:SOFT:HARD]... [-g V2_FD:V2_PROCS
 *                 -p REPORT_FD] [-u UID] -- PROGRAM ARGS...
 *
 * V2_FD and REPORT_FD are target numbers of -f (so placing descriptors cannot clobber them).
 *
 * Order: place descriptors (every other one above them close-on-exec), join each v1 group by writing "0"
 * (a single-threaded task moving itself takes no global lock), set rlimits, then clone3(CLONE_PARENT |
 * CLONE_INTO_CGROUP) the launcher into its v2 group (this process reports the launcher's pid and exits;
 * without clone3 it joins v2 through cgroup.procs and stays the launcher), drop to UID, exec PROGRAM. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS 16

static void die(const char *what) {
    dprintf(2, "kozyr-launch: %s: %s\n", what, strerror(errno));
    _exit(127);
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) die(path);
    close(fd);
}

int main(int argc, char **argv) {
    int targets[MAX_FDS], sources[MAX_FDS], nfds = 0, top = 3;
    int v2_fd = -1, report_fd = -1;
    const char *v2_procs = NULL;
    long uid = -1;
    int i = 1;
    /* First pass: descriptors, so nothing below clobbers them. */
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc) { errno = EINVAL; die("missing option value"); }
        if (strcmp(argv[i], "-f") == 0 && nfds < MAX_FDS) {
            if (sscanf(argv[i + 1], "%d:%d", &targets[nfds], &sources[nfds]) != 2) { errno = EINVAL; die(argv[i + 1]); }
            if (targets[nfds] + 1 > top) top = targets[nfds] + 1;
            nfds++;
        }
    }
    for (int k = 0; k < nfds; k++)  /* a source sitting on some target number moves above them all first */
        for (int j = 0; j < nfds; j++)
            if (sources[k] == targets[j]) {
                int moved = fcntl(sources[k], F_DUPFD_CLOEXEC, top);
                if (moved < 0) die("F_DUPFD_CLOEXEC");
                sources[k] = moved;
                break;
            }
    for (int k = 0; k < nfds; k++)
        if (dup2(sources[k], targets[k]) < 0) die("dup2");
    for (int k = 0; k < nfds; k++) {  /* a source below the targets that is no target itself must not leak */
        int is_target = 0;
        for (int j = 0; j < nfds; j++) is_target |= sources[k] == targets[j];
        if (!is_target && fcntl(sources[k], F_SETFD, FD_CLOEXEC) != 0) die("F_SETFD");
    }
    if (syscall(SYS_close_range, top, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {  /* kernel < 5.11 */
        DIR *open_fds = opendir("/proc/self/fd");
        if (open_fds == NULL) die("/proc/self/fd");
        for (struct dirent *entry; (entry = readdir(open_fds)) != NULL;) {
            int fd = atoi(entry->d_name);
            if (fd >= top && fd != dirfd(open_fds)) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
        closedir(open_fds);
    }
    /* The v2 group's cgroup.procs is opened before any rlimit is set: once RLIMIT_NOFILE is the bot's,
     * there may be no free descriptor number left to open it with. */
    int v2_procs_fd = -1;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        char *colon = strcmp(argv[i], "-g") == 0 ? strchr(argv[i + 1], ':') : NULL;
        if (colon != NULL && (v2_procs_fd = open(colon + 1, O_WRONLY | O_CLOEXEC)) < 0) die(colon + 1);
    }
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        const char *opt = argv[i], *value = argv[i + 1];
        if (strcmp(opt, "-t") == 0) {
            write_file(value, "0");
        } else if (strcmp(opt, "-r") == 0) {
            int resource; unsigned long long soft, hard;
            if (sscanf(value, "%d:%llu:%llu", &resource, &soft, &hard) != 3) { errno = EINVAL; die(value); }
            struct rlimit limit = {soft, hard};
            if (setrlimit(resource, &limit) != 0) die("setrlimit");
        } else if (strcmp(opt, "-g") == 0) {
            char *colon = strchr(value, ':');
            if (colon == NULL) { errno = EINVAL; die(value); }
            v2_fd = atoi(value);
            v2_procs = colon + 1;
        } else if (strcmp(opt, "-p") == 0) {
            report_fd = atoi(value);
        } else if (strcmp(opt, "-u") == 0) {
            uid = atol(value);
        }
    }
    if (i >= argc - 1) { errno = EINVAL; die("no program after --"); }
    if (v2_procs != NULL) {
        struct clone_args args;
        memset(&args, 0, sizeof args);
        args.flags = CLONE_PARENT | CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)v2_fd;
        long launcher = syscall(SYS_clone3, &args, sizeof args);
        if (launcher > 0) {
            dprintf(report_fd, "%ld", launcher);
            _exit(0);
        }
        if (launcher < 0) {  /* no clone3 here: join the slow way and become the launcher ourselves */
            char pid[32];
            snprintf(pid, sizeof pid, "%d", getpid());
            if (write(v2_procs_fd, pid, strlen(pid)) < 0) die(v2_procs);
        }
        close(v2_procs_fd);
        if (report_fd >= 0) close(report_fd);
        if (v2_fd >= 0) close(v2_fd);
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
            die("dropping to the sandbox uid");
    }
    execvp(argv[i + 1], &argv[i + 1]);
    die(argv[i + 1]);
    return 127;
}
