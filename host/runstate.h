#ifndef MEMCTL_RUNSTATE_H
#define MEMCTL_RUNSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The live state `memctl run` publishes after every interval, and what
 * `memctl top` and `memctl export` read back: per group the engine's
 * decisions with their reasons, the working-set estimate and the cap, the
 * writes and reclaims (asked and obtained) of the last interval, its
 * problems, and per daemon the interval's time and duration, totals since
 * it started and a histogram of interval durations.
 *
 * The file is STATE_DIR/run.PID.state (one per daemon: memctl@NAME units
 * share the state directory), replaced atomically each interval. The
 * format is text, one record per line, fields separated by tabs, with
 * backslash, tab, newline and carriage return in a field escaped as \\,
 * \t, \n and \r:
 *
 *   memctl-run-state  1
 *   pid  1234
 *   started  UNIXTIME                  (seconds, decimal fraction)
 *   profile  PATH
 *   parent  ABSPATH
 *   period_ms  N
 *   dry_run  0|1                        (1: decisions logged, nothing written)
 *   interval  N  UNIXTIME  DURATION_S  EXIT_CODE
 *   totals  RECLAIMED_BYTES  RECLAIM_REQUESTS  RECLAIM_FAILURES  INTERVALS_FAILED
 *   duration_hist  COUNT  SUM_S  C0 ... C(N-1)   (per bucket of mc_run_hist_le, not cumulative)
 *   group  ABSPATH  WSET|-  CAP|-
 *   set  ABSPATH  POLICY  KNOB  VALUE  REASON          (a policy decision)
 *   write  ABSPATH  POLICY  KNOB  OLD|-  NEW  REASON   (a write made: file values)
 *   reclaim  ABSPATH  POLICY  ASKED  GOT  ERRNO  REASON
 *   note  TEXT
 *   error  TEXT
 *   end
 *
 * Values are decimal bytes, "max" for no limit; seconds (UNIXTIME,
 * DURATION_S, SUM_S) are decimals of at most 1e11. A reader treats the file
 * as untrusted input: see mc_runstate_read.
 */

#define MC_RUNSTATE_VERSION 1
/* A state file larger than this is refused (1000 groups need about 1 MiB). */
#define MC_RUNSTATE_MAX_BYTES (16u << 20)
/* Interval duration histogram: upper bounds in seconds, then +Inf. */
#define MC_RUN_HIST_N 12
extern const double mc_run_hist_le[MC_RUN_HIST_N - 1];

enum mc_run_kind {
	MC_RUN_SET,       /* a policy decided a value (applied or already in place) */
	MC_RUN_WRITE,     /* a file was written this interval */
	MC_RUN_RECLAIM,   /* a reclaim was asked this interval */
};

struct mc_run_decision {
	enum mc_run_kind kind;
	char *group;      /* absolute cgroup path */
	char *policy;     /* "active-set", "soft-limit", ... ; "profile" for the profile's own */
	char *knob;       /* SET: knob name ("low"); WRITE: the file ("memory.low"); RECLAIM: "" */
	bool old_valid;   /* WRITE: false when the group was new */
	uint64_t old;     /* WRITE */
	uint64_t value;   /* SET: the value; WRITE: new; RECLAIM: asked */
	uint64_t got;     /* RECLAIM: obtained */
	int err;          /* RECLAIM: -errno, 0 */
	char *reason;
};

struct mc_run_group {
	char *group;      /* absolute */
	bool ws_valid;
	uint64_t ws;      /* working-set estimate, bytes */
	bool cap_valid;
	uint64_t cap;     /* the engine's cap on the group's max (v1 active-set) */
};

struct mc_runstate {
	long pid;
	double started;           /* unix time */
	char *profile;
	char *parent;             /* the profile's parent, absolute */
	uint64_t period_ms;
	bool dry_run;
	unsigned long interval;   /* intervals run (the last one's number) */
	double time;              /* unix time at the end of the last interval */
	double duration;          /* seconds the last interval took */
	int exit_code;            /* the last interval's (0: it completed) */
	uint64_t reclaimed_bytes, reclaim_requests, reclaim_failures, intervals_failed;
	uint64_t hist[MC_RUN_HIST_N];
	uint64_t hist_count;
	double hist_sum;
	struct mc_run_group *groups;
	size_t n_groups, cap_groups;
	struct mc_run_decision *dec;
	size_t n_dec, cap_dec;
	char **notes;
	size_t n_notes, cap_notes;
	char **errors;
	size_t n_errors, cap_errors;
};

/* Frees what s owns and zeroes it. */
void mc_runstate_release(struct mc_runstate *s);

/*
 * Forgets the per-interval records (groups, decisions, notes, errors) and
 * keeps the arrays' memory for the next interval. Totals stay.
 */
void mc_runstate_clear_interval(struct mc_runstate *s);

/* Appenders (strings are copied; NULL strings become ""). 0 or -ENOMEM. */
int mc_runstate_add_group(struct mc_runstate *s, const char *group, bool ws_valid, uint64_t ws,
			  bool cap_valid, uint64_t cap);
