/*
 * ws-reader FILE PASSES: the working-set job. Re-reads one file that fits in
 * its share of memory PASSES times (0: until SIGTERM), checksumming every
 * block, like gzip run again and again over the same input. Its pages are
 * hot: as long as they stay in the page cache a pass costs only CPU; every
 * page another job pushed out must come back from disk.
 *
 * Before each pass it notes how much of FILE is still in the page cache
 * (mincore on a mapping that is never touched, so looking changes nothing):
 * what the job finds when it comes back to its file is the measure of
 * whether its working set was protected. --pause MS sleeps between passes,
 * the way a job that is rerun now and then leaves its file alone for a
 * while (the pause is the workload's behaviour, not a synchronisation).
 *
 * At exit it prints one line with the totals of the run:
 *   total passes=N elapsed=SECONDS cpu=SECONDS runq=SECONDS majflt=N
 *         disk_read=BYTES bytes=BYTES resident_min=PCT resident_avg=PCT sum=HEX
 * elapsed: time spent in passes, pauses excluded (a pass cut short by
 *   SIGTERM counts here and in bytes, not in passes);
 * cpu: CPU time used in them (user + system);
 * runq: time spent runnable but waiting for a CPU (/proc/self/schedstat,
 *   -1 without it); on a small host elapsed - runq is the job's time with
 *   its neighbours' CPU competition taken out, and what remains beyond cpu
 *   is mostly waiting for the disk;
 * majflt: getrusage()'s ru_majflt, which counts misses through a mapping
 *   (--mmap) only, and readahead hides most of those; a miss through read()
 *   is not a fault at all;
 * disk_read: bytes the storage layer read for this process (/proc/self/io),
 *   every page that had to come back, in both modes;
 * resident_min/avg: over the pass starts.
 * --verbose adds one line per pass:
 *   pass N resident=PCT elapsed=SECONDS majflt=N disk_read=BYTES
 *
 * --work N models the CPU cost of compression: N extra mixing rounds per
 * 8 bytes (0 = a plain checksum, about 3 GB/s here; 40 = about 150 MB/s,
 * the order of gzip -1). The checksum is printed so the work cannot be
 * optimised out.
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

#include "wl.h"

struct totals {
	double elapsed;
	double cpu;
	double runq;
	long majflt;
	int64_t disk_read;
	uint64_t bytes;
};

/* Mixes the words of a block into h; work extra rounds per word. */
static uint64_t mix(uint64_t h, const unsigned char *p, size_t n, unsigned work)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		for (unsigned r = 0; r < work; r++)
			h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Percent of the mapped file's pages in the page cache; -1 if unknown. */
static double resident_pct(void *probe, uint64_t size, unsigned char *vec)
{
	uint64_t pages = (size + 4095) / 4096, in = 0;

	if (!probe || mincore(probe, (size_t)size, vec) < 0)
		return -1;
	for (uint64_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	return 100.0 * (double)in / (double)pages;
}

static void sample(struct totals *t)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	t->elapsed = wl_now();
	t->cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	t->runq = wl_runq_wait();
	t->majflt = ru.ru_majflt;
	t->disk_read = wl_disk_read_bytes();
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--mmap] [--work N] [--block SIZE] [--pause MS] [--verbose] FILE PASSES\n",
		wl_prog);
	exit(2);
}

/* One pass through read(): returns the bytes read, or less if stopped. */
static uint64_t pass_read(int fd, unsigned char *buf, size_t block, unsigned work, uint64_t *h)
{
	uint64_t total = 0;
	off_t off = 0;

	while (!wl_stop) {
		ssize_t n = pread(fd, buf, block, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die("cannot read: %s", strerror(errno));
		}
		if (n == 0)
			break;
		*h = mix(*h, buf, (size_t)n, work);
		off += n;
		total += (uint64_t)n;
	}
	return total;
}

/* One pass through a mapping: every byte is read, so every page faults in. */
static uint64_t pass_mmap(const unsigned char *map, uint64_t size, size_t block, unsigned work,
			  uint64_t *h)
{
	uint64_t off;

	for (off = 0; off < size && !wl_stop; off += block) {
		size_t n = size - off < block ? (size_t)(size - off) : block;

		*h = mix(*h, map + off, n, work);
	}
	return off < size ? off : size;
}

/*
 * It is long because it is the whole program: its options, the file and its
 * residency probe, then the passes and their report.
 */
