/*
 * Input and output files named by the operator.
 *
 * Reading. open(2) on a FIFO without a writer blocks, on a device it may
 * have side effects, and /proc files report a size of 0 or of a page that
 * has nothing to do with what a read returns. So every input file is opened
 * with O_NONBLOCK and checked with fstat before the first read; only a
 * regular file is read, and never more than its size said plus one byte
 * (which tells that it grew). A profile rewritten in place while it is read
 * ("max: 512M" truncated, then written again) must not be taken half: the
 * size, mtime and ctime before and after the read, and the inode the path
 * names afterwards, must agree, else the file is read again.
 *
 * Trust. The check walks the path itself instead of calling realpath and
 * then checking, so that every folder the kernel passes through when it
 * opens the file is looked at, including the folders of the symbolic links
 * on the way, and it compares what it reached with the descriptor that was
 * opened, so a swap between the open and the check is caught.
 *
 * Writing. rename(2) replaces whatever directory entry is at the target: a
 * FIFO, a device node, a symbolic link. Only a regular file or nothing may
 * be there; when nothing was, renameat2's RENAME_NOREPLACE makes sure that
 * nothing still is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"

#define READ_TRIES 5
#define READ_PAUSE_NS (20 * 1000 * 1000)
#define MAX_LINKS 40

/* ---- reading ---- */

/*
 * Files of /proc, /sys and cgroupfs say they are regular but are made up
 * when read: their size means nothing, and reading one may do something.
 */
static bool is_pseudo(int fd)
{
	static const unsigned long kinds[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC,
	};
	struct statfs fs;

	if (fstatfs(fd, &fs) < 0)
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((unsigned long)fs.f_type == kinds[i])
			return true;
	return false;
}

