#ifndef MEMCTL_HOST_INTERNAL_H
#define MEMCTL_HOST_INTERNAL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host.h"

/*
 * Private to the host layer (its .c files: discovery, cgfs.c's I/O helpers,
 * the subtree reader, the journal, state directory and reclaimers): the host
 * handle and the helpers the files share. Front ends use host.h and the
 * headers of the transaction (txn.h, journal.h, state.h, reclaim.h).
 *
 * Every file access goes through rootfd, the memory hierarchy's mount point
 * opened once: groups are reached with openat() one component at a time
 * with O_NOFOLLOW, so a symlink planted inside the tree is never followed
 * and "." / ".." never reach the kernel.
 */

/*
 * The files a snapshot reads per group: one slot per knob, then the rest.
 * v1 has no memory.events; failcnt and oom_control stand in for it.
 */
enum host_file {
	HOST_FILE_USAGE = MC_KNOB__COUNT,
	HOST_FILE_STAT,
	HOST_FILE_NUMA,
	HOST_FILE_EVENTS,
	HOST_FILE_FAILCNT,
	HOST_FILE_OOM,
	HOST_FILE_PRESSURE,
	HOST_FILE_SUBTREE,          /* v2 cgroup.subtree_control */
	HOST_FILE_PROCS,            /* cgroup.procs: no part; mc_subtree_tasks */
	HOST_FILE__COUNT
};

/* Subtree readers kept by the host for its snapshots, one per parent. */
#define HOST_TREES 4

struct mc_subtree;

/* A read buffer that grows to fit a file; never truncates. */
struct host_buf {
	char *p;
	size_t cap;
};

/* How many "K:ERRNO" failures MEMCTL_FAIL_WRITE may list. */
#define HOST_FAIL_MAX 8

struct mc_host {
	struct mc_host_status st;
	struct mc_caps caps;
	bool fake;
	int rootfd;                 /* O_PATH|O_DIRECTORY of the memory mount */
	struct host_buf buf;
	struct mc_subtree *trees[HOST_TREES];
	unsigned long tree_used[HOST_TREES];   /* for least-recently-used */
	unsigned long tree_clock;
	size_t kept_fds;            /* descriptors the subtree readers keep open */
	size_t fd_budget;           /* at most this many (mc_host_fd_budget) */

	/*
	 * Knob writes of this process, for the test-only failure injection
	 * (parsed from the environment when compiled with it; zero otherwise).
	 * Always present so the layout does not depend on that define.
	 */
	unsigned long n_write_calls;
	unsigned long n_writes_ok;
	unsigned long fail_write_at[HOST_FAIL_MAX];   /* 0: off */
	int fail_write_err[HOST_FAIL_MAX];            /* positive errno */
	unsigned long stop_after_write; /* 0: off */
	unsigned long slow_write_at;    /* MEMCTL_SLOW_WRITE's K (0: off) */
	long slow_write_ms;             /* and how long that write is delayed */
	long slow_snapshot_ms;          /* MEMCTL_SLOW_SNAPSHOT: each snapshot's delay */

	long write_timeout_ms;          /* each write's bound (0: none) */
	long write_deadline_ms;         /* CLOCK_MONOTONIC ms writes must end by (0: none) */

	struct host_bus *bus;           /* systemd's bus once used (sdbus.c), or NULL */
};

/* Translates a libcgroup ECG* code (or 0) to 0 / -errno. Never calls cgroup_strerror. */
int host_ecg_errno(int ecg);

/*
 * Checks an absolute cgroup path: starts with '/', no "." or ".."
 * components (-EINVAL), components of at most NAME_MAX bytes and the whole
 * at most PATH_MAX (-ENAMETOOLONG). Empty components ("//") are allowed and
 * mean nothing.
 */
int cgfs_check_path(const char *group);

/*
 * Whether p is an absolute cgroup path in the form mc_path_join makes it
 * (cgfs_check_path's rules, no "//", no trailing '/'): what a path read back
 * from the state directory must be.
 */
bool cgfs_clean_path(const char *p);

