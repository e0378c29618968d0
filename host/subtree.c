/*
 * The subtree reader (see subtree.h for the contract).
 *
 * Cost is what this file is about: `memctl run` snapshots its parent every
 * interval, `memctl top` refreshes every second. Opening a cgroup file costs
 * a path lookup in kernfs; a pread at offset 0 of an open one regenerates
 * its contents without that. So every file is opened once and kept open,
 * and a warm read of a group is one pread per file and the parsing.
 *
 * Listing a directory (getdents of a v1 group: 30-odd entries) costs
 * several microseconds, as much as reading two files. A listing is kept and
 * made again only when the directory may have changed. Each group's
 * directory carries an inotify watch: mkdir, rmdir and rename on cgroupfs
 * go through the VFS, which notifies the parent directory. The watch is
 * added before the directory is first listed, so a subdirectory made after
 * the listing is reported and one made before is in it. A group without a
 * watch (no inotify here, or the watch limit reached) is listed at every
 * scan; an overflowed event queue makes the next scan list everything.
 * Neither the link count (kept by kernfs as 2 + subdirectories) nor the
 * directory's mtime (kernfs updates it only once its attributes were set)
 * tells a removal plus a creation, or a rename, apart from no change.
 *
 * Groups come and go while memctl reads them; that is normal:
 *   - a listing whose entry has a different inode than the group kept under
 *     that name: removed and made again, the old group is dropped;
 *   - a read that fails with ENODEV/ENOENT: the group is gone, or was
 *     replaced between scan and read. read() says -ENODEV and marks the
 *     parent's listing stale; mc_subtree_reopen opens the name afresh.
 *
 * A file that does not exist is normal too (v1 has no memory.events, the v2
 * root has no memory.max). Once a group's memory.stat was found, the set of
 * its memory files is fixed, so missing ones are not looked for again; a v2
 * group without memory.stat has no memory controller yet, and its files are
 * looked for at every read, since enabling the controller in the parent's
 * subtree_control makes them appear.
 *
 * A knob file changes only when written, and every successful write(2)
 * to a file, by any process through any mount of the hierarchy, is an
 * IN_MODIFY event for an inotify watch on it (vfs_write notifies; knob
 * files get no other events, unlike memory.events). So a reader told to
 * keep knobs (mc_subtree_keep_knobs: top, which reads the same limits of
 * the same rows every second) watches each knob file it keeps open, the
 * watch added before the file is read, keeps the value, and reads the file
 * again only after an event for it, a lost watch or an overflowed queue;
 * the same for the max files behind the parent's effective limit. A file
 * that could not be watched is read every time.
 *
 * Descriptors kept open are bounded by mc_host_fd_budget, shared by every
 * reader of the host; past it a group's files are opened and closed at
 * each read (slower, same result). A group keeps its own directory open
 * only when it has children, which are opened relative to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host-internal.h"
#include "names.h"
#include "procev.h"
#include "subtree.h"

struct sub_grp;

/* A subdirectory at the last listing. */
struct sub_kid {
	char *name;
	ino_t ino;
	struct sub_grp *g;      /* NULL until opened */
};

struct sub_grp {
	char *abs;              /* absolute cgroup path */
	char *path;             /* relative to the reader's parent */
	const char *name;       /* last component of abs */
	struct sub_grp *up;
	ino_t ino;
	int dfd;                /* kept only while the group has children; else -1 */
	int fd[HOST_FILE__COUNT];
	bool missing[HOST_FILE__COUNT];
	struct sub_kid *kids;   /* sorted by name */
	size_t n_kids;
	bool listed;
	bool dirty;             /* listing must be made again */
	bool stale;             /* a read found it gone: the next scan looks again */
	int wd;                 /* inotify watch, -1: none */
	double procs_at;        /* CLOCK_MONOTONIC of the last read of cgroup.procs */
	unsigned procs_reads;   /* reads of cgroup.procs through the kept descriptor */
	/* empty groups, counted without a read (see mc_subtree_tasks) */
	int pwd[2];             /* v1: watches of cgroup.procs and tasks; v2: of cgroup.events */
	bool pwd_tried;         /* they were asked for (not again after a failure) */
	bool procs_empty;       /* no process at a fresh read under both watches, no write since */
	bool pop_known;         /* v2: populated holds cgroup.events' value, no event since */
	bool populated;
	/* v1 groups that hold processes, counted without a read (see mc_subtree_tasks) */
	pid_t *pids;            /* at the last read, sorted; with the proc connector only */
	size_t n_pids, cap_pids;
	uint64_t nprocs;        /* processes at the last read */
	bool procs_read;        /* nprocs (and pids) hold a read's result */
	bool procs_known;       /* nprocs is still right: nothing reported a change since */
	bool procs_written;     /* a write to cgroup.procs or tasks since the last pass began */
	unsigned char procs_due;   /* reads still to make before it can be known again */
	unsigned char procs_skip;  /* passes left before the known count is read again */
	unsigned long procs_pass;  /* the pass of the last read */
	/* knob files' values kept while their inotify watch reports no write (see kept_knobs) */
	int kwd[MC_KNOB__COUNT];            /* watch of the kept descriptor; -1: none */
	bool kept[MC_KNOB__COUNT];          /* kval / kvalid / kbad hold the file's value */
	bool kvalid[MC_KNOB__COUNT];
	bool kbad[MC_KNOB__COUNT];
	uint64_t kval[MC_KNOB__COUNT];
};

struct mc_subtree {
	struct mc_host *h;
	char *parent;
	struct sub_grp *root;
	dev_t root_dev;         /* st_dev of root's directory */
	struct sub_grp **v;     /* entries, preorder */
	struct mc_subtree_entry *e;
	size_t n;
	size_t cap_v, cap_e;
	uint64_t limit;
	/* the max files of the parent and its ancestors (see limit_scan); lim_fd NULL: none */
	int *lim_fd;
	size_t n_lim;
	bool lim_failed;        /* they could not be kept: read by path until the root changes */
	int inotify;            /* -1: none */
	bool keep_knobs;        /* mc_subtree_keep_knobs */
	int *lim_wd;            /* watches of lim_fd (with keep_knobs); -1: none */
	bool lim_kept;          /* limit holds the kept files' value */
	size_t preads;          /* files read (mc_subtree_preads) */
	bool pending;           /* a group was marked dirty or stale since the last walk */
	size_t unwatched;       /* groups without a watch: listed at every scan */
	/* the proc connector (v1 task counts, see mc_subtree_tasks) */
	struct mc_procev *pev;
	bool pev_tried;         /* opened, or failed to: not tried again */
	unsigned long pass;     /* passes over the groups' task counts begun */
	pid_t *ev;              /* thread-group ids whose groups changed, for the next pass */
	size_t n_ev, cap_ev;
	unsigned stagger;
	struct host_buf dents;  /* getdents buffer, reused */
	struct host_keys keys[HOST_KEYS__COUNT];  /* per file, see names.h */
};