static bool same_state(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * Reads fd into buf until its end or until *len reaches cap. 1 at the end
 * of the file, 0 when buf is full, or -errno.
 */
static int read_into(int fd, char *buf, size_t cap, size_t *len)
{
	while (*len < cap) {
		ssize_t n = read(fd, buf + *len, cap - *len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 1;
		*len += (size_t)n;
	}
	return 0;
}

/*
 * Reads the regular file fd (st: its fstat) into a new buffer. -EAGAIN when
 * it changed while being read.
 */
static int read_regular(int fd, const struct stat *st, size_t max, char **ret, size_t *ret_len)
{
	size_t want = (size_t)st->st_size, len = 0;
	struct stat after;
	char *buf;
	int r;

	if ((uintmax_t)st->st_size > max)
		return -EFBIG;
	buf = malloc(want + 2);
	if (!buf)
		return -ENOMEM;
	r = read_into(fd, buf, want + 1, &len);
	if (r < 0) {
		free(buf);
		return r;
	}
	if (len > want) {
		free(buf);
		return -EAGAIN;   /* it grew while we read it */
	}
	if (fstat(fd, &after) < 0) {
		r = -errno;
		free(buf);
		return r;
	}
	if (len != want || !same_state(st, &after)) {
		free(buf);
		return -EAGAIN;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* One attempt of mc_file_read. */
static int read_once(const char *path, const struct mc_read_opts *o, char **ret_buf,
		     size_t *ret_len, char **ret_why)
{
	struct stat st, now;
	char *buf = NULL;
	size_t len = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (o->nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || is_pseudo(fd)) {
		r = -MC_ENOTREG;
		goto out;
	}
	if (o->trust && (r = mc_file_trust(path, fd, o->uid, ret_why)) < 0)
		goto out;
	r = read_regular(fd, &st, o->max, &buf, &len);
	if (r < 0)
		goto out;
	/* replaced while we read it: what we have is already the past */
	if (stat(path, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		free(buf);
		r = -EAGAIN;
		goto out;
	}
	*ret_buf = buf;
	*ret_len = len;
out:
	close(fd);
	return r;
}

int mc_file_read(const char *path, const struct mc_read_opts *o, char **ret_buf, size_t *ret_len,
		 char **ret_why)
{
	int r = -EAGAIN;

	for (int i = 0; i < READ_TRIES && r == -EAGAIN; i++) {
		if (i > 0) {
			struct timespec ts = { 0, READ_PAUSE_NS };

			nanosleep(&ts, NULL);
		}
		r = read_once(path, o, ret_buf, ret_len, ret_why);
	}
	return r;
}

int mc_file_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int r = 0;

	while (r == 0) {
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
		if (mc_array_reserve(&buf, &cap, cap ? cap * 2 : 65536, 1) < 0) {
			free(buf);
			return -ENOMEM;
		}
		r = read_into(fd, buf, cap - 1, &len);
	}
	if (r < 0 || len > max) {
		free(buf);
		return r < 0 ? r : -EFBIG;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

/* ---- trust ---- */

static bool owner_ok(const struct stat *st, uid_t uid)
{
	return st->st_uid == 0 || st->st_uid == uid;
}

static int why(char **ret_why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int why(char **ret_why, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret_why, fmt, ap);
	va_end(ap);
	return n < 0 ? -ENOMEM : -EKEYREJECTED;
}

/* A folder the walk passes through: owned by root or uid, written by no one else unless sticky. */
static int check_folder(const char *name, const struct stat *st, uid_t uid, char **ret_why)
{
	if (!owner_ok(st, uid))
		return why(ret_why, "folder '%s' on its path is owned by uid %u, not root or the caller",
			   name, (unsigned)st->st_uid);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return why(ret_why, "folder '%s' on its path is writable by %s without the sticky bit "
			   "(mode %04o), so the file could be replaced", name,
			   st->st_mode & S_IWOTH ? "others" : "its group",
			   (unsigned)(st->st_mode & 07777));
	return 0;
}

/* An entry of a folder others may write to (sticky): only its owner can replace it. */
static int check_entry(const char *name, const struct stat *st, const struct stat *folder,
		       const char *folder_name, uid_t uid, char **ret_why)
{
	if (!(folder->st_mode & (S_IWGRP | S_IWOTH)) || owner_ok(st, uid))
		return 0;
	return why(ret_why, "'%s' is owned by uid %u in '%s', which others may write to", name,
		   (unsigned)st->st_uid, folder_name);
}

struct walk {
	char *cur;            /* the resolved folder so far, "/..." without a trailing '/' */
	size_t len;
	struct stat cur_st;
	char *todo;           /* what is left to resolve */
	int links;
};

/* Makes w->cur "/" and checks it. */
static int walk_root(struct walk *w, uid_t uid, char **ret_why)
{
	w->cur[0] = '/';
	w->cur[1] = '\0';
	w->len = 1;
	if (lstat("/", &w->cur_st) < 0)
		return -errno;
	return check_folder("/", &w->cur_st, uid, ret_why);
}

/* Goes up one folder (".."), which is never a link: cur holds no links. */
static int walk_up(struct walk *w)
{
	while (w->len > 1 && w->cur[w->len - 1] != '/')
		w->len--;
	if (w->len > 1)
		w->len--;
	w->cur[w->len] = '\0';
	return lstat(w->cur, &w->cur_st) < 0 ? -errno : 0;
}

/* Replaces the rest of the path with link's target followed by rest. */
static int walk_link(struct walk *w, const char *link, const char *rest, uid_t uid,
		     char **ret_why)
{
	char target[PATH_MAX];
	ssize_t n;
	char *todo;
	int r;

	if (++w->links > MAX_LINKS)
		return -ELOOP;
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (asprintf(&todo, "%s/%s", target, rest) < 0)
		return -ENOMEM;
	free(w->todo);
	w->todo = todo;
	if (target[0] == '/' && (r = walk_root(w, uid, ret_why)) < 0)
		return r;
	return 0;
}

/*
 * Resolves w->todo from / and checks every step; *ret_st gets what it leads
 * to. The walk's buffers are freed by the caller.
 */
static int walk_path(struct walk *w, uid_t uid, struct stat *ret_st, char **ret_why)
{
	char cand[PATH_MAX];
	int r;

	if ((r = walk_root(w, uid, ret_why)) < 0)
		return r;
	for (;;) {
		char *comp = w->todo, *slash, *rest;
		struct stat st;
		int n;

		while (*comp == '/')
			comp++;
		if (!*comp)
			break;
		slash = strchr(comp, '/');
		rest = slash ? slash + 1 : comp + strlen(comp);
		if (slash)
			*slash = '\0';
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			if (comp[1] == '.' && (r = walk_up(w)) < 0)
				return r;
			memmove(w->todo, rest, strlen(rest) + 1);
			continue;
		}
		n = snprintf(cand, sizeof(cand), "%s/%s", w->len > 1 ? w->cur : "", comp);
		if (n < 0 || (size_t)n >= sizeof(cand))
			return -ENAMETOOLONG;
		if (lstat(cand, &st) < 0)
			return -errno;
		if ((r = check_entry(cand, &st, &w->cur_st, w->cur, uid, ret_why)) < 0)
			return r;
		if (S_ISLNK(st.st_mode)) {
			if ((r = walk_link(w, cand, rest, uid, ret_why)) < 0)
				return r;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			while (*rest == '/')
				rest++;
			if (*rest)
				return -ENOTDIR;
			*ret_st = st;
			return 0;
		}
		if ((r = check_folder(cand, &st, uid, ret_why)) < 0)
			return r;
		memcpy(w->cur, cand, (size_t)n + 1);
		w->len = (size_t)n;
		w->cur_st = st;
		memmove(w->todo, rest, strlen(rest) + 1);
	}
	*ret_st = w->cur_st;
	return 0;
}

int mc_file_trust(const char *path, int fd, uid_t uid, char **ret_why)
{
	struct walk w = { 0 };
	struct stat st, reached;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return why(ret_why, "it is writable by %s (mode %04o); fix with 'chmod go-w'",
			   st.st_mode & S_IWOTH ? "others" : "its group",
			   (unsigned)(st.st_mode & 07777));
	if (!owner_ok(&st, uid))
		return why(ret_why, "it is owned by uid %u, not root or the caller; fix with chown",
			   (unsigned)st.st_uid);
	w.cur = malloc(PATH_MAX);
	if (path[0] == '/') {
		w.todo = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);

		if (cwd && asprintf(&w.todo, "%s/%s", cwd, path) < 0)
			w.todo = NULL;
		free(cwd);
	}
	if (!w.cur || !w.todo) {
		r = -ENOMEM;
		goto out;
	}
	r = walk_path(&w, uid, &reached, ret_why);
	if (r == 0 && (reached.st_dev != st.st_dev || reached.st_ino != st.st_ino))
		r = why(ret_why, "the path leads to another file than the one opened "
			"(it was replaced while being checked)");
out:
	free(w.cur);
	free(w.todo);
	return r;
}

/* ---- writing ---- */

int mc_file_write_all(int fd, const char *buf, size_t len)
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

/* Splits path into its folder (opened) and its last component. */
static int open_folder(const char *path, int *ret_dfd, const char **ret_base)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir;
	int dfd;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return -errno;
	*ret_dfd = dfd;
	*ret_base = base;
	return 0;
}

/* Makes ".BASE.XXXXXX" in dfd with O_EXCL; its name goes to *ret_tmp. */
static int make_temp(int dfd, const char *base, mode_t mode, char **ret_tmp)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct timespec ts;
	unsigned long x;
	char *tmp;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^ (unsigned long)ts.tv_sec;
	if (asprintf(&tmp, ".%s.XXXXXX", base) < 0)
		return -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		char *p = tmp + strlen(tmp) - 6;
		int fd;

		for (int i = 0; i < 6; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			p[i] = chars[(x >> 33) % (sizeof(chars) - 1)];
		}
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			*ret_tmp = tmp;
			return fd;
		}
		if (errno != EEXIST) {
			int r = -errno;

			free(tmp);
			return r;
		}
	}
	free(tmp);
	return -EEXIST;
}

