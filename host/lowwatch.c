/*
 * memory.events watches (lowwatch.h): one inotify descriptor, one watch
 * per protected group. A group's directory is reached as every other file
 * here is (cgfs_open_group: one component at a time, no symlink followed)
 * and the watch is put on its memory.events through /proc/self/fd, so the
 * path the kernel resolves is the directory already opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "host-internal.h"
#include "lowwatch.h"

struct low_group {
	char *group;
	int wd;          /* -1: not watched now */
	int gfd;         /* its directory (O_PATH) while watched, else -1 */
	uint64_t low;    /* the count when first read */
	bool fired;      /* reported its rise: silent while listed */
	bool listed;     /* named by the last mc_lowwatch_set */
};

struct mc_lowwatch {
	int fd;
	struct low_group *g;
	size_t n, cap;
	struct host_buf buf;
};

int mc_lowwatch_open(struct mc_host *h, struct mc_lowwatch **ret)
{
	struct mc_lowwatch *w;

	if (h->caps.ver != MC_CGV2)
		return -EOPNOTSUPP;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		int e = -errno;

		free(w);
		return e;
	}
	*ret = w;
	return 0;
}

void mc_lowwatch_free(struct mc_lowwatch *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		if (w->g[i].gfd >= 0)
			close(w->g[i].gfd);
		free(w->g[i].group);
	}
	free(w->g);
	host_buf_free(&w->buf);
	close(w->fd);
	free(w);
}

int mc_lowwatch_fd(const struct mc_lowwatch *w)
{
	return w->fd;
}

/* The "low" count of the memory.events in gfd: 0, -errno or -EBADMSG. */
static int read_low(struct mc_lowwatch *w, int gfd, uint64_t *ret)
{
	size_t len;
	int r = cgfs_read_at(&w->buf, gfd, "memory.events", &len);
	const char *p;

	if (r < 0)
		return r;
	for (p = w->buf.p; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "low ", 4) == 0)
			return sscanf(p + 4, "%" SCNu64, ret) == 1 ? 0 : -EBADMSG;
	}
	return -EBADMSG;
}

/* Watches g's memory.events and reads its count; a failure leaves it unwatched. */
static void watch_group(struct mc_host *h, struct mc_lowwatch *w, struct low_group *g)
{
	char path[64];
	int gfd, wd;

	if (cgfs_open_group(h, g->group, O_PATH, &gfd) < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/memory.events", gfd);
	wd = inotify_add_watch(w->fd, path, IN_MODIFY | IN_DONT_FOLLOW);
	if (wd >= 0 && read_low(w, gfd, &g->low) == 0) {
		g->wd = wd;
		g->gfd = gfd;
		return;
	}
	if (wd >= 0)
		inotify_rm_watch(w->fd, wd);
	close(gfd);
}

/* Ends g's watch (gone: the kernel ended it already). */
static void unwatch(struct mc_lowwatch *w, struct low_group *g, bool gone)
{
	if (g->wd >= 0 && !gone)
		inotify_rm_watch(w->fd, g->wd);
	if (g->gfd >= 0)
		close(g->gfd);
	g->wd = g->gfd = -1;
}

/* g's entry in w (listed), or -ENOMEM. */
static int find_or_add(struct mc_lowwatch *w, const char *group, struct low_group **ret)
{
	for (size_t i = 0; i < w->n; i++) {
		if (strcmp(w->g[i].group, group) == 0) {
			*ret = &w->g[i];
			return 0;
		}
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct low_group *g = reallocarray(w->g, cap, sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->g = g;
		w->cap = cap;
	}
	w->g[w->n] = (struct low_group){ .group = strdup(group), .wd = -1, .gfd = -1 };
	if (!w->g[w->n].group)
		return -ENOMEM;
	*ret = &w->g[w->n++];
	return 0;
}

int mc_lowwatch_set(struct mc_host *h, struct mc_lowwatch *w, char *const *groups, size_t n)
{
	size_t kept = 0, watched = 0;

	for (size_t i = 0; i < w->n; i++)
		w->g[i].listed = false;
	for (size_t i = 0; i < n; i++) {
		struct low_group *g;
		int r = find_or_add(w, groups[i], &g);

		if (r < 0)
			return r;
		g->listed = true;
	}
	for (size_t i = 0; i < w->n; i++) {
		struct low_group *g = &w->g[i];

		if (!g->listed) {
			unwatch(w, g, false);
			free(g->group);
			continue;
		}
		if (g->wd < 0 && !g->fired)
			watch_group(h, w, g);
		watched += g->wd >= 0;
		w->g[kept++] = *g;
	}
	w->n = kept;
	return (int)watched;
}

/* Reads the event records in buf; marks the groups they name (1) or gone (IN_IGNORED). */
static void mark_events(struct mc_lowwatch *w, const char *buf, size_t len, bool *hit)
{
	const struct inotify_event *ev;

	for (size_t off = 0; off + sizeof(*ev) <= len; off += sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)(buf + off);
		for (size_t i = 0; i < w->n; i++) {
			if (w->g[i].wd != ev->wd)
				continue;
			if (ev->mask & IN_IGNORED)
				unwatch(w, &w->g[i], true);   /* the group went: watched again when it is back */
			else
				hit[i] = true;
		}
	}
}

int mc_lowwatch_check(struct mc_lowwatch *w, const char **ret_group)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool *hit = calloc(w->n ? w->n : 1, sizeof(*hit));
	ssize_t got;
	int r = 0;

	if (!hit)
		return -ENOMEM;
	while ((got = read(w->fd, buf, sizeof(buf))) > 0)
		mark_events(w, buf, (size_t)got, hit);
	if (got < 0 && errno != EAGAIN)
		r = -errno;
	/* every group that rose fires now (the plan sees them all); the first is named */
	for (size_t i = 0; i < w->n && r >= 0; i++) {
		struct low_group *g = &w->g[i];
		uint64_t low;

		if (!hit[i] || g->wd < 0 || read_low(w, g->gfd, &low) < 0 || low <= g->low)
			continue;
		unwatch(w, g, false);
		g->fired = true;
		if (r == 0)
			*ret_group = g->group;
		r = 1;
	}
	free(hit);
	return r;
}
