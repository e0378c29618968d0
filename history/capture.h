#ifndef MEMCTL_CAPTURE_H
#define MEMCTL_CAPTURE_H

#include "host.h"
#include "plan.h"
#include "store.h"

/*
 * Taking a sample of the live host for the store: the snapshot of every
 * group below parent (mc_host_snapshot: usage, every knob, memory.stat,
 * numa_stat, events, pressure), each group's task count, /proc/meminfo,
 * the reclaim fields of /proc/vmstat and /proc/pressure/memory.
 */

/*
 * Fills *ret (released first) with the sample of parent (absolute) at unix
 * time now. Groups that vanished while being read are left out (they are
 * gone); a group whose cgroup.procs cannot be read has no task count.
 * Host files that a kernel lacks (no PSI) leave their parts empty.
 * *ret_notes, when not NULL, gets the snapshot's notes (files that did not
 * parse: free each and the array), *ret_n_notes their number. -ENOENT (the
 * parent is gone), -ENOMEM, -errno.
 */
int mc_hist_capture(struct mc_host *h, const char *parent, double now,
		    struct mc_hist_sample *ret, char ***ret_notes, size_t *ret_n_notes);

/*
 * The same from a snapshot already taken at unix time time (memctl run's
 * of the interval, so that the tree is read once): its groups are moved
 * into *ret (released first; snap keeps its notes and must still be
 * freed), then the task counts and the host's files are read. -ENOMEM,
 * -errno.
 */
int mc_hist_capture_snapshot(struct mc_host *h, struct mc_snapshot *snap, double time,
			     struct mc_hist_sample *ret);

/*
 * Brings a sample taken before a plan ran in step with one of its steps
 * that was done (pure): a write sets the group's knob to the value
 * written (read back by the transaction), a new group is added below its
 * parent, in preorder, with no values but those the later steps write; a
 * removed group is taken out with the groups below it. Steps of other
 * kinds, and those of groups the sample lacks, change nothing. 0 or
 * -ENOMEM.
 */
int mc_hist_sample_step(struct mc_hist_sample *s, const struct mc_step *step);

#endif
