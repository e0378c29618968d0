/*
 * setxattr: set one extended attribute, as systemd marks a delegated
 * unit's cgroup (trusted.delegate=1), for the guest's tests (busybox has
 * no setfattr).
 *
 *   setxattr PATH NAME VALUE
 *
 * Exit status: 0, or the errno of the failed setxattr(2), with the error
 * on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: setxattr PATH NAME VALUE\n");
		return 2;
	}
	if (setxattr(argv[1], argv[2], argv[3], strlen(argv[3]), 0) < 0) {
		int err = errno;

		fprintf(stderr, "setxattr: %s: %s: %s\n", argv[1], argv[2], strerror(err));
		return err;
	}
	return 0;
}
