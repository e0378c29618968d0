#ifndef MEMCTL_PROC_READ_H
#define MEMCTL_PROC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "snapshot.h"

/*
 * What top shows beside the cgroup files: the host's memory pressure
 * (/proc/pressure/memory, which a cgroup v1 host has too when its kernel
 * has PSI) and the processes of a group with their memory (/proc/PID).
 * Functions return 0 or -errno and never print.
 */

/*
 * Host-wide memory pressure from path (NULL: /proc/pressure/memory).
 * -ENOENT: no such file; -EOPNOTSUPP: the kernel has PSI compiled in but
 * disabled (psi=0: reading fails); -EINVAL: not in the PSI format.
 */
int mc_host_pressure(const char *path, struct mc_psi *ret);

/*
 * The same from /proc/pressure/memory through *fd: opened at the first call
 * (*fd < 0) and kept there for the next ones, which cost one pread each
 * (a screen reads it every refresh); the caller closes *fd. On an error
 * *fd is closed and -1, so the next call opens the file again.
 */
int mc_host_pressure_kept(int *fd, struct mc_psi *ret);

struct mc_proc {
	long pid;
	char comm[32];        /* /proc/PID/comm (the kernel's 16 bytes at most) */
	bool mem_valid;       /* the status below was read (the process may be gone) */
	uint64_t rss;         /* VmRSS, bytes */
	uint64_t swap;        /* VmSwap, bytes */
};

/*
 * The processes in group itself (its cgroup.procs, not its children's), in
 * PID order. *ret_n may be 0 (*ret then NULL). A process that exits while
 * being read keeps its PID with mem_valid false. -ENOENT (no such group),
 * -ENOMEM, -errno.
 */
int mc_host_group_procs(struct mc_host *h, const char *group, struct mc_proc **ret,
			size_t *ret_n);

/* The number of processes in group itself (cgroup.procs lines). */
int mc_host_group_nprocs(struct mc_host *h, const char *group, size_t *ret);

/*
 * The text of one of a group's statistics files as the kernel wrote it, for
 * a view of every line: memory.stat, memory.numa_stat, memory.events,
 * memory.events.local, memory.swap.events, memory.pressure, memory.failcnt,
 * memory.oom_control (no other name: -EPERM). *ret is allocated and
 * NUL-terminated. -ENOENT (no such group or file), -errno.
 */
int mc_host_group_file(struct mc_host *h, const char *group, const char *file, char **ret,
		       size_t *ret_len);

/*
 * Parses /proc/PID/status text for VmRSS and VmSwap (pure; kernel threads
 * have neither: -ENOENT). Values in bytes.
 */
int mc_parse_proc_status(const char *text, uint64_t *ret_rss, uint64_t *ret_swap);

/*
 * /proc/meminfo text into *ret (appended): each "Key:  N kB" line as Key =
 * N * 1024, a line without a unit (HugePages_Total...) as its count (pure).
 * -EINVAL for a line in neither form, -ENOMEM.
 */
int mc_parse_meminfo(const char *text, size_t len, struct mc_kvs *ret);

/*
 * The host's memory figures for the history recorder: /proc/meminfo (path
 * NULL: that file) as mc_parse_meminfo, and the reclaim fields of
 * /proc/vmstat (mc_vmstat_reclaim_field), appended to *ret. -errno.
 */
int mc_host_meminfo(const char *path, struct mc_kvs *ret);
int mc_host_vmstat_reclaim(const char *path, struct mc_kvs *ret);

/*
 * Whether a /proc/vmstat field is one of reclaim's: pgscan*, pgsteal*,
 * pgrefill, pgdemote*, workingset_*, allocstall*, kswapd_*, pswpin/out,
 * pgmajfault, pgactivate, pgdeactivate, pgrotated, pglazyfree*,
 * slabs_scanned, pageoutrun, oom_kill, compact_stall/fail/success.
 */
bool mc_vmstat_reclaim_field(const char *key, size_t len);

#endif
