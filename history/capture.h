#ifndef MEMCTL_CAPTURE_H
#define MEMCTL_CAPTURE_H

#include "host.h"
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

#endif
