/*
 * streamer FILE: the streaming job. Reads a file much larger than memory
 * front to back with plain read(), starts over at the end, until SIGTERM or
 * SIGINT — dd in a loop. No O_DIRECT and no fadvise: every block goes
 * through the page cache and is charged to the streamer's cgroup, used once
 * and never again, which is what pushes other jobs' pages out.
 *
 * At exit: total loops=N bytes=BYTES elapsed=SECONDS disk_read=BYTES mbps=MB/s
 * --verbose also prints "loop N elapsed=SECONDS" (flushed) each time it
 * has gone through the whole file, which a script can wait for to know that
 * the streamer has pushed a whole file's worth through its cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

int main(int argc, char **argv)
{
	uint64_t block = 1 << 20, bytes = 0, loops = 0;
	bool verbose = false;
	int64_t disk0;
	unsigned char *buf;
	double t0, el;
	int i = 1, fd;

	wl_prog = "streamer";
	for (; i < argc - 1 && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--verbose") == 0)
			verbose = true;
		else if (strcmp(argv[i], "--block") == 0 && i + 2 < argc) {
			if (wl_parse_size(argv[++i], &block) < 0 || block < 4096 || block > (64 << 20))
				wl_die("invalid --block '%s' (4K to 64M)", argv[i]);
		} else
			break;
	}
	if (argc - i != 1 || argv[i][0] == '-') {
		fprintf(stderr, "usage: streamer [--block SIZE] [--verbose] FILE\n");
		return 2;
	}
	fd = open(argv[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die("cannot open '%s': %s", argv[i], strerror(errno));
	buf = malloc(block);
	if (!buf)
		wl_die("cannot allocate %" PRIu64 " bytes", block);
	wl_catch_stop();

	t0 = wl_now();
	disk0 = wl_disk_read_bytes();
	while (!wl_stop) {
		ssize_t n = read(fd, buf, block);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die("cannot read '%s': %s", argv[i], strerror(errno));
		}
		if (n == 0) {
			if (bytes == 0 && loops == 0)
				wl_die("cannot stream '%s': empty file", argv[i]);
			loops++;
			if (verbose) {
				printf("loop %" PRIu64 " elapsed=%.3f\n", loops, wl_now() - t0);
				fflush(stdout);
			}
			if (lseek(fd, 0, SEEK_SET) < 0)
				wl_die("cannot rewind '%s': %s", argv[i], strerror(errno));
			continue;
		}
		bytes += (uint64_t)n;
	}
	el = wl_now() - t0;
	printf("total loops=%" PRIu64 " bytes=%" PRIu64 " elapsed=%.3f disk_read=%" PRId64
	       " mbps=%.0f\n", loops, bytes, el, wl_disk_read_bytes() - disk0,
	       el > 0 ? (double)bytes / el / 1e6 : 0.0);
	free(buf);
	close(fd);
	return 0;
}
