/*
 * hog SIZE MBPS: a memory hog that grows. It allocates anonymous memory at
 * MBPS megabytes a second, touching every page, up to SIZE, then keeps
 * touching what it has until SIGTERM. With no swap its pages cannot be
 * reclaimed, so in a shared parent it takes the memory of whoever can be
 * reclaimed: the page cache of its siblings. Exits 0 on SIGTERM; the OOM
 * killer may end it first when its own group is limited.
 *
 * Prints "hog grown=BYTES elapsed=SECONDS" when it reached SIZE (flushed)
 * and "total grown=BYTES" at exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

int main(int argc, char **argv)
{
	uint64_t size, grown = 0, step = 1 << 20;
	unsigned long mbps;
	unsigned char *m;
	char *end;
	double t0;

	wl_prog = "hog";
	if (argc != 3 || wl_parse_size(argv[1], &size) < 0 || size < step)
		wl_die("usage: hog SIZE MBPS (SIZE at least 1M)");
	mbps = strtoul(argv[2], &end, 10);
	if (*end || mbps == 0)
		wl_die("invalid MBPS '%s'", argv[2]);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		wl_die("cannot map %s", argv[1]);
	wl_catch_stop();
	t0 = wl_now();
	while (!wl_stop && grown < size) {
		double due = t0 + (double)(grown + step) / (double)(mbps << 20);
		uint64_t n = size - grown < step ? size - grown : step;

		for (uint64_t o = 0; o < n; o += 4096)
			m[grown + o] = 1;
		grown += n;
		while (!wl_stop && wl_now() < due)
			usleep(1000);
	}
	if (grown >= size) {
		printf("hog grown=%llu elapsed=%.3f\n", (unsigned long long)grown, wl_now() - t0);
		fflush(stdout);
	}
	while (!wl_stop) {
		for (uint64_t o = 0; o < grown && !wl_stop; o += 4096)
			m[o]++;
		usleep(100000);
	}
	printf("total grown=%llu\n", (unsigned long long)grown);
	return 0;
}
