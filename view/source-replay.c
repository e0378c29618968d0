/*
 * The recorded source of the read model: one sample of a history store
 * at a time (history/store.h), shown through the same model, columns and
 * screen as the live tree.
 *
 * The source keeps two samples, the one shown (cur) and the one recorded
 * before it (prev): rates are those between them, wherever the operator
 * stepped from. The store's reader has one position; pos says where it is
 * relative to cur, so that a step forward after a step back does not read
 * more than it must.
 *
 * A store is untrusted input: its reader checks the records, and this
 * file checks what the model relies on (the parent first, groups with
 * names), so a sample that breaks it is an error naming the sample, not
 * a wrong screen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knob.h"
#include "size.h"
#include "source.h"
#include "store.h"

enum pos {
	POS_CUR,              /* the reader is on cur */
	POS_PREV,             /* on prev */
	POS_LOST,             /* after an error: seek to cur before moving */
	POS_SKIP,             /* past a record after cur that could not be shown: a step
	                         forward goes on from there, skipping it */
};

struct replay {
	struct top_source s;  /* first: the model holds a pointer to it */
	struct mc_store_reader *rd;
	char *dir;
	char *parent;
	char *problem;        /* the last error's text (copied from the reader, or ours) */
	struct mc_hist_sample cur, prev;
	bool have_prev;
	int prev_err;         /* why there is no prev: -ENODATA (cur is the first), -EBADMSG... */
	char *prev_why;       /* and what the problem with it was */
	enum pos pos;
	struct mc_subtree_entry *ent;   /* cur's groups as entries */
	char **abs;
	size_t n, cap;
	size_t *prev_ix;      /* per entry: its group in prev, or (size_t)-1 */
	size_t *prev_sorted;  /* prev's groups by path, for the lookups */
	bool changed;         /* the structure changed since the last scan */
	bool daemons_new;     /* cur's decisions not handed to the model yet */
};

static struct replay *replay_of(const struct top_source *s)
{
	return (struct replay *)s;
}

static void set_problem(struct replay *p, const char *text)
{
	free(p->problem);
	p->problem = text ? strdup(text) : NULL;
}

/* --- cur's groups as the entries of a subtree --- */

/* Whether the group at path lies below the one at up ("" is the parent: everything does). */
static bool is_below(const char *up, const char *path)
{
	size_t n = strlen(up);

	return n == 0 || (strncmp(up, path, n) == 0 && path[n] == '/');
}

/*
 * Whether sample c is a tree the model can show: the parent first (path
 * ""), then groups with names. Fills ups[i] and depths[i] (c->n_groups
 * entries): each group hangs below the nearest group before it that is
 * one of its ancestors (a capture lists them in preorder; a group whose
 * parent vanished while it was read hangs below the nearest one that is
 * there). 0, or -EBADMSG with the problem set.
 */
static int tree_check(struct replay *p, const struct mc_hist_sample *c, size_t *ups,
		      unsigned *depths)
{
	size_t *stack = calloc(c->n_groups + 1, sizeof(*stack)), sp = 1;
	char msg[160];
	int r = 0;

	if (!stack)
		return -ENOMEM;
	if (c->n_groups == 0 || !c->parent || c->parent[0] != '/' || !c->groups[0].g.path ||
	    c->groups[0].g.path[0])
		r = -EBADMSG;
	if (r == 0) {
		ups[0] = (size_t)-1;
		depths[0] = 0;
	}
	for (size_t i = 1; r == 0 && i < c->n_groups; i++) {
		const char *path = c->groups[i].g.path;

		if (!path || !*path || *path == '/') {
			r = -EBADMSG;
			break;
		}
		while (sp > 1 && !is_below(c->groups[stack[sp - 1]].g.path, path))
			sp--;
		ups[i] = stack[sp - 1];
		depths[i] = (unsigned)sp;
		stack[sp++] = i;
	}
	free(stack);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "the sample at %.3f is no tree of groups below a parent "
			 "(the parent first, then groups with names)", c->time);
		set_problem(p, msg);
	}
	return r;
}

/*
 * The entries of cur, after its check; changed is set when the groups
 * differ from the entries before. 0, or -ENOMEM (then there are none).
 */
