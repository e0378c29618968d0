#ifndef MEMCTL_BENCH_UTIL_H
#define MEMCTL_BENCH_UTIL_H

#include <stddef.h>

/*
 * What the benchmark programs share: timing of one way per round, medians,
 * and dying with a message. Times are in microseconds: wall (monotonic) and
 * the calling thread's CPU time.
 */

struct bench_times {
	double *wall;
	double *cpu;
};

struct bench_clock {
	double wall;
	double cpu;
};

/* Room for rounds samples; dies when out of memory. */
void bench_times_init(struct bench_times *t, int rounds);
void bench_times_free(struct bench_times *t);
void bench_clock_start(struct bench_clock *c);
/* Stores the time since bench_clock_start as sample round of t. */
void bench_clock_stop(const struct bench_clock *c, struct bench_times *t, int round);
/* Median of v[0..n) (sorts v). */
double bench_median(double *v, size_t n);
/* Prints "PROGRAM: what: strerror(err)" (err positive or negative) and exits 1. */
_Noreturn void bench_die(const char *what, int err);

#endif
