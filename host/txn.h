#ifndef MEMCTL_TXN_H
#define MEMCTL_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "plan.h"

/*
 * The apply transaction. One at a time per host, serialised by a flock on
 * STATE_DIR/lock (the kernel drops it when the holder dies, so a stale lock
 * from a killed memctl is taken over without guessing from PIDs).
 *
 * Before the first write the whole plan, with the previous value of every
 * file that will change and every group that will be created, is written to
 * STATE_DIR/journal and fsynced (file and directory). The journal is removed
 * only after the last write succeeded. On failure the steps already done are
 * undone in reverse order (the reverse of a valid order is valid too), groups
 * this apply created are removed, and the journal is removed only when all
 * of that succeeded.
 */

struct mc_txn_result {
	size_t done;            /* executed steps */
	size_t failed_step;     /* index of the step that failed (when rc < 0) */
	int failed_err;         /* its -errno */
	uint64_t readback;      /* when failed_err == -EIO: value the kernel kept */
	bool rolled_back;       /* everything done was undone */
	int rollback_err;       /* first error while undoing, 0 if none */
	char *rollback_what;    /* what could not be undone (allocated), or NULL */
};

struct mc_lock;

/*
 * Takes the lock in state_dir (created 0700 if missing). wait: block until
 * free; otherwise -EWOULDBLOCK. *ret_holder gets the PID recorded by the
 * holder when we had to wait or failed (0 if unknown).
 */
int mc_lock_take(const char *state_dir, bool wait, struct mc_lock **ret, int *ret_holder);
void mc_lock_release(struct mc_lock *l);

/*
 * True when state_dir holds a journal from an apply (or a v1 reclaim) that
 * did not finish.
 */
bool mc_journal_exists(const char *state_dir);

/*
 * Executes plan under the lock l. Returns 0 when all steps succeeded; a
 * negative errno otherwise, with details in *res (also filled on success).
 */
int mc_txn_apply(struct mc_host *h, struct mc_lock *l, const char *state_dir,
		 const struct mc_plan *plan, struct mc_txn_result *res);

/*
 * Restores the host from the journal an interrupted apply left: every file
 * back to its recorded value (in reverse order, skipping those already
 * equal), every group the apply created removed. Returns 0 (also when there
 * was no journal: *ret_found false), or the first -errno, leaving the journal
 * in place so rollback can be retried.
 */
int mc_txn_rollback(struct mc_host *h, struct mc_lock *l, const char *state_dir,
		    bool *ret_found, size_t *ret_restored, struct mc_txn_result *res);

/*
 * Reclaims bytes from group on cgroup v1, which has no memory.reclaim: the
 * limit is lowered to usage - bytes, which makes the kernel reclaim (or
 * answer EBUSY instead of OOM-killing when it cannot), then restored. The
 * old limit is journaled in STATE_DIR/reclaim.SLOT first, so a memctl killed
 * in between leaves a journal that memctl rollback restores. One slot per
 * concurrent reclaimer; thread-safe for distinct slots. Returns 0 or -errno
 * (-EBUSY: the kernel could not reclaim that much), with what was actually
 * reclaimed in *ret_reclaimed.
 */
int mc_txn_reclaim_v1(struct mc_host *h, struct mc_lock *l, unsigned slot, const char *group,
		      uint64_t bytes, uint64_t *ret_reclaimed);

void mc_txn_result_release(struct mc_txn_result *res);

/* reclaim.concurrency is capped here (also the profile's bound). */
#define MC_RECLAIM_CONCURRENCY_MAX 1024

struct mc_reclaim_result {
	int err;              /* 0, or -errno (-EBUSY/-EAGAIN: less than asked) */
	uint64_t reclaimed;   /* bytes the group's usage dropped by */
};

/*
 * Executes plan's RECLAIM steps with at most concurrency in flight (v1:
 * mc_txn_reclaim_v1, one journal slot per worker; v2: memory.reclaim, per
 * node with nodes= when the memctl kernel patch is present). ret has one
 * entry per plan step (only RECLAIM entries are filled). *ret_peak gets the
 * most reclaims that were in flight at once. Call with the lock held.
 */
int mc_reclaims_run(struct mc_host *h, struct mc_lock *l, const struct mc_plan *plan,
		    unsigned concurrency, struct mc_reclaim_result *ret, unsigned *ret_peak);

#endif
