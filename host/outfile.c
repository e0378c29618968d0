/*
 * Output files replaced atomically: see outfile.h.
 *
 * The temporary file is created with mkostemp (O_EXCL) in the target's
 * directory, so the rename never crosses a file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/*
 * Remembers path and makes its temporary name "DIR/.BASE.XXXXXX" and DIR.
 * The temporary name does not end in .prom, so node_exporter's textfile
 * collector (which reads the .prom files of DIR) never reads a file being
 * written.
 */
static int file_names(struct mc_outfile *f, const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *file, *tmpl = NULL, *tmp, *dir;
	int dlen = slash ? (int)(slash - path) : 1;

	if (f->file && strcmp(f->file, path) == 0)
		return 0;
	if (!*base)
		return -EISDIR;
	file = strdup(path);
	if (slash == path)
		dlen = 1;
	if (asprintf(&tmpl, "%.*s/.%s.XXXXXX", dlen, slash ? path : ".", base) < 0)
		tmpl = NULL;
	tmp = tmpl ? strdup(tmpl) : NULL;
	dir = strndup(slash ? path : ".", (size_t)dlen);
	if (!file || !tmpl || !tmp || !dir) {
		free(file);
		free(tmpl);
		free(tmp);
		free(dir);
		return -ENOMEM;
	}
	free(f->file);
	free(f->tmpl);
	free(f->tmp);
	free(f->dir);
	f->file = file;
	f->tmpl = tmpl;
	f->tmp = tmp;
	f->dir = dir;
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int mc_outfile_write(struct mc_outfile *f, const char *path, const char *buf, size_t len)
{
	int fd, dfd, r;

	r = file_names(f, path);
	if (r < 0)
		return r;
	strcpy(f->tmp, f->tmpl);
	fd = mkostemp(f->tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* node_exporter runs as its own user: the file must be readable by others */
	r = fchmod(fd, 0644) < 0 ? -errno : 0;
	if (r == 0)
		r = write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(f->tmp, f->file) < 0)
		r = -errno;
	if (r < 0) {
		unlink(f->tmp);
		return r;
	}
	/* the rename itself is durable once the directory is synced */
	dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = fsync(dfd) < 0 ? -errno : 0;
	close(dfd);
	return r;
}

void mc_outfile_release(struct mc_outfile *f)
{
	free(f->file);
	free(f->tmpl);
	free(f->tmp);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}
