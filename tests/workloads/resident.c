/*
 * resident [--drop] [--percent] FILE...: how much of each file is in the
 * page cache right now (mmap + mincore; nothing is faulted in, so measuring
 * does not change the answer). Prints per file:
 *   FILE resident=PAGES pages=PAGES pct=PERCENT
 * or with --percent only the percentage (one decimal), for scripts.
 *
 * --drop first writes back and drops the file's cached pages
 * (fdatasync + posix_fadvise DONTNEED): per file, so a test can start its own
 * file cold without dropping anyone else's cache. Pages that some process
 * has mapped stay.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl.h"

/* Counts resident pages of fd (size bytes); *ret_pages gets the total. */
static uint64_t count_resident(int fd, uint64_t size, const char *path, uint64_t *ret_pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t pages = (size + (uint64_t)psz - 1) / (uint64_t)psz, in = 0;
	unsigned char *vec;
	void *map;

	*ret_pages = pages;
	if (size == 0)
		return 0;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		wl_die("cannot map '%s': %s", path, strerror(errno));
	vec = malloc((size_t)pages);
	if (!vec)
		wl_die("cannot allocate %" PRIu64 " bytes", pages);
	if (mincore(map, (size_t)size, vec) < 0)
		wl_die("mincore on '%s' failed: %s", path, strerror(errno));
	for (uint64_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	free(vec);
	munmap(map, (size_t)size);
	return in;
}

int main(int argc, char **argv)
{
	bool drop = false, percent = false;
	int i;

	wl_prog = "resident";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--drop") == 0)
			drop = true;
		else if (strcmp(argv[i], "--percent") == 0)
			percent = true;
		else
			break;
	}
	if (i == argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: resident [--drop] [--percent] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		uint64_t in, pages;
		struct stat st;
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			wl_die("cannot open '%s': %s", argv[i], strerror(errno));
		if (fstat(fd, &st) < 0)
			wl_die("cannot stat '%s': %s", argv[i], strerror(errno));
		if (drop) {
			if (fdatasync(fd) < 0 && errno != EINVAL)
				wl_die("cannot sync '%s': %s", argv[i], strerror(errno));
			errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			if (errno)
				wl_die("cannot drop '%s' from the page cache: %s", argv[i],
				       strerror(errno));
		}
		in = count_resident(fd, (uint64_t)st.st_size, argv[i], &pages);
		if (percent)
			printf("%.1f\n", pages ? 100.0 * (double)in / (double)pages : 0.0);
		else
			printf("%s resident=%" PRIu64 " pages=%" PRIu64 " pct=%.1f\n", argv[i], in,
			       pages, pages ? 100.0 * (double)in / (double)pages : 0.0);
		close(fd);
	}
	return 0;
}
