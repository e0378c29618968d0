/*
 * The state directory: lock, journal files, and the checks that keep a
 * hostile or careless setup from steering root's reads and writes (see
 * state.h for the rules).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host-internal.h"
#include "state.h"
#include "unitname.h"

#define LOCKFILE "lock"
#define JOURNAL "journal"
#define RECLAIM_PREFIX "reclaim."
#define CREATED "created"
#define UNIT_LOCK_PARENT "/run/memctl"
#define UNIT_LOCK_NAME "units"

struct mc_lock {
	int fd;             /* STATE_DIR/lock, flocked */
	int dirfd;
	char *why;          /* the last refusal */
	int *tree_fds;      /* subtree locks: the parent's directory and its ancestors */
	size_t n_tree;
	int *unit_fds;      /* unit locks: MC_UNIT_LOCK_DIR/NAME, flocked */
	size_t n_units;
};

static const char *type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a file";
}

/*
 * Checks st of what is at dir/name (name NULL: dir itself). Returns 0, or
 * -EPERM with the reason in *why (allocated) when why is not NULL.
 */
static int check_stat(const struct stat *st, const char *dir, const char *name, char **why)
{
	const char *what = NULL;
	char *subject;

	if (name ? !S_ISREG(st->st_mode) : !S_ISDIR(st->st_mode))
		what = name ? "not a regular file" : "not a directory";
	else if (st->st_uid != 0 && st->st_uid != getuid())
		what = "owned by another user";
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		what = "writable by group or others";
	else if (name && st->st_nlink != 1)
		what = "a file with more than one hard link";
	if (!what)
		return 0;
	if (!why)
		return -EPERM;
	subject = name ? mc_asprintf("'%s/%s'", dir, name) : mc_asprintf("'%s'", dir);
	free(*why);
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || !subject)
		*why = mc_asprintf("%s is %s (uid %ld, mode %04o)", subject ? subject : dir, what,
				   (long)st->st_uid, (unsigned)(st->st_mode & 07777));
	else
		*why = mc_asprintf("%s is %s, %s", subject, type_name(st->st_mode), what);
	free(subject);
	return -EPERM;
}

int mc_state_trust_stat(const struct stat *st, const char *dir, const char *name, char **why)
{
	return check_stat(st, dir, name, why);
}

/* Whether name is a journal: the apply's, or a v1 reclaim slot's ("reclaim.N"). */
static bool is_journal_name(const char *name)
{
	const char *n = name + strlen(RECLAIM_PREFIX);

	if (strcmp(name, JOURNAL) == 0)
		return true;
	if (strncmp(name, RECLAIM_PREFIX, strlen(RECLAIM_PREFIX)) != 0 || !*n)
		return false;
	return strspn(n, "0123456789") == strlen(n);
}

