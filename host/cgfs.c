#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host-internal.h"
#include "size.h"

/*
 * Access to the cgroup file system: one group path in, one file out.
 *
 * Paths given to the host layer are cgroup paths ("/a/b"), never file system
 * paths, and they are walked from the mount's directory descriptor one
 * component at a time with O_NOFOLLOW|O_DIRECTORY. The kernel never sees a
 * whole path, so a symlink anywhere in the tree (possible in a fake tree, or
 * if something mounted over a group) ends the walk with an error instead of
 * leading memctl's writes somewhere else, and "." / ".." are refused before
 * anything is opened.
 *
 * A knob write is one write() of the whole value: cgroup files act on each
 * write() call, so a value split over two calls would set two values. The
 * kernel may store something other than what was written (it rounds to
 * pages, clamps, or silently keeps the old value on some kernels), so every
 * write is read back and compared; a difference is -EIO with the value the
 * kernel kept.
 */

/* The largest cgroup file memctl reads: a numa_stat of many nodes fits easily. */
#define READ_LIMIT (16u << 20)

/* The next non-empty component of the path at *p; false at the end. */
static bool next_comp(const char **p, const char **ret, size_t *ret_len)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	if (!*s) {
		*p = s;
		return false;
	}
	e = strchr(s, '/');
	if (!e)
		e = s + strlen(s);
	*ret = s;
	*ret_len = (size_t)(e - s);
	*p = e;
	return true;
}

/* Checks the components of a path (absolute or relative). */
static int check_comps(const char *path)
{
	const char *c;
	size_t len;

	while (next_comp(&path, &c, &len)) {
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
	}
	return 0;
}