static int entries_build(struct replay *p)
{
	const struct mc_hist_sample *c = &p->cur;
	size_t n = c->n_groups, *ups = calloc(n ? n : 1, sizeof(*ups));
	unsigned *depths = calloc(n ? n : 1, sizeof(*depths));
	char **abs = calloc(n ? n : 1, sizeof(*abs));
	bool same = n == p->n;
	int r = ups && depths && abs ? 0 : -ENOMEM;

	if (r == 0)
		r = tree_check(p, c, ups, depths);   /* checked when read: only a failed allocation */
	if (r == 0 && n > p->cap &&
	    (mc_array_reserve(&p->ent, &(size_t){ p->cap }, n, sizeof(*p->ent)) < 0 ||
	     mc_array_reserve(&p->prev_ix, &p->cap, n, sizeof(*p->prev_ix)) < 0))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		if (mc_path_join(c->parent, c->groups[i].g.path, &abs[i]) < 0)
			r = -ENOMEM;
	for (size_t i = 0; r == 0 && same && i < n; i++)
		same = strcmp(abs[i], p->abs[i]) == 0;
	for (size_t i = 0; i < p->n; i++)
		free(p->abs[i]);
	free(p->abs);
	p->abs = NULL;
	p->n = 0;
	p->changed = true;
	if (r < 0) {
		for (size_t i = 0; abs && i < n; i++)
			free(abs[i]);
		free(abs);
		free(ups);
		free(depths);
		return r;
	}
	p->abs = abs;
	for (size_t i = 0; i < n; i++)
		p->ent[i] = (struct mc_subtree_entry){ .path = c->groups[i].g.path, .abs = abs[i],
						       .depth = depths[i], .up = ups[i] };
	p->n = n;
	p->changed = !same;
	free(ups);
	free(depths);
	return 0;
}

/* --- the previous sample's group of each entry, for rates --- */

static int cmp_prev_path(const void *a, const void *b, void *arg)
{
	const struct mc_hist_sample *prev = arg;

	return strcmp(prev->groups[*(const size_t *)a].g.path, prev->groups[*(const size_t *)b].g.path);
}

static size_t prev_find(struct replay *p, size_t i)
{
	const char *path = p->ent[i].path;
	size_t lo = 0, hi = p->prev.n_groups;

	/* the common case: the tree did not change */
	if (i < p->prev.n_groups && strcmp(p->prev.groups[i].g.path, path) == 0)
		return i;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, k = p->prev_sorted[mid];
		int c = strcmp(p->prev.groups[k].g.path, path);

		if (c == 0)
			return k;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

/* Maps cur's entries to prev's groups. 0 or -ENOMEM (then no rates). */
static int prev_map(struct replay *p)
{
	size_t m = p->have_prev ? p->prev.n_groups : 0;

	free(p->prev_sorted);
	p->prev_sorted = calloc(m ? m : 1, sizeof(*p->prev_sorted));
	if (!p->prev_sorted) {
		p->have_prev = false;
		return -ENOMEM;
	}
	for (size_t k = 0; k < m; k++)
		p->prev_sorted[k] = k;
	qsort_r(p->prev_sorted, m, sizeof(*p->prev_sorted), cmp_prev_path, &p->prev);
	for (size_t i = 0; i < p->n; i++)
		p->prev_ix[i] = m ? prev_find(p, i) : (size_t)-1;
	return 0;
}

/* --- what the recording host could fill --- */

static bool any_group(const struct mc_hist_sample *c, bool (*has)(const struct mc_hist_group *g,
								      int k), int k)
{
	for (size_t i = 0; i < c->n_groups; i++)
		if (has(&c->groups[i], k))
			return true;
	return false;
}

static bool has_knob(const struct mc_hist_group *g, int k)
{
	return g->g.raw_valid[k];
}

static bool has_psi(const struct mc_hist_group *g, int k)
{
	return g->g.psi.valid;
}

static bool has_numa(const struct mc_hist_group *g, int k)
{
	return g->g.n_numa > 0;
}

static bool has_patch(const struct mc_hist_group *g, int k)
{
	uint64_t v;

	return mc_kvs_get(&g->g.stat, "thp_fault_fallback_charge", &v) == 0;
}

/* The columns' view of the recording host, from what the sample holds. */
static void caps_from(struct replay *p)
{
	const struct mc_hist_sample *c = &p->cur;
	struct mc_caps *caps = &p->s.caps;
	uint64_t total = 0;

	memset(caps, 0, sizeof(*caps));
	caps->ver = c->cgroup_version == 1 ? MC_CGV1 : MC_CGV2;
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const struct mc_knob_info *ki = mc_knob_info((enum mc_knob)k);

		if (any_group(c, has_knob, k))
			caps->file[k] = caps->ver == MC_CGV1 ? ki->v1_file : ki->v2_file;
	}
	if (mc_kvs_get(&c->host.meminfo, "MemTotal", &total) == 0)
		caps->mem_total = total;
	p->s.psi = any_group(c, has_psi, 0);
	p->s.numa_stat = any_group(c, has_numa, 0);
	p->s.patched = caps->patched = any_group(c, has_patch, 0);
}

