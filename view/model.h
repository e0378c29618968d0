#ifndef MEMCTL_MODEL_H
#define MEMCTL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "host.h"
#include "plan.h"
#include "policy.h"
#include "proc-read.h"
#include "profile.h"
#include "runstate.h"
#include "source.h"
#include "subtree.h"

/*
 * The read model under every front end (systemd-cgtop / htop style:
 * refresh fills the model, renderers only format it). `memctl top` shows
 * it on a screen or in batch mode, `memctl export` and `run --export`
 * render it for monitoring; the names carry top_ because top was first.
 *
 * A refresh reads the sort key of every group; a front end then asks for
 * the other columns of the rows it shows (top_model_fill), so the cost of a
 * refresh grows with the screen, not with the tree. New and removed groups
 * are found by the reader's walk, which lists again only the directories
 * whose link count changed.
 *
 * Rows keep the host's strings as they are (a group name is whatever its
 * creator chose: control characters, bytes that are not UTF-8); renderers
 * escape them for their format (escape.h), and `label` is the name
 * already escaped for text.
 */

/* A counter whose rate per second is shown (refaults, limit hits, OOM kills). */
struct top_rate {
	uint64_t prev;
	double prev_t;        /* when prev was read; 0: never */
	double rate;
	bool valid;           /* rate computed from two reads */
};

struct top_row {
	/*
	 * First, in one cache line: what the display order reads of every row
	 * at every refresh (with 1000 rows, each line of a row it touches is
	 * a cache miss of its own after a second of sleep).
	 */
	size_t up;            /* row of the parent group; (size_t)-1 for row 0 */
	size_t label_len;     /* strlen(label) */
	unsigned depth;
	bool has_children;
	bool collapsed;
	bool gone;            /* vanished since the last directory walk */
	char *path;           /* relative to the parent ("" is the parent) */
	char *abs;            /* absolute cgroup path */
	const char *name;     /* last component; the absolute path for the parent row */
	const char *label;    /* name escaped for text (escape.h); name when nothing to escape */
	char *label_buf;      /* label's memory when it differs from name */
	size_t entry;         /* index in the reader */
	struct mc_group_snap g;
	unsigned have;        /* parts ever read (MC_READ_*) */
	unsigned fresh;       /* parts read in refresh fresh_at (older: none this refresh) */
	unsigned long fresh_at;
	uint64_t eff_limit;   /* min of its max and every ancestor's */
	struct top_rate refault, max_events, oom_kill;
	size_t tasks;         /* processes in the group itself (TOP_READ_TASKS) */
	bool tasks_valid;
	char *decision;       /* the engine's last decision for the group, with reason */
	char *decision_label; /* decision escaped for text; NULL with decision */
	int daemon;           /* index in the model's daemons managing it; -1: none,
	                         TOP_DAEMON_UNKNOWN: not looked up yet */
	/* a row with children: their growth not seen yet (see watch_growth) */
	uint64_t kids_usage;  /* the sum of the children's usage as last read */
	int64_t grow_base;    /* usage - kids_usage at its lowest since the last sweep */
	bool grow_valid;      /* grow_base follows the row's usage, read every refresh */
	unsigned long swept_at;   /* refresh of the last sweep of its children's keys */
	/* the screen's memory.stat (see stat_lazy) */
	unsigned long stat_at;    /* refresh of its last memory.stat read */
	uint64_t stat_usage;      /* its usage then */
};
#define TOP_DAEMON_UNKNOWN (-2)

/*
 * Parts the model reads beside the reader's (MC_READ_*): the number of
 * processes, from cgroup.procs through the host layer.
 */
#define TOP_READ_TASKS (1u << 16)

/* The running `memctl run` daemons, from their published state (daemons.c). */
struct top_daemons {
	char *state_dir;      /* NULL: not looked for */
	struct mc_runstate *v;
	size_t n;
	bool borrowed;        /* v is the source's (a recorded sample's), not ours to free */
	uint64_t sig;         /* of the state files last read (mc_runstate_dir_sig) */
	struct mc_runstate_watch watch;   /* when to list the state directory again */
	size_t refused;       /* state files refused as untrusted */
	const char *problem;  /* why the last one was */
};

/* Policy decisions shown by top (with --profile); nothing is written. */
struct top_policy {
	const struct mc_profile *profile;
	struct mc_policy *pol;
	char *parent;         /* the profile's parent, absolute */
	char *error;          /* the last problem, for the status line */
	char **dec_abs;       /* last decision per group (absolute path), with text */
	char **dec_text;
	size_t n_dec;
	size_t cap_dec;
};

/*
 * The display order's working arrays, kept from one refresh to the next:
 * the children of each row (grouped by parent, each group in the last
 * order computed) and the filter's marks. Valid for the rows of the last
 * directory walk (n); n 0: to be built again.
 */
struct top_order_buf {
	size_t *kids;         /* children of each row, grouped by parent */
	size_t *kid_start;    /* kids[kid_start[i] .. kid_start[i+1]) */
	size_t *fill;
	bool *keep;           /* matches the filter, or has a match below */
	struct top_val *key;  /* each row's value of a numeric sort column, this order */
	bool *key_stale;      /* row i was read since key[i] was taken */
	bool keyed;           /* key holds them (else siblings compare through the column) */
	bool keys_valid;      /* key holds column key_col's values but for key_stale rows */
	int key_col;
	size_t n;
	size_t cap;           /* elements each array has room for */
};

