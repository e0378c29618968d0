#ifndef MEMCTL_RECORDER_H
#define MEMCTL_RECORDER_H

#include <stdbool.h>

#include "cmd.h"
#include "plan.h"
#include "runstate.h"
#include "store.h"

/*
 * The history recorder that `memctl record` and `memctl run --record` share:
 * the store's options, the writer, one sample per interval, and the rule
 * that recording never stops the loop. A store that cannot be written (a
 * full disk) pauses recording with one log line; each interval tries
 * again, and the first sample written after says how many were lost.
 */
struct recorder {
	struct mc_store_writer *w;
	const char *dir;
	const char *who;          /* "record", "run": the log's prefix */
	bool journal;             /* stderr is journald's */
	bool paused;              /* the last append failed */
	bool pending;             /* s holds this interval's sample (recorder_take) */
	unsigned long lost;       /* samples not written while paused */
	unsigned long written;
	int last_err;             /* of the last failed capture, logged once */
	char **seen;              /* notes logged once */
	size_t n_seen, cap_seen;
	struct mc_hist_sample s;
};

/* The shared options' values (record, run): durations and sizes as text. */
struct recorder_opts {
	const char *dir;          /* --dir / --record */
	const char *retain;       /* --retain DURATION (default 7d) */
	const char *max_size;     /* --max-size SIZE (default 1G) */
};

/*
 * Parses o and opens the store. Prints why it cannot (the option and its
 * value, or the store's problem); returns 0 or the exit status (2 for a bad
 * value, 3 for a store that cannot be opened).
 */
int recorder_open(struct recorder *r, const struct recorder_opts *o, const char *who,
		  bool journal);
void recorder_close(struct recorder *r);

/*
 * memctl run's interval: the sample is the snapshot run decided on, read
 * at unix time time (its groups are moved out of snap), with the task
 * counts and the host's files read now; then each step run carried out is
 * brought into it (recorder_step), so that it holds the settings in force
 * after the interval (usage and statistics stay as run read them, before
 * its writes and reclaims). recorder_sample appends it.
 */
void recorder_take(struct recorder *r, struct mc_host *h, struct mc_snapshot *snap, double time);
void recorder_step(struct recorder *r, const struct mc_step *s);

/*
 * Appends the sample recorder_take made this interval or, when none was
 * (memctl record; a run interval that took no snapshot: its lock was busy,
 * its parent did not resolve), takes the sample of parent (absolute) now;
 * with run's interval when run is not NULL. Problems are logged, once per
 * cause; nothing is returned: the caller's loop goes on.
 */
void recorder_sample(struct recorder *r, struct mc_host *h, const char *parent,
		     const struct mc_runstate *run);

extern const struct mc_opt recorder_opt_retain;
extern const struct mc_opt recorder_opt_max_size;

#endif