/* --- descriptors --- */

static void fd_close(struct mc_subtree *t, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	t->h->kept_fds--;
}

/* Keeps fd in *slot when the budget allows (true), else leaves it to the caller. */
static bool fd_keep(struct mc_subtree *t, int *slot, int fd)
{
	if (t->h->kept_fds >= mc_host_fd_budget(t->h))
		return false;
	*slot = fd;
	t->h->kept_fds++;
	return true;
}

/* Stops watching knob slot f's file and forgets its value. */
static void knob_forget(struct mc_subtree *t, struct sub_grp *g, int f)
{
	if (g->kwd[f] >= 0)
		inotify_rm_watch(t->inotify, g->kwd[f]);
	g->kwd[f] = -1;
	g->kept[f] = false;
}

/* Stops watching g's cgroup.procs and tasks: its processes are read again. */
static void procs_forget(struct mc_subtree *t, struct sub_grp *g)
{
	for (int k = 0; k < 2; k++) {
		if (g->pwd[k] >= 0)
			inotify_rm_watch(t->inotify, g->pwd[k]);
		g->pwd[k] = -1;
	}
	g->pwd_tried = false;
	g->procs_empty = false;
	g->pop_known = false;
	free(g->pids);
	g->pids = NULL;
	g->n_pids = g->cap_pids = 0;
	g->procs_read = g->procs_known = false;
}

static void grp_close_files(struct mc_subtree *t, struct sub_grp *g)
{
	for (int f = 0; f < MC_KNOB__COUNT; f++)
		knob_forget(t, g, f);
	procs_forget(t, g);
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		fd_close(t, &g->fd[f]);
	fd_close(t, &g->dfd);
	memset(g->missing, 0, sizeof(g->missing));
}

static void grp_unwatch(struct mc_subtree *t, struct sub_grp *g)
{
	if (g->wd >= 0)
		inotify_rm_watch(t->inotify, g->wd);
	else
		t->unwatched--;
	g->wd = -1;
}

static void kids_free(struct mc_subtree *t, struct sub_kid *k, size_t n);

/* Closes g and everything below it. */
static void grp_free(struct mc_subtree *t, struct sub_grp *g)
{
	if (!g)
		return;
	kids_free(t, g->kids, g->n_kids);
	grp_close_files(t, g);
	grp_unwatch(t, g);
	free(g->abs);
	free(g->path);
	free(g);
}

static void kids_free(struct mc_subtree *t, struct sub_kid *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		grp_free(t, k[i].g);
		free(k[i].name);
	}
	free(k);
}

/*
 * Watches g's directory (dfd) for subdirectories made, removed or renamed;
 * without a watch g is counted in t->unwatched.
 */
static void grp_watch(struct mc_subtree *t, struct sub_grp *g, int dfd)
{
	char proc[64];

	g->wd = -1;
	if (t->inotify >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dfd);
		g->wd = inotify_add_watch(t->inotify, proc, IN_CREATE | IN_DELETE | IN_MOVED_FROM |
					  IN_MOVED_TO | IN_ONLYDIR);
	}
	if (g->wd < 0)
		t->unwatched++;
}

/*
 * A descriptor of g's directory: the kept one (*ret_tmp -1), or one opened
 * now that the caller closes (*ret_tmp), checked to be the same directory.
 * -ENODEV: g is gone or was replaced.
 */
static int grp_dir(struct mc_subtree *t, struct sub_grp *g, int *ret_tmp)
{
	struct stat st;
	int fd, r;

	*ret_tmp = -1;
	if (g->dfd >= 0)
		return g->dfd;
	if (g->up && g->up->dfd >= 0) {
		fd = openat(g->up->dfd, g->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -errno : 0;
	} else {
		r = cgfs_open_group(t->h, g->abs, O_RDONLY, &fd);
	}
	if (r < 0)
		return r == -ENOMEM ? r : -ENODEV;
	if (fstat(fd, &st) < 0 || st.st_ino != g->ino) {
		close(fd);
		return -ENODEV;
	}
	*ret_tmp = fd;
	return fd;
}

/* A new group: dfd (taken) is its open directory, name its last component in abs. */
static int grp_new(struct mc_subtree *t, struct sub_grp *up, int dfd, const char *abs,
		   const char *path, struct sub_grp **ret)
{
	struct sub_grp *g = calloc(1, sizeof(*g));
	struct stat st;
	int r;

	if (!g) {
		close(dfd);
		return -ENOMEM;
	}
	g->dfd = -1;
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		g->fd[f] = -1;
	for (int f = 0; f < MC_KNOB__COUNT; f++)
		g->kwd[f] = -1;
	g->pwd[0] = g->pwd[1] = -1;
	if (fstat(dfd, &st) < 0) {
		r = -errno;
		close(dfd);
		free(g);
		return r;
	}
	g->ino = st.st_ino;
	g->up = up;
	g->abs = strdup(abs);
	g->path = strdup(path);
	if (!g->abs || !g->path) {
		close(dfd);
		free(g->abs);
		free(g->path);
		free(g);
		return -ENOMEM;
	}
	g->name = strrchr(g->abs, '/') + 1;
	grp_watch(t, g, dfd);
	if (!fd_keep(t, &g->dfd, dfd))
		close(dfd);
	*ret = g;
	return 0;
}

/* --- listing --- */

static int kid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sub_kid *)a)->name, ((const struct sub_kid *)b)->name);
}

static int kid_add(struct sub_kid **k, size_t *n, size_t *cap, const char *name, ino_t ino)
{
	if (mc_array_reserve(k, cap, *n + 1, sizeof(**k)) < 0)
		return -ENOMEM;
	(*k)[*n].name = strdup(name);
	if (!(*k)[*n].name)
		return -ENOMEM;
	(*k)[*n].ino = ino;
	(*k)[*n].g = NULL;
	(*n)++;
	return 0;
}

/* The subdirectories in dfd (never symlinks), sorted by name; t->dents is reused. */
static int list_dir(struct mc_subtree *t, int dfd, struct sub_kid **ret, size_t *ret_n)
{
	struct host_buf *b = &t->dents;
	struct sub_kid *k = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;

	if (mc_array_reserve(&b->p, &b->cap, 32768, 1) < 0)
		return -ENOMEM;
	if (lseek(dfd, 0, SEEK_SET) < 0)
		return -errno;
	while ((got = getdents64(dfd, b->p, b->cap)) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *de = (struct dirent64 *)(b->p + off);
			struct stat s;

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(dfd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) < 0 ||
				    !S_ISDIR(s.st_mode))
					continue;
			} else if (de->d_type != DT_DIR) {
				continue;
			}
			if (kid_add(&k, &n, &cap, de->d_name, de->d_ino) < 0)
				goto nomem;
		}
	}
	/* A directory removed under us lists as empty or fails: either way no children. */
	if (got < 0 && errno != ENOENT && errno != ENODEV) {
		int r = -errno;

		kids_free(t, k, n);
		return r;
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), kid_cmp);
	*ret = k;
	*ret_n = n;
	return 0;
