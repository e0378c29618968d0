#ifndef MEMCTL_STORE_H
#define MEMCTL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "runstate.h"
#include "snapshot.h"

/*
 * The history store: what `memctl record` and `memctl run --record` write
 * every interval, and what `memctl dump` and `memctl top --replay` read
 * back. The format is described (and versioned) in docs/STORE.md: a
 * directory of append-only shards, each a data file of checksummed,
 * zstd-compressed records (a keyframe every few records, the others
 * delta-encoded against the record before) and an index file from time to
 * offset.
 *
 * A sample is one moment of one recorded parent: every group below it with
 * the values the read model shows (struct mc_group_snap, v2 key names on
 * every host, as the subtree reader gives them) and its task count, the
 * host's memory figures, and, when `memctl run` recorded it, that
 * interval's published state (decisions with reasons, working sets,
 * reclaims asked and obtained, notes and errors: struct mc_runstate).
 * Groups may appear and disappear from one sample to the next.
 *
 * Store files are untrusted input: the reader checks the directory and
 * each file as the state directory is checked (owned by root or the
 * caller, writable by no one else, no symbolic link, one hard link), and
 * a record that is corrupt, or whose contents do not make sense, is an
 * error with a description (mc_store_problem), never a crash. A torn tail
 * (the writer killed in the middle of a record) is not an error: the
 * record is skipped, everything before it reads.
 *
 * Functions return 0 or -errno and never print.
 */

#define MC_STORE_VERSION 1

/* One group of a sample. */
struct mc_hist_group {
	/*
	 * path relative to the sample's parent ("" is the parent), present is
	 * true, the parts the recorder read are valid (usage_valid, raw_valid[],
	 * psi.valid; stat, events, numa empty when not read); keys of stat,
	 * events and numa point into the reader (borrowed: valid until
	 * mc_store_close), path is the group's own.
	 */
	struct mc_group_snap g;
	bool tasks_valid;
	uint64_t tasks;           /* processes in the group itself (cgroup.procs) */
};

/* The host's memory figures of a sample. */
struct mc_hist_host {
	struct mc_kvs meminfo;    /* /proc/meminfo: "MemTotal"... in bytes (kB lines times
	                             1024), the HugePages_* counts as they are */
	struct mc_kvs vmstat;     /* the reclaim fields of /proc/vmstat (pgscan*, pgsteal*,
	                             workingset_*, oom_kill, ...: mc_vmstat_reclaim_field in proc-read.h) */
	struct mc_psi psi;        /* /proc/pressure/memory; valid false where there is none */
};

struct mc_hist_sample {
	double time;              /* unix seconds when it was read */
	char *parent;             /* absolute cgroup path of the parent recorded */
	int cgroup_version;       /* 1 or 2: which names the knobs had on the host */
	struct mc_hist_group *groups;   /* [0] the parent, then preorder */
	size_t n_groups;
	size_t cap_groups;
	struct mc_hist_host host;
	/*
	 * The parent's effective limit: the smallest max of it and its
	 * ancestors, capped at RAM (mc_host_effective_limit); stores written
	 * before it was recorded lack it
	 */
	bool parent_limit_valid;
	uint64_t parent_limit;
	bool have_run;            /* written by memctl run --record: run holds the interval */
	struct mc_runstate run;
};

/* Frees what s owns and zeroes it. */
void mc_hist_sample_release(struct mc_hist_sample *s);

/* The group of s at path (relative), or NULL. */
const struct mc_hist_group *mc_hist_find(const struct mc_hist_sample *s, const char *path);

/* --- writing --- */

struct mc_store_opts {
	uint64_t retain_s;        /* shards whose newest record is older: deleted; 0: kept */
	uint64_t max_bytes;       /* the oldest shards deleted while the store is larger;
	                             0: no limit */
	unsigned keyframe_every;  /* a keyframe every N records; 0: MC_STORE_KEYFRAME_EVERY */
	int level;                /* zstd level; 0: MC_STORE_ZSTD_LEVEL */
};
#define MC_STORE_KEYFRAME_EVERY 8
#define MC_STORE_ZSTD_LEVEL 3

