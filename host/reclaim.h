#ifndef MEMCTL_RECLAIM_H
#define MEMCTL_RECLAIM_H

#include <stdint.h>

#include "host.h"
#include "plan.h"
#include "state.h"

/* reclaim.concurrency is capped here (also the profile's bound). */
#define MC_RECLAIM_CONCURRENCY_MAX 1024

struct mc_reclaim_result {
	int err;              /* 0, or -errno (-EBUSY/-EAGAIN: less than asked) */
	uint64_t reclaimed;   /* bytes the group's usage dropped by */
	/*
	 * The step's time, wall and the worker thread's CPU (the kernel
	 * reclaims in the writer's context, so this is the reclaim's own CPU:
	 * its scanning and freeing), with the usage reads around it and on v1
	 * the journal and the limit writes.
	 */
	double wall_s, cpu_s;
};

/*
 * Reclaims bytes from group (absolute, inside parent) on cgroup v1, which
 * has no memory.reclaim: the limit is lowered to usage - bytes, which makes
 * the kernel reclaim (or answer EBUSY instead of OOM-killing when it
 * cannot), then restored. The old limit is journaled in STATE_DIR/reclaim.SLOT
 * first, so a memctl killed in between leaves a journal that memctl rollback
 * restores. One slot per concurrent reclaimer; thread-safe for distinct
 * slots. Returns 0 or -errno (-EBUSY: the kernel could not reclaim that
 * much), with what was actually reclaimed in *ret_reclaimed.
 */
int mc_reclaim_v1(struct mc_host *h, struct mc_lock *l, unsigned slot, const char *parent,
		  const char *group, uint64_t bytes, uint64_t *ret_reclaimed);

/*
 * Executes plan's RECLAIM steps with at most concurrency in flight (v1:
 * mc_reclaim_v1, one journal slot per worker; v2: memory.reclaim, per
 * node with nodes= when the memctl kernel patch is present). ret has one
 * entry per plan step (only RECLAIM entries are filled). *ret_peak gets the
 * most reclaims that were in flight at once. Call with the lock held.
 */
int mc_reclaims_run(struct mc_host *h, struct mc_lock *l, const struct mc_plan *plan,
		    unsigned concurrency, struct mc_reclaim_result *ret, unsigned *ret_peak);

#endif