nomem:
	kids_free(t, k, n);
	return -ENOMEM;
}

/*
 * Lists g again and carries over the groups of names still there with the
 * same inode; the others are closed. *changed is set when the set differs.
 */
static int grp_relist(struct mc_subtree *t, struct sub_grp *g, bool *changed)
{
	struct sub_kid *k = NULL;
	size_t n = 0, j = 0;
	int tmp, dfd, r;

	dfd = grp_dir(t, g, &tmp);
	if (dfd < 0)
		return dfd;
	r = list_dir(t, dfd, &k, &n);
	if (tmp >= 0)
		close(tmp);
	if (r < 0)
		return r;
	/* both sorted by name: merge */
	for (size_t i = 0; i < n; i++) {
		int d = 1;

		while (j < g->n_kids && (d = strcmp(g->kids[j].name, k[i].name)) < 0)
			j++;
		if (d == 0 && g->kids[j].ino == k[i].ino && g->kids[j].g && !g->kids[j].g->stale) {
			k[i].g = g->kids[j].g;
			g->kids[j].g = NULL;
		}
	}
	if (n != g->n_kids)
		*changed = true;
	for (size_t i = 0; i < n && !*changed; i++)
		*changed = !k[i].g;
	kids_free(t, g->kids, g->n_kids);
	g->kids = k;
	g->n_kids = n;
	g->listed = true;
	g->dirty = false;
	/* Children are opened relative to the directory: keep it while there are some. */
	if (n == 0)
		fd_close(t, &g->dfd);
	return 0;
}

/*
 * Opens the kids of g not open yet; those gone since the listing are left
 * out. On an error the kids not tried stay unopened (and g dirty).
 */
