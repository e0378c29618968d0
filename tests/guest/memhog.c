/*
 * memhog: a guest workload that charges anonymous memory to its cgroup.
 *
 *   memhog [-H] [-s] [-r ROUNDS] [-b FILE] [-w] MIB
 *
 * Maps MIB mebibytes of anonymous memory aligned to 2 MiB, optionally
 * madvise(MADV_HUGEPAGE) (-H), and writes one byte per page ROUNDS times
 * (default 1).  With -s (sparse) it writes only the first page of each
 * 2 MiB: a huge page then costs 2 MiB, its small-page fallback 4 KiB.
 * With -b FILE it first waits until FILE exists, so that many memhogs
 * started one after another begin touching memory at the same moment.  With -w it then waits until its standard input reaches
 * end of file, so a test can hold the memory charged while it measures.
 * Exit status: 0 done, 1 bad usage, 2 mmap failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HPAGE (2UL << 20)

int main(int argc, char **argv)
{
	int huge = 0, wait = 0, sparse = 0, opt;
	long rounds = 1, page = sysconf(_SC_PAGESIZE), step;
	size_t len, i;
	char *raw, *p, c;
	const char *barrier = NULL;
	struct timespec ms = { 0, 1000000 };

	while ((opt = getopt(argc, argv, "Hsr:b:w")) != -1) {
		switch (opt) {
		case 'b': barrier = optarg; break;
		case 'H': huge = 1; break;
		case 's': sparse = 1; break;
		case 'r': rounds = atol(optarg); break;
		case 'w': wait = 1; break;
		default: return 1;
		}
	}
	if (optind != argc - 1)
		return 1;
	len = (size_t)atol(argv[optind]) << 20;

	/* Over-map by a huge page so the used range can start 2 MiB aligned. */
	raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		perror("memhog: mmap");
		return 2;
	}
	p = (char *)(((unsigned long)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (huge && madvise(p, len, MADV_HUGEPAGE))
		perror("memhog: madvise");
	while (barrier && access(barrier, F_OK))
		nanosleep(&ms, NULL);
	step = sparse ? (long)HPAGE : page;
	for (long r = 0; r < rounds; r++)
		for (i = 0; i < len; i += step)
			p[i] = (char)(r + 1);
	if (wait)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