int mc_state_open_dir(const char *dir, bool create, char **why)
{
	struct stat st;
	int fd, r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		r = -errno;
		if ((r == -ELOOP || r == -ENOTDIR) && why && lstat(dir, &st) == 0) {
			free(*why);
			*why = mc_asprintf("'%s' is %s, not a directory of its own", dir,
					   type_name(st.st_mode));
			return -EPERM;
		}
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if ((r = check_stat(&st, dir, NULL, why)) < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int mc_state_dir_stream(int dirfd, DIR **ret)
{
	int fd = dup(dirfd), r;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	rewinddir(d);   /* the duplicate shares the offset of an earlier listing */
	*ret = d;
	return 0;
}

/* The unit locks' directory found in state directory dir: a directory by the same rule. */
static int check_units_dir(const struct stat *st, const char *dir, char **why)
{
	char *sub = mc_asprintf("%s/%s", dir, UNIT_LOCK_NAME);
	int r;

	if (!sub)
		return -ENOMEM;
	r = check_stat(st, sub, NULL, why);
	free(sub);
	return r;
}

/* The state directory, opened and checked, and every entry in it checked. */
static int open_dir(const char *dir, bool create, int *ret_fd, char **why)
{
	struct stat st;
	struct dirent *de;
	DIR *d = NULL;
	int fd, r;

	if ((fd = mc_state_open_dir(dir, create, why)) < 0)
		return fd;
	if ((r = mc_state_dir_stream(fd, &d)) < 0) {
		close(fd);
		return r;
	}
	while (r == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = errno == ENOENT ? 0 : -errno;
		else if (strcmp(de->d_name, UNIT_LOCK_NAME) == 0 && S_ISDIR(st.st_mode))
			r = check_units_dir(&st, dir, why);   /* /run/memctl's unit locks */
		else
			r = check_stat(&st, dir, de->d_name, why);
	}
	closedir(d);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int mc_state_open_file(int dirfd, const char *dir, const char *name, int flags,
		       struct stat *ret_st, char **why)
{
	struct stat st;
	int fd, r;

	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			r = check_stat(&st, dir, name, why);
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if ((r = check_stat(&st, dir, name, why)) < 0) {
		close(fd);
		return r;
	}
	if (ret_st)
		*ret_st = st;
	return fd;
}

/* mc_state_open_file into *ret_fd: 0 or -errno. */
static int open_file(int dirfd, const char *dir, const char *name, int flags, int *ret_fd,
		     char **why)
{
	int fd = mc_state_open_file(dirfd, dir, name, flags, NULL, why);

	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

/*
 * The PID holding a flock on the file open at fd, from /proc/locks (which
 * names locks by device and inode). 0 when not found.
 */
static long flock_holder(int fd)
{
	struct stat st;
	char line[256];
	long pid = 0;
	FILE *f;

	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		char type[16], mode[16];
		unsigned maj, min;
		unsigned long ino;
		long p;

		if (strstr(line, "->"))
			continue;   /* a waiter, not the holder */
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", type, mode, &p, &maj, &min,
			   &ino) == 6 && strcmp(type, "FLOCK") == 0 && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && ino == (unsigned long)st.st_ino)
			pid = p;
	}
	fclose(f);
	return pid;
}

int mc_lock_take(const char *state_dir, bool wait, struct mc_lock **ret, struct mc_lock_info *info)
{
	struct mc_lock *l;
	int fd, dirfd, r;

	*info = (struct mc_lock_info){ 0 };
	if ((r = open_dir(state_dir, true, &dirfd, &info->why)) < 0)
		return r;
	/* O_RDONLY: a flock needs no write access, and the file is never written. */
	r = open_file(dirfd, state_dir, LOCKFILE, O_RDONLY | O_CREAT, &fd, &info->why);
	if (r < 0) {
		close(dirfd);
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		if (r != -EWOULDBLOCK)
			goto fail;
		info->holder = flock_holder(fd);
		if (!wait)
			goto fail;
		/* The kernel releases a dead holder's flock: no stale-lock guessing. */
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR) {
				r = -errno;
				goto fail;
			}
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		r = -ENOMEM;
		goto fail;
	}
	l->fd = fd;
	l->dirfd = dirfd;
	*ret = l;
	return 0;
fail:
	close(fd);
	close(dirfd);
	return r;
}

void mc_lock_release(struct mc_lock *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_tree; i++)
		close(l->tree_fds[i]);
	free(l->tree_fds);
	for (size_t i = 0; i < l->n_units; i++)
		close(l->unit_fds[i]);
	free(l->unit_fds);
	close(l->fd);
	close(l->dirfd);
	free(l->why);
	free(l);
}

void mc_lock_info_free(struct mc_lock_info *info)
{
	free(info->why);
	info->why = NULL;
}