int cgfs_check_path(const char *group)
{
	if (group[0] != '/')
		return -EINVAL;
	if (strnlen(group, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	return check_comps(group);
}

bool cgfs_clean_path(const char *p)
{
	size_t len = strlen(p);

	if (cgfs_check_path(p) < 0 || strstr(p, "//"))
		return false;
	return len == 1 || p[len - 1] != '/';
}

int mc_path_join(const char *parent, const char *rel, char **ret)
{
	size_t pl, rl;
	char *out, *w;
	const char *p, *c;
	size_t len;
	int r;

	r = cgfs_check_path(parent);
	if (r < 0)
		return r;
	r = check_comps(rel);
	if (r < 0)
		return r;
	pl = strlen(parent);
	rl = strlen(rel);
	if (pl + rl + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	out = malloc(pl + rl + 2);
	if (!out)
		return -ENOMEM;
	w = out;
	p = parent;
	while (next_comp(&p, &c, &len)) {
		*w++ = '/';
		memcpy(w, c, len);
		w += len;
	}
	p = rel;
	while (next_comp(&p, &c, &len)) {
		*w++ = '/';
		memcpy(w, c, len);
		w += len;
	}
	if (w == out)
		*w++ = '/';
	*w = '\0';
	*ret = out;
	return 0;
}

int host_join(const char *base, const char *name, char **ret)
{
	size_t bl = strlen(base), nl = strlen(name);
	bool slash = bl > 0 && base[bl - 1] != '/';
	char *p;

	if (bl + nl + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	p = malloc(bl + nl + 2);
	if (!p)
		return -ENOMEM;
	memcpy(p, base, bl);
	if (slash)
		p[bl++] = '/';
	memcpy(p + bl, name, nl + 1);
	*ret = p;
	return 0;
}

/*
 * Walks to group. With ret_last, stops at its parent directory and copies
 * the last component there (-EINVAL for the root, which has no parent). The
 * final directory is opened with flags (O_PATH or O_RDONLY), the ones on the
 * way with O_PATH.
 */
static int walk(struct mc_host *h, const char *group, int flags, int *ret_fd,
		char ret_last[NAME_MAX + 1])
{
	const char *p = group, *c, *nc, *peek;
	size_t len, nlen;
	char name[NAME_MAX + 1];
	int fd = -1, r;
	bool more;

	r = cgfs_check_path(group);
	if (r < 0)
		return r;
	more = next_comp(&p, &c, &len);
	if (!more) {
		if (ret_last)
			return -EINVAL;
		fd = openat(h->rootfd, ".", flags | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		*ret_fd = fd;
		return 0;
	}
	while (more) {
		int nfd, f;

		peek = p;
		more = next_comp(&peek, &nc, &nlen);
		memcpy(name, c, len);
		name[len] = '\0';
		if (!more && ret_last) {
			memcpy(ret_last, name, len + 1);
			if (fd < 0) {
				fd = openat(h->rootfd, ".", flags | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0)
					return -errno;
			}
			break;
		}
		f = (more || ret_last ? O_PATH : flags) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		nfd = openat(fd < 0 ? h->rootfd : fd, name, f);
		r = -errno;
		if (fd >= 0)
			close(fd);
		if (nfd < 0)
			return r;
		fd = nfd;
		p = peek;
		c = nc;
		len = nlen;
	}
	*ret_fd = fd;
	return 0;
}

int cgfs_open_group(struct mc_host *h, const char *group, int flags, int *ret_fd)
{
	return walk(h, group, flags, ret_fd, NULL);
}

/*
 * A seq_file (every cgroupfs and /proc file read here) returns at most one
 * buffer per read(2), whatever count asks: a page, or more when a single
 * record needed more. memory.stat, numa_stat and the knobs are one record
 * each, so one read returns them whole; cgroup.procs, tasks and
 * /proc/vmstat have a record a line, and a read of cgroup.procs with 1500
 * processes returns its first 4092 bytes (682 of them). A read stops short
 * of count before the end only when the next record does not fit in what
 * is left of that buffer, and no file read here has a line of half a page,
 * so a short read of less than half a page ends the file; after a longer
 * one the file is read on from where it stopped (the same open file, so
 * v1's process list stays the one the first read built) until a read
 * returns 0. Regular files (a fake tree) read short only at the end.
 */
int cgfs_read_fd(struct host_buf *b, int fd, size_t *ret_len)
{
	const size_t half_page = (size_t)getpagesize() / 2;
	size_t len = 0;

	for (;;) {
		size_t want;
		ssize_t n;

		if (b->cap - len < 2) {
			if (b->cap >= READ_LIMIT)
				return -EFBIG;
			if (mc_array_reserve(&b->p, &b->cap, b->cap ? b->cap * 2 : 4096, 1) < 0)
				return -ENOMEM;
		}
		want = b->cap - 1 - len;
		n = pread(fd, b->p + len, want, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
		if (n == 0 || ((size_t)n < want && (size_t)n < half_page)) {
			b->p[len] = '\0';
			*ret_len = len;
			return 0;
		}
	}
}

int cgfs_read_at(struct host_buf *b, int dirfd, const char *file, size_t *ret_len)
{
	int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = cgfs_read_fd(b, fd, ret_len);
	close(fd);
	return r;
}

void host_buf_free(struct host_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

/* Longest knob file content accepted: a decimal u64 or "max" plus newline. */
#define VALUE_MAX 64

/*
 * Reads one number from file in the group open at gfd, into a buffer on the
 * stack: safe from several threads at once (the reclaimers), unlike reads
 * through h->buf.
 */
static int read_value_at(int gfd, const char *file, uint64_t *ret)
{
	char buf[VALUE_MAX];
	ssize_t n;
	int fd, r;

	fd = openat(gfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = pread(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : (size_t)n >= sizeof(buf) ? -EFBIG : 0;
	close(fd);
	return r < 0 ? r : mc_parse_knob_value(buf, (size_t)n, ret);
}

int host_write_begin(struct mc_host *h)
{
	h->n_write_calls++;
#ifdef MEMCTL_FAULT_INJECTION
	for (size_t i = 0; i < HOST_FAIL_MAX; i++)
		if (h->fail_write_at[i] && h->n_write_calls == h->fail_write_at[i])
			return -h->fail_write_err[i];
#endif
	return 0;
}

void host_write_done(struct mc_host *h)
{
	h->n_writes_ok++;
#ifdef MEMCTL_FAULT_INJECTION
	if (h->stop_after_write && h->n_writes_ok == h->stop_after_write)
		raise(SIGSTOP);
#endif
}

/*
 * Bounded writes. A write that makes the kernel reclaim (a limit below the
 * usage, memory.reclaim) can take as long as reclaim does. A per-thread
 * POSIX timer sends the writing thread WRITE_SIGNAL when the write's time is
 * up; the handler does nothing and is installed without SA_RESTART, so the
 * kernel, which checks for signals between reclaim passes, stops: v1 gives
 * up the resize with EINTR and keeps the old limit (reported -ETIMEDOUT),
 * v2 keeps the new limit and stops reclaiming towards it (the write
 * succeeds, and reads back as written).
 */
#define WRITE_SIGNAL (SIGRTMIN + 2)

static __thread volatile sig_atomic_t write_timed_out;
static pthread_once_t write_signal_once = PTHREAD_ONCE_INIT;
static int write_signal_err;

static void on_write_timeout(int sig)
{
	write_timed_out = 1;
}

static void install_write_signal(void)
{
	struct sigaction sa = { .sa_handler = on_write_timeout };

	sigemptyset(&sa.sa_mask);
	if (sigaction(WRITE_SIGNAL, &sa, NULL) < 0)
		write_signal_err = -errno;
}

void mc_host_set_write_timeout(struct mc_host *h, long ms)
{
	h->write_timeout_ms = ms > 0 ? ms : 0;
}

void mc_host_set_write_deadline(struct mc_host *h, long deadline_ms)
{
	h->write_deadline_ms = deadline_ms > 0 ? deadline_ms : 0;
}

long mc_host_write_deadline(const struct mc_host *h)
{
	return h->write_deadline_ms;
}

long mc_host_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The time this write may take (0: unbounded), or -ETIMEDOUT past the deadline. */
static long write_budget(const struct mc_host *h)
{
	long ms = h->write_timeout_ms;

	if (h->write_deadline_ms) {
		long left = h->write_deadline_ms - mc_host_now_ms();

		if (left <= 0)
			return -ETIMEDOUT;
		if (!ms || left < ms)
			ms = left;
	}
	return ms;
}

/* Sleeps ms (the test-only slow write); false when the timer cut it short. */
static bool injected_delay(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&d, &d) < 0)
		if (write_timed_out)
			return false;
	return true;
}

/* host_write_at within write_budget(h); delay_ms: test-only delay before the write. */
static int bounded_write(struct mc_host *h, int dirfd, const char *file, int flags,
			 const char *text, long delay_ms)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = WRITE_SIGNAL };
	struct itimerspec its = { 0 };
	sigset_t one, old;
	long ms = write_budget(h);
	timer_t t;
	int r;

	if (ms < 0)
		return (int)ms;
	if (!ms && !delay_ms)
		return host_write_at(dirfd, file, flags, text);
	pthread_once(&write_signal_once, install_write_signal);
	if (write_signal_err)
		return write_signal_err;
	sev._sigev_un._tid = gettid();   /* sigev_notify_thread_id */
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) < 0)
		return -errno;
	sigemptyset(&one);
	sigaddset(&one, WRITE_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &one, &old);
	write_timed_out = 0;
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000L;
	r = ms && timer_settime(t, 0, &its, NULL) < 0 ? -errno : 0;
	if (r == 0 && delay_ms && !injected_delay(delay_ms))
		r = -ETIMEDOUT;
	if (r == 0) {
		r = host_write_at(dirfd, file, flags, text);
		if (r == -EINTR && write_timed_out)
			r = -ETIMEDOUT;
	}
	timer_delete(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sigismember(&old, WRITE_SIGNAL)) {
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&one, NULL, &zero) > 0)
			;   /* a signal that came after the write: drop it */
	}
	return r;
}

int mc_host_read_knob(struct mc_host *h, const char *group, enum mc_knob k, uint64_t *ret)
{
	int gfd, r;

	if ((int)k < 0 || k >= MC_KNOB__COUNT)
		return -EINVAL;
	/* The host has no file for this knob: to the caller that is a missing file. */
	if (!h->caps.file[k])
		return -ENOENT;
	r = walk(h, group, O_PATH, &gfd, NULL);
	if (r < 0)
		return r;
	r = read_value_at(gfd, h->caps.file[k], ret);
	close(gfd);
	return r;
}

/*
 * The one knob write: the value in one write(2), then read back. counted:
 * the write takes part in the test-only failure injection (whose counters
 * are not thread-safe, so the reclaimers' writes do not).
 */
static int knob_write(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw,
		      bool counted, uint64_t *ret_readback)
{
	char val[24];
	uint64_t back;
	int gfd, r;

	if (counted && (r = host_write_begin(h)) < 0)
		return r;
	if ((int)k < 0 || k >= MC_KNOB__COUNT)
		return -EINVAL;
	if (!h->caps.file[k])
		return -ENOENT;
	if (raw == MC_SIZE_MAX)
		snprintf(val, sizeof(val), "%s", h->caps.ver == MC_CGV1 ? "-1" : "max");
	else
		snprintf(val, sizeof(val), "%" PRIu64, raw);

	r = walk(h, group, O_PATH, &gfd, NULL);
	if (r < 0)
		return r;
	/* O_TRUNC: a fake tree's plain file must not keep a longer old value's tail. */
	r = bounded_write(h, gfd, h->caps.file[k], O_TRUNC, val,
			  counted && h->n_write_calls == h->slow_write_at ? h->slow_write_ms : 0);
	if (r < 0)
		goto out;
	if (counted)
		host_write_done(h);
	r = read_value_at(gfd, h->caps.file[k], &back);
	if (r < 0)
		goto out;
	if (back != raw) {
		if (ret_readback)
			*ret_readback = back;
		r = -EIO;
	}
out:
	close(gfd);
	return r;
}

int mc_host_write_knob(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw,
		       uint64_t *ret_readback)
{
	return knob_write(h, group, k, raw, true, ret_readback);
}

int mc_host_write_knob_ts(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw)
{
	return knob_write(h, group, k, raw, false, NULL);
}

int mc_host_read_value(struct mc_host *h, const char *group, const char *file, uint64_t *ret)
{
	int gfd, r;

	r = walk(h, group, O_PATH, &gfd, NULL);
	if (r < 0)
		return r;
	r = read_value_at(gfd, file, ret);
	close(gfd);
	return r;
}

int mc_host_read_usage(struct mc_host *h, const char *group, uint64_t *ret)
{
	return mc_host_read_value(h, group,
				  h->caps.ver == MC_CGV1 ? "memory.usage_in_bytes" : "memory.current",
				  ret);
}

bool host_path_up(char *p)
{
	char *slash = strrchr(p, '/');

	if (!slash || strcmp(p, "/") == 0)
		return false;
	slash[slash == p ? 1 : 0] = '\0';
	return true;
}

int mc_host_effective_limit(struct mc_host *h, const char *group, uint64_t *ret)
{
	uint64_t lim = h->caps.mem_total, v;
	char *p;
	int r = 0;

	if (!h->caps.file[MC_KNOB_MAX]) {
		*ret = lim;
		return 0;
	}
	p = strdup(group);
	if (!p)
		return -ENOMEM;
	/* group, then each ancestor up to "/": cut at the last '/' each time */
	for (;;) {
		r = mc_host_read_knob(h, p, MC_KNOB_MAX, &v);
		/*
		 * The v2 root has no memory.max: it limits nothing. Nor does one
		 * that does not parse (the snapshot names it, when in the tree).
		 */
		if (r == -ENOENT || r == -EINVAL)
			r = 0;
		else if (r < 0)
			break;
		else if (v < lim)
			lim = v;
		if (!host_path_up(p))
			break;
	}
	free(p);
	if (r == 0)
		*ret = lim;
	return r;
}

void host_fd_budget_update(struct mc_host *h)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		h->fd_budget = 512;
	else if (rl.rlim_cur >= 2 * HOST_FD_RESERVE)
		h->fd_budget = (size_t)rl.rlim_cur - HOST_FD_RESERVE;
	else
		h->fd_budget = (size_t)rl.rlim_cur / 2;
}

