#ifndef MEMCTL_LOOP_H
#define MEMCTL_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/*
 * What the daemons' loops share (memctl run, memctl record): periods kept
 * against CLOCK_MONOTONIC deadlines, signals taken synchronously between
 * intervals, and log lines for a terminal or journald.
 */

/* Blocks SIGHUP, SIGTERM and SIGINT, as set, for mc_wait_signal. */
void mc_loop_block_signals(sigset_t *set);

/* t += ms. */
void mc_deadline_add(struct timespec *t, uint64_t ms);

/*
 * The next deadline, one interval on. A loop more than an interval late
 * (the host stalled it) starts again from now instead of running the
 * missed intervals back to back.
 */
void mc_deadline_next(struct timespec *t, uint64_t ms);

bool mc_ts_before(const struct timespec *a, const struct timespec *b);

/*
 * Waits until deadline for a signal of set. Returns the signal, or 0 at
 * the deadline. A deadline already past still takes a pending signal: a
 * loop whose intervals run late must still stop on SIGTERM.
 */
int mc_wait_signal(const sigset_t *set, const struct timespec *deadline);

/*
 * A signalfd(2) of set (already blocked, mc_loop_block_signals): the
 * descriptor (close-on-exec, non-blocking), or -errno.
 */
int mc_loop_signalfd(const sigset_t *set);

/*
 * mc_wait_signal on a signalfd, which also returns 0 with *ret_fd set as
 * soon as fd is readable (a signal that came meanwhile is returned first),
 * or -errno when poll fails (not EINTR).
 */
int mc_wait_signal_fd(int sigfd, const struct timespec *deadline, int fd, bool *ret_fd);

/*
 * Logs one line on stderr at a syslog priority (3 err, 4 warning, 5
 * notice, 6 info): "<N>" first when journal (stderr is journald's), else
 * "memctl WHO: ". No control character reaches the log (escape.h), so a
 * group name cannot forge a line or a priority.
 */
void mc_loop_log(bool journal, const char *who, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