/*
 * Opens the directory of group (absolute cgroup path) below the mount
 * root, one component at a time, never following a symlink. flags is
 * O_PATH or O_RDONLY (for readdir); O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC are
 * added. Returns 0 and the descriptor, or -errno (-ENOENT: no such group).
 */
int cgfs_open_group(struct mc_host *h, const char *group, int flags, int *ret_fd);

/*
 * Reads all of fd from offset 0 with pread into b, growing it when the
 * file does not fit. Returns 0 and the length (the buffer is NUL-terminated
 * too), -EFBIG beyond 16 MiB, or the pread's -errno.
 */
int cgfs_read_fd(struct host_buf *b, int fd, size_t *ret_len);

/* Opens file in dirfd (O_NOFOLLOW) and reads it with cgfs_read_fd. */
int cgfs_read_at(struct host_buf *b, int dirfd, const char *file, size_t *ret_len);

void host_buf_free(struct host_buf *b);

/*
 * Around every write that changes the host (knob, subtree_control, sysctl):
 * begin counts it and returns the test-only injected failure, if any; done
 * counts a write that succeeded (and stops the process there when asked).
 */
int host_write_begin(struct mc_host *h);
void host_write_done(struct mc_host *h);

/*
 * Writes text to file (relative to dirfd; O_NOFOLLOW, plus flags) in one
 * write(2): 0, -errno, or -EIO for a short write. No read-back.
 */
int host_write_at(int dirfd, const char *file, int flags, const char *text);

/* Whether word is one of the whitespace-separated words of text. */
bool host_has_word(const char *text, const char *word);

/*
 * The lines of a state file (journal, record of created groups): len bytes
 * of buf, each line ending in a newline, no NUL anywhere, at most
 * max bytes, at least one line. Calls fn with each line (without
 * its newline, NUL-terminated) and its 1-based number, until it fails.
 * Returns 0, fn's error, -EBADMSG (then *ret_bad_end tells whether the last
 * line lacked its newline) or -ENOMEM; *ret_line gets the line it stopped at.
 */
int host_each_line(const char *buf, size_t len, size_t max,
		   int (*fn)(void *arg, const char *line, unsigned lineno), void *arg,
		   unsigned *ret_line, bool *ret_bad_end);

/*
 * Finishes the text of a state file written to f, an open_memstream(buf,
 * len): *ret and *ret_len get the text, the caller's to free. 0, or
 * -ENOMEM (then the text is freed and *ret is not written).
 */
int host_text_close(FILE *f, char **buf, size_t *len, char **ret, size_t *ret_len);

/*
 * Reads MEMCTL_FAIL_WRITE / MEMCTL_STOP_AFTER_WRITE into h when compiled
 * with MEMCTL_FAULT_INJECTION (cgfs.c). -EINVAL for a malformed value, so a
 * typo in a test does not silently test nothing.
 */
int host_fault_init(struct mc_host *h);

/* The file read into slot f (enum mc_knob or enum host_file) on this host, or NULL. */
const char *host_slot_file(const struct mc_host *h, int f);

/*
 * Descriptors of its own the program keeps besides the subtree readers'
 * (standard streams, inotify, the state directory and its lock, journals,
 * an export or history file, the terminal, sockets): a few dozen at most.
 */
#define HOST_FD_RESERVE 1024

/*
 * Sets h->fd_budget from the soft RLIMIT_NOFILE now: all of it but
 * HOST_FD_RESERVE, or half of it when it is below twice that.
 */
void host_fd_budget_update(struct mc_host *h);

/* Frees the host's subtree readers (snapshot.c). */
void host_trees_free(struct mc_host *h);

/*
 * Joins a path and one name: "/" + "a" is "/a", "/a" + "b" is "/a/b", "" +
 * "a" is "a" (a '/' goes between unless base is empty or ends in one).
 * -ENAMETOOLONG past PATH_MAX, -ENOMEM.
 */
int host_join(const char *base, const char *name, char **ret);

/*
 * Cuts the absolute cgroup path p (in place) to its parent's: "/a/b" to
 * "/a", "/a" to "/". false, p unchanged, when p is "/" (or has no '/').
 */
bool host_path_up(char *p);

#endif
