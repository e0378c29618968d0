#ifndef MEMCTL_PROCEV_H
#define MEMCTL_PROCEV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The kernel's process events (the proc connector, CONFIG_PROC_EVENTS):
 * every fork and exit on the host, as it happens, to a root listener in
 * the initial user and PID namespaces. The subtree reader uses them to
 * tell when a cgroup v1 group's process list may have changed
 * (host/subtree.c, mc_subtree_tasks). Functions return 0 or -errno and
 * never print.
 */
struct mc_procev;

/*
 * Starts listening. -EPROTONOSUPPORT: no connector (not in the initial
 * network namespace, or not built); -EPERM: not allowed; -EOPNOTSUPP: the
 * kernel did not acknowledge the request (a listener outside the initial
 * user or PID namespace is ignored).
 */
int mc_procev_open(struct mc_procev **ret);
void mc_procev_close(struct mc_procev *p);

/*
 * Appends to *tgids (n used, cap allocated) the thread-group id of each
 * process that started a new process (a fork of a thread is left out: it
 * adds no process) and of each task that exited, since the last call.
 * Returns 1 when events were lost since then (the socket's buffer
 * overflowed: what changed is not known), 0, or -errno.
 */
int mc_procev_drain(struct mc_procev *p, pid_t **tgids, size_t *n, size_t *cap);

#endif
