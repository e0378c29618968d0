#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host-internal.h"

/*
 * Snapshots: the live subtree below a parent, read as fast as the kernel
 * allows, because `memctl run` and `memctl top` take one every interval.
 *
 * Opening a cgroup file costs a path lookup in kernfs; reading an open one
 * with pread at offset 0 regenerates its contents without that (bench/snapshot.sh
 * measures the floor of that and libcgroup's cost side by side; see
 * docs/BENCHMARKS.md). So every group
 * seen is kept in h->cache with its directory and its files open, and a
 * later snapshot of the same tree costs one getdents per group (to see
 * children come and go) plus one pread per file.
 *
 * Groups come and go while memctl reads them; that is normal, not an error:
 *   - a child listed by readdir whose inode differs from the cached one was
 *     removed and recreated under the same name: the old descriptors are
 *     dropped and the new group opened;
 *   - a pread that fails with ENODEV/ENOENT means the group is gone, or was
 *     replaced between readdir and read: its descriptors are dropped and it
 *     is opened once more; if that fails too, it is kept in the snapshot
 *     with present=false;
 *   - cached groups that no readdir listed any more are closed at the end.
 *
 * A file that does not exist is normal too (v1 has no memory.events, the v2
 * root has no memory.max). Once a group's memory.stat was found, the set of
 * its memory files is fixed, so missing ones are not looked for again; a v2
 * group without memory.stat has no memory controller yet, and its files are
 * looked for in every snapshot, since enabling the controller in the
 * parent's subtree_control makes them appear.
 *
 * Kept-open descriptors are bounded by half the soft RLIMIT_NOFILE; groups
 * past that budget are read with descriptors closed right after (slower,
 * same result).
 */

/* File names per slot after the knobs (knob slots use caps->file[]). */
static const struct {
	const char *v1;
	const char *v2;
} other_files[HOST_FILE__COUNT] = {
	[HOST_FILE_USAGE] = { "memory.usage_in_bytes", "memory.current" },
	[HOST_FILE_STAT] = { "memory.stat", "memory.stat" },
	[HOST_FILE_NUMA] = { "memory.numa_stat", "memory.numa_stat" },
	[HOST_FILE_EVENTS] = { NULL, "memory.events" },
	[HOST_FILE_FAILCNT] = { "memory.failcnt", NULL },
	[HOST_FILE_OOM] = { "memory.oom_control", NULL },
	[HOST_FILE_PRESSURE] = { "memory.pressure", "memory.pressure" },
	[HOST_FILE_SUBTREE] = { NULL, "cgroup.subtree_control" },
};

const char *host_slot_file(const struct mc_host *h, int f)
{
	if (f < MC_KNOB__COUNT)
		return h->caps.file[f];
	if (f == HOST_FILE_NUMA && !h->st.numa_stat)
		return NULL;
	if (f == HOST_FILE_PRESSURE && !h->st.psi)
		return NULL;
	return h->caps.ver == MC_CGV1 ? other_files[f].v1 : other_files[f].v2;
}

static size_t group_nfds(const struct host_group *g)
{
	size_t n = 1;

	for (int f = 0; f < HOST_FILE__COUNT; f++)
		n += g->fd[f] >= 0;
	return n;
}

static void group_close(struct host_group *g)
{
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		if (g->fd[f] >= 0)
			close(g->fd[f]);
	if (g->dir)
		closedir(g->dir);
	free(g->path);
	free(g);
}

/* Index of path in the sorted cache, or where it would go (*ret_found false). */
static size_t cache_pos(const struct host_cache *c, const char *path, bool *ret_found)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->v[mid]->path, path);

		if (d == 0) {
			*ret_found = true;
			return mid;
		}
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_found = false;
	return lo;
}

static struct host_group *cache_get(struct mc_host *h, const char *path)
{
	bool found;
	size_t i = cache_pos(&h->cache, path, &found);

	return found ? h->cache.v[i] : NULL;
}

