#ifndef MEMCTL_HOST_H
#define MEMCTL_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "knob.h"
#include "snapshot.h"

/*
 * The host layer: everything that touches /sys/fs/cgroup, /proc and
 * libcgroup. Functions return 0 (or a count) on success and -errno on
 * failure; nothing here prints.
 *
 * Group paths given to this layer are absolute cgroup paths inside the
 * memory hierarchy ("/", "/a/b"), never file system paths. The layer joins
 * them to the mount point itself and refuses anything with "." or ".."
 * components.
 */

enum mc_layout {
	MC_LAYOUT_V1 = 1,     /* only legacy hierarchies */
	MC_LAYOUT_V2,         /* only the unified hierarchy */
	MC_LAYOUT_HYBRID,     /* legacy hierarchies plus a cgroup2 mount */
	MC_LAYOUT_FAKE,       /* a directory tree given by --cgroup-root (tests) */
};

enum mc_mech {
	MC_MECH_NATIVE = 0,   /* the kernel has the file */
	MC_MECH_EMULATED,     /* memctl achieves it another way (described) */
	MC_MECH_MISSING,      /* neither: settings are reported, not applied */
};

struct mc_host_opts {
	const char *cgroup_root;  /* NULL: discover; else a (fake) memory hierarchy dir */
	int fake_version;         /* with cgroup_root: 1 or 2; 0 = detect from files */
};

struct mc_mount {
	char *path;
	char *type;       /* "cgroup" or "cgroup2" */
	char *options;    /* controllers / options from /proc/self/mountinfo */
};

struct mc_host_status {
	enum mc_layout layout;
	enum mc_cgver memory_version;
	char *memory_mount;           /* mount point of the memory controller */
	struct mc_mount *mounts;      /* every cgroup / cgroup2 mount */
	size_t n_mounts;
	char *self_path;              /* the memory cgroup memctl runs in; NULL when it lies
	                                 outside the mounted part of the hierarchy */
	bool psi;                     /* memory.pressure available (per group) */
	bool host_psi;                /* /proc/pressure/memory readable (host-wide; v1 too) */
	bool numa_stat;
	bool reclaim;                 /* memory.reclaim (v2) */
	bool patched;                 /* memctl kernel patch detected */
	const char *patch_files_found[8]; /* names of the patch's knobs found */
	size_t n_patch_files;
	bool knobs_deduced;           /* v2 with no memory-enabled group yet: knob files
	                                 deduced from the kernel, not seen */
	struct {
		enum mc_mech mech;
		const char *how;          /* one line: file used, or why emulated/missing */
	} knob[MC_KNOB__COUNT];
	int cpus_online;
	int numa_nodes;
	int cpus_per_node;            /* the fewest online CPUs of a node that has any */
	uint64_t swap_total;          /* bytes of swap (SwapTotal) */
};

struct mc_host;

/*
 * Discovers the host: layout, memory controller mount and version (through
 * libcgroup, or the fake root), the cgroup we run in, and which knobs exist
 * (by looking for their files, not by assuming). Returns 0, -ENOENT when no
 * memory controller is mounted, -ENOMEM.
 */
int mc_host_open(const struct mc_host_opts *o, struct mc_host **ret);
void mc_host_free(struct mc_host *h);

const struct mc_caps *mc_host_caps(const struct mc_host *h);
const struct mc_host_status *mc_host_status(const struct mc_host *h);

/*
 * Turns a profile's or a command line's parent ("/", "/a/b", "self",
 * "self/x") into an absolute cgroup path (newly allocated). -EINVAL for a
 * relative path other than self, or one with "." / ".." components.
 */
int mc_host_resolve_parent(struct mc_host *h, const char *spec, char **ret);

/*
 * Reads the subtree rooted at parent (absolute cgroup path) into a
 * snapshot: the parent itself first, then every descendant in preorder with
 * knob values, usage, memory.stat, numa_stat, events and pressure, through
 * the subtree reader (subtree.h: its rules for missing and unparsable
 * files, and v2 key names on every host). A group that disappears while
 * being read is kept with present=false. h keeps the reader of the last few
 * parents between calls, so a later snapshot of the same tree only preads.
 * A file that does not parse adds a line to ret->notes. -ENOENT when parent
 * does not exist.
 */
