/*
 * bjob: the guest benchmarks' jobs. Small, deterministic (fixed xorshift
 * seeds), and each prints its own measurements as one line of key=value
 * pairs, so the benchmark scripts read numbers the job saw rather than
 * guess from the outside.
 *
 *   bjob anon MIB PASSES [BARRIER]
 *       A memory-hungry job: maps MIB MiB of anonymous memory and writes one
 *       word in every page PASSES times, the pages of each pass in a fresh
 *       pseudo-random order. Under a limit the rest lives in swap, and every
 *       page that was swapped out is a major fault when it comes back. With
 *       BARRIER it first writes every page once (untimed), then waits until
 *       that file exists before the passes start (and its clock with them),
 *       so jobs started one after another hold their memory at the same time
 *       and run their passes together.
 *   bjob randread FILE COUNT [HOTMIB]
 *       Random reads: COUNT preads of 4 KiB at pseudo-random page offsets of
 *       FILE. With HOTMIB, three reads in four go to the file's first HOTMIB
 *       MiB (a hot part whose pages are read again and become active), the
 *       rest anywhere. Every miss is a disk read (disk_read, /proc/self/io,
 *       -1 without task I/O accounting).
 *   bjob maptouch FILE STOP
 *       A job whose file pages are mapped and in use: maps FILE shared and
 *       read-only, then reads one byte of every page, sweep after sweep,
 *       until the file STOP exists.
 *       Reclaim finds these pages referenced and keeps them: it scans them
 *       without evicting them. sweeps= is how many sweeps it made.
 *   bjob thp MIB STRIDE
 *       Faults in a 2 MiB aligned, MADV_HUGEPAGE mapping of MIB MiB, writing
 *       one byte every STRIDE bytes (4K: every page; 2M: one byte per huge
 *       page), and times each 2 MiB region: the latency of faulting it in.
 *       huge= is how many of the regions ended up backed by a huge page
 *       (AnonHugePages of /proc/self/smaps_rollup at the end).
 *
 * Every mode prints elapsed (wall seconds of the work), user and sys (CPU
 * seconds), majflt and minflt (getrusage), and its own fields.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define HPAGE (2UL << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "bjob: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, ": %s\n", strerror(errno));
	exit(1);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The number of the first line of a /proc file that fmt (one %ld) matches; -1. */
static long proc_field(const char *path, const char *fmt)
{
	FILE *f = fopen(path, "re");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			break;
	fclose(f);
	return v;
}

static long disk_read(void)
{
	return proc_field("/proc/self/io", "read_bytes: %ld");
}

/* Prints the fields every mode shares, from a start time and rusage. */
static void print_common(double t0, const struct rusage *r0)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	printf("elapsed=%.3f user=%.3f sys=%.3f majflt=%ld minflt=%ld", now() - t0,
	       (double)(r.ru_utime.tv_sec - r0->ru_utime.tv_sec) +
		       (double)(r.ru_utime.tv_usec - r0->ru_utime.tv_usec) / 1e6,
	       (double)(r.ru_stime.tv_sec - r0->ru_stime.tv_sec) +
		       (double)(r.ru_stime.tv_usec - r0->ru_stime.tv_usec) / 1e6,
	       r.ru_majflt - r0->ru_majflt, r.ru_minflt - r0->ru_minflt);
}

static unsigned long parse_ul(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		errno = EINVAL;
		die("invalid number '%s'", s);
	}
	return v;
}