/* cur is new: its entries, its groups in prev, the host's view. */
static int took_cur(struct replay *p)
{
	int r = entries_build(p);

	if (r < 0)
		return r;
	if (!p->parent || strcmp(p->parent, p->cur.parent) != 0) {
		free(p->parent);
		p->parent = strdup(p->cur.parent);
		if (!p->parent)
			return -ENOMEM;
		p->s.parent = p->parent;
	}
	caps_from(p);
	p->daemons_new = true;
	return prev_map(p);
}

/* --- moving in the store --- */

/* The reader's error r: its problem text kept (for the status line). r. */
static int reader_error(struct replay *p, int r)
{
	if (r != -ENODATA)
		set_problem(p, mc_store_problem(p->rd));
	return r;
}

/* Whether sample c may be shown: a tree (tree_check). 0, -EBADMSG, -ENOMEM. */
static int sample_ok(struct replay *p, const struct mc_hist_sample *c)
{
	size_t n = c->n_groups ? c->n_groups : 1, *ups = calloc(n, sizeof(*ups));
	unsigned *depths = calloc(n, sizeof(*depths));
	int r = ups && depths ? tree_check(p, c, ups, depths) : -ENOMEM;

	free(ups);
	free(depths);
	return r;
}

/* Reads the sample before cur into prev (the reader on cur); one that is no tree is left out. */
static void fetch_prev(struct replay *p)
{
	struct mc_hist_sample t = { 0 };
	int r = mc_store_prev(p->rd, &t);

	if (r == 0 && sample_ok(p, &t) < 0)
		r = -EBADMSG;
	else if (r < 0 && r != -ENODATA)
		set_problem(p, mc_store_problem(p->rd));
	p->prev_err = r;
	free(p->prev_why);
	p->prev_why = r < 0 && r != -ENODATA && p->problem ? strdup(p->problem) : NULL;

	mc_hist_sample_release(&p->prev);
	p->have_prev = r == 0;
	if (r == 0)
		p->prev = t;
	else
		mc_hist_sample_release(&t);
	p->pos = r == 0 ? POS_PREV : r == -ENODATA ? POS_CUR : POS_LOST;
}

static int replay_seek(struct top_source *s, double t)
{
	struct replay *p = replay_of(s);
	struct mc_hist_sample c = { 0 };
	int r = mc_store_seek(p->rd, t, &c);

	if (r == 0 && (r = sample_ok(p, &c)) < 0) {
		mc_hist_sample_release(&c);
		p->pos = POS_LOST;
		return r;
	}
	if (r < 0) {
		mc_hist_sample_release(&c);
		p->pos = POS_LOST;
		return reader_error(p, r);
	}
	mc_hist_sample_release(&p->cur);
	p->cur = c;
	fetch_prev(p);
	return took_cur(p);
}

/* Puts the reader back on cur. 0 or -errno. */
static int back_on_cur(struct replay *p)
{
	struct mc_hist_sample t = { 0 };
	int r = 0;

	if (p->pos == POS_PREV)
		r = mc_store_next(p->rd, &t);
	else if (p->pos == POS_LOST || p->pos == POS_SKIP)
		r = mc_store_seek(p->rd, p->cur.time, &t);
	mc_hist_sample_release(&t);
	if (r < 0)
		return reader_error(p, r);
	p->pos = POS_CUR;
	return 0;
}

static int step_forward(struct replay *p)
{
	struct mc_hist_sample t = { 0 };
	/* after a record that could not be shown, the reader is past it: go on from there */
	int r = p->pos == POS_SKIP ? 0 : back_on_cur(p);

	if (r == 0)
		r = mc_store_next(p->rd, &t);
	if (r == 0 && sample_ok(p, &t) < 0)
		r = -EBADMSG;
	if (r < 0) {
		mc_hist_sample_release(&t);
		if (r == -EBADMSG && p->pos != POS_LOST)
			p->pos = POS_SKIP;   /* the reader moved past the bad record */
		return r == -EBADMSG && p->problem ? r : reader_error(p, r);
	}
	mc_hist_sample_release(&p->prev);
	p->prev = p->cur;
	p->have_prev = true;
	p->cur = t;
	return 0;
}