int main(int argc, char **argv)
{
	bool use_mmap = false, verbose = false;
	unsigned long work = 0, pause_ms = 0, passes;
	double busy = 0, busy_cpu = 0, busy_runq = 0, res_min = 100, res_sum = 0;
	unsigned char *vec = NULL;
	void *probe = NULL;
	uint64_t block = 64 << 10, h = 0xcbf29ce484222325ULL;
	unsigned char *buf = NULL, *map = NULL;
	struct totals start, before, now;
	unsigned long done = 0;
	uint64_t bytes = 0;
	struct stat st;
	char *end;
	int i, fd;

	wl_prog = "ws-reader";
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (strcmp(argv[i], "--mmap") == 0)
			use_mmap = true;
		else if (strcmp(argv[i], "--verbose") == 0)
			verbose = true;
		else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) {
			work = strtoul(argv[++i], &end, 10);
			if (*end || work > 100000)
				wl_die("invalid --work '%s'", argv[i]);
		} else if (strcmp(argv[i], "--pause") == 0 && i + 1 < argc) {
			pause_ms = strtoul(argv[++i], &end, 10);
			if (*end || pause_ms > 3600000)
				wl_die("invalid --pause '%s' (milliseconds)", argv[i]);
		} else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) {
			if (wl_parse_size(argv[++i], &block) < 0 || block < 4096 || block > (64 << 20))
				wl_die("invalid --block '%s' (4K to 64M)", argv[i]);
		} else
			usage();
	}
	if (argc - i != 2)
		usage();
	passes = strtoul(argv[i + 1], &end, 10);
	if (*end || !*argv[i + 1])
		wl_die("invalid PASSES '%s'", argv[i + 1]);

	fd = open(argv[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("cannot open '%s': %s", argv[i], strerror(errno));
	if (fstat(fd, &st) < 0)
		wl_die("cannot stat '%s': %s", argv[i], strerror(errno));
	if (use_mmap) {
		if (st.st_size == 0)
			wl_die("cannot map '%s': empty file", argv[i]);
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			wl_die("cannot map '%s': %s", argv[i], strerror(errno));
		/* the job reads front to back, as read() would; no extra readahead hint */
	} else {
		buf = malloc(block);
		if (!buf)
			wl_die("cannot allocate %" PRIu64 " bytes", block);
	}
	if (st.st_size > 0 && sysconf(_SC_PAGESIZE) == 4096) {
		probe = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		vec = malloc((size_t)(st.st_size + 4095) / 4096);
		if (probe == MAP_FAILED || !vec)
			wl_die("cannot set up the residency probe: %s", strerror(errno));
	}
	wl_catch_stop();

	sample(&start);
	while (!wl_stop && (passes == 0 || done < passes)) {
		double res;
		uint64_t n;

		if (done > 0 && pause_ms > 0) {
			struct timespec ts = { (time_t)(pause_ms / 1000), (long)(pause_ms % 1000) * 1000000 };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !wl_stop)
				;
			if (wl_stop)
				break;
		}
		res = resident_pct(probe, (uint64_t)st.st_size, vec);
		sample(&before);
		n = use_mmap ? pass_mmap(map, (uint64_t)st.st_size, block, work, &h)
				      : pass_read(fd, buf, block, work, &h);

		bytes += n;
		sample(&now);
		busy += now.elapsed - before.elapsed;
		busy_cpu += now.cpu - before.cpu;
		busy_runq += now.runq - before.runq;
		if (wl_stop && n < (uint64_t)st.st_size)
			break;	/* a partial pass counts in time and bytes, not in passes */
		done++;
		res_sum += res;
		if (res < res_min)
			res_min = res;
		if (verbose) {
			printf("pass %lu resident=%.1f elapsed=%.3f majflt=%ld disk_read=%" PRId64 "\n",
			       done, res, now.elapsed - before.elapsed, now.majflt - before.majflt,
			       now.disk_read - before.disk_read);
			fflush(stdout);
		}
	}
	sample(&now);
	printf("total passes=%lu elapsed=%.3f cpu=%.3f runq=%.3f majflt=%ld disk_read=%" PRId64
	       " bytes=%" PRIu64 " resident_min=%.1f resident_avg=%.1f sum=%016" PRIx64 "\n", done,
	       busy, busy_cpu, start.runq < 0 ? -1.0 : busy_runq,
	       now.majflt - start.majflt, now.disk_read - start.disk_read, bytes,
	       done ? res_min : 0.0, done ? res_sum / (double)done : 0.0, h);
	free(buf);
	free(vec);
	if (probe)
		munmap(probe, (size_t)st.st_size);
	if (map)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return 0;
}