size_t mc_host_fd_budget(const struct mc_host *h)
{
	return h->fd_budget;
}

int mc_host_reclaim_v2(struct mc_host *h, const char *group, uint64_t bytes, int node)
{
	char val[64];

	if (node >= 0)
		snprintf(val, sizeof(val), "%" PRIu64 " nodes=%d", bytes, node);
	else
		snprintf(val, sizeof(val), "%" PRIu64, bytes);
	return mc_host_write_text(h, group, "memory.reclaim", val);
}

int mc_host_mkdir(struct mc_host *h, const char *group)
{
	char name[NAME_MAX + 1];
	int pfd, r;

	r = walk(h, group, O_PATH, &pfd, name);
	if (r == -EINVAL && cgfs_check_path(group) == 0)
		return -EEXIST;  /* the root */
	if (r < 0)
		return r;
	r = mkdirat(pfd, name, 0755) < 0 ? -errno : 0;
	close(pfd);
	return r;
}

int mc_host_rmdir(struct mc_host *h, const char *group)
{
	char name[NAME_MAX + 1];
	int pfd, r;

	r = walk(h, group, O_PATH, &pfd, name);
	if (r == -EINVAL && cgfs_check_path(group) == 0)
		return -EBUSY;  /* the root, like rmdir(2) of a mount point */
	if (r < 0)
		return r;
	r = unlinkat(pfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
	close(pfd);
	return r;
}

int host_text_close(FILE *f, char **buf, size_t *len, char **ret, size_t *ret_len)
{
	if (fclose(f) != 0) {
		free(*buf);
		return -ENOMEM;
	}
	*ret = *buf;
	*ret_len = *len;
	return 0;
}

int host_each_line(const char *buf, size_t len, size_t max,
		   int (*fn)(void *arg, const char *line, unsigned lineno), void *arg,
		   unsigned *ret_line, bool *ret_bad_end)
{
	unsigned lineno = 0;
	size_t off = 0;
	int r = 0;

	*ret_bad_end = false;
	if (len > max || memchr(buf, '\0', len))
		r = -EBADMSG;
	while (r == 0 && off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		char *line;

		lineno++;
		if (!nl) {
			*ret_bad_end = true;
			r = -EBADMSG;
			break;
		}
		line = strndup(buf + off, (size_t)(nl - (buf + off)));
		if (!line) {
			r = -ENOMEM;
			break;
		}
		r = fn(arg, line, lineno);
		free(line);
		off = (size_t)(nl - buf) + 1;
	}
	if (r == 0 && lineno == 0)
		r = -EBADMSG;
	*ret_line = lineno ? lineno : 1;
	return r;
}

int mc_host_remove_group(struct mc_host *h, const char *group)
{
	int r;

	if ((r = host_write_begin(h)) < 0)
		return r;
	if ((r = mc_host_rmdir(h, group)) == 0)
		host_write_done(h);
	return r;
}

bool host_has_word(const char *text, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += wl)
		if ((p == text || isspace((unsigned char)p[-1])) &&
		    (p[wl] == '\0' || isspace((unsigned char)p[wl])))
			return true;
	return false;
}