/* What is at base now: 0 nothing, 1 a regular file, -MC_ENOTREG or -errno. */
static int target_kind(int dfd, const char *base)
{
	struct stat st;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 1 : -MC_ENOTREG;
}

int mc_file_replace(const char *path, const char *buf, size_t len, mode_t mode)
{
	const char *base = NULL;
	char *tmp = NULL;
	int dfd = -1, fd, r, kind;

	r = open_folder(path, &dfd, &base);
	if (r < 0)
		return r;
	kind = target_kind(dfd, base);
	if (kind < 0) {
		close(dfd);
		return kind;
	}
	fd = make_temp(dfd, base, mode, &tmp);
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	/* the umask must not decide: node_exporter (another user) reads export files */
	r = fchmod(fd, mode) < 0 ? -errno : 0;
	if (r == 0)
		r = mc_file_write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0) {
		/* recheck: what was checked may have been swapped meanwhile */
		kind = target_kind(dfd, base);
		if (kind < 0)
			r = kind;
		else if (kind == 0)
			r = renameat2(dfd, tmp, dfd, base, RENAME_NOREPLACE) < 0 ? -errno : 0;
		else
			r = renameat(dfd, tmp, dfd, base) < 0 ? -errno : 0;
	}
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	else if (fsync(dfd) < 0)
		r = -errno;   /* the rename itself is durable once the folder is synced */
	free(tmp);
	close(dfd);
	return r;
}
