#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void bench_times_init(struct bench_times *t, int rounds)
{
	t->wall = calloc((size_t)rounds, sizeof(double));
	t->cpu = calloc((size_t)rounds, sizeof(double));
	if (!t->wall || !t->cpu)
		bench_die("calloc", ENOMEM);
}

void bench_times_free(struct bench_times *t)
{
	free(t->wall);
	free(t->cpu);
}

void bench_clock_start(struct bench_clock *c)
{
	c->wall = now(CLOCK_MONOTONIC);
	c->cpu = now(CLOCK_THREAD_CPUTIME_ID);
}

void bench_clock_stop(const struct bench_clock *c, struct bench_times *t, int round)
{
	t->cpu[round] = now(CLOCK_THREAD_CPUTIME_ID) - c->cpu;
	t->wall[round] = now(CLOCK_MONOTONIC) - c->wall;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err < 0 ? -err : err));
	exit(1);
}
