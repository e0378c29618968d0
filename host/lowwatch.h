#ifndef MEMCTL_LOWWATCH_H
#define MEMCTL_LOWWATCH_H

#include <stddef.h>

#include "host.h"

/*
 * Early word of memory.low failing a group (cgroup v2). memory.low is
 * best effort: when a group's siblings hold nothing the kernel can reclaim
 * (anonymous memory without swap), reclaim goes below the protection and
 * the group's memory.events "low" counter rises. The kernel marks the file
 * modified whenever one of its counters moves (at most every 10 ms); the
 * watch (inotify) then reads it again and tells whether "low" rose, so
 * that memctl run can plan at once instead of at the end of its interval.
 *
 * Each group reports a rise once: the engine keeps a group that memory.low
 * failed as failed (its siblings stay capped), so a later rise needs no
 * early plan, and a group whose other counters move all the time (a job at
 * its own memory.max) costs one read per notification until then, nothing
 * after. Functions return 0 or -errno and never print.
 */
struct mc_lowwatch;

/* An empty watch. -EOPNOTSUPP on cgroup v1, which has no memory.low. */
int mc_lowwatch_open(struct mc_host *h, struct mc_lowwatch **ret);
void mc_lowwatch_free(struct mc_lowwatch *w);

/* The descriptor to poll: readable when a watched file changed. */
int mc_lowwatch_fd(const struct mc_lowwatch *w);

/*
 * Watches the memory.events of groups (absolute cgroup paths): a group
 * already watched keeps its watch and count, one not listed is dropped, and
 * one that does not exist (yet, or any more) is tried again at the next
 * call. A group that reported its rise stays silent while it is listed.
 * Returns the number of groups watched now, or -errno (-ENOMEM; a failed
 * watch of one group is not an error: it is tried again).
 */
int mc_lowwatch_set(struct mc_host *h, struct mc_lowwatch *w, char *const *groups, size_t n);

/*
 * Takes the pending notifications and reads the files they name (through
 * the directories opened when they were watched). Returns
 * 1 and *ret_group (the watch's copy, valid until the next set or free)
 * when the "low" count of a group rose since it was first read, 0 when
 * none did, or -errno.
 */
int mc_lowwatch_check(struct mc_lowwatch *w, const char **ret_group);

#endif
