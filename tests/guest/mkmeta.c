/*
 * mkmeta: a guest workload that makes the file system read its metadata.
 *
 *   mkmeta DIR COUNT
 *
 * Creates COUNT empty files in DIR, 64 to a subdirectory.  On a fresh ext2
 * file system every few files need another inode table block, which ext2
 * reads through the block device's page cache with GFP_NOFS: in a cgroup
 * at its limit each such read is charged with a reclaim that may not
 * enter the file system.
 * Exit status: 0 done, 1 bad usage, 2 a file could not be made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	long count, i;
	int fd;

	if (argc != 3 || (count = atol(argv[2])) <= 0)
		return 1;
	for (i = 0; i < count; i++) {
		if (i % 64 == 0) {
			snprintf(path, sizeof(path), "%s/d%ld", argv[1], i / 64);
			if (mkdir(path, 0755)) {
				perror("mkmeta: mkdir");
				return 2;
			}
		}
		snprintf(path, sizeof(path), "%s/d%ld/f%ld", argv[1], i / 64, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) {
			perror("mkmeta: open");
			return 2;
		}
		close(fd);
	}
	return 0;
}
