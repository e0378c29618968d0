/*
 * The light reader behind `memctl top` (see top-read.h for the contract).
 *
 * Cost is what this file is about. At a 1 s refresh with 1000 groups the
 * whole screen may spend about 1 ms of CPU per second. A pread of
 * memory.usage_in_bytes on a kept-open descriptor costs ~0.4 us, memory.stat
 * ~3 us, numa_stat ~1.5 us, and a getdents of a v1 group directory (30-odd
 * files) several microseconds. So: every file is opened once and kept open
 * (one descriptor per group and file actually read), a refresh reads only
 * the parts its caller asks for, and the directory walk (scan) is a
 * separate call the caller makes as rarely as it can afford.
 *
 * Groups vanish while we read them; that is normal: a read that fails with
 * ENODEV/ENOENT returns -ENODEV and the caller shows the group as gone until
 * the next scan drops it. A group removed and made again under the same
 * name has a new inode; scan() sees that and opens it afresh.
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
#include <unistd.h>

#include "host-internal.h"
#include "top-read.h"

struct top_grp {
	struct mc_top_entry e;
	char *path;
	char *abs;
	DIR *dir;
	ino_t ino;
	int fd[HOST_FILE__COUNT];
	bool missing[HOST_FILE__COUNT];   /* looked for and absent, until the next scan */
	bool taken;                       /* scan: reused by the new list */
	/* subdirectories at the last listing, sorted, and the link count then */
	char **kids;
	ino_t *kid_ino;
	size_t n_kids;
	nlink_t nlink;
	bool listed;
};

struct mc_top_reader {
	struct mc_host *h;
	char *parent;
	struct top_grp **v;
	size_t n;
	size_t cap;
	uint64_t above_limit;
	struct host_buf buf;
	int inotify;      /* watches every group directory for subdirectories; -1: none */
	bool watching;    /* every group has a watch: no event means no change */
};

static void grp_free(struct top_grp *g)
{
	if (!g)
		return;
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		if (g->fd[f] >= 0)
			close(g->fd[f]);
	if (g->dir)
		closedir(g->dir);
	for (size_t i = 0; i < g->n_kids; i++)
		free(g->kids[i]);
	free(g->kids);
	free(g->kid_ino);
	free(g->path);
	free(g->abs);
	free(g);
}

/* Takes dfd (an O_RDONLY directory descriptor) into a new group. */
static int grp_new(int dfd, const char *abs, const char *path, struct top_grp **ret)
{
	struct top_grp *g = calloc(1, sizeof(*g));
	struct stat st;

	if (!g) {
		close(dfd);
		return -ENOMEM;
	}
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		g->fd[f] = -1;
	if (fstat(dfd, &st) < 0) {
		int r = -errno;

		close(dfd);
		free(g);
		return r;
	}
	g->ino = st.st_ino;
	g->dir = fdopendir(dfd);
	g->abs = strdup(abs);
	g->path = strdup(path);
	if (!g->dir || !g->abs || !g->path) {
		if (!g->dir)
			close(dfd);
		grp_free(g);
		return -ENOMEM;
	}
	*ret = g;
	return 0;
}

int mc_top_reader_new(struct mc_host *h, const char *parent, struct mc_top_reader **ret)
{
	struct mc_top_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->h = h;
	if (mc_path_join(parent, "", &r->parent) < 0) {
		free(r);
		return -ENOMEM;
	}
	r->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	*ret = r;
	return 0;
}

void mc_top_reader_free(struct mc_top_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		grp_free(r->v[i]);
	free(r->v);
	free(r->parent);
	host_buf_free(&r->buf);
	if (r->inotify >= 0)
		close(r->inotify);
	free(r);
}

size_t mc_top_reader_count(const struct mc_top_reader *r)
{
	return r->n;
}

const struct mc_top_entry *mc_top_reader_entry(const struct mc_top_reader *r, size_t i)
{
	return &r->v[i]->e;
}

uint64_t mc_top_reader_above_limit(const struct mc_top_reader *r)
{
	return r->above_limit;
}

/*
 * Watches a group directory for subdirectories made or removed (mkdir and
 * rmdir on cgroupfs go through the VFS, which notifies). When a watch
 * cannot be added (no inotify, the user's watch limit), the reader stops
 * trusting the silence and checks link counts on every scan instead.
 */