static int step_back(struct replay *p)
{
	if (!p->have_prev) {
		/* the first sample, or one before it that could not be shown */
		if (p->prev_err < 0 && p->prev_err != -ENODATA)
			set_problem(p, p->prev_why);
		return p->prev_err < 0 ? p->prev_err : -ENODATA;
	}
	if (p->pos != POS_PREV) {
		/* the reader onto prev: one step back from cur */
		struct mc_hist_sample t = { 0 };
		int r = back_on_cur(p);

		if (r == 0)
			r = mc_store_prev(p->rd, &t);
		mc_hist_sample_release(&t);
		if (r < 0)
			return reader_error(p, r);
	}
	mc_hist_sample_release(&p->cur);
	p->cur = p->prev;
	memset(&p->prev, 0, sizeof(p->prev));
	p->pos = POS_CUR;
	fetch_prev(p);
	return 0;
}

static int replay_step(struct top_source *s, long delta)
{
	struct replay *p = replay_of(s);
	long moved = 0;
	int r = 0;

	set_problem(p, NULL);
	while (moved != delta) {
		r = delta > 0 ? step_forward(p) : step_back(p);
		if (r < 0)
			break;
		moved += delta > 0 ? 1 : -1;
	}
	if (moved == 0)
		return r;
	/* moved some of the way: show where it stopped */
	r = took_cur(p);
	return r;
}

static int replay_range(struct top_source *s, double *ret_first, double *ret_last)
{
	return mc_store_range(replay_of(s)->rd, ret_first, ret_last);
}

static const char *replay_problem(const struct top_source *s)
{
	return replay_of(s)->problem;
}

/* --- what the model reads --- */

static int replay_scan(struct top_source *s, bool full)
{
	struct replay *p = replay_of(s);
	bool changed = p->changed;

	p->changed = false;
	return changed;
}

static size_t replay_count(const struct top_source *s)
{
	return replay_of(s)->n;
}

static const struct mc_subtree_entry *replay_entry(const struct top_source *s, size_t i)
{
	return &replay_of(s)->ent[i];
}

/*
 * The limit above the parent, as live: the parent's effective limit the
 * sample recorded (its ancestors' max files included, capped at RAM); a
 * sample of a store written before that was recorded has only RAM.
 */
static uint64_t replay_limit(const struct top_source *s)
{
	const struct mc_hist_sample *c = &replay_of(s)->cur;
	uint64_t total = s->caps.mem_total;

	if (c->parent_limit_valid && c->parent_limit > 0)
		return c->parent_limit;
	return total ? total : MC_SIZE_MAX;
}

