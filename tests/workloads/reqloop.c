/*
 * reqloop FILE RATE SECONDS: a latency-sensitive service over a protected
 * working set. RATE times a second (open loop: request i is due at start +
 * i / RATE, whether or not the one before has finished) it serves one
 * request: 16 reads of 4K at random offsets of FILE (the service's data,
 * meant to stay in the page cache), and times it from when it was due to
 * when it finished, so a stall counts for every request it delays.
 *
 * Output, one line per second of the run:
 *   sec N rps=COMPLETED p50_us=LAT p95_us=LAT max_us=LAT
 * then one line with the totals:
 *   total requests=N seconds=S p50_us=LAT p95_us=LAT disk_read=BYTES
 * Requests still due when SECONDS are over are not served. --seed N makes
 * the offsets repeat from run to run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

#define READS_PER_REQUEST 16
#define PAGE 4096

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100) of v[0..n), nearest rank; sorts v. */
static uint32_t pct(uint32_t *v, size_t n, double p)
{
	size_t k;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	k = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	return v[k > n ? n - 1 : k - 1];
}

static void sleep_until(double t)
{
	double d = t - wl_now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/*
 * It is long because it is the whole program: its options, then the request
 * loop and its report.
 */
int main(int argc, char **argv)
{
	unsigned long rate, seconds, seed = 1;
	uint32_t *all, *sec;
	size_t n_all = 0, n_sec = 0, cap;
	char buf[PAGE], *end;
	int64_t disk0;
	uint64_t pages;
	double t0;
	struct stat st;
	int fd, i = 1;
	unsigned long cur = 0;

	wl_prog = "reqloop";
	if (argc > 2 && strcmp(argv[1], "--seed") == 0) {
		seed = strtoul(argv[2], &end, 10);
		if (*end)
			wl_die("invalid --seed '%s'", argv[2]);
		i = 3;
	}
	if (argc - i != 3)
		wl_die("usage: reqloop [--seed N] FILE RATE SECONDS");
	rate = strtoul(argv[i + 1], &end, 10);
	if (*end || rate == 0 || rate > 100000)
		wl_die("invalid RATE '%s' (1 to 100000 a second)", argv[i + 1]);
	seconds = strtoul(argv[i + 2], &end, 10);
	if (*end || seconds == 0 || seconds > 86400)
		wl_die("invalid SECONDS '%s'", argv[i + 2]);
	fd = open(argv[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("cannot open '%s': %s", argv[i], strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size < PAGE)
		wl_die("'%s' is smaller than a page", argv[i]);
	pages = (uint64_t)st.st_size / PAGE;
	cap = rate * seconds;
	all = malloc(cap * sizeof(*all));
	sec = malloc((rate + 1) * sizeof(*sec) * 4);
	if (!all || !sec)
		wl_die("out of memory");
	srandom((unsigned)seed);
	wl_catch_stop();
	disk0 = wl_disk_read_bytes();
	t0 = wl_now();
	for (size_t r = 0; r < cap && !wl_stop; r++) {
		double due = t0 + (double)r / (double)rate, lat;
		unsigned long s;

		sleep_until(due);
		for (int k = 0; k < READS_PER_REQUEST; k++) {
			uint64_t pg = ((uint64_t)random() << 31 | (uint64_t)random()) % pages;

			if (pread(fd, buf, PAGE, (off_t)(pg * PAGE)) < 0)
				wl_die("cannot read '%s': %s", argv[i], strerror(errno));
		}
		lat = (wl_now() - due) * 1e6;
		all[n_all++] = lat > 4e9 ? 4000000000u : (uint32_t)lat;
		/* the second it finished in: rps counts completions */
		s = (unsigned long)(wl_now() - t0);
		while (cur < s && cur < seconds) {
			uint32_t mx = 0;

			for (size_t k = 0; k < n_sec; k++)
				mx = sec[k] > mx ? sec[k] : mx;
			printf("sec %lu rps=%zu p50_us=%u p95_us=%u max_us=%u\n", cur, n_sec,
			       pct(sec, n_sec, 50), pct(sec, n_sec, 95), mx);
			n_sec = 0;
			cur++;
		}
		if (n_sec < (rate + 1) * 4)
			sec[n_sec++] = all[n_all - 1];
		if (s >= seconds)
			break;
	}
	if (cur < seconds && n_sec) {
		uint32_t mx = 0;

		for (size_t k = 0; k < n_sec; k++)
			mx = sec[k] > mx ? sec[k] : mx;
		printf("sec %lu rps=%zu p50_us=%u p95_us=%u max_us=%u\n", cur, n_sec,
		       pct(sec, n_sec, 50), pct(sec, n_sec, 95), mx);
	}
	printf("total requests=%zu seconds=%.3f p50_us=%u p95_us=%u disk_read=%" PRId64 "\n", n_all,
	       wl_now() - t0, pct(all, n_all, 50), pct(all, n_all, 95),
	       disk0 >= 0 ? wl_disk_read_bytes() - disk0 : -1);
	free(all);
	free(sec);
	close(fd);
	return 0;
}