int mc_runstate_add_decision(struct mc_runstate *s, const struct mc_run_decision *d);
int mc_runstate_add_note(struct mc_runstate *s, const char *text);
int mc_runstate_add_error(struct mc_runstate *s, const char *text);

/* Counts one interval's duration in the histogram. */
void mc_runstate_observe(struct mc_runstate *s, double seconds);

/*
 * Formats s into *buf (grown with realloc as needed; *cap its size, both
 * kept by the caller for reuse). *ret_len gets the length. 0 or -ENOMEM.
 */
int mc_runstate_format(const struct mc_runstate *s, char **buf, size_t *cap, size_t *ret_len);

/*
 * Parses a state file's text (pure). Every line must be a known record with
 * the right number of fields, numbers decimal without sign, paths absolute;
 * "end" must come last. Unknown record names are skipped (a newer memctl may
 * add some). -EINVAL with the 1-based line in *ret_line, -ENOMEM.
 */
int mc_runstate_parse(const char *text, size_t len, struct mc_runstate *ret, size_t *ret_line);

/*
 * Publishes s as STATE_DIR/run.PID.state: written to a temporary file in
 * the same directory (mode 0644: who can read it is decided by the state
 * directory's own mode, 0700 by default), then renamed over the old one, so
 * a reader sees a whole file, the old or the new. Not fsynced: the state
 * describes a live process and lives on /run (tmpfs). buf/cap as for
 * mc_runstate_format (kept by the caller so a steady loop does not
 * allocate). 0 or -errno.
 */
int mc_runstate_publish(const char *state_dir, const struct mc_runstate *s, char **buf,
			size_t *cap);

/* Removes this process's state file (a daemon that stops). 0 or -errno. */
int mc_runstate_unpublish(const char *state_dir, long pid);

/*
 * Reads the state file name (a name in state_dir, not a path) as untrusted
 * input: the directory must be owned by root or the caller's effective user
 * and writable by no one else; the file, opened with O_NOFOLLOW,
 * must be a regular file with one link owned by root or by the caller's
 * effective user, writable by no one else, and at most
 * MC_RUNSTATE_MAX_BYTES; then parsed as mc_runstate_parse. -ELOOP (a
 * symlink), -EPERM (owner or mode), -EFBIG, -EINVAL (with *ret_line),
 * -errno.
 */
int mc_runstate_read(const char *state_dir, const char *name, struct mc_runstate *ret,
		     size_t *ret_line);

/*
 * The running daemons: every state file in state_dir (run.*.state) whose
 * process is alive, read as mc_runstate_read; a file left by a killed
 * daemon is ignored. *ret is an array of *ret_n states (free each with
 * mc_runstate_release, then the array). A file refused as untrusted is
 * left out and counted in *ret_refused, with the reason of the last one in
 * *ret_problem (static text; NULL when none was). 0 (also when there is no
 * state directory: no daemon), -ENOMEM.
 */
int mc_runstate_list(const char *state_dir, struct mc_runstate **ret, size_t *ret_n,
		     size_t *ret_refused, const char **ret_problem);

/*
 * A signature of the state files in state_dir (names, inodes, sizes,
 * modification times, whether their process lives): a reader lists them
 * again only when it changed. 0 (*ret 0: no state file), -ENOMEM.
 */
int mc_runstate_dir_sig(const char *state_dir, uint64_t *ret);

/* A state directory's files as last listed, and the inotify watch that says when to list again. */
struct mc_runstate_watch {
	int fd;               /* inotify; -1: none (every call lists) */
	int wd;               /* the watch on the directory; -1: none */
	dev_t dev;            /* the directory watched */
	ino_t ino;
	bool listed;          /* v holds its files, and no event came since */
	struct { long pid; uint64_t part; } *v;
	size_t n, cap;
	unsigned long listings;   /* how often it was listed (for tests) */
};

/* Starts w empty; with inotify false (or none to be had) every call lists the directory. */
void mc_runstate_watch_init(struct mc_runstate_watch *w, bool inotify);
void mc_runstate_watch_release(struct mc_runstate_watch *w);

/*
 * mc_runstate_dir_sig's signature of state_dir, the same value, listing
 * the directory only when w's watch reported a change since the last
 * listing (whether each process lives is asked at every call).
 */
int mc_runstate_dir_sig_watched(struct mc_runstate_watch *w, const char *state_dir, uint64_t *ret);

/*
 * Which of n daemons manages group (absolute): the one whose parent is
 * the group or its nearest ancestor. Returns its index, or -1.
 */
int mc_runstate_owner(const struct mc_runstate *v, size_t n, const char *group);

/* The next decision about group from index *pos on (advancing *pos past it), or NULL. */
const struct mc_run_decision *mc_runstate_next(const struct mc_runstate *s, const char *group,
					       size_t *pos);

/* The group record for group, or NULL. */
const struct mc_run_group *mc_runstate_group(const struct mc_runstate *s, const char *group);

#endif