int mc_host_snapshot(struct mc_host *h, const char *parent, struct mc_snapshot *ret);

/*
 * The number of processes in group i of snap itself (cgroup.procs lines),
 * read now through the descriptors of the reader that took snap (one pread
 * where it can: mc_subtree_tasks), or by path when the host no longer
 * keeps that reader as it was. -ENODEV / -ENOENT: the group is gone;
 * -errno.
 */
int mc_host_snapshot_tasks(struct mc_host *h, const struct mc_snapshot *snap, size_t i,
			   uint64_t *ret);

/*
 * The effective limit of group: the smallest max of the group itself and
 * each of its ancestors, capped at RAM (the kernel stops a group at the
 * first limit it meets on the way up, its own included). A group or
 * ancestor without a max file (the v2 root), or with one that does not
 * parse, limits nothing. 0, or -errno from reading an existing file.
 */
int mc_host_effective_limit(struct mc_host *h, const char *group, uint64_t *ret);

/*
 * Descriptors the subtree readers of h may keep open together: the soft
 * RLIMIT_NOFILE at mc_host_open but 1024 for the rest of the program (half
 * of it when it is below 2048).
 */
size_t mc_host_fd_budget(const struct mc_host *h);

/*
 * mc_group_snap.bad: bit k (k < MC_KNOB__COUNT) is knob k's file,
 * MC_BAD_USAGE the usage file; the host layer numbers the others.
 * mc_host_bad_files names the files of a mask: "memory.max, memory.stat"
 * (newly allocated).
 */
enum { MC_BAD_USAGE = 1u << MC_KNOB__COUNT };
int mc_host_bad_files(const struct mc_host *h, uint32_t bad, char **ret);

/* Reads one knob's raw value of group. -ENOENT: group or file absent. */
int mc_host_read_knob(struct mc_host *h, const char *group, enum mc_knob k, uint64_t *ret);

/*
 * Writes one knob file of group (opened with openat relative to the group's
 * directory, O_NOFOLLOW), then reads it back. Returns 0, the write's -errno,
 * or -EIO when the value read back differs from the value written (the
 * value read back is then in *ret_readback when not NULL).
 */
int mc_host_write_knob(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw,
		       uint64_t *ret_readback);

/*
 * Thread-safe helpers (cgfs.c) for reclaimers running in parallel
 * (reclaim.c): they share no buffer with the rest of the layer, and
 * write_knob_ts does not count as a write for the failure injection.
 *   read_value: one number from file in group (a knob file, usage...).
 *   read_usage: memory.usage_in_bytes (v1) or memory.current (v2).
 *   write_knob_ts: like mc_host_write_knob, with read-back (-EIO).
 *   reclaim_v2: writes "BYTES [nodes=NODE]" to memory.reclaim (node < 0:
 *   any node); -EAGAIN when the kernel could not reclaim that much.
 */
int mc_host_read_value(struct mc_host *h, const char *group, const char *file, uint64_t *ret);
int mc_host_read_usage(struct mc_host *h, const char *group, uint64_t *ret);
int mc_host_write_knob_ts(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw);
int mc_host_reclaim_v2(struct mc_host *h, const char *group, uint64_t bytes, int node);

/*
 * Bounds on writes that can block in the kernel (knob writes, memory.reclaim,
 * cgroup.procs): each ends within timeout_ms (0: unbounded; default
 * MC_WRITE_TIMEOUT_MS) and, while a deadline is set (CLOCK_MONOTONIC
 * milliseconds as mc_host_now_ms gives them; 0: none), by the deadline; a
 * write started after the deadline fails at once. A write cut short fails
 * with -ETIMEDOUT and the kernel keeps the old value (v1); on v2 the kernel
 * keeps the new limit and stops reclaiming towards it, and the write counts
 * as done. The first bounded write installs a do-nothing handler for
 * SIGRTMIN+2 (the timer's signal) without SA_RESTART.
 */