static void grp_watch(struct mc_top_reader *r, struct top_grp *g)
{
	char proc[64];

	if (r->inotify < 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd(g->dir));
	if (inotify_add_watch(r->inotify, proc, IN_CREATE | IN_DELETE | IN_MOVE | IN_ONLYDIR) < 0)
		r->watching = false;
}

/* True when a watched directory saw a change since the last call (drains the events). */
static bool watch_events(struct mc_top_reader *r)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;

	if (r->inotify < 0)
		return true;
	while (read(r->inotify, buf, sizeof(buf)) > 0)
		any = true;
	return any;
}

static int grp_cmp_abs(const void *a, const void *b)
{
	return strcmp((*(struct top_grp *const *)a)->abs, (*(struct top_grp *const *)b)->abs);
}

/* The scan being made: the old groups sorted by path, the new list. */
struct scan {
	struct mc_top_reader *r;
	struct top_grp **old;
	size_t n_old;
	struct top_grp **v;
	size_t n;
	size_t cap;
	bool force;       /* list every directory, whatever its link count */
	bool changed;     /* a group appeared or went */
};

static struct top_grp *scan_take_old(struct scan *s, const char *abs, ino_t ino)
{
	struct top_grp key = { .abs = (char *)abs }, *kp = &key, **p;

	if (!s->n_old)
		return NULL;
	p = bsearch(&kp, s->old, s->n_old, sizeof(*s->old), grp_cmp_abs);
	if (!p || (*p)->taken || (*p)->ino != ino)
		return NULL;
	(*p)->taken = true;
	memset((*p)->missing, 0, sizeof((*p)->missing));
	return *p;
}

static int scan_append(struct scan *s, struct top_grp *g)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct top_grp **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = g;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the subdirectories of g, sorted, with their inodes. */
static int list_dirs(struct top_grp *g, char ***ret, ino_t **ret_ino, size_t *ret_n)
{
	char **names = NULL;
	ino_t *inos = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	rewinddir(g->dir);
	while ((de = readdir(g->dir))) {
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			char **nv = realloc(names, nc * sizeof(*nv));

			if (!nv)
				goto nomem;
			names = nv;
			cap = nc;
		}
		/* "name\0" followed by the inode, one allocation per child */
		names[n] = malloc(strlen(de->d_name) + 1 + sizeof(ino_t));
		if (!names[n])
			goto nomem;
		strcpy(names[n], de->d_name);
		memcpy(names[n] + strlen(de->d_name) + 1, &de->d_ino, sizeof(ino_t));
		n++;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	inos = calloc(n ? n : 1, sizeof(*inos));
	if (!inos)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		memcpy(&inos[i], names[i] + strlen(names[i]) + 1, sizeof(ino_t));
	*ret = names;
	*ret_ino = inos;
	*ret_n = n;
	return 0;
nomem:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return -ENOMEM;
}

/*
 * The subdirectories of g: listed again only when the directory's link
 * count changed (a directory's link count is 2 + its subdirectories on
 * cgroupfs, as on other file systems), else the last listing. A group
 * removed and made again between two scans keeps the count, but its
 * descriptors fail on the next read, which makes the caller walk again.
 */
static int children(struct top_grp *g, bool force)
{
	struct stat st;
	char **names;
	ino_t *inos;
	size_t n;
	int r;

	if (fstat(dirfd(g->dir), &st) < 0)
		return -errno;
	if (g->listed && !force && st.st_nlink == g->nlink)
		return 0;
	r = list_dirs(g, &names, &inos, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < g->n_kids; i++)
		free(g->kids[i]);
	free(g->kids);
	free(g->kid_ino);
	g->kids = names;
	g->kid_ino = inos;
	g->n_kids = n;
	g->nlink = st.st_nlink;
	g->listed = true;
	return 0;
}