/* dst = src: keys the reader keeps (borrowed) stay borrowed, the others are copied. */
static int kvs_copy(struct mc_kvs *dst, const struct mc_kvs *src)
{
	mc_kvs_free(dst);
	if (mc_kvs_reserve(dst, src->n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		const struct mc_kv *kv = &src->v[i];
		int r = kv->borrowed ? mc_kvs_add_borrowed(dst, kv->key, kv->val)
				     : mc_kvs_add(dst, kv->key, strlen(kv->key), kv->val);

		if (r < 0)
			return r;
	}
	return 0;
}

static int numa_copy(struct mc_group_snap *gs, const struct mc_group_snap *g)
{
	for (size_t n = 0; n < gs->n_numa; n++)
		mc_kvs_free(&gs->numa[n]);
	free(gs->numa);
	gs->numa = NULL;
	gs->n_numa = 0;
	if (!g->n_numa)
		return 0;
	gs->numa = calloc(g->n_numa, sizeof(*gs->numa));
	if (!gs->numa)
		return -ENOMEM;
	gs->n_numa = g->n_numa;
	for (size_t n = 0; n < g->n_numa; n++)
		if (kvs_copy(&gs->numa[n], &g->numa[n]) < 0)
			return -ENOMEM;
	return 0;
}

static int replay_read(struct top_source *s, size_t i, unsigned parts, struct mc_group_snap *gs)
{
	const struct replay *p = replay_of(s);
	const struct mc_group_snap *g;
	int r = 0;

	if (i >= p->n)
		return -ENODEV;   /* the entries changed under the model: it scans again */
	g = &p->cur.groups[i].g;

	gs->present = true;
	if (parts & MC_READ_USAGE) {
		gs->usage = g->usage;
		gs->usage_valid = g->usage_valid;
	}
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (parts & (unsigned)MC_READ_KNOB_MAX << k) {
			gs->raw[k] = g->raw[k];
			gs->raw_valid[k] = g->raw_valid[k];
		}
	if (parts & MC_READ_STAT)
		r = kvs_copy(&gs->stat, &g->stat);
	if (r == 0 && (parts & MC_READ_EVENTS))
		r = kvs_copy(&gs->events, &g->events);
	if (r == 0 && (parts & MC_READ_NUMA))
		r = numa_copy(gs, g);
	if (parts & MC_READ_PSI)
		gs->psi = g->psi;
	if (parts & MC_READ_SUBTREE)
		gs->no_memory_children = g->no_memory_children;
	gs->bad = g->bad;
	return r;
}

static int replay_tasks(struct top_source *s, size_t i, size_t *ret)
{
	const struct replay *p = replay_of(s);
	const struct mc_hist_group *g = i < p->n ? &p->cur.groups[i] : NULL;

	if (!g || !g->tasks_valid)
		return -ENODATA;
	*ret = (size_t)g->tasks;
	return 0;
}

static int replay_host_psi(struct top_source *s, struct mc_psi *ret)
{
	const struct mc_psi *psi = &replay_of(s)->cur.host.psi;

	if (!psi->valid)
		return -ENODATA;
	*ret = *psi;
	return 0;
}

static double replay_wall(const struct top_source *s)
{
	return replay_of(s)->cur.time;
}

static const struct mc_group_snap *replay_prev(const struct top_source *s, size_t i, double *ret_t)
{
	const struct replay *p = replay_of(s);
	size_t k = p->have_prev && i < p->n ? p->prev_ix[i] : (size_t)-1;

	if (k == (size_t)-1)
		return NULL;
	*ret_t = p->prev.time;
	return &p->prev.groups[k].g;
}

static bool replay_daemons(struct top_source *s, const struct mc_runstate **ret, size_t *ret_n)
{
	struct replay *p = replay_of(s);

	if (!p->daemons_new)
		return false;
	p->daemons_new = false;
	*ret = p->cur.have_run ? &p->cur.run : NULL;
	*ret_n = p->cur.have_run ? 1 : 0;
	return true;
}

static void replay_free(struct top_source *s)
{
	struct replay *p = replay_of(s);

	for (size_t i = 0; i < p->n; i++)
		free(p->abs[i]);
	free(p->ent);
	free(p->abs);
	free(p->prev_ix);
	free(p->prev_sorted);
	mc_hist_sample_release(&p->cur);
	mc_hist_sample_release(&p->prev);
	if (p->rd)
		mc_store_close(p->rd);
	free(p->dir);
	free(p->parent);
	free(p->problem);
	free(p->prev_why);
	free(p);
}

static const struct top_source_ops replay_ops = {
	.scan = replay_scan,
	.count = replay_count,
	.entry = replay_entry,
	.limit = replay_limit,
	.read = replay_read,
	.tasks = replay_tasks,
	.host_psi = replay_host_psi,
	.wall = replay_wall,
	.prev = replay_prev,
	.daemons = replay_daemons,
	.step = replay_step,
	.seek = replay_seek,
	.range = replay_range,
	.problem = replay_problem,
	.free = replay_free,
};

int top_source_replay(const char *dir, double t, struct top_source **ret, char **ret_why)
{
	struct replay *p = calloc(1, sizeof(*p));
	char *why = NULL;
	int r;

	*ret_why = NULL;
	if (!p || !(p->dir = strdup(dir))) {
		free(p);
		return -ENOMEM;
	}
	p->s.ops = &replay_ops;
	p->s.replay = true;
	p->s.dir = p->dir;
	r = mc_store_open(dir, &p->rd, &why);
	if (r == 0)
		r = replay_seek(&p->s, t);
	if (r < 0) {
		if (!why && p->problem)
			why = strdup(p->problem);
		*ret_why = why;
		replay_free(&p->s);
		return r;
	}
	free(why);
	p->changed = true;
	*ret = &p->s;
	return 0;
}
