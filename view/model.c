/*
 * The read model: rows from the host's light reader, kept across
 * refreshes (collapse state, counters for rates, decisions), and the
 * display order (the tree with siblings sorted by the sort column, filtered
 * and collapsed). No drawing here: the renderers and the screen format it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "columns.h"
#include "escape.h"
#include "format.h"
#include "journal.h"
#include "model.h"
#include "pipeline.h"

static const struct mc_subtree_entry *src_entry(const struct top_model *m, size_t i)
{
	return m->src->ops->entry(m->src, i);
}

/* The usage of r as last read; 0 when it has none. */
static uint64_t row_usage(const struct top_row *r)
{
	return r->g.usage_valid ? r->g.usage : 0;
}

static void row_release(struct top_row *r)
{
	free(r->path);
	free(r->abs);
	free(r->label_buf);
	free(r->decision);
	free(r->decision_label);
	mc_group_snap_free(&r->g);
}

/* Sets the row's text label from its name. 0 or -ENOMEM. */
static int row_label(struct top_row *r)
{
	int ret = 0;

	r->label = r->name;
	if (mc_esc_text_needed(r->name)) {
		if (r->label_buf || (r->label_buf = mc_esc_text_dup(r->name))) {
			r->label = r->label_buf;
		} else {
			r->label = "(out of memory)";
			ret = -ENOMEM;
		}
	}
	r->label_len = strlen(r->label);
	return ret;
}

int top_model_init_source(struct top_model *m, struct mc_host *h, const char *parent,
			  struct top_source *src)
{
	memset(m, 0, sizeof(*m));
	m->h = h;
	m->src = src;
	m->caps = &src->caps;
	m->sort_col = TOP_COL_NAME;
	m->rescan = true;
	m->parent = strdup(parent);
	if (!m->parent) {
		top_source_free(src);
		m->src = NULL;
		return -ENOMEM;
	}
	return 0;
}

int top_model_init(struct top_model *m, struct mc_host *h, const char *parent)
{
	struct top_source *src;
	int r = top_source_live(h, parent, &src);

	if (r < 0) {
		memset(m, 0, sizeof(*m));
		return r;
	}
	return top_model_init_source(m, h, parent, src);
}

void top_model_release(struct top_model *m)
{
	struct top_policy *p = &m->policy;

	for (size_t i = 0; i < m->n; i++)
		row_release(&m->rows[i]);
	free(m->rows);
	free(m->order);
	free(m->ob.kids);
	free(m->ob.kid_start);
	free(m->ob.fill);
	free(m->ob.keep);
	free(m->ob.key);
	free(m->ob.key_stale);
	free(m->filter);
	free(m->parent);
	top_source_free(m->src);
	for (size_t i = 0; i < p->n_dec; i++) {
		free(p->dec_abs[i]);
		free(p->dec_text[i]);
	}
	free(p->dec_abs);
	free(p->dec_text);
	free(p->parent);
	free(p->error);
	top_daemons_release(&m->daemons);
	memset(m, 0, sizeof(*m));
}

int top_model_set_profile(struct top_model *m, const struct mc_profile *p, struct mc_policy *pol,
			  const char *parent_abs)
{
	m->policy.parent = strdup(parent_abs);
	if (!m->policy.parent)
		return -ENOMEM;
	m->policy.profile = p;
	m->policy.pol = pol;
	return 0;
}

size_t top_model_find(const struct top_model *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->rows[i].path, path) == 0)
			return i;
	return (size_t)-1;
}

static int row_cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct top_row *)a)->path, ((const struct top_row *)b)->path);
}

static struct top_row *old_row(struct top_model *m, const char *path)
{
	struct top_row key = { .path = (char *)path };

	return m->n ? bsearch(&key, m->rows, m->n, sizeof(*m->rows), row_cmp_path) : NULL;
}

/*
 * The strings of the rows that are new in a directory walk, made before
 * any old row is moved, so that running out of memory leaves the model as
 * it was. 0 or -ENOMEM (rows then hold nothing).
 */