static int run_anon(unsigned long mib, unsigned long passes, const char *barrier)
{
	struct timespec ms = { 0, 1000000 };
	size_t pages = (mib << 20) / PAGE;
	uint32_t *order;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	struct rusage r0;
	double t0;
	char *p;

	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	order = malloc(pages * sizeof(*order));
	if (p == MAP_FAILED || !order)
		die("cannot map the %s", "buffer");
	for (size_t i = 0; i < pages; i++)
		order[i] = (uint32_t)i;
	if (barrier) {
		/* fill first, so the jobs hold their memory together when the
		 * measured passes start, however the vCPUs get scheduled */
		for (size_t i = 0; i < pages; i++)
			p[i * PAGE] = 1;
		while (access(barrier, F_OK) < 0)
			nanosleep(&ms, NULL);
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	for (unsigned long pass = 0; pass < passes; pass++) {
		/* Fisher-Yates: a fresh order per pass, the same on every run */
		for (size_t i = pages - 1; i > 0; i--) {
			size_t j = xorshift(&x) % (i + 1);
			uint32_t t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < pages; i++)
			p[(size_t)order[i] * PAGE] += (char)(pass + 1);
	}
	print_common(t0, &r0);
	printf(" pages=%zu passes=%lu\n", pages, passes);
	return 0;
}

static int run_randread(const char *path, unsigned long count, unsigned long hot_mib)
{
	uint64_t x = 0x2545f4914f6cdd1dULL, sum = 0;
	unsigned char buf[PAGE];
	struct rusage r0;
	struct stat st;
	long d0;
	double t0;
	size_t pages, hot;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot open '%s'", path);
	pages = (size_t)st.st_size / PAGE;
	hot = (hot_mib << 20) / PAGE;
	if (!pages || hot > pages) {
		errno = EINVAL;
		die("'%s' is empty or smaller than HOTMIB", path);
	}
	/* random reads: readahead would only pull in pages nobody asked for */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	getrusage(RUSAGE_SELF, &r0);
	d0 = disk_read();
	t0 = now();
	for (unsigned long i = 0; i < count; i++) {
		uint64_t r = xorshift(&x);
		off_t off = (off_t)((hot && r % 4 ? r / 4 % hot : r / 4 % pages) * PAGE);

		if (pread(fd, buf, PAGE, off) != (ssize_t)PAGE)
			die("cannot read '%s'", path);
		sum += buf[0];
	}
	print_common(t0, &r0);
	printf(" reads=%lu disk_read=%ld sum=%" PRIu64 "\n", count, disk_read() - d0, sum);
	close(fd);
	return 0;
}

static int run_maptouch(const char *path, const char *stop)
{
	unsigned long sweeps = 0;
	uint64_t sum = 0;
	const unsigned char *p;
	struct rusage r0;
	struct stat st;
	size_t pages;
	double t0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot open '%s'", path);
	pages = (size_t)st.st_size / PAGE;
	if (!pages) {
		errno = EINVAL;
		die("'%s' is empty", path);
	}
	p = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("cannot map '%s'", path);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	while (access(stop, F_OK) < 0) {
		for (size_t i = 0; i < pages; i++)
			sum += p[i * PAGE];
		sweeps++;
	}
	print_common(t0, &r0);
	printf(" pages=%zu sweeps=%lu sum=%" PRIu64 "\n", pages, sweeps, sum);
	return 0;
}

static long anon_huge_kib(void)
{
	return proc_field("/proc/self/smaps_rollup", "AnonHugePages: %ld kB");
}

static int run_thp(unsigned long mib, const char *stride_s)
{
	size_t len = (size_t)mib << 20, regions = len / HPAGE, stride;
	double t0, lat_sum = 0, lat_max = 0;
	struct rusage r0;
	char *raw, *p;

	if (!strcmp(stride_s, "4K"))
		stride = PAGE;
	else if (!strcmp(stride_s, "2M"))
		stride = HPAGE;
	else {
		errno = EINVAL;
		die("invalid STRIDE '%s' (4K or 2M)", stride_s);
	}
	if (!regions) {
		errno = EINVAL;
		die("MIB must be at least 2, not '%s'", "<2");
	}
	raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		die("cannot map %s", "the region");
	p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, len, MADV_HUGEPAGE) < 0)
		die("madvise(%s) failed", "MADV_HUGEPAGE");
	getrusage(RUSAGE_SELF, &r0);
	t0 = now();
	for (size_t r = 0; r < regions; r++) {
		double a = now(), l;

		for (size_t off = 0; off < HPAGE; off += stride)
			p[r * HPAGE + off] = 1;
		l = now() - a;
		lat_sum += l;
		if (l > lat_max)
			lat_max = l;
	}
	print_common(t0, &r0);
	printf(" regions=%zu huge=%ld lat_avg_ms=%.3f lat_max_ms=%.3f\n", regions,
	       anon_huge_kib() / 2048, lat_sum / (double)regions * 1e3, lat_max * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "anon"))
		return run_anon(parse_ul(argv[2]), parse_ul(argv[3]), argc == 5 ? argv[4] : NULL);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "randread"))
		return run_randread(argv[2], parse_ul(argv[3]), argc == 5 ? parse_ul(argv[4]) : 0);
	if (argc == 4 && !strcmp(argv[1], "maptouch"))
		return run_maptouch(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "thp"))
		return run_thp(parse_ul(argv[2]), argv[3]);
	fprintf(stderr, "usage: bjob anon MIB PASSES [BARRIER] | randread FILE COUNT [HOTMIB] | "
			"maptouch FILE STOP | thp MIB 4K|2M\n");
	return 2;
}