struct mc_store_writer;

/*
 * Opens the store in dir for appending, creating dir (mode 0700) when it is
 * not there. The directory must be trusted (see above): -EPERM with the
 * reason in *ret_why (allocated). Another writer of the same store is
 * -EBUSY (a lock in dir). A torn record at the end of the newest shard (a
 * writer killed) is cut off, and records the index lacks are indexed.
 * -errno; *ret_why, when not NULL, may say more for any error (free it).
 */
int mc_store_writer_open(const char *dir, const struct mc_store_opts *o,
			 struct mc_store_writer **ret, char **ret_why);
void mc_store_writer_close(struct mc_store_writer *w);

/*
 * Appends sample s (s->time not earlier than the last sample's: a sample
 * from before it, after the clock stepped back, is stamped with the last
 * time). A new shard begins at each UTC day and when the current one
 * reaches an eighth of max_bytes; then retention runs. Data and index are
 * written with plain write() (no fsync: a crash loses at most the last
 * records, which the next open cuts off). On a failed write (-ENOSPC: the
 * disk is full) what was written of the record is cut off again, nothing
 * of it stays, and the next append starts with a keyframe. -errno.
 */
int mc_store_append(struct mc_store_writer *w, const struct mc_hist_sample *s);

/* Bytes the store's files take now (data and index of every shard). */
uint64_t mc_store_writer_bytes(const struct mc_store_writer *w);

/* --- reading --- */

struct mc_store_reader;

/*
 * Opens the store in dir for reading (trust checks as above: -EPERM with
 * *ret_why). An empty store opens (every read is -ENODATA). -ENOENT: no
 * such directory; -errno.
 */
int mc_store_open(const char *dir, struct mc_store_reader **ret, char **ret_why);
void mc_store_close(struct mc_store_reader *r);

/*
 * The times of the first and the last sample of the store (as it was
 * when opened or last refreshed). -ENODATA when it has none.
 */
int mc_store_range(struct mc_store_reader *r, double *ret_first, double *ret_last);

/*
 * Reads the sample recorded at time t, or the last one before it (the
 * first sample when t is earlier than all), into *ret (what it held is
 * released; the caller releases it at the end, mc_hist_sample_release).
 * It becomes the reader's position. A t past any time a store can hold
 * (2^64 ns, infinity) reads its last sample; NaN is -EINVAL. -ENODATA
 * (empty store), -EBADMSG (a corrupt record: mc_store_problem says where
 * and what), -errno.
 */
int mc_store_seek(struct mc_store_reader *r, double t, struct mc_hist_sample *ret);

/*
 * The sample after (next) or before (prev) the position, into *ret as
 * seek does; the position moves to it. -ENODATA at the end (next) or the
 * start (prev): the position stays. A corrupt record is -EBADMSG and the
 * position moves past it, so the caller may go on.
 */
int mc_store_next(struct mc_store_reader *r, struct mc_hist_sample *ret);
int mc_store_prev(struct mc_store_reader *r, struct mc_hist_sample *ret);

/*
 * Takes in what the writer appended since the store was opened or last
 * refreshed (new records, new shards; shards deleted by retention). The
 * position stays on its sample when that is still there. 0 or -errno.
 */
int mc_store_refresh(struct mc_store_reader *r);

/*
 * Why the last call failed with -EBADMSG (or -EPERM), naming the shard
 * file and the offset: "'DIR/20261201-000000.mcd': record at 4096: checksum
 * mismatch". NULL when it did not. Valid until the next call.
 */
const char *mc_store_problem(const struct mc_store_reader *r);

/* Torn records skipped at shard ends so far (a writer killed mid-record). */
size_t mc_store_torn(const struct mc_store_reader *r);

#endif
