#ifndef MEMCTL_TOP_READ_H
#define MEMCTL_TOP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "snapshot.h"

/*
 * A light reader for `memctl top`: the tree below a parent, and for each
 * group only the files asked for. A full snapshot reads every file of every
 * group; a screen needs the sort key of every group and the rest only for
 * the rows it shows, so the reader splits the two: scan() walks the
 * directories (structure only), read() preads the parts asked for through
 * descriptors kept open per group and file. Functions return 0 or -errno
 * and never print.
 */

/* Parts of a group that read() can fill in a struct mc_group_snap. */
enum {
	MC_TOP_READ_USAGE = 1 << 0,   /* usage */
	MC_TOP_READ_KNOBS = 1 << 1,   /* raw[] / raw_valid[] */
	MC_TOP_READ_STAT = 1 << 2,    /* stat */
	MC_TOP_READ_NUMA = 1 << 3,    /* numa, n_numa */
	MC_TOP_READ_EVENTS = 1 << 4,  /* events (v1: failcnt as "max", oom_kill) */
	MC_TOP_READ_PSI = 1 << 5,     /* psi */
	MC_TOP_READ_ALL = (1 << 6) - 1,
};

struct mc_top_entry {
	const char *path;   /* relative to the parent; "" is the parent itself */
	const char *abs;    /* absolute cgroup path */
	unsigned depth;     /* 0 for the parent */
	size_t up;          /* index of the parent entry; (size_t)-1 for entry 0 */
};

struct mc_top_reader;

/* A reader of the subtree at parent (absolute cgroup path). 0, -ENOMEM. */
int mc_top_reader_new(struct mc_host *h, const char *parent, struct mc_top_reader **ret);
void mc_top_reader_free(struct mc_top_reader *r);

/*
 * Walks the subtree again: entries in preorder, children in name order. A
 * directory is listed again (getdents, several microseconds on cgroupfs)
 * only when full is set or its link count changed since its last listing
 * (an fstat); otherwise its last listing is used. Descriptors of groups
 * seen before are kept; those of vanished groups are closed. Also reads the
 * parent's effective limit. Returns 1 when groups appeared or went (then
 * entries from an earlier scan are invalid), 0 when the tree is as before
 * (entries keep their indexes), -ENOENT (the parent is gone), -ENOMEM.
 */
int mc_top_reader_scan(struct mc_top_reader *r, bool full);

size_t mc_top_reader_count(const struct mc_top_reader *r);
const struct mc_top_entry *mc_top_reader_entry(const struct mc_top_reader *r, size_t i);
/* Smallest max of the parent's ancestors (the parent excluded), capped at RAM. */
uint64_t mc_top_reader_above_limit(const struct mc_top_reader *r);

/*
 * Reads the parts of entry i into gs; the members of other parts are left
 * as they were, those of the parts read are replaced. A missing file leaves
 * its part invalid (not an error). -ENODEV: the group is gone.
 */
int mc_top_reader_read(struct mc_top_reader *r, size_t i, unsigned parts,
		       struct mc_group_snap *gs);

#endif