int host_write_at(int dirfd, const char *file, int flags, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, r;

	fd = openat(dirfd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return r;
}

int mc_host_write_text(struct mc_host *h, const char *group, const char *file, const char *text)
{
	int gfd, r;

	if (strchr(file, '/'))
		return -EINVAL;
	r = walk(h, group, O_PATH, &gfd, NULL);
	if (r < 0)
		return r;
	r = bounded_write(h, gfd, file, 0, text, 0);
	close(gfd);
	return r;
}

int mc_host_delegate_memory(struct mc_host *h, const char *group, bool on)
{
	size_t got;
	int gfd, r;

	if ((r = host_write_begin(h)) < 0)
		return r;
	if (h->caps.ver != MC_CGV2)
		return -EOPNOTSUPP;
	r = walk(h, group, O_PATH, &gfd, NULL);
	if (r < 0)
		return r;
	r = host_write_at(gfd, "cgroup.subtree_control", 0, on ? "+memory" : "-memory");
	if (r < 0)
		goto out;
	host_write_done(h);
	r = cgfs_read_at(&h->buf, gfd, "cgroup.subtree_control", &got);
	if (r == 0 && host_has_word(h->buf.p, "memory") != on)
		r = -EIO;
out:
	close(gfd);
	return r;
}

int mc_host_group_id(struct mc_host *h, const char *group, uint64_t *ret)
{
	struct stat st;
	int fd, r;

	if ((r = walk(h, group, O_PATH, &fd, NULL)) < 0)
		return r;
	r = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (r == 0)
		*ret = (uint64_t)st.st_ino;
	return r;
}

bool mc_host_group_exists(struct mc_host *h, const char *group)
{
	int fd;

	if (walk(h, group, O_PATH, &fd, NULL) < 0)
		return false;
	close(fd);
	return true;
}

#ifdef MEMCTL_FAULT_INJECTION
static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{ "EPERM", EPERM }, { "ENOENT", ENOENT }, { "EINTR", EINTR }, { "EIO", EIO },
	{ "ENXIO", ENXIO }, { "E2BIG", E2BIG }, { "EBADF", EBADF }, { "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM }, { "EACCES", EACCES }, { "EBUSY", EBUSY }, { "EEXIST", EEXIST },
	{ "ENODEV", ENODEV }, { "ENOTDIR", ENOTDIR }, { "EISDIR", EISDIR }, { "EINVAL", EINVAL },
	{ "EMFILE", EMFILE }, { "EFBIG", EFBIG }, { "ENOSPC", ENOSPC }, { "EROFS", EROFS },
	{ "ERANGE", ERANGE }, { "ENAMETOOLONG", ENAMETOOLONG }, { "ENOTEMPTY", ENOTEMPTY },
	{ "ELOOP", ELOOP }, { "EOPNOTSUPP", EOPNOTSUPP }, { "ETIMEDOUT", ETIMEDOUT },
	{ "ECANCELED", ECANCELED },
};

/* A positive decimal that is all of s. */
static int parse_count(const char *s, const char *end, unsigned long *ret)
{
	unsigned long v = 0;

	if (s == end)
		return -EINVAL;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9' || v > (ULONG_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* One "K:ERRNO" of MEMCTL_FAIL_WRITE (from s to end) into slot i. */
static int parse_fail(struct mc_host *h, size_t i, const char *s, const char *end)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	unsigned long e;
	int r;

	if (!colon)
		return -EINVAL;
	r = parse_count(s, colon, &h->fail_write_at[i]);
	if (r < 0)
		return r;
	h->fail_write_err[i] = 0;
	for (size_t k = 0; k < sizeof(errno_names) / sizeof(errno_names[0]); k++)
		if (strlen(errno_names[k].name) == (size_t)(end - colon - 1) &&
		    memcmp(colon + 1, errno_names[k].name, (size_t)(end - colon - 1)) == 0)
			h->fail_write_err[i] = errno_names[k].err;
	if (!h->fail_write_err[i]) {
		r = parse_count(colon + 1, end, &e);
		if (r < 0 || e > 4095)
			return -EINVAL;
		h->fail_write_err[i] = (int)e;
	}
	return 0;
}

int host_fault_init(struct mc_host *h)
{
	const char *fail = getenv("MEMCTL_FAIL_WRITE");
	const char *stop = getenv("MEMCTL_STOP_AFTER_WRITE");
	const char *slow = getenv("MEMCTL_SLOW_WRITE");
	const char *slow_snap = getenv("MEMCTL_SLOW_SNAPSHOT");
	int r;

	for (size_t i = 0; fail && *fail; i++) {
		const char *end = strchr(fail, ',');

		if (i == HOST_FAIL_MAX)
			return -EINVAL;
		if (!end)
			end = fail + strlen(fail);
		if ((r = parse_fail(h, i, fail, end)) < 0)
			return r;
		fail = *end ? end + 1 : end;
	}
	if (slow && *slow) {
		const char *colon = strchr(slow, ':');
		unsigned long ms;

		if (!colon || parse_count(slow, colon, &h->slow_write_at) < 0 ||
		    parse_count(colon + 1, colon + 1 + strlen(colon + 1), &ms) < 0 || ms > 3600000)
			return -EINVAL;
		h->slow_write_ms = (long)ms;
	}
	if (slow_snap && *slow_snap) {
		unsigned long ms;

		if (parse_count(slow_snap, slow_snap + strlen(slow_snap), &ms) < 0 || ms > 3600000)
			return -EINVAL;
		h->slow_snapshot_ms = (long)ms;
	}
	if (stop && *stop)
		return parse_count(stop, stop + strlen(stop), &h->stop_after_write);
	return 0;
}
#else
int host_fault_init(struct mc_host *h)
{
	return 0;
}
#endif
