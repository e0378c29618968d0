#ifndef MEMCTL_SOURCE_H
#define MEMCTL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "host.h"
#include "runstate.h"
#include "snapshot.h"
#include "subtree.h"

/*
 * Where the read model's values come from: the live tree (the host's
 * subtree reader, the state the running daemons publish) or a recorded
 * history (one sample of a store at a time). Everything downstream of
 * this seam is the same code: the model's rows, sort, filter and
 * collapse, rates, the columns, the renderers and the screen.
 *
 * A source answers what the subtree reader answers (the structure, then
 * values by entry), plus what else the model reads: task counts, the
 * host's pressure, the time the values are from, and the daemons'
 * decisions.
 */

struct top_source;

struct top_source_ops {
	/*
	 * The structure again: 1 when groups appeared or went since the last
	 * scan (entries from before are invalid), 0 when the entries keep their
	 * indexes, -ENOENT (the parent is gone), -errno. full: list everything
	 * (live: every directory).
	 */
	int (*scan)(struct top_source *s, bool full);
	size_t (*count)(const struct top_source *s);
	const struct mc_subtree_entry *(*entry)(const struct top_source *s, size_t i);
	/* The parent's effective limit at the last scan. */
	uint64_t (*limit)(const struct top_source *s);
	/* Reads the parts (MC_READ_*) of entry i into gs as mc_subtree_read. -ENODEV: gone. */
	int (*read)(struct top_source *s, size_t i, unsigned parts, struct mc_group_snap *gs);
	/* Processes in entry i itself. 0 or -errno. */
	int (*tasks)(struct top_source *s, size_t i, size_t *ret);
	/* The host's memory pressure (/proc/pressure/memory). 0 or -errno. */
	int (*host_psi)(struct top_source *s, struct mc_psi *ret);
	/* Unix seconds the values are from (live: now). */
	double (*wall)(const struct top_source *s);
	/*
	 * Entry i as the sample before this one had it, and that sample's time,
	 * for rates between consecutive samples (NULL where there is none).
	 * NULL op (live): rates come from the model's own previous read.
	 */
	const struct mc_group_snap *(*prev)(const struct top_source *s, size_t i, double *ret_t);
	/*
	 * The daemons' states whose decisions the rows show (an array the
	 * source keeps, valid until the next call) in *ret and *ret_n; true
	 * when they changed since the last call. NULL op (live): the model
	 * reads what the running daemons publish in the state directory.
	 */
	bool (*daemons)(struct top_source *s, const struct mc_runstate **ret, size_t *ret_n);
	/* --- a recorded history only (NULL for the live tree) --- */
	/*
	 * Moves delta samples on (negative: back), stopping at the first or
	 * the last. 0; -ENODATA when already there (nothing moved); -EBADMSG
	 * (problem says what), -errno.
	 */
	int (*step)(struct top_source *s, long delta);
	/* Moves to the sample recorded at t, or the last one before it (the first when t is earlier). */
	int (*seek)(struct top_source *s, double t);
	/* The times of the first and the last sample. 0, -ENODATA (none). */
	int (*range)(struct top_source *s, double *ret_first, double *ret_last);
	/* What the last -EBADMSG or -EPERM was about (naming the file), or NULL. */
	const char *(*problem)(const struct top_source *s);
	void (*free)(struct top_source *s);
};

struct top_source {
	const struct top_source_ops *ops;
	struct mc_caps caps;      /* the host's, or the recording host's */
	bool psi;                 /* per-group memory.pressure */
	bool numa_stat;
	bool patched;             /* memctl's kernel patch: its counters */
	bool replay;              /* values from the past: nothing to edit, no processes */
	const char *dir;          /* replay: the store's directory */
	const char *parent;       /* replay: the parent the samples recorded (absolute) */
};

/*
 * How close a time asked for must be to a sample's for it to be that
 * sample: memctl prints sample times to the millisecond (JSON's "time", the
 * screen's title), so a time copied from them names the sample even when
 * it was rounded up. Seeks and spans of a replay widen by this much.
 */
#define TOP_REPLAY_SLACK 0.0005

/* The live tree below parent (absolute) on host h. 0, -EINVAL, -ENOMEM. */
int top_source_live(struct mc_host *h, const char *parent, struct top_source **ret);

/*
 * The history recorded in the store in dir (memctl record, run --record),
 * positioned on the sample recorded at t or the last one before it (the
 * first when t is earlier). The parent is the one the samples recorded;
 * the store may hold groups appearing and going from one sample to the
 * next. -ENOENT (no such store), -ENODATA (no sample), -EPERM / -EBADMSG
 * with *ret_why (allocated: the file and what is wrong), -errno.
 */
int top_source_replay(const char *dir, double t, struct top_source **ret, char **ret_why);

void top_source_free(struct top_source *s);

#endif