/* Takes g into the cache when the descriptor budget allows; false otherwise. */
static bool cache_put(struct mc_host *h, struct host_group *g, size_t budget)
{
	struct host_cache *c = &h->cache;
	size_t nf = group_nfds(g), i;
	bool found;

	if (c->nfds + nf > budget)
		return false;
	i = cache_pos(c, g->path, &found);
	if (found)
		return false;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct host_group **v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return false;
		c->v = v;
		c->cap = cap;
	}
	memmove(c->v + i + 1, c->v + i, (c->n - i) * sizeof(*c->v));
	c->v[i] = g;
	c->n++;
	c->nfds += nf;
	g->cached = true;
	return true;
}

/* Closes g, taking it out of the cache first when it is there. */
static void group_drop(struct mc_host *h, struct host_group *g)
{
	struct host_cache *c = &h->cache;

	if (g->cached) {
		bool found;
		size_t i = cache_pos(c, g->path, &found);

		if (found) {
			c->nfds -= group_nfds(g);
			memmove(c->v + i, c->v + i + 1, (c->n - i - 1) * sizeof(*c->v));
			c->n--;
		}
	}
	group_close(g);
}

void host_cache_clear(struct mc_host *h)
{
	struct host_cache *c = &h->cache;

	for (size_t i = 0; i < c->n; i++)
		group_close(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/*
 * Opens a group directory: name relative to the open directory pfd, or (pfd
 * < 0) path walked from the mount.
 */
static int group_open(struct mc_host *h, int pfd, const char *name, const char *path,
		      struct host_group **ret)
{
	struct host_group *g;
	struct stat s;
	int fd, r;

	if (pfd >= 0) {
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	} else {
		r = cgfs_open_group(h, path, O_RDONLY, &fd);
		if (r < 0)
			return r;
	}
	g = calloc(1, sizeof(*g));
	if (!g || fstat(fd, &s) < 0) {
		r = g ? -errno : -ENOMEM;
		free(g);
		close(fd);
		return r;
	}
	for (int f = 0; f < HOST_FILE__COUNT; f++)
		g->fd[f] = -1;
	g->ino = s.st_ino;
	g->path = strdup(path);
	g->dir = fdopendir(fd);
	if (!g->path || !g->dir) {
		if (!g->dir)
			close(fd);
		group_close(g);
		return -ENOMEM;
	}
	*ret = g;
	return 0;
}

/* Still the same directory at g->path? (after a file we expected was missing) */
static bool group_gone(struct mc_host *h, const struct host_group *g)
{
	struct stat s;
	int fd;
	bool gone;

	if (cgfs_open_group(h, g->path, O_PATH, &fd) < 0)
		return true;
	gone = fstat(fd, &s) < 0 || s.st_ino != g->ino;
	close(fd);
	return gone;
}

/* Opens the files of g not open yet. -ENODEV: the group is gone. */
static int group_probe(struct mc_host *h, struct host_group *g)
{
	int dfd = dirfd(g->dir);

	for (int f = 0; f < HOST_FILE__COUNT; f++) {
		const char *file = host_slot_file(h, f);
		int fd;

		if (!file || g->fd[f] >= 0)
			continue;
		fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			g->fd[f] = fd;
			if (g->cached)
				h->cache.nfds++;
		} else if (errno != ENOENT) {
			return errno == ENODEV ? -ENODEV : -errno;
		}
	}
	g->probed = true;
	/*
	 * Without memory.stat this is a v2 group without the memory controller,
	 * or a group removed before its files were opened: tell which.
	 */
	if (g->fd[HOST_FILE_STAT] < 0 && group_gone(h, g))
		return -ENODEV;
	return 0;
}

/*
 * Reads slot f of g into h->buf. -ENODEV: the group is gone. The kernel
 * says so on reading a removed group's file; a fake tree's plain file stays
 * readable after removal, so there a link count of 0 says it.
 */
static int slot_read(struct mc_host *h, struct host_group *g, int f, size_t *ret_len)
{
	struct stat s;
	int r = cgfs_read_fd(&h->buf, g->fd[f], ret_len);

	if (r == -ENOENT)
		return -ENODEV;
	if (r == 0 && h->fake && fstat(g->fd[f], &s) == 0 && s.st_nlink == 0)
		return -ENODEV;
	return r;
}

/* Reads every open file of g into gs. -ENODEV: the group is gone. */
static int group_read(struct mc_host *h, struct host_group *g, struct mc_group_snap *gs)
{
	size_t len;
	int r;

	if (!g->probed || g->fd[HOST_FILE_STAT] < 0) {
		r = group_probe(h, g);
		if (r < 0)
			return r;
	}
	for (int f = 0; f < HOST_FILE__COUNT; f++) {
		uint64_t v;

		if (g->fd[f] < 0)
			continue;
		r = slot_read(h, g, f, &len);
		if (r < 0)
			return r;
		if (f < MC_KNOB__COUNT) {
			r = mc_parse_knob_value(h->buf.p, len, &v);
			if (r < 0)
				return r;
			gs->raw[f] = v;
			gs->raw_valid[f] = true;
			continue;
		}
		switch (f) {
		case HOST_FILE_USAGE:
			r = mc_parse_knob_value(h->buf.p, len, &gs->usage);
			gs->usage_valid = r == 0;
			break;
		case HOST_FILE_STAT:
			r = mc_parse_flat_keyed(h->buf.p, len, &gs->stat);
			break;
		case HOST_FILE_NUMA:
			r = mc_parse_numa_stat(h->buf.p, len, h->caps.page_size,
					       h->caps.ver == MC_CGV1, &gs->numa, &gs->n_numa);
			break;
		case HOST_FILE_EVENTS:
			r = mc_parse_flat_keyed(h->buf.p, len, &gs->events);
			break;
		case HOST_FILE_FAILCNT:
			/* v1's failcnt counts hits of the limit: v2's "max" event. */
			r = mc_parse_knob_value(h->buf.p, len, &v);
			if (r == 0)
				r = mc_kvs_add(&gs->events, "max", 3, v);
			break;
		case HOST_FILE_OOM: {
			struct mc_kvs oom = { 0 };

			r = mc_parse_flat_keyed(h->buf.p, len, &oom);
			if (r == 0 && mc_kvs_get(&oom, "oom_kill", &v) == 0)
				r = mc_kvs_add(&gs->events, "oom_kill", 8, v);
			mc_kvs_free(&oom);
			break;
		}
		case HOST_FILE_PRESSURE:
			r = mc_parse_psi(h->buf.p, len, &gs->psi);
			break;
		case HOST_FILE_SUBTREE:
			gs->no_memory_children = !host_has_word(h->buf.p, "memory");
			break;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* One snapshot in the making. */
struct snap_ctx {
	struct mc_host *h;
	struct mc_snapshot *s;
	size_t cap;
	size_t budget;    /* descriptors the cache may hold */
};

static int snap_append(struct snap_ctx *x, struct mc_group_snap *gs)
{
	struct mc_snapshot *s = x->s;

	if (s->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 32;
		struct mc_group_snap *v = realloc(s->groups, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->groups = v;
		x->cap = cap;
	}
	s->groups[s->n++] = *gs;
	memset(gs, 0, sizeof(*gs));
	return 0;
}

/* A vanished group: in the snapshot with present=false and nothing else. */
static int append_vanished(struct snap_ctx *x, const char *rel)
{
	struct mc_group_snap gs = { 0 };

	gs.path = strdup(rel);
	if (!gs.path)
		return -ENOMEM;
	if (snap_append(x, &gs) < 0) {
		free(gs.path);
		return -ENOMEM;
	}
	return 0;
}

struct child {
	char *name;
	ino_t ino;
};

static int child_cmp(const void *a, const void *b)
{
	return strcmp(((const struct child *)a)->name, ((const struct child *)b)->name);
}

static void children_free(struct child *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

/* The subdirectories of g (never symlinks), sorted by name. */
static int list_children(struct host_group *g, struct child **ret, size_t *ret_n)
{
	struct child *c = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	rewinddir(g->dir);
	errno = 0;
	while ((de = readdir(g->dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat s;

			if (fstatat(dirfd(g->dir), de->d_name, &s, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(s.st_mode))
				continue;
		} else if (de->d_type != DT_DIR) {
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct child *v = realloc(c, nc * sizeof(*v));

			if (!v)
				goto nomem;
			c = v;
			cap = nc;
		}
		c[n].name = strdup(de->d_name);
		if (!c[n].name)
			goto nomem;
		c[n].ino = de->d_ino;
		n++;
		errno = 0;
	}
	/* A directory removed under us lists as empty or fails: either way no children. */
	if (errno != 0 && errno != ENOENT && errno != ENODEV) {
		int r = -errno;

		children_free(c, n);
		return r;
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), child_cmp);
	*ret = c;
	*ret_n = n;
	return 0;
nomem:
	children_free(c, n);
	return -ENOMEM;
}

static int join_name(const char *base, const char *name, bool cgroup_path, char **ret)
{
	size_t bl = strlen(base), nl = strlen(name);
	bool slash = cgroup_path ? strcmp(base, "/") != 0 : bl > 0;
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

static int visit(struct snap_ctx *x, struct host_group *g, int pfd, const char *name,
		 const char *rel);

/* Visits child c of the group g (rel: g's path relative to the snapshot's parent). */
static int visit_child(struct snap_ctx *x, struct host_group *g, const char *rel,
		       const struct child *c)
{
	struct mc_host *h = x->h;
	char *path = NULL, *crel = NULL;
	struct host_group *cg;
	int r;

	r = join_name(g->path, c->name, true, &path);
	if (r == 0)
		r = join_name(rel, c->name, false, &crel);
	if (r < 0)
		goto out;
	cg = cache_get(h, path);
	if (cg && cg->ino != c->ino) {
		/* Removed and made again under the same name: a new group. */
		group_drop(h, cg);
		cg = NULL;
	}
	if (!cg) {
		r = group_open(h, dirfd(g->dir), c->name, path, &cg);
		if (r == -ENOENT || r == -ENODEV) {
			r = append_vanished(x, crel);
			goto out;
		}
		/* Not a directory any more (or a symlink put in its place): not a group. */
		if (r == -ENOTDIR || r == -ELOOP) {
			r = 0;
			goto out;
		}
		if (r < 0)
			goto out;
	}
	r = visit(x, cg, dirfd(g->dir), c->name, crel);
out:
	free(path);
	free(crel);
	return r;
}

/* A group that cannot be read any more, for one of these reasons, is gone. */
static bool is_vanished(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -ENOTDIR || r == -ELOOP;
}

/*
 * Reads g, appends it, then its children in name order. g is owned by the
 * call: cached, dropped, or (over budget) closed at the end. pfd and name
 * say where g was opened from (pfd < 0: walked from the mount), to open it
 * again when its descriptors turn out to be stale.
 */
static int visit(struct snap_ctx *x, struct host_group *g, int pfd, const char *name,
		 const char *rel)
{
	struct mc_host *h = x->h;
	struct mc_group_snap gs = { 0 };
	struct child *c = NULL;
	char *path = NULL;
	size_t n = 0;
	int r;

	gs.path = strdup(rel);
	if (!gs.path) {
		r = -ENOMEM;
		goto out;
	}
	r = group_read(h, g, &gs);
	if (r == -ENODEV) {
		/*
		 * Gone, or removed and made again under the same name (a fake
		 * tree on a disk file system can even reuse the inode number):
		 * one more look with fresh descriptors tells which.
		 */
		path = strdup(g->path);
		group_drop(h, g);
		g = NULL;
		mc_group_snap_free(&gs);
		memset(&gs, 0, sizeof(gs));
		gs.path = strdup(rel);
		if (!path || !gs.path) {
			r = -ENOMEM;
			goto out;
		}
		r = group_open(h, pfd, name, path, &g);
		if (r == 0)
			r = group_read(h, g, &gs);
		if (is_vanished(r)) {
			if (g)
				group_drop(h, g);
			g = NULL;
			r = append_vanished(x, rel);
			goto out;
		}
	}
	if (r < 0)
		goto out;
	gs.present = true;
	r = snap_append(x, &gs);
	if (r < 0)
		goto out;
	if (!g->cached && !cache_put(h, g, x->budget))
		x->s->uncached++;
	g->gen = h->cache.gen;

	r = list_children(g, &c, &n);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = visit_child(x, g, rel, &c[i]);
	children_free(c, n);
out:
	mc_group_snap_free(&gs);
	free(path);
	if (g && !g->cached)
		group_close(g);
	return r;
}

/* Closes cached groups below (and at) parent that this snapshot did not see. */
static void cache_sweep(struct mc_host *h, const char *parent)
{
	struct host_cache *c = &h->cache;
	size_t pl = strlen(parent), w = 0;
	bool root = strcmp(parent, "/") == 0;

	for (size_t i = 0; i < c->n; i++) {
		struct host_group *g = c->v[i];
		bool below = root || (strncmp(g->path, parent, pl) == 0 &&
				      (g->path[pl] == '\0' || g->path[pl] == '/'));

		if (below && g->gen != c->gen) {
			c->nfds -= group_nfds(g);
			group_close(g);
		} else {
			c->v[w++] = g;
		}
	}
	c->n = w;
}

/* The smallest max of parent and its ancestors, capped at RAM. */
static int effective_limit(struct mc_host *h, const char *parent, uint64_t *ret)
{
	uint64_t lim = h->caps.mem_total, v;
	size_t len = 0;
	char *prefix;
	int r = 0;

	if (!h->caps.file[MC_KNOB_MAX]) {
		*ret = lim;
		return 0;
	}
	prefix = malloc(strlen(parent) + 2);
	if (!prefix)
		return -ENOMEM;
	/* "/", then "/a", "/a/b", ...: parent is canonical, so each '/' ends a prefix. */
	for (;;) {
		const char *next;

		if (len == 0) {
			strcpy(prefix, "/");
		} else {
			memcpy(prefix, parent, len);
			prefix[len] = '\0';
		}
		r = mc_host_read_knob(h, prefix, MC_KNOB_MAX, &v);
		/* The v2 root has no memory.max: it limits nothing. */
		if (r == -ENOENT)
			r = 0;
		else if (r < 0)
			break;
		else if (v < lim)
			lim = v;
		if (parent[len] == '\0' || (len == 0 && parent[1] == '\0'))
			break;
		next = strchr(parent + len + 1, '/');
		len = next ? (size_t)(next - parent) : strlen(parent);
	}
	free(prefix);
	if (r == 0)
		*ret = lim;
	return r;
}

static size_t fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 512;
	return (size_t)rl.rlim_cur / 2;
}

int mc_host_snapshot(struct mc_host *h, const char *parent, struct mc_snapshot *ret)
{
	struct mc_snapshot s = { 0 };
	struct snap_ctx x = { .h = h, .s = &s, .budget = fd_budget() };
	struct host_group *g;
	struct stat st;
	int fd, r;

	r = mc_path_join(parent, "", &s.parent);
	if (r < 0)
		return r;
	/* The parent is walked every time: it may have been removed or replaced. */
	r = cgfs_open_group(h, s.parent, O_PATH, &fd);
	if (r < 0)
		goto fail;
	r = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		goto fail;
	g = cache_get(h, s.parent);
	if (g && g->ino != st.st_ino) {
		group_drop(h, g);
		g = NULL;
	}
	if (!g) {
		r = group_open(h, -1, NULL, s.parent, &g);
		if (r < 0)
			goto fail;
	}
	h->cache.gen++;
	r = visit(&x, g, -1, NULL, "");
	if (r < 0)
		goto fail;
	cache_sweep(h, s.parent);
	if (s.n == 0 || !s.groups[0].present) {
		r = -ENOENT;
		goto fail;
	}
	r = effective_limit(h, s.parent, &s.parent_limit);
	if (r < 0)
		goto fail;
	s.fd_budget = x.budget;
	if (mc_host_sysctl_read(h, "vm.max_reclaimers_per_node", &s.kernel_per_node) < 0)
		s.kernel_per_node = -1;
	*ret = s;
	return 0;
fail:
	mc_snapshot_free(&s);
	return r;
}