static int join(const char *a, const char *b, bool cgroup, char **ret)
{
	bool slash = cgroup ? strcmp(a, "/") != 0 : *a != '\0';

	if (strlen(a) + strlen(b) + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	return asprintf(ret, "%s%s%s", a, slash ? "/" : "", b) < 0 ? -ENOMEM : 0;
}

static int scan_visit(struct scan *s, struct top_grp *g, unsigned depth, size_t up)
{
	size_t me = s->n;
	int r;

	g->e.path = g->path;
	g->e.abs = g->abs;
	g->e.depth = depth;
	g->e.up = up;
	r = scan_append(s, g);
	if (r < 0) {
		if (!g->taken)
			grp_free(g);
		return r;
	}
	/* new groups get a watch; a full walk renews them all */
	if (!g->taken || s->force)
		grp_watch(s->r, g);
	r = children(g, s->force);
	for (size_t i = 0; r == 0 && i < g->n_kids; i++) {
		char *abs = NULL, *path = NULL;
		struct top_grp *c;

		r = join(g->abs, g->kids[i], true, &abs);
		if (r == 0)
			r = join(g->path, g->kids[i], false, &path);
		if (r == 0) {
			c = scan_take_old(s, abs, g->kid_ino[i]);
			if (!c) {
				int dfd = openat(dirfd(g->dir), g->kids[i],
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (dfd >= 0)
					r = grp_new(dfd, abs, path, &c);
				else
					c = NULL;   /* gone since readdir, or not a group */
				s->changed = true;
			}
			if (r == 0 && c)
				r = scan_visit(s, c, depth + 1, me);
		}
		free(abs);
		free(path);
	}
	return r;
}

/* The smallest max of the ancestors of parent (parent excluded), capped at RAM. */
static uint64_t limit_above(struct mc_host *h, const char *parent)
{
	uint64_t lim = h->caps.mem_total, v;
	char *p = strdup(parent), *slash;

	if (!p || !h->caps.file[MC_KNOB_MAX]) {
		free(p);
		return lim;
	}
	while ((slash = strrchr(p, '/')) && strcmp(p, "/") != 0) {
		slash[slash == p ? 1 : 0] = '\0';
		if (mc_host_read_knob(h, p, MC_KNOB_MAX, &v) == 0 && v < lim)
			lim = v;
	}
	free(p);
	return lim;
}

int mc_top_reader_scan(struct mc_top_reader *r, bool full)
{
	struct scan s = { .r = r, .old = r->v, .n_old = r->n, .force = full };
	struct top_grp *root = NULL;
	struct stat st;
	int fd, ret;

	/*
	 * Nothing made or removed below a fully watched tree: the last walk
	 * stands, without even a stat per directory.
	 */
	if (!full && r->n && r->watching && !watch_events(r))
		return 0;
	if (full || !r->n) {
		watch_events(r);
		r->watching = r->inotify >= 0;
	}
	if (s.n_old > 1)
		qsort(s.old, s.n_old, sizeof(*s.old), grp_cmp_abs);
	ret = cgfs_open_group(r->h, r->parent, O_RDONLY, &fd);
	if (ret < 0)
		goto out;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		goto out;
	}
	root = scan_take_old(&s, r->parent, st.st_ino);
	if (root) {
		close(fd);
	} else {
		ret = grp_new(fd, r->parent, "", &root);
		if (ret < 0)
			goto out;
		s.changed = true;
	}
	ret = scan_visit(&s, root, 0, (size_t)-1);
out:
	if (ret < 0) {
		/* Keep the old list: the caller may still show it. */
		for (size_t i = 0; i < s.n; i++)
			if (!s.v[i]->taken)
				grp_free(s.v[i]);
		for (size_t i = 0; i < s.n_old; i++)
			s.old[i]->taken = false;
		free(s.v);
		return ret;
	}
	for (size_t i = 0; i < s.n_old; i++)
		if (!s.old[i]->taken) {
			grp_free(s.old[i]);
			s.changed = true;
		}
	for (size_t i = 0; i < s.n; i++)
		s.v[i]->taken = false;
	free(r->v);
	r->v = s.v;
	r->n = s.n;
	r->cap = s.cap;
	if (s.changed || full)
		r->above_limit = limit_above(r->h, r->parent);
	return s.changed;
}

/* Reads slot f of g into r->buf; *ret_len 0 and 1 when the file is missing. */
static int slot_read(struct mc_top_reader *r, struct top_grp *g, int f, size_t *ret_len)
{
	const char *file = host_slot_file(r->h, f);
	int fd, ret;

	if (!file || g->missing[f])
		return 1;
	if (g->fd[f] < 0) {
		fd = openat(dirfd(g->dir), file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			g->missing[f] = true;
			return 1;
		}
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			/* Out of descriptors: read it the slow way, open and close. */
			return cgfs_read_at(&r->buf, dirfd(g->dir), file, ret_len) < 0 ? -ENODEV : 0;
		if (fd < 0)
			return errno == ENODEV ? -ENODEV : -errno;
		g->fd[f] = fd;
	}
	ret = cgfs_read_fd(&r->buf, g->fd[f], ret_len);
	return ret == -ENOENT ? -ENODEV : ret;
}

/* Reads a one-number slot; *ret_valid false when the file is missing. */
static int read_number(struct mc_top_reader *r, struct top_grp *g, int f, uint64_t *ret,
		       bool *ret_valid)
{
	size_t len;
	int ret_r = slot_read(r, g, f, &len);

	*ret_valid = false;
	if (ret_r != 0)
		return ret_r > 0 ? 0 : ret_r;
	if (mc_parse_knob_value(r->buf.p, len, ret) == 0)
		*ret_valid = true;
	return 0;
}

/* Reads a keyed slot into kv (emptied first). */
static int read_keyed(struct mc_top_reader *r, struct top_grp *g, int f, struct mc_kvs *kv)
{
	size_t len;
	int ret = slot_read(r, g, f, &len);

	mc_kvs_free(kv);
	if (ret != 0)
		return ret > 0 ? 0 : ret;
	return mc_parse_flat_keyed(r->buf.p, len, kv) == -ENOMEM ? -ENOMEM : 0;
}

static int read_events(struct mc_top_reader *r, struct top_grp *g, struct mc_kvs *events)
{
	struct mc_kvs oom = { 0 };
	uint64_t v;
	bool valid;
	int ret;

	if (r->h->caps.ver != MC_CGV1)
		return read_keyed(r, g, HOST_FILE_EVENTS, events);
	/* v1: failcnt counts hits of the limit (v2's "max" event); oom_control has oom_kill. */
	mc_kvs_free(events);
	ret = read_number(r, g, HOST_FILE_FAILCNT, &v, &valid);
	if (ret == 0 && valid)
		ret = mc_kvs_add(events, "max", 3, v);
	if (ret == 0)
		ret = read_keyed(r, g, HOST_FILE_OOM, &oom);
	if (ret == 0 && mc_kvs_get(&oom, "oom_kill", &v) == 0)
		ret = mc_kvs_add(events, "oom_kill", 8, v);
	mc_kvs_free(&oom);
	return ret;
}

int mc_top_reader_read(struct mc_top_reader *r, size_t i, unsigned parts,
		       struct mc_group_snap *gs)
{
	struct top_grp *g = r->v[i];
	size_t len;
	int ret = 0;

	if (parts & MC_TOP_READ_USAGE)
		ret = read_number(r, g, HOST_FILE_USAGE, &gs->usage, &gs->usage_valid);
	for (int k = 0; ret == 0 && (parts & MC_TOP_READ_KNOBS) && k < MC_KNOB__COUNT; k++)
		ret = read_number(r, g, k, &gs->raw[k], &gs->raw_valid[k]);
	if (ret == 0 && (parts & MC_TOP_READ_STAT))
		ret = read_keyed(r, g, HOST_FILE_STAT, &gs->stat);
	if (ret == 0 && (parts & MC_TOP_READ_EVENTS))
		ret = read_events(r, g, &gs->events);
	if (ret == 0 && (parts & MC_TOP_READ_NUMA)) {
		for (size_t n = 0; n < gs->n_numa; n++)
			mc_kvs_free(&gs->numa[n]);
		free(gs->numa);
		gs->numa = NULL;
		gs->n_numa = 0;
		ret = slot_read(r, g, HOST_FILE_NUMA, &len);
		if (ret == 0 && mc_parse_numa_stat(r->buf.p, len, r->h->caps.page_size,
						   r->h->caps.ver == MC_CGV1, &gs->numa,
						   &gs->n_numa) == -ENOMEM)
			ret = -ENOMEM;
		ret = ret > 0 ? 0 : ret;
	}
	if (ret == 0 && (parts & MC_TOP_READ_PSI)) {
		gs->psi.valid = false;
		ret = slot_read(r, g, HOST_FILE_PRESSURE, &len);
		if (ret == 0 && mc_parse_psi(r->buf.p, len, &gs->psi) == 0)
			gs->psi.valid = true;
		ret = ret > 0 ? 0 : ret;
	}
	if (ret == -ENOENT)
		ret = -ENODEV;
	gs->present = ret != -ENODEV;
	return ret;
}
