#ifndef MEMCTL_SUBTREE_H
#define MEMCTL_SUBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "knob.h"
#include "snapshot.h"

/*
 * The subtree reader: the one way memctl reads the live tree below a
 * parent. mc_host_snapshot reads every part of every group through it;
 * `memctl top` reads the sort key of every group and the rest only for
 * the rows it shows; completion only walks. scan() walks the directories
 * (structure only), read() preads the parts asked for through descriptors
 * kept open per group and file.
 *
 * One rule for values: a file that is missing leaves its part invalid (a
 * normal case: v1 has no memory.high, the v2 root no memory.max); a file
 * that is there but does not parse leaves its part invalid too, and sets
 * the file's bit in mc_group_snap.bad (mc_host_bad_files names them). It
 * never fails the read, and never reads as zero.
 *
 * One set of names: memory.stat and numa_stat keys are v2's whatever the
 * host (v1's hierarchical total_* / hierarchical_* keys are renamed, v1's
 * group-local ones dropped), and events are v2's memory.events keys (v1:
 * failcnt as "max", oom_control's oom_kill). Consumers ask for v2 names
 * only.
 *
 * Functions return 0 or -errno and never print.
 */

/*
 * Parts of a group that read() can fill in a struct mc_group_snap. Each
 * knob is a part of its own (one file each: a screen showing max and soft
 * reads two knob files per row, not all of them); MC_READ_KNOBS is every
 * knob, and a test `parts & MC_READ_KNOBS` asks whether any is wanted.
 */
enum {
	MC_READ_USAGE = 1 << 0,     /* usage */
	MC_READ_STAT = 1 << 2,      /* stat */
	MC_READ_NUMA = 1 << 3,      /* numa, n_numa */
	MC_READ_EVENTS = 1 << 4,    /* events */
	MC_READ_PSI = 1 << 5,       /* psi */
	MC_READ_SUBTREE = 1 << 6,   /* no_memory_children (v2 cgroup.subtree_control) */
	/* knob k (enum mc_knob) is MC_READ_KNOB_MAX << k: raw[k] / raw_valid[k] */
	MC_READ_KNOB_MAX = 1 << (8 + MC_KNOB_MAX),
	MC_READ_KNOB_HIGH = 1 << (8 + MC_KNOB_HIGH),
	MC_READ_KNOB_LOW = 1 << (8 + MC_KNOB_LOW),
	MC_READ_KNOB_MIN = 1 << (8 + MC_KNOB_MIN),
	MC_READ_KNOB_SOFT = 1 << (8 + MC_KNOB_SOFT),
	MC_READ_KNOBS = ((1 << MC_KNOB__COUNT) - 1) << 8,
	MC_READ_ALL = MC_READ_USAGE | MC_READ_STAT | MC_READ_NUMA | MC_READ_EVENTS | MC_READ_PSI |
		      MC_READ_SUBTREE | MC_READ_KNOBS,
};
_Static_assert(MC_KNOB__COUNT <= 8, "the knob parts fit below bit 16");

struct mc_subtree_entry {
	const char *path;   /* relative to the parent; "" is the parent itself */
	const char *abs;    /* absolute cgroup path */
	unsigned depth;     /* 0 for the parent */
	size_t up;          /* index of the parent entry; (size_t)-1 for entry 0 */
};

struct mc_subtree;

/* A reader of the subtree at parent (absolute cgroup path). 0, -EINVAL, -ENOMEM. */
int mc_subtree_new(struct mc_host *h, const char *parent, struct mc_subtree **ret);
void mc_subtree_free(struct mc_subtree *t);

/*
 * Walks the subtree again: entries in preorder, children in name order. A
 * directory is listed again (getdents) only when it may have changed: an
 * inotify watch on it reported a subdirectory made, removed or renamed, a
 * read found one of its groups gone, or it has no watch (no inotify, or the
 * watch limit reached: then it is listed every time); full lists every
 * directory. Descriptors of groups seen before are kept; those of vanished
 * groups are closed. Also reads the parent's effective limit
 * (mc_host_effective_limit). Returns 1 when groups appeared or went (then
 * entries from an earlier scan are invalid), 0 when the tree is as before
 * (entries keep their indexes), -ENOENT (the parent is gone), -ENOMEM.
 */
int mc_subtree_scan(struct mc_subtree *t, bool full);

size_t mc_subtree_count(const struct mc_subtree *t);
const struct mc_subtree_entry *mc_subtree_entry(const struct mc_subtree *t, size_t i);
/* The parent's effective limit at the last scan (mc_host_effective_limit of the parent). */
uint64_t mc_subtree_limit(const struct mc_subtree *t);
/* The parent as mc_subtree_new was given it, normalised ("/a/b"); t owns it. */
const char *mc_subtree_parent(const struct mc_subtree *t);

/*
 * From now on, keeps the values of the knob files (and the max files of
 * the parent's effective limit) between reads: each is read again only
 * after inotify reported a write to it (every successful write(2), by any
 * process, through any mount of the hierarchy; a knob changes no other
 * way), when its watch could not be added or was lost, or after the event
 * queue overflowed. For a reader whose scans come before its reads
 * (top's): the events are taken in at each scan. Without inotify, nothing
 * changes.
 */
void mc_subtree_keep_knobs(struct mc_subtree *t);
/* Files read (preads) so far, for tests and benchmarks. */
size_t mc_subtree_preads(const struct mc_subtree *t);

/*
 * Reads the parts of entry i into gs; the members of other parts are left
 * as they were, those of the parts read are replaced (with their bits of
 * gs->bad). -ENODEV: the group is gone (or was replaced under its name; the
 * next scan opens the new one). *ret_kept, when not NULL, is false when the
 * descriptor budget (mc_host_fd_budget) did not let the reader keep this
 * group's files open.
 */
int mc_subtree_read(struct mc_subtree *t, size_t i, unsigned parts, struct mc_group_snap *gs,
		    bool *ret_kept);

/*
 * The number of processes in entry i itself (its cgroup.procs lines, not
 * its children's) into *ret, through a descriptor kept open like the
 * others (see subtree.c for cgroup v1's cached process lists). On v1 a
 * group found empty is not read again until a write to its cgroup.procs
 * or tasks is reported, and with the kernel's proc connector (root, in
 * the initial namespaces) a group that holds processes not until one of
 * them forks or exits, a write is reported or its turn comes (every 16th
 * pass); the reports are taken in at each scan and when entry 0 is asked,
 * so a pass over the groups begins there (memctl status's task_events
 * says whether the connector can be used). -ENODEV: the group is gone;
 * -ENOENT: no cgroup.procs; -errno.
 */
int mc_subtree_tasks(struct mc_subtree *t, size_t i, uint64_t *ret);

/*
 * The same count for a reader that asks for some groups at a time, in no
 * order (top's rows): no passes and no proc connector, so a group that
 * holds processes is read at every call; a group found empty, with its
 * cgroup.procs and tasks watched (v1) or cgroup.events saying unpopulated
 * (v2), counts 0 without a read until a report taken in at a scan.
 */
int mc_subtree_nprocs(struct mc_subtree *t, size_t i, uint64_t *ret);

/*
 * Opens entry i afresh under its name (after -ENODEV: a group removed and
 * made again between scan and read). 0, or -ENODEV when there is no group
 * of that name any more.
 */
int mc_subtree_reopen(struct mc_subtree *t, size_t i);

#endif
