/*
 * mkfile [--reuse] [--keep-cache] FILE SIZE: writes SIZE bytes of
 * pseudo-random content (xorshift, seeded from SIZE, so the same size gives
 * the same bytes) to FILE, fsyncs it, and drops the file's own pages from the
 * page cache (posix_fadvise DONTNEED, this file only), so the job that reads
 * it next starts cold and its cgroup is charged for every page it brings in.
 *
 * --reuse skips the writing when FILE already has SIZE bytes (a benchmark's
 * 1 GiB file need not be written again), but still drops its pages.
 * --keep-cache leaves the written pages cached.
 * Prints: FILE bytes=SIZE written|reused elapsed=SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl.h"

/* Writes size bytes of the xorshift stream seeded from size to fd (path: for messages). */
static void write_content(int fd, const char *path, uint64_t size)
{
	size_t block = 1 << 20;
	uint64_t done = 0, x = size ^ 0x9e3779b97f4a7c15ULL;
	uint64_t *buf = malloc(block);

	if (!buf)
		wl_die("cannot allocate %zu bytes", block);
	while (done < size) {
		size_t n = size - done < block ? (size_t)(size - done) : block, off = 0;

		for (size_t w = 0; w < block / 8; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[w] = x;
		}
		while (off < n) {
			ssize_t r = write(fd, (char *)buf + off, n - off);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				wl_die("cannot write '%s': %s", path, strerror(errno));
			}
			off += (size_t)r;
		}
		done += n;
	}
	free(buf);
}

int main(int argc, char **argv)
{
	bool reuse = false, keep = false, write_it = true;
	uint64_t size;
	struct stat st;
	double t0 = wl_now();
	int i, fd;

	wl_prog = "mkfile";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--reuse") == 0)
			reuse = true;
		else if (strcmp(argv[i], "--keep-cache") == 0)
			keep = true;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: mkfile [--reuse] [--keep-cache] FILE SIZE\n");
		return 2;
	}
	if (wl_parse_size(argv[i + 1], &size) < 0)
		wl_die("invalid SIZE '%s' (bytes, or a number with K, M or G)", argv[i + 1]);

	if (reuse && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size)
		write_it = false;
	fd = open(argv[i], O_RDWR | O_CREAT | O_CLOEXEC | (write_it ? O_TRUNC : 0), 0644);
	if (fd < 0)
		wl_die("cannot open '%s': %s", argv[i], strerror(errno));
	if (write_it)
		write_content(fd, argv[i], size);
	if (fsync(fd) < 0)
		wl_die("cannot sync '%s': %s", argv[i], strerror(errno));
	if (!keep) {
		errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (errno)
			wl_die("cannot drop '%s' from the page cache: %s", argv[i], strerror(errno));
	}
	close(fd);
	printf("%s bytes=%" PRIu64 " %s elapsed=%.3f\n", argv[i], size,
	       write_it ? "written" : "reused", wl_now() - t0);
	return 0;
}