const char *mc_lock_why(const struct mc_lock *l)
{
	return l->why;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* flock(fd, op) retried every 10 ms until timeout_ms passed. */
static int flock_bounded(int fd, int op, long timeout_ms)
{
	long end = now_ms() + timeout_ms;

	for (;;) {
		struct timespec pause = { 0, 10 * 1000 * 1000 };

		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (now_ms() >= end)
			return -EWOULDBLOCK;
		nanosleep(&pause, NULL);
	}
}

/*
 * Opens the directories from the root down to the deepest part of path
 * that exists: the root, then the prefix ending before each later '/', then
 * the whole. fds has room for one per component plus the root.
 */
static int open_chain(struct mc_host *h, char *path, int *fds, size_t *ret_n)
{
	size_t n = 0;
	int r = 0;

	for (size_t end = 0;; end++) {
		char save = path[end];
		int fd;

		if (end > 0 && save != '/' && save != '\0')
			continue;
		if (end == 1 && save == '\0')
			break;      /* parent "/": the root is all of it */
		if (end == 0) {
			r = cgfs_open_group(h, "/", O_RDONLY, &fd);
		} else {
			path[end] = '\0';
			r = cgfs_open_group(h, path, O_RDONLY, &fd);
			path[end] = save;
		}
		if (r == -ENOENT)
			break;
		if (r < 0) {
			while (n)
				close(fds[--n]);
			return r;
		}
		fds[n++] = fd;
		if (!save)
			break;
	}
	*ret_n = n;
	return 0;
}

/*
 * Ancestors first (shared), then the parent (exclusive): every process
 * takes them in the same order, top down, so two of them cannot deadlock.
 */
int mc_lock_subtree(struct mc_lock *l, struct mc_host *h, const char *parent, long timeout_ms,
		    long *ret_holder)
{
	char *path = strdup(parent);
	size_t depth = 1, n = 0;
	int r;

	*ret_holder = 0;
	if (!path)
		return -ENOMEM;
	for (const char *p = path; *p; p++)
		depth += *p == '/';
	for (size_t i = 0; i < l->n_tree; i++)
		close(l->tree_fds[i]);
	free(l->tree_fds);
	l->n_tree = 0;
	l->tree_fds = calloc(depth + 1, sizeof(int));
	r = l->tree_fds ? open_chain(h, path, l->tree_fds, &n) : -ENOMEM;
	free(path);
	for (size_t i = 0; i < n && r == 0; i++) {
		r = flock_bounded(l->tree_fds[i], i + 1 == n ? LOCK_EX : LOCK_SH, timeout_ms);
		if (r == -EWOULDBLOCK) {
			/* Whoever holds it exclusively: the parent's or an overlapping subtree's. */
			*ret_holder = flock_holder(l->tree_fds[i]);
			for (size_t j = i + 1; !*ret_holder && j < n; j++)
				*ret_holder = flock_holder(l->tree_fds[j]);
		}
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			close(l->tree_fds[i]);
		n = 0;
	}
	l->n_tree = n;
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Opens the lock file of each of the n sorted names (repeats skipped) in
 * the checked directory dirfd into l->unit_fds. 0 or -errno.
 */
static int open_unit_locks(struct mc_lock *l, int dirfd, const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int fd;

		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		if (!mc_sd_is_unit_name(names[i], strlen(names[i])))
			return -EINVAL;
		fd = mc_state_open_file(dirfd, MC_UNIT_LOCK_DIR, names[i], O_RDONLY | O_CREAT,
					NULL, &l->why);
		if (fd < 0)
			return fd;
		l->unit_fds[l->n_units++] = fd;
	}
	return 0;
}

/* Opens the unit locks' directory (and /run/memctl above it), made 0700 when missing. */
static int open_units_dir(char **why)
{
	int fd = mc_state_open_dir(UNIT_LOCK_PARENT, true, why);

	if (fd < 0)
		return fd;
	close(fd);
	return mc_state_open_dir(MC_UNIT_LOCK_DIR, true, why);
}

/*
 * In sorted order, so that two memctl processes naming the same units
 * cannot each hold one the other waits for. The lock files are never
 * removed: removing one could let a process that opened it before the
 * removal and one that opens the new file both think they hold it.
 */
int mc_lock_units(struct mc_lock *l, const char *const *units, size_t n, long timeout_ms,
		  const char **ret_busy, long *ret_holder)
{
	const char **names;
	int dirfd, r = 0;

	*ret_busy = NULL;
	*ret_holder = 0;
	for (size_t i = 0; i < l->n_units; i++)
		close(l->unit_fds[i]);
	l->n_units = 0;
	if (n == 0)
		return 0;
	free(l->unit_fds);
	l->unit_fds = calloc(n, sizeof(int));
	names = malloc(n * sizeof(*names));
	if (!l->unit_fds || !names) {
		free(names);
		return -ENOMEM;
	}
	memcpy(names, units, n * sizeof(*names));
	qsort(names, n, sizeof(*names), cmp_str);
	if ((dirfd = open_units_dir(&l->why)) < 0)
		r = dirfd;
	else
		r = open_unit_locks(l, dirfd, names, n);
	if (dirfd >= 0)
		close(dirfd);
	for (size_t i = 0, k = 0; r == 0 && i < n; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		r = flock_bounded(l->unit_fds[k], LOCK_EX, timeout_ms);
		if (r == -EWOULDBLOCK) {
			*ret_busy = names[i];   /* one of the caller's strings */
			*ret_holder = flock_holder(l->unit_fds[k]);
		}
		k++;
	}
	free(names);
	if (r < 0) {
		for (size_t i = 0; i < l->n_units; i++)
			close(l->unit_fds[i]);
		l->n_units = 0;
	}
	return r;
}

/* Replaces the state file name with len bytes of buf: NAME.tmp, fsync, rename, fsync. */
static int write_file(struct mc_lock *l, const char *name, const char *buf, size_t len)
{
	size_t off = 0;
	char *tmp;
	int fd, r = 0;

	tmp = mc_asprintf("%s.tmp", name);
	if (!tmp)
		return -ENOMEM;
	/* Never write through what is there: a hard link's target would be overwritten. */
	if (unlinkat(l->dirfd, tmp, 0) < 0 && errno != ENOENT) {
		r = -errno;
		goto out;
	}
	fd = openat(l->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	while (r == 0 && off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(l->dirfd, tmp, l->dirfd, name) < 0)
		r = -errno;
	if (r == 0 && fsync(l->dirfd) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(l->dirfd, tmp, 0);
out:
	free(tmp);
	return r;
}

int mc_state_journal_write(struct mc_lock *l, const char *name, const struct mc_journal *j)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if ((r = mc_journal_format(j, &buf, &len)) < 0)
		return r;
	r = write_file(l, name, buf, len);
	free(buf);
	return r;
}

/* Reads all of the checked file open at fd (at most MC_JOURNAL_MAX bytes). */
static int read_all(int fd, char **ret, size_t *ret_len)
{
	size_t cap = 0, len = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > MC_JOURNAL_MAX) {
				free(buf);
				return -EFBIG;
			}
			if (mc_array_reserve(&buf, &cap, cap ? cap * 2 : 4096, 1) < 0) {
				free(buf);
				return -ENOMEM;
			}
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

static char *dir_name(const struct mc_lock *l)
{
	char proc[64], *buf = NULL;
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", l->dirfd);
	for (size_t cap = 256; cap <= 65536; cap *= 2) {
		free(buf);
		buf = malloc(cap);
		if (!buf)
			return NULL;
		n = readlink(proc, buf, cap);
		if (n < 0)
			break;
		if ((size_t)n < cap) {
			buf[n] = '\0';
			return buf;
		}
	}
	free(buf);
	return strdup("the state directory");
}

int mc_state_journal_read(struct mc_lock *l, const char *name, struct mc_journal *ret,
			  unsigned *ret_line)
{
	char *dir = dir_name(l), *buf = NULL;
	size_t len = 0;
	int fd, r;

	if (!dir)
		return -ENOMEM;
	r = open_file(l->dirfd, dir, name, O_RDONLY, &fd, &l->why);
	free(dir);
	if (r < 0)
		return r;
	r = read_all(fd, &buf, &len);
	close(fd);
	if (r == 0)
		r = mc_journal_parse(buf, len, ret, ret_line);
	free(buf);
	return r;
}

int mc_state_created_read(struct mc_lock *l, struct mc_created *ret)
{
	char *dir = dir_name(l), *buf = NULL;
	const char *why = NULL;
	unsigned line = 0;
	size_t len = 0;
	int fd, r;

	*ret = (struct mc_created){ 0 };
	if (!dir)
		return -ENOMEM;
	r = open_file(l->dirfd, dir, CREATED, O_RDONLY, &fd, &l->why);
	if (r == 0) {
		r = read_all(fd, &buf, &len);
		close(fd);
	}
	if (r == 0)
		r = mc_created_parse(buf, len, ret, &line, &why);
	if (r == -EBADMSG || r == -EFBIG) {
		free(l->why);
		l->why = mc_asprintf("'%s/%s' line %u: %s", dir, CREATED, line ? line : 1,
				     why ? why : "larger than a record can be");
		r = -EBADMSG;
	}
	free(buf);
	free(dir);
	return r == -ENOENT ? 0 : r;
}

int mc_state_created_write(struct mc_lock *l, const struct mc_created *c)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (c->n == 0)
		return mc_state_journal_remove(l, CREATED);
	if ((r = mc_created_format(c, &buf, &len)) < 0)
		return r;
	r = write_file(l, CREATED, buf, len);
	free(buf);
	return r;
}

/* Whether j creates or removes groups, so that the record of created groups is involved. */
static bool touches_groups(const struct mc_journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->v[i].kind == MC_STEP_MKDIR || j->v[i].kind == MC_STEP_RMDIR)
			return true;
	return false;
}