struct top_model {
	struct mc_host *h;
	const struct mc_caps *caps;   /* the source's: the host's, or the recording host's */
	struct top_source *src;       /* where the values come from (owned) */
	char *parent;
	struct top_row *rows;
	size_t n;
	size_t *order;        /* rows shown, in display order */
	size_t n_order;
	int sort_col;         /* index in top_cols */
	bool reverse;
	char *filter;         /* substring of names (case-insensitive), or NULL */
	double now;           /* CLOCK_MONOTONIC seconds of the refresh */
	double wall;          /* unix seconds the values are from (live: the refresh) */
	unsigned long refreshes;
	bool rescan;          /* list every directory at the next refresh (a group was
	                         found gone: it may have been made again) */
	struct top_policy policy;
	struct top_daemons daemons;
	bool host_psi_valid;  /* /proc/pressure/memory, read every refresh */
	struct mc_psi host_psi;
	size_t key_budget;    /* sort keys read per refresh at most (rows off screen
	                         take turns); 0: every row, every refresh */
	size_t key_budget_watched;   /* the same while sorted by usage, largest first,
	                         where the parents' usage shows growth off screen
	                         (watch_growth); 0: key_budget */
	uint64_t shown_min_usage;    /* the smallest usage of the rows the last fill read */
	bool stat_lazy;       /* top_model_fill reads a row's memory.stat again when its
	                         usage moved, and otherwise every other refresh (the
	                         screen) */
	unsigned long sweeps; /* sweeps of a parent's children (watch_growth) */
	unsigned long reads;  /* files read, for the cost figures */
	struct top_order_buf ob;
	/*
	 * Rows made by the last directory walk and not yet through a whole
	 * pass of the sort keys and the daemons' lookup (the other refreshes
	 * touch only the rows whose turn it is: with 1000 groups each pass
	 * over every row costs cache misses of its own).
	 */
	bool keys_new, daemons_new;
	bool daemons_none;    /* the last lookup found no state: every row's daemon is -1 */
	size_t label_max;     /* widest depth * 2 + label_len of the rows in order */
};

/* A model of the live groups below parent (absolute). 0 or -errno. */
int top_model_init(struct top_model *m, struct mc_host *h, const char *parent);

/*
 * A model of the groups src gives (source.h), below parent (absolute);
 * the model owns src from here on, also when this fails. h is the live
 * host (for --profile's policy run). 0 or -ENOMEM.
 */
int top_model_init_source(struct top_model *m, struct mc_host *h, const char *parent,
			  struct top_source *src);
void top_model_release(struct top_model *m);

/*
 * Uses profile p (kept by the caller) to show the engine's decisions and
 * working-set estimates each refresh. 0 or -errno.
 */
int top_model_set_profile(struct top_model *m, const struct mc_profile *p,
			  struct mc_policy *pol, const char *parent_abs);

/*
 * One refresh at time now: the directory walk when due, the sort key of
 * every row, the policy when a profile is set, then the display order.
 * -ENOENT when the parent is gone.
 */
int top_model_refresh(struct top_model *m, double now);

/* Recomputes the display order (after a change of sort, filter or collapse). */
void top_model_order(struct top_model *m);

/*
 * Reads parts for the rows order[first..first+count) and for row extra
 * ((size_t)-1: none), with the ancestors' limits the % column needs.
 */
int top_model_fill(struct top_model *m, size_t first, size_t count, size_t extra,
		   unsigned parts);

/*
 * Sorts by column col (reverse: the other way round), reading its key for
 * every row that does not have it from this refresh yet. 0 or -errno.
 */
int top_model_sort_by(struct top_model *m, int col, bool reverse);

/* Row index of path (relative), or (size_t)-1. */
size_t top_model_find(const struct top_model *m, const char *path);

/* --- daemons.c --- */

/* Looks for daemons in state_dir at every refresh. 0 or -ENOMEM. */
int top_daemons_init(struct top_daemons *d, const char *state_dir);
void top_daemons_release(struct top_daemons *d);

/*
 * Reads the daemons' state again when their files changed, and sets each
 * row's daemon and its decision text (the daemon's decisions replace the
 * simulated ones of --profile for the groups a daemon manages).
 */
void top_daemons_refresh(struct top_model *m);

/* The daemon managing row r, or NULL. */
const struct mc_runstate *top_row_daemon(const struct top_model *m, const struct top_row *r);

/*
 * One line for decision d: "active-set: memory.low 0 -> 120M: REASON",
 * "soft-limit: reclaim 64M, got 60M: REASON", "thp-high: high = 510M: REASON".
 * Newly allocated, or NULL.
 */
char *top_decision_text(const struct mc_run_decision *d);

/*
 * Appends the decisions of group (absolute; NULL: every group) in s as a JSON array of
 * {"kind","policy","group","knob","old","new","got","error","reason"}
 * (sizes in bytes or "max"; old null for a new group or a setting, got and
 * error only for reclaims).
 */
void top_json_decisions(struct mc_buf *b, const struct mc_runstate *s, const char *group);

/*
 * Appends the daemon's own figures as a JSON object: pid, profile, parent,
 * dry_run, interval, time, duration_seconds, reclaimed_bytes,
 * reclaim_requests, reclaim_failures, intervals_failed, and
 * interval_duration_seconds {count, sum, buckets [{le, count}] cumulative},
 * and decisions (every group's, as top_json_decisions).
 */
void top_json_daemon(struct mc_buf *b, const struct mc_runstate *s);

#endif