static int grp_open_kids(struct mc_subtree *t, struct sub_grp *g, bool *changed)
{
	int tmp = -1, dfd = -1, r = 0;
	size_t w = 0;

	for (size_t i = 0; i < g->n_kids; i++) {
		struct sub_kid *k = &g->kids[i];
		bool gone = false;

		if (!k->g && r == 0 && dfd < 0)
			r = dfd = grp_dir(t, g, &tmp);
		if (!k->g && r >= 0) {
			char *abs = NULL, *path = NULL;
			int fd = openat(dfd, k->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = 0;
			if (fd < 0) {
				gone = errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
				       errno == ENODEV;
				r = gone ? 0 : -errno;
			} else if (host_join(g->abs, k->name, &abs) < 0 ||
				   host_join(g->path, k->name, &path) < 0) {
				close(fd);
				r = -ENOMEM;
			} else {
				r = grp_new(t, g, fd, abs, path, &k->g);
				*changed = true;
			}
			free(abs);
			free(path);
		}
		if (gone)
			free(k->name);  /* gone since the listing, or not a group */
		else
			g->kids[w++] = *k;
	}
	g->n_kids = w;
	if (r < 0)
		g->dirty = true;
	/* a directory with children keeps its descriptor when it can */
	if (tmp >= 0 && (w == 0 || !fd_keep(t, &g->dfd, tmp)))
		close(tmp);
	return r < 0 ? r : 0;
}

/* --- scan --- */

static int wd_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Whether watch wd is in the n sorted wds (a watch removed by the kernel: -wd). */
static bool wd_in(const int *wds, size_t n, int wd)
{
	return bsearch(&wd, wds, n, sizeof(*wds), wd_cmp) != NULL;
}

/*
 * g's processes may have changed: read them at the next pass, at its
 * start, and once more at the pass after (see mc_subtree_tasks).
 */
static void procs_changed(struct sub_grp *g)
{
	g->procs_empty = g->pop_known = g->procs_known = false;
	g->procs_written = true;
	g->procs_due = 2;
}

/*
 * What the events say about g: a change in its directory makes its listing
 * stale; a write to a knob file of it (or that file's watch gone) drops
 * the value kept; a write to its cgroup.procs or tasks (or a watch gone)
 * makes its processes be read again.
 */
static void grp_events(struct mc_subtree *t, struct sub_grp *g, const int *wds, size_t n,
		       bool all)
{
	if (all || (g->wd >= 0 && wd_in(wds, n, g->wd)))
		g->dirty = true;
	if (g->wd >= 0 && wd_in(wds, n, -g->wd)) {
		/* no watch any more: listed at every scan from now on */
		g->wd = -1;
		t->unwatched++;
		g->dirty = true;
	}
	for (int f = 0; f < MC_KNOB__COUNT; f++) {
		if (g->kwd[f] < 0)
			continue;
		if (all || wd_in(wds, n, g->kwd[f]))
			g->kept[f] = false;
		if (wd_in(wds, n, -g->kwd[f])) {
			g->kwd[f] = -1;
			g->kept[f] = false;
		}
	}
	for (int k = 0; k < 2; k++) {
		if (g->pwd[k] < 0)
			continue;
		if (all || wd_in(wds, n, g->pwd[k]))
			procs_changed(g);
		if (wd_in(wds, n, -g->pwd[k])) {
			g->pwd[k] = -1;
			procs_changed(g);
		}
	}
}

/* Marks what the queued events reported; false when nothing was queued. */
static bool drain_events(struct mc_subtree *t)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false, all = false;
	int *wds = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;

	if (t->inotify < 0)
		return false;
	while ((got = read(t->inotify, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < got;) {
			const struct inotify_event *ev = (const void *)(buf + off);

			off += (ssize_t)(sizeof(*ev) + ev->len);
			any = true;
			if (ev->mask & IN_Q_OVERFLOW) {
				all = true;
				continue;
			}
			if (all)
				continue;
			if (mc_array_reserve(&wds, &cap, n + 1, sizeof(*wds)) < 0) {
				all = true;   /* cannot tell which: list them all */
				continue;
			}
			/* a watch the kernel removed (its directory or file went): negated */
			wds[n++] = ev->mask & IN_IGNORED ? -ev->wd : ev->wd;
		}
	}
	if (n > 1)
		qsort(wds, n, sizeof(*wds), wd_cmp);
	for (size_t i = 0; any && i < t->n; i++)
		grp_events(t, t->v[i], wds, n, all);
	for (size_t i = 0; any && t->lim_wd && i < t->n_lim; i++) {
		if (all || wd_in(wds, n, t->lim_wd[i]))
			t->lim_kept = false;
		if (wd_in(wds, n, -t->lim_wd[i])) {
			t->lim_wd[i] = -1;
			t->lim_kept = false;
		}
	}
	free(wds);
	return any;
}

/*
 * Walks g: lists it again when needed, opens new children, drops stale
 * ones, and recurses. -ENODEV: g itself is gone (the caller walks again).
 */
static int walk(struct mc_subtree *t, struct sub_grp *g, bool full, bool *changed)
{
	int r = 0;

	for (size_t i = 0; i < g->n_kids; i++) {
		if (g->kids[i].g && g->kids[i].g->stale)
			g->dirty = true;
	}
	if (full || !g->listed || g->dirty || g->wd < 0)
		r = grp_relist(t, g, changed);
	if (r == 0)
		r = grp_open_kids(t, g, changed);
	if (r == -ENODEV) {
		g->stale = true;
		if (g->up)
			g->up->dirty = true;
		t->pending = true;
		return r;
	}
	for (size_t i = 0; r == 0 && i < g->n_kids; i++) {
		if (!g->kids[i].g)
			continue;
		r = walk(t, g->kids[i].g, full, changed);
		if (r == -ENODEV)
			r = 0;   /* marked: the caller walks again */
	}
	return r;
}

static size_t count_groups(const struct sub_grp *g)
{
	size_t n = 1;

	for (size_t i = 0; i < g->n_kids; i++)
		if (g->kids[i].g)
			n += count_groups(g->kids[i].g);
	return n;
}

static void fill_entries(struct mc_subtree *t, struct sub_grp *g, unsigned depth, size_t up)
{
	size_t me = t->n++;

	t->v[me] = g;
	t->e[me] = (struct mc_subtree_entry){ .path = g->path, .abs = g->abs, .depth = depth,
					      .up = up };
	for (size_t i = 0; i < g->n_kids; i++)
		if (g->kids[i].g)
			fill_entries(t, g->kids[i].g, depth + 1, me);
}

static int rebuild_entries(struct mc_subtree *t)
{
	size_t n = count_groups(t->root);

	if (mc_array_reserve(&t->v, &t->cap_v, n, sizeof(*t->v)) < 0 ||
	    mc_array_reserve(&t->e, &t->cap_e, n, sizeof(*t->e)) < 0)
		return -ENOMEM;
	t->n = 0;
	fill_entries(t, t->root, 0, (size_t)-1);
	return 0;
}

/*
 * The parent's effective limit (mc_host_effective_limit) at every scan costs
 * a walk from the mount and an open of the max file per ancestor: a few
 * dozen system calls. The parent's ancestors cannot go while it is there,
 * so their max files stay the same files as long as the root does: kept
 * open (within the descriptor budget), they cost one pread each.
 */
static void limit_close(struct mc_subtree *t)
{
	for (size_t i = 0; i < t->n_lim; i++) {
		if (t->lim_wd && t->lim_wd[i] >= 0)
			inotify_rm_watch(t->inotify, t->lim_wd[i]);
		fd_close(t, &t->lim_fd[i]);
	}
	free(t->lim_fd);
	free(t->lim_wd);
	t->lim_fd = NULL;
	t->lim_wd = NULL;
	t->lim_kept = false;
	t->n_lim = 0;
}

/*
 * A watch for writes to the file open at fd, by its /proc/self/fd name: -1
 * when there is none (no inotify, or the watch limit reached). Added before
 * the file is read, so that a write after that read is reported.
 */
static int write_watch(struct mc_subtree *t, int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return inotify_add_watch(t->inotify, proc, IN_MODIFY);
}

/* The same for a knob file, when the subtree keeps its knobs open. */
static int knob_watch(struct mc_subtree *t, int fd)
{
	return t->keep_knobs ? write_watch(t, fd) : -1;
}

/* Opens the max files of the parent and each ancestor; false when they are not all kept. */
static bool limit_open(struct mc_subtree *t)
{
	const char *file = t->h->caps.file[MC_KNOB_MAX];
	size_t depth = 1;
	char *p;
	bool ok = true;

	for (const char *c = t->parent; *c; c++)
		depth += *c == '/' && c[1];
	t->lim_fd = calloc(depth, sizeof(*t->lim_fd));
	t->lim_wd = calloc(depth, sizeof(*t->lim_wd));
	p = strdup(t->parent);
	if (!t->lim_fd || !t->lim_wd || !p) {
		free(p);
		limit_close(t);
		return false;
	}
	/* none open yet: a slot the budget did not let keep must not read as descriptor 0 */
	for (size_t i = 0; i < depth; i++)
		t->lim_fd[i] = t->lim_wd[i] = -1;
	while (ok) {
		int gfd, fd;

		ok = cgfs_open_group(t->h, p, O_PATH, &gfd) == 0;
		if (ok) {
			fd = openat(gfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			close(gfd);
			/* a missing max file limits nothing (the v2 root has none) */
			if (fd < 0 && errno != ENOENT)
				ok = false;
			else if (fd >= 0 && (t->n_lim == depth || !fd_keep(t, &t->lim_fd[t->n_lim++], fd))) {
				close(fd);
				ok = false;
			} else if (fd >= 0) {
				t->lim_wd[t->n_lim - 1] = knob_watch(t, fd);
			}
		}
		if (!host_path_up(p))
			break;
	}
	free(p);
	if (!ok)
		limit_close(t);
	return ok;
}

/*
 * The smallest max of the kept files, capped at RAM; false when one cannot
 * be read. With every file watched the value is kept (lim_kept) until a
 * write to one of them is reported.
 */
static bool limit_read(struct mc_subtree *t, uint64_t *ret)
{
	uint64_t lim = t->h->caps.mem_total, v;
	bool watched = true;

	for (size_t i = 0; i < t->n_lim; i++) {
		size_t len;

		watched &= t->lim_wd[i] >= 0;
		t->preads++;
		if (cgfs_read_fd(&t->h->buf, t->lim_fd[i], &len) < 0)
			return false;
		/* one that does not parse limits nothing, as mc_host_effective_limit says */
		if (mc_parse_knob_value(t->h->buf.p, len, &v) == 0 && v < lim)
			lim = v;
	}
	*ret = lim;
	t->lim_kept = watched;
	return true;
}

/* t->limit now: through the kept files when the root is the one they were opened for. */
static int limit_scan(struct mc_subtree *t, bool root_changed)
{
	if (root_changed) {
		limit_close(t);
		t->lim_failed = false;
	}
	if (t->h->caps.file[MC_KNOB_MAX] && !t->lim_failed && (t->lim_fd || limit_open(t)) &&
	    (t->lim_kept || limit_read(t, &t->limit)))
		return 0;
	limit_close(t);
	t->lim_failed = true;
	return mc_host_effective_limit(t->h, t->parent, &t->limit);
}

/* The root as it is now: the kept one, or (removed, replaced, first scan) a new one. */
static int scan_root(struct mc_subtree *t, bool *changed)
{
	struct stat st;
	int fd, r;

	/*
	 * The parent is looked up every time: it may have been removed or
	 * replaced. Still the directory kept (its device and inode under the
	 * same path, one fstatat), nothing changed; otherwise it is walked and
	 * opened as the first time, a component at a time.
	 */
	if (t->root && !t->root->stale &&
	    fstatat(t->h->rootfd, t->parent[1] ? t->parent + 1 : ".", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_ino == t->root->ino && st.st_dev == t->root_dev)
		return 0;
	r = cgfs_open_group(t->h, t->parent, O_RDONLY, &fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	t->root_dev = st.st_dev;
	if (t->root && !t->root->stale && t->root->ino == st.st_ino) {
		close(fd);
		return 0;
	}
	grp_free(t, t->root);
	t->root = NULL;
	t->n = 0;
	*changed = true;
	return grp_new(t, NULL, fd, t->parent, "", &t->root);
}

int mc_subtree_scan(struct mc_subtree *t, bool full)
{
	bool changed = false, events;
	int r;

	host_fd_budget_update(t->h);
	events = drain_events(t);
	r = scan_root(t, &changed);
	if (r == 0)
		r = limit_scan(t, changed);
	if (r < 0)
		return r;
	if (!full && !changed && !events && !t->pending && t->unwatched == 0)
		return 0;
	/* A group found gone during the walk marks its parent: walk once more, twice at most. */
	for (int pass = 0; pass < 3; pass++) {
		t->pending = false;
		r = walk(t, t->root, full && pass == 0, &changed);
		if (r == -ENODEV) {
			/* the parent itself went while being walked */
			return -ENOENT;
		}
		if (r < 0 || !t->pending)
			break;
	}
	/* after an error too: the walk may have closed groups the old entries name */
	if (changed || t->n == 0) {
		int r2 = rebuild_entries(t);

		if (r == 0)
			r = r2;
	}
	return r < 0 ? r : changed;
}

/* --- the reader --- */

int mc_subtree_new(struct mc_host *h, const char *parent, struct mc_subtree **ret)
{
	struct mc_subtree *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->h = h;
	r = mc_path_join(parent, "", &t->parent);
	if (r < 0) {
		free(t);
		return r;
	}
	t->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	*ret = t;
	return 0;
}

void mc_subtree_free(struct mc_subtree *t)
{
	if (!t)
		return;
	grp_free(t, t->root);
	limit_close(t);
	mc_procev_close(t->pev);
	free(t->ev);
	if (t->inotify >= 0)
		close(t->inotify);
	free(t->v);
	free(t->e);
	free(t->parent);
	host_buf_free(&t->dents);
	for (int k = 0; k < HOST_KEYS__COUNT; k++)
		host_keys_release(&t->keys[k]);
	free(t);
}

size_t mc_subtree_count(const struct mc_subtree *t)
{
	return t->n;
}

const struct mc_subtree_entry *mc_subtree_entry(const struct mc_subtree *t, size_t i)
{
	return &t->e[i];
}

uint64_t mc_subtree_limit(const struct mc_subtree *t)
{
	return t->limit;
}

const char *mc_subtree_parent(const struct mc_subtree *t)
{
	return t->parent;
}

void mc_subtree_keep_knobs(struct mc_subtree *t)
{
	t->keep_knobs = t->inotify >= 0;
	/* max files opened before have no watch: opened again (with one) at the next scan */
	limit_close(t);
}

size_t mc_subtree_preads(const struct mc_subtree *t)
{
	return t->preads;
}

/* --- reading a group --- */

/* Marks g gone: its parent's listing is made again at the next scan. */
static int grp_gone(struct mc_subtree *t, struct sub_grp *g)
{
	g->stale = true;
	if (g->up)
		g->up->dirty = true;
	t->pending = true;
	return -ENODEV;
}

/* Still the directory g was opened as? (after memory.stat was missing) */
static bool grp_exists(struct mc_subtree *t, struct sub_grp *g)
{
	struct stat st;
	int fd;
	bool same;

	if (cgfs_open_group(t->h, g->abs, O_PATH, &fd) < 0)
		return false;
	same = fstat(fd, &st) == 0 && st.st_ino == g->ino;
	close(fd);
	return same;
}

/*
 * Reads slot f of g into the host's buffer: 0 and the length, 1 when the
 * file is missing, -ENODEV when the group is gone. *kept turns false when
 * the file had to be opened and closed again (descriptor budget).
 */
/* The group's directory for one read: opened at most once, when a file must be opened. */
struct read_dir {
	int fd;                 /* < 0 until needed (or -errno) */
	int tmp;                /* to close after the read, or -1 */
	bool tried;
};

static int slot_read(struct mc_subtree *t, struct sub_grp *g, int f, struct read_dir *d,
		     size_t *ret_len, bool *kept)
{
	struct mc_host *h = t->h;
	const char *file = host_slot_file(h, f);
	int fd = g->fd[f], r;
	struct stat s;

	if (!file || g->missing[f])
		return 1;
	if (fd < 0) {
		if (!d->tried) {
			d->fd = grp_dir(t, g, &d->tmp);
			d->tried = true;
		}
		if (d->fd < 0)
			return d->fd == -ENODEV ? grp_gone(t, g) : d->fd;
		fd = openat(d->fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -errno : 0;
		if (r == -ENOENT) {
			/* no memory.stat: a v2 group without the controller, or one removed */
			if (f == HOST_FILE_STAT && !grp_exists(t, g))
				return grp_gone(t, g);
			g->missing[f] = true;
			return 1;
		}
		if (r < 0)
			return r == -ENODEV ? grp_gone(t, g) : r;
		if (!fd_keep(t, &g->fd[f], fd))
			*kept = false;
	}
	if (f < MC_KNOB__COUNT && fd == g->fd[f] && g->kwd[f] < 0)
		g->kwd[f] = knob_watch(t, fd);
	t->preads++;
	r = cgfs_read_fd(&h->buf, fd, ret_len);
	/*
	 * The kernel says ENODEV on reading a removed group's file; a fake
	 * tree's plain file stays readable after removal, so there a link
	 * count of 0 says it.
	 */
	if (r == 0 && h->fake && fstat(fd, &s) == 0 && s.st_nlink == 0)
		r = -ENODEV;
	if (fd != g->fd[f])
		close(fd);
	if (r == -ENOENT || r == -ENODEV)
		return grp_gone(t, g);
	return r;
}

static void numa_free(struct mc_group_snap *gs)
{
	for (size_t n = 0; n < gs->n_numa; n++)
		mc_kvs_free(&gs->numa[n]);
	free(gs->numa);
	gs->numa = NULL;
	gs->n_numa = 0;
}

/* Parses slot f (read into the host's buffer, len bytes) into gs. -EINVAL: it does not parse. */
static int slot_parse(struct mc_subtree *t, int f, size_t len, struct mc_group_snap *gs)
{
	struct mc_host *h = t->h;
	const char *p = h->buf.p;
	bool v1 = h->caps.ver == MC_CGV1;
	struct mc_key_map map;
	uint64_t v;
	int r;

	if (f < MC_KNOB__COUNT) {
		r = mc_parse_knob_value(p, len, &gs->raw[f]);
		gs->raw_valid[f] = r == 0;
		return r;
	}
	switch (f) {
	case HOST_FILE_USAGE:
		r = mc_parse_knob_value(p, len, &gs->usage);
		gs->usage_valid = r == 0;
		return r;
	case HOST_FILE_STAT:
		map = host_keys_map(&t->keys[HOST_KEYS_STAT], HOST_KEYS_STAT, v1);
		r = mc_kvs_reserve(&gs->stat, t->keys[HOST_KEYS_STAT].n);
		return r < 0 ? r : mc_parse_flat_keyed_map(p, len, &map, &gs->stat);
	case HOST_FILE_NUMA:
		map = host_keys_map(&t->keys[HOST_KEYS_NUMA], HOST_KEYS_NUMA, v1);
		r = mc_parse_numa_stat_map(p, len, h->caps.page_size, v1, &map, &gs->numa,
					   &gs->n_numa);
		if (r < 0)
			numa_free(gs);
		return r;
	case HOST_FILE_EVENTS:
		map = host_keys_map(&t->keys[HOST_KEYS_EVENTS], HOST_KEYS_EVENTS, v1);
		return mc_parse_flat_keyed_map(p, len, &map, &gs->events);
	case HOST_FILE_FAILCNT:
		/* v1's failcnt counts hits of the limit: v2's "max" event. */
		r = mc_parse_knob_value(p, len, &v);
		return r < 0 ? r : mc_kvs_add_borrowed(&gs->events, "max", v);
	case HOST_FILE_OOM:
		/* v1's oom_control: its oom_kill is v2's event of that name, the rest goes. */
		map = host_keys_map(&t->keys[HOST_KEYS_EVENTS], HOST_KEYS_EVENTS, v1);
		return mc_parse_flat_keyed_map(p, len, &map, &gs->events);
	case HOST_FILE_PRESSURE:
		r = mc_parse_psi(p, len, &gs->psi);
		gs->psi.valid = r == 0;
		return r;
	case HOST_FILE_SUBTREE:
		gs->no_memory_children = !host_has_word(p, "memory");
		return 0;
	}
	return 0;
}

/* Which slots a part is read from. */
static bool slot_in(int f, unsigned parts)
{
	if (f < MC_KNOB__COUNT)
		return parts & (unsigned)MC_READ_KNOB_MAX << f;
	switch (f) {
	case HOST_FILE_USAGE:
		return parts & MC_READ_USAGE;
	case HOST_FILE_STAT:
		return parts & MC_READ_STAT;
	case HOST_FILE_NUMA:
		return parts & MC_READ_NUMA;
	case HOST_FILE_EVENTS:
	case HOST_FILE_FAILCNT:
	case HOST_FILE_OOM:
		return parts & MC_READ_EVENTS;
	case HOST_FILE_PRESSURE:
		return parts & MC_READ_PSI;
	case HOST_FILE_SUBTREE:
		return parts & MC_READ_SUBTREE;
	}
	return false;
}

/* Empties the members of the parts about to be read. */
static void parts_clear(unsigned parts, struct mc_group_snap *gs)
{
	if (parts & MC_READ_USAGE)
		gs->usage_valid = false;
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (parts & (unsigned)MC_READ_KNOB_MAX << k)
			gs->raw_valid[k] = false;
	if (parts & MC_READ_STAT)
		mc_kvs_free(&gs->stat);
	if (parts & MC_READ_NUMA)
		numa_free(gs);
	if (parts & MC_READ_EVENTS)
		mc_kvs_free(&gs->events);
	if (parts & MC_READ_PSI)
		gs->psi.valid = false;
	if (parts & MC_READ_SUBTREE)
		gs->no_memory_children = false;
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		if (slot_in(f, parts))
			gs->bad &= ~(1u << f);
}

int mc_subtree_read(struct mc_subtree *t, size_t i, unsigned parts, struct mc_group_snap *gs,
		    bool *ret_kept)
{
	struct sub_grp *g = t->v[i];
	struct read_dir d = { .fd = -1, .tmp = -1 };
	bool kept = true;
	int r = 0;

	parts_clear(parts, gs);
	/* Without memory.stat, files may still appear (v2: the controller enabled later). */
	if (g->fd[HOST_FILE_STAT] < 0)
		memset(g->missing, 0, sizeof(g->missing));
	for (int f = 0; r == 0 && f < HOST_FILE__COUNT; f++) {
		size_t len;

		if (!slot_in(f, parts))
			continue;
		if (f < MC_KNOB__COUNT && g->kept[f]) {
			gs->raw[f] = g->kval[f];
			gs->raw_valid[f] = g->kvalid[f];
			gs->bad |= (uint32_t)g->kbad[f] << f;
			continue;
		}
		r = slot_read(t, g, f, &d, &len, &kept);
		if (r == 1) {
			r = 0;
			continue;
		}
		if (r == 0)
			r = slot_parse(t, f, len, gs);
		if (f < MC_KNOB__COUNT && g->kwd[f] >= 0 && (r == 0 || r == -EINVAL)) {
			/* watched since before this read: kept until a write is reported */
			g->kept[f] = true;
			g->kval[f] = gs->raw[f];
			g->kvalid[f] = gs->raw_valid[f];
			g->kbad[f] = r == -EINVAL;
		}
		if (r == -EINVAL) {
			gs->bad |= 1u << f;
			r = 0;
		}
	}
	if (d.tmp >= 0)
		close(d.tmp);
	gs->present = r != -ENODEV;
	if (ret_kept)
		*ret_kept = kept;
	return r;
}

/*
 * cgroup.procs through a kept descriptor costs one pread, against a walk
 * of the path, an open and a close (about 3 against 12 us a group on this
 * project's test host, docs/BENCHMARKS.md): the recorder counts every
 * group's processes each sample. On cgroup v2 a read from offset 0 lists
 * the group's processes as they are. On cgroup v1 the kernel builds the
 * list at the first read after an open and keeps it, shared by the
 * group's readers, until a second passes without a read
 * (CGROUP_PIDLIST_DESTROY_DELAY); a read through a kept descriptor in the
 * meantime gets the list as it was. So on v1 the kept descriptor is read
 * only when this reader's last read of the group is V1_PIDLIST_GAP_S old;
 * otherwise, and every V1_PIDLIST_FRESH-th read in any case (other readers
 * with kept descriptors could keep the list alive between them), the file
 * is opened afresh, which builds the list anew.
 *
 * A read costs as much as any kernfs file's (2 us), pidlist or not, so on
 * v1 an empty group is not read at all while it stays empty, which it can
 * be shown to: a v1 group gains a process only when one is written to its
 * cgroup.procs or tasks (fork puts the child where its parent is, in no
 * empty group; clone3's CLONE_INTO_CGROUP takes only cgroup2 groups), and
 * every successful write(2) is an IN_MODIFY event for an inotify watch on
 * the file, whichever process writes through whichever mount. So both
 * files are watched from before a read through a new descriptor (one that
 * built the list now); when that read lists nobody, the group counts 0
 * until an event for either file (or a lost watch, an overflowed queue)
 * arrives. The events are taken in at each scan and when a pass over the
 * groups begins (entry 0), so a count is the group's as of the start of
 * the pass at the latest, within the sample's own reading. A hierarchy
 * that also carries cpuset is left out: cpuset moves the tasks of a group
 * whose CPUs went offline into its parent without a write.
 *
 * A v1 group that holds processes changes only when one of them forks
 * (the child stays beside its parent), exits, or moves, and a move is a
 * write to the cgroup.procs or tasks of the group it goes to. The kernel
 * reports every fork and exit to a listener on its proc connector
 * (procev.c), queued before the task goes on. So with the connector, each
 * read keeps the group's thread-group ids, and its count stands without a
 * read until one of its processes forks or exits, a write to its files is
 * reported, or another group's read lists one of its processes (it moved
 * from here to there). Each pass over the groups (entry 0) takes in the
 * events and first reads the groups written to or not read before, so
 * that a process moved from a group read earlier in the pass is seen
 * leaving it in the same pass. A fork is reported just before its child
 * is linked into the group, so a group marked changed is read in two
 * passes in a row. What no event tells: a process leaving for a group
 * outside the reader's subtree (the write is to a file not watched),
 * events lost to an overflowed queue (all counts are read again) or a
 * listener that the kernel stopped serving. So every group that holds
 * processes is still read at every V1_PROCS_RECHECK-th pass, the groups
 * taking turns: a count missed that way is right again within that many
 * samples. Without the connector (not root, not in the initial
 * namespaces) every such group is read at every pass, as on v2.
 *
 * v2 has no such guarantee (CLONE_INTO_CGROUP places a child without a
 * write), but it has cgroup.events: its "populated" is 1 while the group
 * or a group below it holds a process, however the process came in, and
 * the kernel notifies the file's inotify watchers when it changes (an
 * IN_MODIFY from a work item, delayed by at most the kernel's 10 ms
 * between two notifications of one file). So on v2 a group whose read
 * listed nobody has its cgroup.events watched, then read; "populated 0"
 * counts 0 until an event for the file, and "populated 1" (a process
 * below, not in the group) is kept until one, so that the file is not
 * read again every sample. A count is then the group's as of the start of
 * the pass, less the notification's delay.
 */
#define V1_PIDLIST_GAP_S 2.0
#define V1_PIDLIST_FRESH 8
#define V1_PROCS_RECHECK 16

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Watches, once, what tells of g's processes: on v1 writes to its
 * cgroup.procs and tasks, on v2 changes of its cgroup.events; false when
 * not all of them are watched.
 */
static bool procs_watch(struct mc_subtree *t, struct sub_grp *g, int dfd, bool v1)
{
	static const char *const files[2][2] = { { "cgroup.events" }, { "cgroup.procs", "tasks" } };
	const int n = v1 ? 2 : 1;

	if (!g->pwd_tried) {
		g->pwd_tried = true;
		if (t->inotify < 0 || (v1 && faccessat(dfd, "cpuset.cpus", F_OK, 0) == 0))
			return false;
		for (int k = 0; k < n; k++) {
			int fd = openat(dfd, files[v1][k], O_PATH | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0)
				break;
			g->pwd[k] = write_watch(t, fd);
			close(fd);
		}
	}
	return g->pwd[0] >= 0 && (!v1 || g->pwd[1] >= 0);
}

/* "populated 0" or "populated 1" on a line of cgroup.events' text: 0, 1, or -1 when neither. */
static int events_populated(const char *p, size_t len)
{
	static const char key[] = "populated ";
	const size_t k = sizeof(key) - 1;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(p + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (p + at)) : len - at;

		if (n == k + 1 && memcmp(p + at, key, k) == 0 &&
		    (p[at + k] == '0' || p[at + k] == '1'))
			return p[at + k] - '0';
		at += n + 1;
	}
	return -1;
}

/*
 * On v2: true when g's cgroup.events, watched from before it was read,
 * says that nothing in g's subtree holds a process (see above).
 */
static bool v2_unpopulated(struct mc_subtree *t, struct sub_grp *g)
{
	char buf[256];
	int tmp, dfd, fd, v;
	ssize_t len;

	if (g->pop_known)
		return !g->populated;
	if (g->pwd_tried && g->pwd[0] < 0)
		return false;
	dfd = grp_dir(t, g, &tmp);
	if (dfd < 0)
		return false;
	fd = procs_watch(t, g, dfd, false) ?
		openat(dfd, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (tmp >= 0)
		close(tmp);
	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	t->preads++;
	v = len > 0 && (size_t)len < sizeof(buf) ? events_populated(buf, (size_t)len) : -1;
	if (v < 0)
		return false;
	g->pop_known = true;
	g->populated = v == 1;
	return v == 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Keeps the thread-group ids of cgroup.procs' text (p, len) as g's, sorted;
 * those g did not list before are added to t->ev, for the other groups
 * that may have lost them. false: the text is not a list of ids.
 */
static bool procs_keep(struct mc_subtree *t, struct sub_grp *g, const char *p, size_t len)
{
	pid_t *v = NULL;
	size_t n = 0, cap = 0, old = 0;
	bool sorted = true;

	for (size_t at = 0; at < len;) {
		long long x = 0;
		size_t k = at;

		while (k < len && p[k] >= '0' && p[k] <= '9' && x <= INT_MAX)
			x = x * 10 + (p[k++] - '0');
		if (k == at || k >= len || p[k] != '\n' || x > INT_MAX || x <= 0 ||
		    mc_array_reserve(&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			return false;
		}
		sorted = sorted && (n == 0 || v[n - 1] < (pid_t)x);
		v[n++] = (pid_t)x;
		at = k + 1;
	}
	if (!sorted)
		qsort(v, n, sizeof(*v), pid_cmp);
	for (size_t k = 0; k < n; k++) {
		while (old < g->n_pids && g->pids[old] < v[k])
			old++;
		if ((old == g->n_pids || g->pids[old] != v[k]) &&
		    mc_array_reserve(&t->ev, &t->cap_ev, t->n_ev + 1, sizeof(*t->ev)) == 0)
			t->ev[t->n_ev++] = v[k];
	}
	free(g->pids);
	g->pids = v;
	g->n_pids = n;
	g->cap_pids = cap;
	return true;
}

/* Reads g's cgroup.procs now (see above). */
static int procs_read(struct mc_subtree *t, struct sub_grp *g, uint64_t *ret)
{
	struct read_dir d = { .fd = -1, .tmp = -1 };
	bool v1 = t->h->caps.ver == MC_CGV1, kept = true, watched = false, fresh, listed;
	double now;
	uint64_t n = 0;
	size_t len;
	int r;

	now = mono_now();
	if (g->fd[HOST_FILE_PROCS] >= 0 && v1 && !t->h->fake &&
	    (now - g->procs_at < V1_PIDLIST_GAP_S || ++g->procs_reads % V1_PIDLIST_FRESH == 0))
		fd_close(t, &g->fd[HOST_FILE_PROCS]);
	/* a fake tree's plain file is always as written */
	fresh = g->fd[HOST_FILE_PROCS] < 0 || t->h->fake;
	if (v1 && fresh) {
		d.fd = grp_dir(t, g, &d.tmp);
		d.tried = true;
		watched = d.fd >= 0 && procs_watch(t, g, d.fd, true);
	}
	r = slot_read(t, g, HOST_FILE_PROCS, &d, &len, &kept);
	if (d.tmp >= 0)
		close(d.tmp);
	if (r == 1)
		return -ENOENT;
	if (r < 0)
		return r;
	g->procs_at = now;
	for (size_t k = 0; k < len; k++)
		n += t->h->buf.p[k] == '\n';
	g->procs_empty = n == 0 && (v1 ? watched : v2_unpopulated(t, g));
	g->nprocs = n;
	g->procs_read = true;
	g->procs_pass = t->pass;
	if (g->procs_due > 0)
		g->procs_due--;
	listed = t->pev && procs_keep(t, g, t->h->buf.p, len);
	g->procs_known = listed && n > 0 && g->procs_due == 0 && g->pwd[0] >= 0 && g->pwd[1] >= 0;
	if (g->procs_known)
		g->procs_skip = g->procs_skip == 0 && g->procs_pass == 1 ?
			(unsigned char)(t->stagger++ % V1_PROCS_RECHECK) : V1_PROCS_RECHECK - 1;
	*ret = n;
	return 0;
}

/* Whether the sorted v[0..n) and w[0..m) share an element. */
static bool pids_meet(const pid_t *v, size_t n, const pid_t *w, size_t m)
{
	for (size_t a = 0, b = 0; a < n && b < m;) {
		if (v[a] == w[b])
			return true;
		if (v[a] < w[b])
			a++;
		else
			b++;
	}
	return false;
}

/*
 * Begins a pass over the groups' task counts: on v1 with the proc
 * connector, takes in its events, reads the groups written to or not read
 * yet, and marks changed the groups that list a process that forked,
 * exited or turned up elsewhere.
 */
static void procs_pass(struct mc_subtree *t)
{
	uint64_t n;
	size_t u = 0;
	int r;

	t->pass++;
	if (t->h->caps.ver != MC_CGV1 || t->h->fake)
		return;
	if (!t->pev_tried) {
		t->pev_tried = true;
		(void)mc_procev_open(&t->pev);   /* without it: every count read each pass */
	}
	if (!t->pev)
		return;
	r = mc_procev_drain(t->pev, &t->ev, &t->n_ev, &t->cap_ev);
	for (size_t i = 0; i < t->n; i++) {
		struct sub_grp *g = t->v[i];

		if (r != 0 && g->procs_known)
			procs_changed(g);   /* events lost: every count is read again */
		if ((g->procs_written || !g->procs_read) && !g->procs_empty) {
			g->procs_written = false;
			(void)procs_read(t, g, &n);   /* an error is met again in order */
		}
	}
	if (t->n_ev > 1)
		qsort(t->ev, t->n_ev, sizeof(*t->ev), pid_cmp);
	for (size_t k = 0; k < t->n_ev; k++)
		if (u == 0 || t->ev[u - 1] != t->ev[k])
			t->ev[u++] = t->ev[k];
	for (size_t i = 0; u > 0 && i < t->n; i++) {
		struct sub_grp *g = t->v[i];

		if (g->procs_known && g->procs_pass != t->pass &&
		    pids_meet(g->pids, g->n_pids, t->ev, u))
			procs_changed(g);
	}
	t->n_ev = 0;
}

int mc_subtree_tasks(struct mc_subtree *t, size_t i, uint64_t *ret)
{
	struct sub_grp *g = t->v[i];

	if (i == 0) {
		if (drain_events(t))
			t->pending = true;   /* what the events marked is walked at the next scan */
		procs_pass(t);
	}
	if (g->procs_empty) {
		*ret = 0;
		return 0;
	}
	if (g->procs_read && g->procs_pass == t->pass && t->pev) {
		*ret = g->nprocs;   /* read as the pass began */
		return 0;
	}
	if (g->procs_known && g->procs_skip > 0) {
		g->procs_skip--;
		*ret = g->nprocs;
		return 0;
	}
	return procs_read(t, g, ret);
}

int mc_subtree_nprocs(struct mc_subtree *t, size_t i, uint64_t *ret)
{
	struct sub_grp *g = t->v[i];

	if (g->procs_empty) {
		*ret = 0;
		return 0;
	}
	return procs_read(t, g, ret);
}

int mc_subtree_reopen(struct mc_subtree *t, size_t i)
{
	struct sub_grp *g = t->v[i];
	struct stat st;
	int tmp = -1, fd, r;

	if (g->up) {
		int pfd = grp_dir(t, g->up, &tmp);

		if (pfd < 0)
			return -ENODEV;
		fd = openat(pfd, g->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -errno : 0;
		if (tmp >= 0)
			close(tmp);
	} else {
		r = cgfs_open_group(t->h, g->abs, O_RDONLY, &fd);
	}
	if (r < 0)
		return r == -ENOMEM ? r : -ENODEV;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -ENODEV;
	}
	/* A new group under the old name: its children are listed at the next scan. */
	grp_close_files(t, g);
	grp_unwatch(t, g);
	g->ino = st.st_ino;
	g->stale = false;
	g->dirty = true;
	g->listed = false;
	t->pending = true;
	grp_watch(t, g, fd);
	if (!fd_keep(t, &g->dfd, fd))
		close(fd);
	return 0;
}
