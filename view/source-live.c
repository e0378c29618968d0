/*
 * The live source of the read model: the host's subtree reader for the
 * structure and the values, cgroup.procs for task counts, and
 * /proc/pressure/memory (kept open: one pread a refresh). Rates come from the model's own previous read
 * and the daemons' decisions from the state directory (no prev and no
 * daemons op).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "proc-read.h"
#include "source.h"

struct live {
	struct top_source s;      /* first: the model holds a pointer to it */
	struct mc_host *h;
	struct mc_subtree *rd;
	int psi_fd;               /* /proc/pressure/memory, kept open; -1: not yet */
};

static struct live *live_of(const struct top_source *s)
{
	return (struct live *)s;
}

static int live_scan(struct top_source *s, bool full)
{
	return mc_subtree_scan(live_of(s)->rd, full);
}

static size_t live_count(const struct top_source *s)
{
	return mc_subtree_count(live_of(s)->rd);
}

static const struct mc_subtree_entry *live_entry(const struct top_source *s, size_t i)
{
	return mc_subtree_entry(live_of(s)->rd, i);
}

static uint64_t live_limit(const struct top_source *s)
{
	return mc_subtree_limit(live_of(s)->rd);
}

static int live_read(struct top_source *s, size_t i, unsigned parts, struct mc_group_snap *gs)
{
	return mc_subtree_read(live_of(s)->rd, i, parts, gs, NULL);
}

static int live_tasks(struct top_source *s, size_t i, size_t *ret)
{
	uint64_t n = 0;
	int r = mc_subtree_nprocs(live_of(s)->rd, i, &n);

	*ret = (size_t)n;
	return r;
}

static int live_host_psi(struct top_source *s, struct mc_psi *ret)
{
	return mc_host_pressure_kept(&live_of(s)->psi_fd, ret);
}

static double live_wall(const struct top_source *s)
{
	struct timespec w;

	clock_gettime(CLOCK_REALTIME, &w);
	return (double)w.tv_sec + (double)w.tv_nsec / 1e9;
}

static void live_free(struct top_source *s)
{
	if (live_of(s)->psi_fd >= 0)
		close(live_of(s)->psi_fd);
	mc_subtree_free(live_of(s)->rd);
	free(s);
}

static const struct top_source_ops live_ops = {
	.scan = live_scan,
	.count = live_count,
	.entry = live_entry,
	.limit = live_limit,
	.read = live_read,
	.tasks = live_tasks,
	.host_psi = live_host_psi,
	.wall = live_wall,
	.free = live_free,
};

int top_source_live(struct mc_host *h, const char *parent, struct top_source **ret)
{
	const struct mc_host_status *st = mc_host_status(h);
	struct live *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return -ENOMEM;
	r = mc_subtree_new(h, parent, &l->rd);
	if (r < 0) {
		free(l);
		return r;
	}
	/* a screen reads the same knob files every second: read again only once written */
	mc_subtree_keep_knobs(l->rd);
	l->h = h;
	l->psi_fd = -1;
	l->s.ops = &live_ops;
	l->s.caps = *mc_host_caps(h);
	l->s.psi = st->psi;
	l->s.numa_stat = st->numa_stat;
	l->s.patched = st->patched;
	*ret = &l->s;
	return 0;
}

void top_source_free(struct top_source *s)
{
	if (s)
		s->ops->free(s);
}
