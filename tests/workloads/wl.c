#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl.h"

volatile sig_atomic_t wl_stop;
const char *wl_prog = "workload";

void wl_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_stop(int sig)
{
	wl_stop = 1;
}

void wl_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked read() returns EINTR and the loop sees wl_stop */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int wl_parse_size(const char *s, uint64_t *ret_bytes)
{
	char *end;
	uint64_t v, mult = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	default: return -1;
	}
	if (*end != '\0' || (v && mult > UINT64_MAX / v))
		return -1;
	*ret_bytes = v * mult;
	return 0;
}

int64_t wl_disk_read_bytes(void)
{
	FILE *f = fopen("/proc/self/io", "re");
	char line[128];
	int64_t v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "read_bytes: %" SCNd64, &v) == 1)
			break;
	fclose(f);
	return v;
}

double wl_runq_wait(void)
{
	FILE *f = fopen("/proc/self/schedstat", "re");
	unsigned long long run, wait;
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (double)wait / 1e9 : -1;
}