#define MC_WRITE_TIMEOUT_MS 10000
void mc_host_set_write_timeout(struct mc_host *h, long timeout_ms);
void mc_host_set_write_deadline(struct mc_host *h, long deadline_ms);
long mc_host_write_deadline(const struct mc_host *h);
long mc_host_now_ms(void);

/* Creates / removes a group directory. mkdir: -EEXIST when it exists. */
int mc_host_mkdir(struct mc_host *h, const char *group);
int mc_host_rmdir(struct mc_host *h, const char *group);
bool mc_host_group_exists(struct mc_host *h, const char *group);

/*
 * rm's and prune's removal of a group: mc_host_rmdir, counted as a write for
 * the failure injection (the rmdir that undoes a mkdir is not). -EBUSY: the
 * group holds tasks or child groups.
 */
int mc_host_remove_group(struct mc_host *h, const char *group);

/*
 * The identity of group's directory (its inode number: cgroupfs numbers
 * the groups it makes without reusing a number soon), so that a record of a
 * group can tell it from another made later under the same name. 0 or -errno.
 */
int mc_host_group_id(struct mc_host *h, const char *group, uint64_t *ret);

/*
 * v2: enables (on) or disables the memory controller for group's children
 * through its cgroup.subtree_control, then reads it back (-EIO when the
 * kernel did not take it). -EOPNOTSUPP on v1. Counts as a write for the
 * failure injection.
 */
int mc_host_delegate_memory(struct mc_host *h, const char *group, bool on);

/*
 * memctl's kernel patch's sysctls ("vm.max_reclaimers_per_node"; no other
 * name is accepted: -EPERM). -ENOENT when the kernel has none (or the host
 * is a fake tree). write reads the value back (-EIO when it differs) and
 * counts as a write for the failure injection.
 */
int mc_host_sysctl_read(struct mc_host *h, const char *name, long *ret);
int mc_host_sysctl_write(struct mc_host *h, const char *name, long v);

/* Writes text to a file of group in one write(2) (cgroup.procs...). No read-back. */
int mc_host_write_text(struct mc_host *h, const char *group, const char *file, const char *text);

/*
 * memctl run's own group on cgroup v2: GROUP = SELF/NAME, created if
 * missing, memctl's process moved into it, the memory controller enabled
 * in SELF (memctl's own cgroup; possible only when no other process is
 * left there), then memory.min and memory.low of protect bytes (page
 * aligned) on GROUP, so reclaim leaves memctl's memory alone. On failure
 * nothing is left changed that can be undone: the process moves back and a
 * group it created is removed. *ret_what names the step that failed.
 * Returns 0, -EOPNOTSUPP on v1 (no memory.min), or the step's -errno.
 */
struct mc_self_group {
	char *self;             /* where memctl ran before */
	char *group;            /* its own group now */
	uint64_t protect;       /* memory.min and memory.low written */
};
int mc_host_self_group_enter(struct mc_host *h, const char *name, uint64_t protect,
			     struct mc_self_group *ret, const char **ret_what);
void mc_self_group_free(struct mc_self_group *g);

/* Joins parent and a relative group path into a new absolute cgroup path. */
int mc_path_join(const char *parent, const char *rel, char **ret);

/*
 * No function here: test-only failure injection, compiled in with
 * MEMCTL_FAULT_INJECTION and read from the environment when a host is
 * opened (host_fault_init in cgfs.c).
 * MEMCTL_FAIL_WRITE="K:ERRNO[,K:ERRNO...]" (up to 8) makes the K-th knob
 * write of this process fail with that errno (name like EBUSY or a number)
 * before touching the file;
 * MEMCTL_STOP_AFTER_WRITE=K makes the process stop itself (SIGSTOP) right
 * after its K-th write, so a test can kill -9 it at a known point;
 * MEMCTL_SLOW_WRITE="K:MS" delays the K-th knob write by MS milliseconds
 * inside its time bound, as a kernel busy reclaiming would;
 * MEMCTL_SLOW_SNAPSHOT=MS delays each snapshot of the tree by MS
 * milliseconds, as thousands of groups or an emulated machine would.
 */

#endif