int mc_state_created_check(struct mc_lock *l, const struct mc_journal *j)
{
	struct mc_created c;
	int r;

	if (!touches_groups(j))
		return 0;
	r = mc_state_created_read(l, &c);
	mc_created_free(&c);
	return r;
}

/* Whether the group is gone (or is not a group): then its entry is stale. */
static bool gone(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -ELOOP;
}

int mc_state_created_sync(struct mc_lock *l, struct mc_host *h, const struct mc_journal *j,
			  bool done)
{
	struct mc_created c;
	bool changed = false;
	uint64_t id;
	int r;

	if (!touches_groups(j))
		return 0;
	if ((r = mc_state_created_read(l, &c)) < 0)
		return r;
	for (size_t i = 0; i < j->n && r == 0; i++) {
		const struct mc_jrec *rec = &j->v[i];
		const struct mc_created_group *g;
		/* memctl's now: the groups it made, and the ones of its own it made again */
		bool mine = rec->kind == MC_STEP_MKDIR ? done :
			    rec->kind == MC_STEP_RMDIR && !done && rec->created;

		if (!mine || mc_host_group_id(h, rec->path, &id) < 0)
			continue;
		g = mc_created_find(&c, rec->path);
		if (!g || g->id != id) {
			r = mc_created_set(&c, rec->path, id);
			changed = true;
		}
	}
	/* entries whose group is gone (removed, undone) or is another group now */
	for (size_t i = c.n; r == 0 && i-- > 0;) {
		int e = mc_host_group_id(h, c.v[i].path, &id);

		if (gone(e) || (e == 0 && id != c.v[i].id)) {
			mc_created_drop(&c, i);
			changed = true;
		}
	}
	if (r == 0 && changed)
		r = mc_state_created_write(l, &c);
	mc_created_free(&c);
	return r;
}

