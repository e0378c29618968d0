#ifndef MEMCTL_TXN_H
#define MEMCTL_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "journal.h"
#include "plan.h"
#include "reclaim.h"
#include "sdbus.h"
#include "state.h"

/*
 * The apply transaction. One at a time per state directory (its lock,
 * state.h) and per subtree of the host (mc_lock_subtree, taken by the
 * caller before it plans, so that what it plans from is what it changes).
 *
 * Before the first write the whole plan, with the previous value of every
 * file that will change and every group that will be created, is written to
 * STATE_DIR/journal and fsynced (file and directory). The journal is removed
 * only after the last write succeeded. On failure the steps already done are
 * undone in reverse order (the reverse of a valid order is valid too), groups
 * this apply created are removed, and the journal is removed only when all
 * of that succeeded; otherwise it records that the apply failed.
 */

struct mc_txn_result {
	size_t done;            /* executed steps */
	size_t undone;          /* changes undone (by the apply's rollback, or rollback) */
	size_t failed_step;     /* index of the step that failed (when rc < 0) */
	int failed_err;         /* its -errno */
	uint64_t readback;      /* when failed_err == -EIO: value the kernel kept */
	bool rolled_back;       /* everything done was undone */
	int rollback_err;       /* first error while undoing, 0 if none */
	char *rollback_what;    /* what could not be undone (allocated), or NULL */
	char *bad_journal;      /* rollback: the journal that could not be read (allocated) */
	unsigned bad_line;      /* its line, for -EBADMSG */
	long lock_holder;       /* rollback: who held a journal's subtree (-EWOULDBLOCK) */
	size_t left_alone;      /* rollback: values changed since by someone else, kept */
	char *left_what;        /* the first of them (allocated), or NULL */
	int record_err;         /* the record of created groups could not be brought in
	                           step (state.h): the host is right, the record lags */
	/* what systemd's bus said when the failed step (failed_bus) or the first
	 * failed undo (rollback_bus) was a unit's; fail MC_BUS_OK otherwise */
	struct mc_bus_error failed_bus;
	struct mc_bus_error rollback_bus;
};

/*
 * Executes plan under the lock l. Returns 0 when all steps succeeded;
 * -EALREADY when a journal is pending; the journal's -errno before any
 * write (res->done == 0, res->failed_err == 0); or the failed step's -errno,
 * with details in *res (also filled on success).
 */
int mc_txn_apply(struct mc_host *h, struct mc_lock *l, const struct mc_plan *plan,
		 struct mc_txn_result *res);

/*
 * systemd's Ids of unit names (an alias's is the unit it stands for), kept
 * between calls of mc_txn_lock_units by a caller that locks the same units
 * again and again: memctl run, every interval, and a lock taken again after
 * waiting. Zeroed is empty. The rule that keeps it true: an Id is kept only
 * as systemd gave it (a name it could not resolve is asked for again next
 * time); mc_txn_lock_units empties it when it fails other than by waiting
 * for a holder; its owner empties it whenever the names could have come to
 * stand for other units (memctl run: on SIGHUP, and after every interval
 * that failed once it held the units' locks). Between those an alias
 * systemd re-points (a changed unit file and daemon-reload) is still
 * locked under its old Id.
 */
struct mc_unit_ids {
	char **name;            /* as the caller gave it */
	char **id;              /* systemd's Id of name[i] */
	size_t n, cap;
};

/* Empties c (NULL: nothing), freeing what it holds. */
void mc_unit_ids_clear(struct mc_unit_ids *c);

/*
 * Takes the host-wide locks (mc_lock_units) of the n systemd units named
 * in units, each under its own name as systemd reports it (so that an
 * alias and its unit share one lock): from ids where it has the name,
 * else asked of systemd and kept there (ids NULL: asked each time). A name
 * systemd cannot resolve now is locked as written: no write can reach it
 * before the planner has reported why. *ret_busy (one of units, as given)
 * and *ret_holder as for mc_lock_units. Returns 0 or -errno as
 * mc_lock_units (-ENOMEM); on any failure but -EWOULDBLOCK ids is emptied.
 */
int mc_txn_lock_units(struct mc_host *h, struct mc_lock *l, const char *const *units, size_t n,
		      long timeout_ms, struct mc_unit_ids *ids, const char **ret_busy,
		      long *ret_holder);

/*
 * Restores the host from the journals an interrupted apply (or v1 reclaim)
 * left: every file back to its recorded value (in reverse order, skipping
 * those already equal), every group the apply created removed, each under
 * the subtree lock of the journal's parent and the locks of its units. A file that holds neither its
 * old value nor the one the apply wrote was changed since by someone else:
 * it is kept (res->left_alone), not overwritten. Returns 0 (also when there was
 * no journal: *ret_found false), or the first -errno, leaving that journal
 * in place so rollback can be retried (-EBADMSG / -EPERM: a journal that is
 * damaged or refused, named in res->bad_journal).
 */
int mc_txn_rollback(struct mc_host *h, struct mc_lock *l, bool *ret_found, size_t *ret_restored,
		    struct mc_txn_result *res);

void mc_txn_result_release(struct mc_txn_result *res);

#endif
