/*
 * cgwrite: write one value to a cgroup or /proc file with a single write(2)
 * and report the outcome exactly, which a shell redirection does not.
 *
 *   cgwrite FILE VALUE
 *
 * Exit status: 0 when the write succeeded, otherwise the errno of the
 * failed open or write (EINVAL = 22), with the error on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	ssize_t len;
	int fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: cgwrite FILE VALUE\n");
		return 255;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		err = errno;
		fprintf(stderr, "cgwrite: cannot open '%s': %s\n", argv[1], strerror(err));
		return err;
	}
	len = (ssize_t)strlen(argv[2]);
	if (write(fd, argv[2], len) != len) {
		err = errno;
		fprintf(stderr, "cgwrite: cannot write '%s' to '%s': %s\n",
			argv[2], argv[1], strerror(err));
		return err;
	}
	return close(fd) ? errno : 0;
}