int mc_state_journal_remove(struct mc_lock *l, const char *name)
{
	if (unlinkat(l->dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return fsync(l->dirfd) < 0 ? -errno : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The journal names in the directory open at dirfd (a descriptor of our own). */
static int list_journals(int dirfd, char ***ret, size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = NULL;
	int r;

	if ((r = mc_state_dir_stream(dirfd, &d)) < 0)
		return r;
	while ((de = readdir(d))) {
		if (!is_journal_name(de->d_name))
			continue;
		if (mc_array_reserve(&names, &cap, n + 1, sizeof(*names)) < 0 ||
		    !(names[n] = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r < 0) {
		mc_state_names_free(names, n);
		return r;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	*ret = names;
	*ret_n = n;
	return 0;
}

int mc_state_journals(struct mc_lock *l, char ***ret, size_t *ret_n)
{
	return list_journals(l->dirfd, ret, ret_n);
}

void mc_state_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

bool mc_journal_exists(const char *state_dir)
{
	struct mc_pending p;
	bool found;

	if (mc_journal_pending(state_dir, &p) < 0)
		return true;   /* cannot tell: do not claim there is none */
	found = p.kind != MC_PENDING_NONE;
	mc_pending_free(&p);
	return found;
}

/* How pressing a pending journal is: the one status shows. */
static int rank(enum mc_pending_kind k)
{
	static const int r[] = { [MC_PENDING_NONE] = 0, [MC_PENDING_RUNNING] = 1,
				 [MC_PENDING_INTERRUPTED] = 2, [MC_PENDING_FAILED] = 3,
				 [MC_PENDING_UNREADABLE] = 4 };
	return r[k];
}

/* What one journal file says (read without the lock: status only looks). */
static void pending_one(int dirfd, const char *dir, const char *name, long holder,
			struct mc_pending *p)
{
	struct mc_journal j;
	char *buf = NULL, *why = NULL;
	size_t len;
	unsigned line = 0;
	int fd, r;

	p->reclaim = strcmp(name, JOURNAL) != 0;
	r = open_file(dirfd, dir, name, O_RDONLY, &fd, &why);
	if (r == 0) {
		r = read_all(fd, &buf, &len);
		close(fd);
	}
	if (r == 0)
		r = mc_journal_parse(buf, len, &j, &line);
	free(buf);
	if (r < 0) {
		p->kind = MC_PENDING_UNREADABLE;
		p->text = why ? why : r == -EBADMSG ?
			  mc_asprintf("'%s/%s' line %u is not a memctl journal line", dir, name, line) :
			  mc_asprintf("cannot read '%s/%s': %s", dir, name, strerror(-r));
		return;
	}
	p->pid = j.pid;
	if (j.failure) {
		p->kind = MC_PENDING_FAILED;
		p->text = j.failure;
		j.failure = NULL;
	} else {
		p->kind = holder && holder == j.pid ? MC_PENDING_RUNNING : MC_PENDING_INTERRUPTED;
	}
	mc_journal_free(&j);
}

int mc_journal_pending(const char *state_dir, struct mc_pending *ret)
{
	char **names = NULL, *why = NULL;
	size_t n = 0;
	long holder = 0;
	int dirfd, lfd, r;

	*ret = (struct mc_pending){ 0 };
	r = open_dir(state_dir, false, &dirfd, &why);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		ret->kind = MC_PENDING_UNREADABLE;
		ret->text = why ? why : mc_asprintf("cannot open '%s': %s", state_dir, strerror(-r));
		return ret->text ? 0 : -ENOMEM;
	}
	if (open_file(dirfd, state_dir, LOCKFILE, O_RDONLY, &lfd, &why) == 0) {
		holder = flock_holder(lfd);
		close(lfd);
	}
	free(why);
	r = list_journals(dirfd, &names, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct mc_pending p = { 0 };

		pending_one(dirfd, state_dir, names[i], holder, &p);
		if (rank(p.kind) > rank(ret->kind)) {
			mc_pending_free(ret);
			*ret = p;
		} else {
			mc_pending_free(&p);
		}
	}
	mc_state_names_free(names, n);
	close(dirfd);
	return r;
}

void mc_pending_free(struct mc_pending *p)
{
	free(p->text);
	p->text = NULL;
}