static int new_row_strings(struct top_model *m, struct top_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct mc_subtree_entry *e = src_entry(m, i);

		if (old_row(m, e->path))
			continue;
		rows[i].path = strdup(e->path);
		rows[i].abs = strdup(e->abs);
		if (!rows[i].path || !rows[i].abs) {
			for (size_t j = 0; j <= i; j++) {
				free(rows[j].path);
				free(rows[j].abs);
			}
			return -ENOMEM;
		}
	}
	return 0;
}

/* Rebuilds the rows from a new directory walk, keeping what rows carry over. */
static int rebuild_rows(struct top_model *m)
{
	size_t n = m->src->ops->count(m->src);
	struct top_row *rows = calloc(n ? n : 1, sizeof(*rows));
	size_t *order = calloc(n ? n : 1, sizeof(*order));
	int ret = 0;

	/* old rows by path, to carry state over */
	if (m->n > 1)
		qsort(m->rows, m->n, sizeof(*m->rows), row_cmp_path);
	if (!rows || !order || new_row_strings(m, rows, n) < 0) {
		free(rows);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct mc_subtree_entry *e = src_entry(m, i);
		struct top_row *r = &rows[i], *old = r->path ? NULL : old_row(m, e->path);

		if (old) {
			*r = *old;
			memset(old, 0, sizeof(*old));
			old->path = r->path;   /* keeps the old array sorted for bsearch */
		}
		r->name = e->depth == 0 ? r->abs : strrchr(r->abs, '/') + 1;
		r->depth = e->depth;
		r->up = e->up;
		r->entry = i;
		r->gone = false;
		if (!old)
			r->daemon = TOP_DAEMON_UNKNOWN;
		r->has_children = false;
		if (e->up != (size_t)-1)
			rows[e->up].has_children = true;
	}
	for (size_t i = 0; i < m->n; i++) {
		if (m->rows[i].abs)
			row_release(&m->rows[i]);   /* vanished (carried-over rows were emptied) */
	}
	free(m->rows);
	free(m->order);
	m->rows = rows;
	m->n = n;
	m->order = order;
	m->n_order = 0;
	m->ob.n = 0;   /* other rows: the children lists are built again */
	m->keys_new = m->daemons_new = true;
	/* preorder: a parent's sum starts from 0 before its children add to it */
	for (size_t i = 0; i < n; i++) {
		rows[i].kids_usage = 0;
		rows[i].grow_valid = false;   /* children came or went: watched anew */
		if (rows[i].up != (size_t)-1)
			rows[rows[i].up].kids_usage += row_usage(&rows[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (row_label(&rows[i]) < 0)
			ret = -ENOMEM;
	return ret;
}

static void rate_update(struct top_rate *t, uint64_t v, double now)
{
	if (t->prev_t > 0 && now > t->prev_t && v >= t->prev) {
		t->rate = (double)(v - t->prev) / (now - t->prev_t);
		t->valid = true;
	}
	t->prev = v;
	t->prev_t = now;
}

/* Takes the counters of g (parts want) read at time t into the row's rates. */
static void row_rates(struct top_row *r, const struct mc_group_snap *g, unsigned want, double t)
{
	uint64_t v, a = 0, f = 0;

	if (want & MC_READ_STAT) {
		bool ok = mc_kvs_get(&g->stat, "workingset_refault_anon", &a) == 0;

		ok |= mc_kvs_get(&g->stat, "workingset_refault_file", &f) == 0;
		if (ok)
			rate_update(&r->refault, a + f, t);
	}
	if (want & MC_READ_EVENTS) {
		if (mc_kvs_get(&g->events, "max", &v) == 0)
			rate_update(&r->max_events, v, t);
		if (mc_kvs_get(&g->events, "oom_kill", &v) == 0)
			rate_update(&r->oom_kill, v, t);
	}
}

/*
 * A recorded history's rates are those between the sample shown and the
 * one before it, wherever the operator stepped from: the previous
 * sample's counters are taken in first, then the current ones.
 */
static void row_rates_from_prev(struct top_model *m, struct top_row *r, unsigned want)
{
	double t = 0;
	const struct mc_group_snap *p = m->src->ops->prev(m->src, r->entry, &t);

	if (want & MC_READ_STAT)
		r->refault = (struct top_rate){ 0 };
	if (want & MC_READ_EVENTS)
		r->max_events = r->oom_kill = (struct top_rate){ 0 };
	if (p && t < m->now)
		row_rates(r, p, want, t);
}

/*
 * r's usage was read again (it was old): its parent's sum of its
 * children's usage follows. A usage lower than before lowers that sum and
 * so raises the parent's usage - kids_usage without any growth unseen:
 * grow_base rises with it (see watch_growth).
 */
static void kids_usage_moved(struct top_model *m, const struct top_row *r, uint64_t old)
{
	struct top_row *up;
	uint64_t now = row_usage(r);

	if (r->up == (size_t)-1 || now == old)
		return;
	up = &m->rows[r->up];
	up->kids_usage += now - old;   /* modulo 2^64: the sum stays exact */
	if (now < old)
		up->grow_base += (int64_t)(old - now);
}

/* Reads parts of row i not read yet in this refresh, and updates its rates. */
/* Row i's values changed: the order takes its sort key again. */
static void key_stale(struct top_model *m, size_t i)
{
	if (i < m->ob.cap)
		m->ob.key_stale[i] = true;
}

static int row_read(struct top_model *m, size_t i, unsigned parts)
{
	struct top_row *r = &m->rows[i];
	uint64_t old_usage;
	unsigned want;
	int ret;

	if (r->fresh_at != m->refreshes) {
		r->fresh = 0;   /* read in an earlier refresh */
		r->fresh_at = m->refreshes;
	}
	want = parts & ~r->fresh;

	if (!want || r->gone)
		return 0;
	if (want & TOP_READ_TASKS) {
		r->tasks_valid = m->src->ops->tasks(m->src, r->entry, &r->tasks) == 0;
		m->reads++;
	}
	old_usage = row_usage(r);
	ret = want & ~TOP_READ_TASKS ? m->src->ops->read(m->src, r->entry, want & ~TOP_READ_TASKS,
							 &r->g) : 0;
	if (want & MC_READ_USAGE)
		kids_usage_moved(m, r, old_usage);
	m->reads += (unsigned)__builtin_popcount(want & ~TOP_READ_TASKS);
	if (ret == -ENODEV) {
		r->gone = true;
		m->rescan = true;
		return 0;
	}
	if (ret < 0)
		return ret;
	r->fresh |= want;
	r->have |= want;
	key_stale(m, i);
	if (m->src->ops->prev && (want & (MC_READ_STAT | MC_READ_EVENTS)))
		row_rates_from_prev(m, r, want);
	row_rates(r, &r->g, want, m->now);
	return 0;
}

/* Effective limits from the knobs read so far (ancestors come first in rows). */
static void compute_limits(struct top_model *m)
{
	uint64_t above = m->src->ops->limit(m->src);

	for (size_t i = 0; i < m->n; i++) {
		struct top_row *r = &m->rows[i];
		uint64_t lim = r->up == (size_t)-1 ? above : m->rows[r->up].eff_limit;

		if (r->g.raw_valid[MC_KNOB_MAX] && r->g.raw[MC_KNOB_MAX] < lim)
			lim = r->g.raw[MC_KNOB_MAX];
		r->eff_limit = lim;
	}
	m->ob.keys_valid = false;   /* every row's % may have moved */
}

/* The effective limit of row i alone, through its ancestors (the rows of one screen). */
static uint64_t row_limit(struct top_model *m, size_t i)
{
	struct top_row *r = &m->rows[i];
	uint64_t lim = r->up == (size_t)-1 ? m->src->ops->limit(m->src) : row_limit(m, r->up);

	if (r->g.raw_valid[MC_KNOB_MAX] && r->g.raw[MC_KNOB_MAX] < lim)
		lim = r->g.raw[MC_KNOB_MAX];
	r->eff_limit = lim;
	key_stale(m, i);
	return lim;
}

/*
 * The screen's memory.stat (stat_lazy): the dearest file of a row (on v1
 * about 10 us against 4 for its usage; with 36 rows a third of what a
 * refresh costs) is read again only when the row's usage moved since its
 * last read, or when that read is a refresh old. A row whose usage moves
 * shows every column as of this refresh; one whose usage holds to the byte
 * shows its memory.stat columns as of this refresh or the one before (its
 * rates over the span between two reads).
 */
static bool stat_may_wait(const struct top_model *m, const struct top_row *r, unsigned parts)
{
	return m->stat_lazy && (parts & MC_READ_STAT) && (r->have & MC_READ_STAT) &&
	       r->stat_at + 1 == m->refreshes;
}

/* Reads parts of row i for the screen (top_model_fill). */
static int fill_row(struct top_model *m, size_t i, unsigned parts)
{
	struct top_row *r = &m->rows[i];
	int ret;

	if (stat_may_wait(m, r, parts)) {
		ret = row_read(m, i, (parts & ~MC_READ_STAT) | MC_READ_USAGE);
		if (ret < 0 || r->gone || (r->g.usage_valid && r->g.usage == r->stat_usage))
			return ret;
	}
	ret = row_read(m, i, parts);
	if (ret == 0 && (r->fresh & MC_READ_STAT)) {   /* row_read set fresh for this refresh */
		r->stat_at = m->refreshes;
		r->stat_usage = r->g.usage;
	}
	return ret;
}

int top_model_fill(struct top_model *m, size_t first, size_t count, size_t extra,
		   unsigned parts)
{
	int ret = 0;

	parts |= top_cols[m->sort_col].parts;
	/*
	 * The effective limit (the % column, and the colour of a row near it)
	 * is the smallest max of the row and its ancestors: read with any knob,
	 * and the ancestors' max alone, not every knob file of theirs.
	 */
	if (parts & MC_READ_KNOBS)
		parts |= MC_READ_KNOB_MAX;
	m->shown_min_usage = UINT64_MAX;
	for (size_t k = first; ret == 0 && k < m->n_order && k - first < count; k++) {
		size_t i = m->order[k];

		ret = fill_row(m, i, parts);
		if (m->rows[i].g.usage_valid && m->rows[i].g.usage < m->shown_min_usage)
			m->shown_min_usage = m->rows[i].g.usage;
		for (size_t u = m->rows[i].up;
		     ret == 0 && (parts & MC_READ_KNOB_MAX) && u != (size_t)-1; u = m->rows[u].up)
			ret = row_read(m, u, MC_READ_KNOB_MAX);
		row_limit(m, i);
	}
	if (ret == 0 && extra < m->n) {
		ret = row_read(m, extra, parts | MC_READ_ALL | TOP_READ_TASKS);
		row_limit(m, extra);
	}
	return ret;
}

/* --- the engine's decisions (with --profile) --- */

static void policy_error(struct top_policy *p, const char *what, int err)
{
	free(p->error);
	if (asprintf(&p->error, "%s: %s", what, strerror(-err)) < 0)
		p->error = NULL;
}

static int remember(struct top_policy *p, const char *group, char *text)
{
	char *abs;

	if (mc_path_join(p->parent, group, &abs) < 0) {
		free(text);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_dec; i++)
		if (strcmp(p->dec_abs[i], abs) == 0) {
			free(abs);
			free(p->dec_text[i]);
			p->dec_text[i] = text;
			return 0;
		}
	if (p->n_dec == p->cap_dec) {
		size_t cap = p->cap_dec;

		/* both arrays grow together: the second reserve must see the old capacity */
		if (mc_array_reserve(&p->dec_abs, &cap, p->n_dec + 1, sizeof(*p->dec_abs)) < 0 ||
		    mc_array_reserve(&p->dec_text, &p->cap_dec, p->n_dec + 1, sizeof(*p->dec_text)) < 0) {
			free(abs);
			free(text);
			return -ENOMEM;
		}
	}
	p->dec_abs[p->n_dec] = abs;
	p->dec_text[p->n_dec++] = text;
	return 0;
}

/* One step as the decision column shows it: "memory.low 0 -> 100M: reason". */
static char *step_text(const struct mc_step *s)
{
	struct mc_step_text t;
	char *out;

	if (mc_step_describe(s, &t) < 0)
		return NULL;
	out = mc_asprintf("%s: %s", t.brief, s->reason ? s->reason : "");
	mc_step_text_free(&t);
	return out;
}

/*
 * Runs the policies and the planner on a full snapshot of the profile's
 * parent, as `memctl run --dry-run` would, and keeps each group's last
 * decision. Nothing is written.
 */
static void run_policy(struct top_model *m)
{
	static const char *const what[] = {
		[MC_STAGE_RESOLVE] = "cannot resolve the profile's parent",
		[MC_STAGE_SNAPSHOT] = "cannot read the profile's parent",
		[MC_STAGE_DECIDE] = "policy engine",
		[MC_STAGE_PLAN] = "planner",
	};
	struct top_policy *p = &m->policy;
	struct mc_pipeline_opts o = { .parent = p->parent, .pol = p->pol, .plan = true,
				      .create = true };
	struct mc_pipeline pl;
	const struct mc_diags *d = &pl.decide_diags;
	int r;

	r = mc_pipeline_run(m->h, p->profile, &o, &pl);
	if (r < 0) {
		policy_error(p, what[pl.failed], r);
		mc_pipeline_release(&pl);
		return;
	}
	for (size_t i = 0; i < pl.plan.n; i++) {
		char *t = step_text(&pl.plan.steps[i]);

		if (t)
			remember(p, pl.plan.steps[i].group, t);
	}
	if (!d->n)
		d = &pl.plan_diags;
	if (d->n > 0) {
		free(p->error);
		if (mc_diag_format(&d->v[0], &p->error) < 0)
			p->error = NULL;
	}
	mc_pipeline_release(&pl);
}

static void attach_decisions(struct top_model *m)
{
	struct top_policy *p = &m->policy;

	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < p->n_dec && m->rows[i].daemon < 0; j++)
			if (strcmp(m->rows[i].abs, p->dec_abs[j]) == 0) {
				/* what top computed itself, not what a daemon did */
				struct top_row *r = &m->rows[i];

				free(r->decision);
				free(r->decision_label);
				if (asprintf(&r->decision, "simulated: %s", p->dec_text[j]) < 0)
					r->decision = NULL;
				r->decision_label = r->decision ? mc_esc_text_dup(r->decision) : NULL;
			}
}

/* --- order --- */

static bool matches(const struct top_model *m, const struct top_row *r)
{
	return !m->filter || !*m->filter || strcasestr(r->name, m->filter);
}

static int sibling_cmp(const void *a, const void *b, void *arg)
{
	const struct top_model *m = arg;
	const struct top_col *c = &top_cols[m->sort_col];
	size_t xi = *(const size_t *)a, yi = *(const size_t *)b;
	int d;

	/* a numeric column: its values taken once (see top_model_order) */
	if (m->ob.keyed)
		d = top_val_cmp(c->kind, &m->ob.key[xi], &m->ob.key[yi]);
	else
		d = c->cmp(m, c, &m->rows[xi], &m->rows[yi]);

	/* numbers: biggest first; names: a to z; r reverses either */
	if (c->kind != TOP_TEXT)
		d = -d;
	if (m->reverse)
		d = -d;
	/* ties by name: siblings come from the source in name order, so by index */
	return d ? d : (xi > yi) - (xi < yi);
}

static void emit(struct top_model *m, size_t i)
{
	const struct top_order_buf *o = &m->ob;

	const struct top_row *r = &m->rows[i];
	size_t need;

	if (!o->keep[i])
		return;
	m->order[m->n_order++] = i;
	need = (size_t)r->depth * 2 + r->label_len;
	if (need > m->label_max)
		m->label_max = need;
	if (r->collapsed)
		return;
	for (size_t k = o->kid_start[i]; k < o->kid_start[i + 1]; k++)
		emit(m, o->kids[k]);
}

/* Room in the order's arrays for n rows. 0 or -ENOMEM. */
static int order_reserve(struct top_order_buf *o, size_t n)
{
	size_t c[6] = { o->cap, o->cap, o->cap, o->cap, o->cap, o->cap };

	/* six arrays of one capacity: each reserve starts from the old one */
	if (mc_array_reserve(&o->kids, &c[0], n + 1, sizeof(*o->kids)) < 0 ||
	    mc_array_reserve(&o->kid_start, &c[1], n + 1, sizeof(*o->kid_start)) < 0 ||
	    mc_array_reserve(&o->fill, &c[2], n + 1, sizeof(*o->fill)) < 0 ||
	    mc_array_reserve(&o->keep, &c[3], n + 1, sizeof(*o->keep)) < 0 ||
	    mc_array_reserve(&o->key, &c[4], n + 1, sizeof(*o->key)) < 0 ||
	    mc_array_reserve(&o->key_stale, &c[5], n + 1, sizeof(*o->key_stale)) < 0)
		return -ENOMEM;
	o->cap = c[0];
	return 0;
}

/* The children of each row, in index order (the source's name order). */
static void order_kids(struct top_model *m)
{
	struct top_order_buf *o = &m->ob;

	memset(o->kid_start, 0, (m->n + 1) * sizeof(*o->kid_start));
	for (size_t i = 1; i < m->n; i++)
		o->kid_start[m->rows[i].up + 1]++;
	for (size_t i = 0; i < m->n; i++)
		o->kid_start[i + 1] += o->kid_start[i];
	memcpy(o->fill, o->kid_start, (m->n + 1) * sizeof(*o->fill));
	for (size_t i = 1; i < m->n; i++)
		o->kids[o->fill[m->rows[i].up]++] = i;
	o->n = m->n;
}

/* Whether the n siblings at k are in order already (n - 1 comparisons). */
static bool kids_sorted(struct top_model *m, const size_t *k, size_t n)
{
	for (size_t j = 1; j < n; j++)
		if (sibling_cmp(&k[j - 1], &k[j], m) > 0)
			return false;
	return true;
}

/*
 * Whether the last order still holds: the same rows, sorted by a column
 * read from the groups' files whose kept keys are valid, and no key of a
 * row read since moved (the keys of those rows are taken here). A change
 * of sort, filter or collapse orders again through top_model_order, so a
 * refresh that read only unchanged values (idle groups: most rows, most
 * seconds) keeps the order and skips its pass over every row.
 */
static bool order_holds(struct top_model *m)
{
	struct top_order_buf *o = &m->ob;
	const struct top_col *c = &top_cols[m->sort_col];
	bool moved = false;

	if (m->n == 0 || o->n != m->n || !o->keys_valid || o->key_col != m->sort_col ||
	    c->kind == TOP_TEXT || !c->parts)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		struct top_val v;

		if (!o->key_stale[i])
			continue;
		c->get(m, &m->rows[i], &v);
		moved |= top_val_cmp(c->kind, &v, &o->key[i]) != 0;
		o->key[i] = v;
		o->key_stale[i] = false;
	}
	return !moved;
}

/*
 * Siblings are sorted with a comparison that ties by index, a total
 * order: whatever order they start in, the result is the same. So the
 * children lists are kept from the last order, and a group of siblings
 * whose keys kept their order (most of them, refresh after refresh) costs
 * one pass that finds them sorted instead of a sort.
 */
void top_model_order(struct top_model *m)
{
	struct top_order_buf *o = &m->ob;
	bool filtering = m->filter && *m->filter;

	m->n_order = 0;
	m->label_max = 0;
	if (m->n == 0)
		return;
	if (order_reserve(o, m->n) < 0) {
		/* out of memory: show the rows in tree order */
		for (size_t i = 0; i < m->n; i++) {
			size_t need = (size_t)m->rows[i].depth * 2 + m->rows[i].label_len;

			m->order[m->n_order++] = i;
			m->label_max = need > m->label_max ? need : m->label_max;
		}
		o->n = 0;
		return;
	}
	if (o->n != m->n) {
		order_kids(m);
		o->keys_valid = false;   /* new rows */
	}
	/* rows come in preorder: a child after its parent, so walk backwards */
	memset(o->keep, !filtering, m->n * sizeof(*o->keep));
	for (size_t i = m->n; filtering && i-- > 0;) {
		if (matches(m, &m->rows[i]))
			o->keep[i] = true;
		if (o->keep[i] && m->rows[i].up != (size_t)-1)
			o->keep[m->rows[i].up] = true;
	}
	o->keep[0] = true;
	/*
	 * A numeric column's values taken once, in row order, into an array
	 * the comparisons read: not twice a comparison through the column's
	 * getter from rows visited in sort order (a cache miss each, 1000 rows).
	 * The array is kept from order to order: a column read from the
	 * group's files changes only when its row is read (or, for %, when the
	 * limits are computed again), so only the rows read since are taken
	 * again (about 100 of 1000 a refresh: each a cache miss or two after a
	 * second of sleep). A column of other values (the working set, from
	 * the daemon or top's own engine) is taken whole every time.
	 */
	o->keyed = top_cols[m->sort_col].kind != TOP_TEXT;
	if (!o->keyed || !top_cols[m->sort_col].parts || o->key_col != m->sort_col)
		o->keys_valid = false;
	for (size_t i = 0; o->keyed && i < m->n; i++) {
		if (!o->keys_valid || o->key_stale[i])
			top_cols[m->sort_col].get(m, &m->rows[i], &o->key[i]);
		o->key_stale[i] = false;
	}
	o->keys_valid = o->keyed;
	o->key_col = m->sort_col;
	for (size_t i = 0; i < m->n; i++) {
		size_t *k = o->kids + o->kid_start[i], n = o->kid_start[i + 1] - o->kid_start[i];

		if (n > 1 && !kids_sorted(m, k, n))
			qsort_r(k, n, sizeof(*k), sibling_cmp, m);
	}
	o->keyed = false;   /* later comparisons (a row read since) go through the column */
	emit(m, 0);
}

/*
 * Sorted by usage, largest first, a group off screen matters once it
 * grows, and growth shows in its parent's usage: the kernel counts a
 * group's pages in each of its ancestors' usage. So for each row with
 * children whose usage the last refresh read (a parent on screen), the
 * part of its usage its children's keys do not account for, usage -
 * kids_usage (its own pages, and what its children gained or lost since
 * their keys were read), is followed from refresh to refresh. When it
 * rose by the smallest usage on screen (what a group must pass to be
 * shown), at least GROWTH_MIN, above its lowest since the last sweep,
 * every child's key is read now (a sweep; at most one every SWEEP_GAP
 * refreshes a parent). A child's key read lower than before lowers
 * kids_usage without any growth: kids_usage_moved raises the lowest with
 * it. What this cannot see: a child growing while others shrink as much
 * in the same refresh (or, as the parent's own pages, a group's pages
 * leaving as others come), and the children of a parent not on screen;
 * the keys' turns still bound how old any key is.
 */
#define GROWTH_MIN (1ull << 20)
#define SWEEP_GAP 8

static bool growth_watched(const struct top_model *m)
{
	return m->key_budget_watched && m->sort_col == TOP_COL_USAGE && !m->reverse &&
	       m->ob.n == m->n;
}

static int watch_growth(struct top_model *m)
{
	const struct top_order_buf *o = &m->ob;
	uint64_t least = GROWTH_MIN;

	/* UINT64_MAX: the last fill showed no usage */
	if (m->shown_min_usage != UINT64_MAX && m->shown_min_usage > least)
		least = m->shown_min_usage;

	for (size_t i = 0; i < m->n; i++) {
		struct top_row *p;
		int64_t e;

		if (o->kid_start[i + 1] == o->kid_start[i])
			continue;   /* no children */
		p = &m->rows[i];
		if (p->fresh_at + 1 != m->refreshes || !(p->fresh & MC_READ_USAGE) ||
		    !p->g.usage_valid) {
			p->grow_valid = false;   /* not read every refresh: its usage says nothing */
			continue;
		}
		e = (int64_t)(p->g.usage - p->kids_usage);
		if (p->grow_valid && e > p->grow_base && (uint64_t)(e - p->grow_base) >= least &&
		    (!p->swept_at || m->refreshes - p->swept_at >= SWEEP_GAP)) {
			for (size_t k = o->kid_start[i]; k < o->kid_start[i + 1]; k++) {
				int r = row_read(m, o->kids[k], MC_READ_USAGE);

				if (r < 0)
					return r;
			}
			p->swept_at = m->refreshes;
			m->sweeps++;
			e = (int64_t)(p->g.usage - p->kids_usage);
			p->grow_base = e;
		} else if (!p->grow_valid || e < p->grow_base) {
			p->grow_base = e;
		}
		p->grow_valid = true;
	}
	return 0;
}

/*
 * Reads the sort key of the rows (those not read yet in this refresh).
 * With a key budget and more rows than it, rows take turns: the rows are
 * cut into `turns` blocks of key_budget consecutive rows and each refresh
 * reads the next block (and any row never read), so each key is at most
 * `turns` refreshes old; the rows on screen are read fresh by
 * top_model_fill anyway. Consecutive rows, not every turns-th one: groups
 * listed side by side were made side by side, and their files' kernel
 * objects and the rows' memory lie close together, so that a block of
 * them, read after a second of sleep (all of it out of the caches), costs
 * about two thirds of as many rows spread over the whole tree (measured:
 * 2.6 against 4.1 us a usage file on this project's test host).
 */
static int read_sort_keys(struct top_model *m, bool all)
{
	unsigned parts = top_cols[m->sort_col].parts;
	size_t turns = 1, from = 0, to = m->n, budget = m->key_budget;
	bool every = all || m->keys_new;

	if (!all && budget && m->n > budget && growth_watched(m)) {
		int r = watch_growth(m);

		if (r < 0)
			return r;
		budget = m->key_budget_watched;
	}
	if (!all && budget && m->n > budget) {
		turns = (m->n + budget - 1) / budget;
		from = m->refreshes % turns * budget;
		to = from + budget < m->n ? from + budget : m->n;
	}
	/*
	 * Rows never read (made by the last walk) are read whatever their
	 * turn, in a pass over every row; other refreshes go straight to the
	 * block of their turn.
	 */
	for (size_t i = every ? 0 : from; parts && i < (every ? m->n : to); i++) {
		int r = 0;

		if ((i >= from && i < to) || (m->rows[i].have & parts) != parts)
			r = row_read(m, i, parts);
		if (r < 0)
			return r;
	}
	m->keys_new = false;
	/* the effective limit of every row: the % column sorts by it */
	if (parts & MC_READ_KNOB_MAX)
		compute_limits(m);
	return 0;
}

int top_model_sort_by(struct top_model *m, int col, bool reverse)
{
	int r;

	m->sort_col = col;
	m->reverse = reverse;
	r = read_sort_keys(m, true);
	top_model_order(m);
	return r;
}

int top_model_refresh(struct top_model *m, double now)
{
	int r;

	/* cheap unless the tree changed: see mc_subtree_scan */
	r = m->src->ops->scan(m->src, m->rescan || m->refreshes == 0);
	m->wall = m->src->ops->wall(m->src);
	/* a recorded sample's rates are per second of the time it was recorded */
	m->now = m->src->replay ? m->wall : now;
	if (r < 0)
		return r;
	if (r > 0 || m->refreshes == 0) {
		r = rebuild_rows(m);
		if (r < 0)
			return r;
	}
	m->rescan = false;
	m->refreshes++;   /* every row's fresh is of an earlier refresh now */
	if (m->policy.pol) {
		run_policy(m);
		attach_decisions(m);
	}
	m->host_psi_valid = m->src->ops->host_psi(m->src, &m->host_psi) == 0;
	top_daemons_refresh(m);
	r = read_sort_keys(m, false);
	if (!order_holds(m))
		top_model_order(m);
	return r;
}
