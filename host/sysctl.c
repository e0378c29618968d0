#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-internal.h"

/*
 * The kernel settings memctl may touch: only the sysctls of memctl's own
 * kernel patch, named in the profile. Anything else is refused here, so
 * no profile or argument can steer a write elsewhere under /proc/sys.
 */
static const char *const allowed[] = {
	"vm.max_reclaimers_per_node",
};

static int sysctl_path(const struct mc_host *h, const char *name, char path[static 128])
{
	bool ok = false;

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		ok |= strcmp(name, allowed[i]) == 0;
	if (!ok)
		return -EPERM;
	if (h->fake)
		return -ENOENT;   /* a fake tree has no kernel behind it */
	snprintf(path, 128, "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

int mc_host_sysctl_read(struct mc_host *h, const char *name, long *ret)
{
	char path[128], buf[32];
	ssize_t n;
	char *end;
	int fd, r;

	if ((r = sysctl_path(h, name, path)) < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	errno = 0;
	*ret = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EBADMSG;
	return 0;
}

int mc_host_sysctl_write(struct mc_host *h, const char *name, long v)
{
	char path[128], buf[32];
	long back;
	int r;

	if ((r = host_write_begin(h)) < 0)
		return r;
	if ((r = sysctl_path(h, name, path)) < 0)
		return r;
	snprintf(buf, sizeof(buf), "%ld", v);
	if ((r = host_write_at(AT_FDCWD, path, 0, buf)) < 0)
		return r;
	host_write_done(h);
	if ((r = mc_host_sysctl_read(h, name, &back)) < 0)
		return r;
	return back == v ? 0 : -EIO;
}
