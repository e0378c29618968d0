/*
 * The planner: profile + snapshot + host capabilities -> ordered steps.
 *
 * How it works. Every group the plan can touch or must respect becomes a
 * node: the profile's parent, every group in the snapshot, and every group
 * of the profile that does not exist yet. Each node holds the raw value of
 * every knob file the host has, as the kernel would show it.
 *
 * 1. The desired value of each knob is resolved (percentages against the
 *    parent's effective limit, page alignment, v1 memory+swap arithmetic).
 * 2. The final state (desired where the profile says something, live values
 *    elsewhere) is checked against the ordering invariant; a violation is an
 *    error, because no order of writes could reach that state validly.
 * 3. Writes are ordered greedily: from the canonical order (groups in
 *    preorder, knobs in table order) the first pending write that does not
 *    add a violation is taken. For the chain min <= low <= high <= max
 *    this yields increases from the top and decreases from the bottom, and
 *    for parent/child limits it lowers children before parents and raises
 *    parents before children. Only the constraints a write can affect (its
 *    own group, its parent edge, its children's edges) are recounted, so
 *    planning stays close to linear in practice.
 *
 * The invariant, for one group: every pair a before b in the chain
 * (min, low, high, max) and (soft_limit, max) must satisfy a <= b unless a
 * is unlimited (an unlimited high or soft limit means "not set"); on v1 the
 * kernel itself refuses limit_in_bytes > memsw.limit_in_bytes; a child's
 * finite max must not exceed its parent's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan-build.h"
#include "units.h"

#define K MC_KNOB__COUNT
#define NO_NODE ((size_t)-1)

struct pnode {
	char *path;                       /* relative to the plan's parent */
	char *keypath;                    /* profile key path, for messages */
	size_t parent;
	size_t *children;
	size_t n_children;
	size_t cap_children;
	bool exists;                      /* on the host now */
	bool no_mem_children;             /* v2: memory not enabled for its children */
	uint64_t raw[K];                  /* simulated current values */
	const struct mc_group_spec *spec; /* NULL: not in the profile */
	struct plan_want w;               /* the values asked for */
	uint64_t final[K];
	char *why[K];                     /* reason per knob that changes */
};

struct pstate {
	const struct mc_caps *caps;
	struct pnode *n;
	size_t len;
	size_t cap;
	size_t *hash;                     /* open addressing over node indices */
	size_t hash_cap;
};

static const enum mc_knob chain[] = { MC_KNOB_MIN, MC_KNOB_LOW, MC_KNOB_HIGH, MC_KNOB_MAX };

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int hash_grow(struct pstate *st)
{
	size_t ncap = st->hash_cap ? st->hash_cap * 2 : 64;
	size_t *nh = malloc(ncap * sizeof(*nh));

	if (!nh)
		return -ENOMEM;
	for (size_t i = 0; i < ncap; i++)
		nh[i] = NO_NODE;
	for (size_t i = 0; i < st->len; i++) {
		size_t j = str_hash(st->n[i].path) & (ncap - 1);

		while (nh[j] != NO_NODE)
			j = (j + 1) & (ncap - 1);
		nh[j] = i;
	}
	free(st->hash);
	st->hash = nh;
	st->hash_cap = ncap;
	return 0;
}

static size_t node_find(const struct pstate *st, const char *path)
{
	if (!st->hash_cap)
		return NO_NODE;
	for (size_t j = str_hash(path) & (st->hash_cap - 1); st->hash[j] != NO_NODE;
	     j = (j + 1) & (st->hash_cap - 1))
		if (strcmp(st->n[st->hash[j]].path, path) == 0)
			return st->hash[j];
	return NO_NODE;
}

static int child_add(struct pnode *p, size_t c)
{
	if (mc_array_reserve(&p->children, &p->cap_children, p->n_children + 1,
			     sizeof(*p->children)) < 0)
		return -ENOMEM;
	p->children[p->n_children++] = c;
	return 0;
}

/* Adds a node for path (which must not exist yet); its parent must exist. */
static int node_add(struct pstate *st, const char *path, size_t *ret)
{
	struct pnode *nd;
	size_t idx = st->len;
	int r;

	if (mc_array_reserve(&st->n, &st->cap, st->len + 1, sizeof(*st->n)) < 0)
		return -ENOMEM;
	if ((st->len + 1) * 2 > st->hash_cap && (r = hash_grow(st)) < 0)
		return r;
	nd = &st->n[idx];
	memset(nd, 0, sizeof(*nd));
	nd->parent = NO_NODE;
	nd->path = strdup(path);
	if (!nd->path)
		return -ENOMEM;
	st->len++;
	{
		size_t j = str_hash(path) & (st->hash_cap - 1);

		while (st->hash[j] != NO_NODE)
			j = (j + 1) & (st->hash_cap - 1);
		st->hash[j] = idx;
	}
	if (*path) {
		const char *slash = strrchr(path, '/');
		char *ppath = strndup(path, slash ? (size_t)(slash - path) : 0);
		size_t p;

		if (!ppath)
			return -ENOMEM;
		p = node_find(st, ppath);
		free(ppath);
		if (p != NO_NODE) {
			st->n[idx].parent = p;
			if ((r = child_add(&st->n[p], idx)) < 0)
				return r;
		}
	}
	*ret = idx;
	return 0;
}

static void pstate_free(struct pstate *st)
{
	for (size_t i = 0; i < st->len; i++) {
		free(st->n[i].path);
		free(st->n[i].keypath);
		free(st->n[i].children);
		for (int k = 0; k < K; k++)
			free(st->n[i].why[k]);
	}
	free(st->n);
	free(st->hash);
}

/* Value a knob file has in a group the kernel has just created. */
static uint64_t knob_default(enum mc_knob k)
{
	return k == MC_KNOB_LOW || k == MC_KNOB_MIN || mc_knob_info(k)->flag ? 0 : MC_SIZE_MAX;
}

static bool has_file(const struct pstate *st, enum mc_knob k)
{
	return st->caps->file[k] != NULL;
}

static int pstate_load(struct pstate *st, const struct mc_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct mc_group_snap *g = &s->groups[i];
		size_t idx;
		int r;

		if (node_find(st, g->path) != NO_NODE)
			continue;
		if ((r = node_add(st, g->path, &idx)) < 0)
			return r;
		st->n[idx].exists = g->present;
		st->n[idx].no_mem_children = g->no_memory_children;
		for (int k = 0; k < K; k++)
			st->n[idx].raw[k] = g->raw_valid[k] ? g->raw[k] : knob_default(k);
	}
	return 0;
}

/* a <= b where an unlimited a means "not set" */
static bool le_unset_ok(uint64_t a, uint64_t b)
{
	return a == MC_SIZE_MAX || a <= b;
}

/*
 * Visits every violated constraint inside node i (and, with edge, between i
 * and its parent). The callback gets the two knobs and nodes involved.
 */
typedef void (*violation_fn)(void *ctx, size_t lo_node, enum mc_knob lo,
			     size_t hi_node, enum mc_knob hi);

enum { CHECK_INTRA = 1, CHECK_EDGE = 2, CHECK_ALL = 3 };

static int node_violations(const struct pstate *st, const uint64_t *const *vals, size_t i,
			   int what, violation_fn fn, void *ctx)
{
	const uint64_t *v = vals[i];
	int n = 0;

	if (!(what & CHECK_INTRA))
		goto edge;
	for (size_t a = 0; a < sizeof(chain) / sizeof(chain[0]); a++)
		for (size_t b = a + 1; b < sizeof(chain) / sizeof(chain[0]); b++) {
			if (!has_file(st, chain[a]) || !has_file(st, chain[b]))
				continue;
			if (!le_unset_ok(v[chain[a]], v[chain[b]])) {
				n++;
				if (fn)
					fn(ctx, i, chain[a], i, chain[b]);
			}
		}
	if (has_file(st, MC_KNOB_SOFT) && has_file(st, MC_KNOB_MAX) &&
	    !le_unset_ok(v[MC_KNOB_SOFT], v[MC_KNOB_MAX])) {
		n++;
		if (fn)
			fn(ctx, i, MC_KNOB_SOFT, i, MC_KNOB_MAX);
	}
	if (st->caps->ver == MC_CGV1 && has_file(st, MC_KNOB_SWAP) && has_file(st, MC_KNOB_MAX) &&
	    v[MC_KNOB_MAX] > v[MC_KNOB_SWAP]) {
		n++;
		if (fn)
			fn(ctx, i, MC_KNOB_MAX, i, MC_KNOB_SWAP);
	}
edge:
	if ((what & CHECK_EDGE) && st->n[i].parent != NO_NODE && has_file(st, MC_KNOB_MAX) &&
	    !le_unset_ok(v[MC_KNOB_MAX], vals[st->n[i].parent][MC_KNOB_MAX])) {
		n++;
		if (fn)
			fn(ctx, i, MC_KNOB_MAX, st->n[i].parent, MC_KNOB_MAX);
	}
	return n;
}

/* Violations a write to node i can change: i's own, its edge, its children's edges. */
static int local_violations(const struct pstate *st, const uint64_t *const *vals, size_t i)
{
	int n = node_violations(st, vals, i, CHECK_ALL, NULL, NULL);

	for (size_t c = 0; c < st->n[i].n_children; c++) {
		size_t ci = st->n[i].children[c];

		if (st->n[ci].parent != NO_NODE && has_file(st, MC_KNOB_MAX) &&
		    !le_unset_ok(vals[ci][MC_KNOB_MAX], vals[i][MC_KNOB_MAX]))
			n++;
	}
	return n;
}

/* The builder (plan-build.h), which the plans of units and removals use too. */

const char *plan_fmt_size(uint64_t v, char buf[static 24])
{
	return mc_units_mark(v, buf);
}

void plan_want_unit(const struct plan_want *w, enum mc_knob k, struct mc_step *tmpl)
{
	tmpl->unit_valid = k < MC_KNOB__COUNT && w->policy_why[k] != NULL;
	tmpl->unit = tmpl->unit_valid ? w->policy_unit[k] : 0;
}

uint64_t plan_page(const struct mc_caps *caps)
{
	return caps->page_size ? caps->page_size : 4096;
}

void plan_want_size(struct plan_want *w, enum mc_knob k, uint64_t v, uint64_t page)
{
	if (v != MC_SIZE_MAX && !mc_knob_info(k)->flag)
		v -= v % page;
	w->v[k] = v;
	w->set[k] = true;
}

void plan_want_setting(struct plan_want *w, const struct mc_setting *set, uint64_t page)
{
	plan_want_size(w, set->knob, set->value, page);
	w->policy_why[set->knob] = set->reason;
	w->policy[set->knob] = set->policy;
	w->policy_unit[set->knob] = set->reason_unit;
}

char *plan_want_why(const struct plan_want *w, enum mc_knob k, const struct mc_size *sz)
{
	char s1[24], spec[24];

	if (w->policy_why[k])
		return mc_asprintf("policy: %s", w->policy_why[k]);
	if (sz->kind != MC_SIZE_PERCENT)
		return mc_asprintf("profile: %s %s", mc_knob_info(k)->name,
				   plan_fmt_size(w->v[k], s1));
	mc_size_format_spec(sz, spec, sizeof(spec));
	return mc_asprintf("profile: %s %s of the parent's effective limit = %s",
			   mc_knob_info(k)->name, spec, plan_fmt_size(w->v[k], s1));
}

int plan_step_add(struct mc_plan *plan, const struct mc_step *tmpl, struct plan_target to,
		  char *reason)
{
	struct mc_step step = *tmpl;
	uint64_t extra[2];
	size_t n = 0;

	if (!step.unit_valid) {
		if (step.kind == MC_STEP_RECLAIM) {
			extra[n++] = step.bytes;
		} else if (step.kind == MC_STEP_WRITE || step.kind == MC_STEP_UNIT ||
			   step.kind == MC_STEP_UNIT_FILE) {
			if (step.old_valid)
				extra[n++] = step.old_raw;
			extra[n++] = step.new_raw;
		}
		reason = mc_units_resolve(reason, extra, n, &step.unit);
		step.unit_valid = true;
	}
	step.reason = reason;
	step.group = strdup(to.group);
	step.cgroup = to.cgroup ? strdup(to.cgroup) : NULL;
	if (!step.reason || !step.group || (to.cgroup && !step.cgroup) ||
	    mc_array_reserve(&plan->steps, &plan->cap, plan->n + 1, sizeof(*plan->steps)) < 0) {
		free(step.reason);
		free(step.group);
		free(step.cgroup);
		free(step.node_bytes);
		return -ENOMEM;
	}
	plan->steps[plan->n++] = step;
	return 0;
}

int plan_reclaim_add(struct mc_plan *plan, const struct mc_reclaim *rc, struct plan_target to)
{
	struct mc_step step = {
		.kind = MC_STEP_RECLAIM,
		.knob = K,
		.bytes = rc->bytes,
		.n_nodes = rc->node_bytes ? rc->n_nodes : 0,
		.policy = rc->policy ? rc->policy : "policy",
		.unit = rc->reason_unit,
		.unit_valid = true,
	};

	if (step.n_nodes) {
		step.node_bytes = malloc(step.n_nodes * sizeof(*step.node_bytes));
		if (!step.node_bytes)
			return -ENOMEM;
		memcpy(step.node_bytes, rc->node_bytes, step.n_nodes * sizeof(*step.node_bytes));
	}
	return plan_step_add(plan, &step, to, strdup(rc->reason ? rc->reason : "policy"));
}

struct build {
	const struct mc_profile *p;
	const struct mc_snapshot *s;
	const struct mc_plan_opts *o;
	struct pstate st;
	struct mc_diags *diags;
	struct mc_plan *plan;
	int errors;
};

static int add_diag(struct build *b, const struct mc_pos *pos, const char *path, const char *msg)
{
	char *m = mc_units_resolve(strdup(msg), NULL, 0, NULL);
	int r;

	b->errors++;
	if (!m)
		return -ENOMEM;
	r = mc_diags_add(b->diags, b->p->file, pos ? pos->line : 0, pos ? pos->col : 0, path,
			 "%s", m);
	free(m);
	return r;
}

/* A policy's value replaces the profile's for that group and knob. */
static void apply_settings(struct build *b, size_t idx, uint64_t page)
{
	const struct mc_decisions *d = b->o->decisions;
	struct pnode *nd = &b->st.n[idx];

	for (size_t i = 0; d && i < d->n_set; i++)
		if (strcmp(d->set[i].group, nd->path) == 0)
			plan_want_setting(&nd->w, &d->set[i], page);
}

/*
 * The profile's knobs of group g (node idx) as byte values: percentages
 * against base, sizes rounded down to a page. A size that cannot be
 * resolved is a diagnostic, not a failure; < 0 only for -ENOMEM.
 */
static int resolve_knobs(struct build *b, const struct mc_group_spec *g, size_t idx,
			 uint64_t base, uint64_t page)
{
	struct pnode *nd = &b->st.n[idx];

	for (int k = 0; k < K; k++) {
		const struct mc_size *sz = &g->knob[k];
		uint64_t v;
		int r;

		if (sz->kind == MC_SIZE_UNSET)
			continue;
		if (mc_size_resolve(sz, base, &v) < 0) {
			char *m = mc_asprintf("%s: cannot resolve %s against an unlimited parent",
					    mc_knob_info(k)->name,
					    sz->kind == MC_SIZE_PERCENT ? "a percentage" : "the size");

			r = m ? add_diag(b, &g->knob_pos[k], nd->keypath, m) : -ENOMEM;
			free(m);
			if (r < 0)
				return r;
			continue;
		}
		plan_want_size(&nd->w, k, v, page);
	}
	return 0;
}

/*
 * Walks the profile's groups: creates nodes for new groups and resolves
 * every knob asked for into want[]. base is the effective limit the
 * group's percentages refer to.
 */
static int resolve_group(struct build *b, const struct mc_group_spec *g, const char *ppath,
			 const char *pkey, uint64_t base)
{
	struct pstate *st = &b->st;
	char *path = *ppath ? mc_asprintf("%s/%s", ppath, g->name) : strdup(g->name);
	char *key = mc_asprintf("%s.%s", pkey, g->name);
	uint64_t page = plan_page(st->caps);
	uint64_t eff;
	size_t idx;
	int r = 0;

	if (!path || !key) {
		r = -ENOMEM;
		goto out;
	}
	idx = node_find(st, path);
	if (idx == NO_NODE || !st->n[idx].exists) {
		if (!b->o->create) {
			char *m = mc_asprintf("group '%s' does not exist", path);

			r = m ? add_diag(b, &g->pos, key, m) : -ENOMEM;
			free(m);
			goto out;
		}
		if (idx == NO_NODE) {
			if ((r = node_add(st, path, &idx)) < 0)
				goto out;
			for (int k = 0; k < K; k++)
				st->n[idx].raw[k] = knob_default(k);
		}
	}
	st->n[idx].spec = g;
	st->n[idx].keypath = key;
	key = NULL;

	if ((r = resolve_knobs(b, g, idx, base, page)) < 0)
		goto out;
	apply_settings(b, idx, page);

	eff = base;
	if (st->n[idx].w.set[MC_KNOB_MAX] && st->n[idx].w.v[MC_KNOB_MAX] < eff)
		eff = st->n[idx].w.v[MC_KNOB_MAX];
	else if (!st->n[idx].w.set[MC_KNOB_MAX] && st->n[idx].exists &&
		 st->n[idx].raw[MC_KNOB_MAX] < eff)
		eff = st->n[idx].raw[MC_KNOB_MAX];

	for (size_t c = 0; c < g->n_children && r >= 0; c++)
		r = resolve_group(b, &g->children[c], path, st->n[idx].keypath, eff);
out:
	free(path);
	free(key);
	return r;
}

/*
 * v1 limits memory+swap, not swap: node nd's final memsw keeps the abstract
 * swap allowance (memsw - max) the profile asks for, or the one the group
 * has now, above its final max.
 */
static int finalize_v1_memsw(struct pnode *nd)
{
	char s1[24], s2[24], s3[24];
	uint64_t max = nd->final[MC_KNOB_MAX];
	uint64_t memsw;

	if (nd->w.set[MC_KNOB_SWAP]) {
		uint64_t swap = nd->w.v[MC_KNOB_SWAP];

		if (max == MC_SIZE_MAX || swap == MC_SIZE_MAX || max + swap < max)
			memsw = MC_SIZE_MAX;
		else
			memsw = max + swap;
		nd->why[MC_KNOB_SWAP] = mc_asprintf(
			"profile: swap_max %s; cgroup v1 limits memory+swap: max %s + swap = %s",
			plan_fmt_size(swap, s1), plan_fmt_size(max, s2), plan_fmt_size(memsw, s3));
	} else {
		uint64_t oldsw = nd->raw[MC_KNOB_SWAP], oldmax = nd->raw[MC_KNOB_MAX];

		if (oldsw == MC_SIZE_MAX || max == MC_SIZE_MAX)
			memsw = MC_SIZE_MAX;
		else
			memsw = max + (oldsw - oldmax);
		if (memsw != oldsw)
			nd->why[MC_KNOB_SWAP] = mc_asprintf(
				"keeps the group's swap allowance %s above the new max %s (cgroup v1 limits memory+swap)",
				plan_fmt_size(oldsw - oldmax, s1), plan_fmt_size(max, s2));
	}
	if (memsw != nd->raw[MC_KNOB_SWAP] && !nd->why[MC_KNOB_SWAP])
		return -ENOMEM;
	nd->final[MC_KNOB_SWAP] = memsw;
	return 0;
}

/* Final raw value of every knob of node i, and the reason for each change. */
static int finalize_node(struct build *b, size_t i)
{
	struct pnode *nd = &b->st.n[i];
	const struct mc_caps *caps = b->st.caps;

	memcpy(nd->final, nd->raw, sizeof(nd->final));
	for (int k = 0; k < K; k++) {
		if (!nd->w.set[k] || (k == MC_KNOB_SWAP && caps->ver == MC_CGV1))
			continue;
		nd->final[k] = nd->w.v[k];
		if (!(nd->why[k] = plan_want_why(&nd->w, k, &nd->spec->knob[k])))
			return -ENOMEM;
	}

	if (caps->ver == MC_CGV1 && caps->file[MC_KNOB_SWAP])
		return finalize_v1_memsw(nd);
	return 0;
}

struct final_ctx {
	struct build *b;
	int r;
};

static void report_violation(void *vctx, size_t lo_node, enum mc_knob lo, size_t hi_node,
			     enum mc_knob hi)
{
	struct final_ctx *ctx = vctx;
	struct build *b = ctx->b;
	struct pnode *l = &b->st.n[lo_node], *h = &b->st.n[hi_node];
	const struct mc_pos *pos = l->spec ? &l->spec->knob_pos[lo] : NULL;
	char s1[24], s2[24];
	char *m;

	if (ctx->r < 0)
		return;
	if (pos && pos->line == 0 && h->spec)
		pos = &h->spec->knob_pos[hi];
	if (lo_node == hi_node && lo == MC_KNOB_MAX && hi == MC_KNOB_SWAP)
		m = mc_asprintf("max %s exceeds the group's memory+swap limit %s; set swap_max",
			      plan_fmt_size(l->final[lo], s1), plan_fmt_size(h->final[hi], s2));
	else if (lo_node == hi_node)
		m = mc_asprintf("%s %s%s is above %s %s%s", mc_knob_info(lo)->name,
			      plan_fmt_size(l->final[lo], s1), l->w.set[lo] ? "" : " (live value)",
			      mc_knob_info(hi)->name, plan_fmt_size(h->final[hi], s2),
			      h->w.set[hi] ? "" : " (live value)");
	else
		m = mc_asprintf("max %s is above the max %s of its parent '%s'%s",
			      plan_fmt_size(l->final[lo], s1), plan_fmt_size(h->final[hi], s2),
			      *h->path ? h->path : b->s->parent, h->w.set[hi] ? "" : " (live value)");
	if (!m) {
		ctx->r = -ENOMEM;
		return;
	}
	ctx->r = add_diag(b, pos, l->keypath ? l->keypath : l->path, m);
	free(m);
}

static const uint64_t **vals_alloc(const struct pstate *st, bool final)
{
	const uint64_t **v = malloc((st->len ? st->len : 1) * sizeof(*v));

	if (v)
		for (size_t i = 0; i < st->len; i++)
			v[i] = final ? st->n[i].final : st->n[i].raw;
	return v;
}

/* Checks the final state; violations that involve a profile group are errors. */
static int check_final(struct build *b)
{
	struct pstate *st = &b->st;
	const uint64_t **vals = vals_alloc(st, true);
	struct final_ctx ctx = { b, 0 };

	if (!vals)
		return -ENOMEM;
	for (size_t i = 0; i < st->len && ctx.r >= 0; i++) {
		/* Live groups outside the profile only matter through their parent edge. */
		int what = st->n[i].spec ? CHECK_ALL : 0;

		if (st->n[i].parent != NO_NODE && st->n[st->n[i].parent].spec)
			what |= CHECK_EDGE;
		if (what)
			node_violations(st, vals, i, what, report_violation, &ctx);
	}
	free(vals);
	return ctx.r;
}

/*
 * What becomes of a knob the host has no file for: the policies of memctl
 * run carry out high (by reclaiming above it) and a stock v2 soft limit
 * (with memory.low and ordered reclaim); the rest is reported only.
 */
static const char *const missing_means[K] = {
	[MC_KNOB_MAX] = "not applied",
	[MC_KNOB_HIGH] = "memctl run emulates it by reclaiming above it",
	[MC_KNOB_LOW] = "not applied (protect: active guards working sets instead)",
	[MC_KNOB_MIN] = "not applied (protect: active guards working sets instead)",
	[MC_KNOB_SOFT] = "memctl run emulates it with memory.low and reclaims groups above it first",
	[MC_KNOB_SWAP] = "not applied (no swap accounting)",
};

static int add_notes(struct build *b, size_t i)
{
	struct pnode *nd = &b->st.n[i];
	const struct mc_caps *caps = b->st.caps;

	for (int k = 0; k < K; k++) {
		char s1[24];
		struct mc_step step = { .kind = MC_STEP_NOTE, .knob = k, .want = nd->w.v[k] };
		char *reason;
		int r;

		if (!nd->w.set[k] || caps->file[k])
			continue;
		reason = mc_asprintf("%s %s: no file for it on this host (cgroup v%d%s): %s",
				     mc_knob_info(k)->name, plan_fmt_size(nd->w.v[k], s1), caps->ver,
				     caps->patched ? "" : ", no memctl kernel patch", missing_means[k]);
		r = plan_step_add(b->plan, &step, (struct plan_target){ nd->path, NULL }, reason);
		if (r < 0)
			return r;
	}
	return 0;
}

struct pending {
	size_t node;
	enum mc_knob knob;
	bool done;
};

static int emit_write(struct build *b, const struct pending *w)
{
	struct pnode *nd = &b->st.n[w->node];
	struct mc_step step = {
		.kind = MC_STEP_WRITE,
		.knob = w->knob,
		.file = b->st.caps->file[w->knob],
		.old_raw = nd->raw[w->knob],
		.old_valid = nd->exists,
		.new_raw = nd->final[w->knob],
		.want = nd->w.set[w->knob] ? nd->w.v[w->knob] : nd->final[w->knob],
		.policy = nd->w.policy[w->knob] ? nd->w.policy[w->knob] : "profile",
	};
	int r;

	plan_want_unit(&nd->w, w->knob, &step);
	r = plan_step_add(b->plan, &step, (struct plan_target){ nd->path, NULL },
			  strdup(nd->why[w->knob] ? nd->why[w->knob] : "profile"));
	if (r < 0)
		return r;
	nd->raw[w->knob] = nd->final[w->knob];
	return 0;
}

static int order_writes(struct build *b)
{
	struct pstate *st = &b->st;
	struct pending *w = NULL;
	size_t nw = 0, left, start = 0;
	const uint64_t **vals;
	int r = 0;

	for (size_t i = 0; i < st->len; i++)
		for (int k = 0; k < K; k++)
			if (st->n[i].spec && st->caps->file[k] && st->n[i].final[k] != st->n[i].raw[k])
				nw++;
	if (!nw)
		return 0;
	w = calloc(nw, sizeof(*w));
	vals = vals_alloc(st, false);
	if (!w || !vals) {
		free(w);
		free(vals);
		return -ENOMEM;
	}
	nw = 0;
	for (size_t i = 0; i < st->len; i++)
		for (int k = 0; k < K; k++)
			if (st->n[i].spec && st->caps->file[k] && st->n[i].final[k] != st->n[i].raw[k])
				w[nw++] = (struct pending){ i, k, false };

	for (left = nw; left && r >= 0; left--) {
		size_t pick = NO_NODE;
		int best = 0;

		for (size_t j = start; j < nw; j++) {
			struct pnode *nd;
			uint64_t saved;
			int before, after;

			if (w[j].done)
				continue;
			nd = &st->n[w[j].node];
			before = local_violations(st, vals, w[j].node);
			saved = nd->raw[w[j].knob];
			nd->raw[w[j].knob] = nd->final[w[j].knob];
			after = local_violations(st, vals, w[j].node);
			nd->raw[w[j].knob] = saved;
			if (after <= before) {
				pick = j;
				break;
			}
			/* No write keeps the count: fall back to the least harmful one. */
			if (pick == NO_NODE || after - before < best) {
				pick = j;
				best = after - before;
			}
		}
		r = emit_write(b, &w[pick]);
		w[pick].done = true;
		while (start < nw && w[start].done)
			start++;
	}
	free(vals);
	free(w);
	return r;
}

/* Reclaims come after the writes: they act on the limits just set. */
static int add_reclaims(struct build *b)
{
	const struct mc_decisions *d = b->o->decisions;
	int r = 0;

	for (size_t i = 0; d && i < d->n_reclaim && r == 0; i++)
		r = plan_reclaim_add(b->plan, &d->reclaim[i],
				     (struct plan_target){ d->reclaim[i].group, NULL });
	return r;
}

static int add_group_step(struct mc_plan *plan, enum mc_step_kind kind, const char *group,
			  const char *reason)
{
	struct mc_step step = { .kind = kind };

	return plan_step_add(plan, &step, (struct plan_target){ group, NULL }, strdup(reason));
}

/*
 * reclaim.kernel_per_node: the patched kernel's host-wide cap on direct
 * reclaimers per NUMA node, written after the groups' settings. A kernel
 * without the sysctl gets a note, not silence. "auto" is the fewest CPUs
 * of a node: no more of a node's reclaimers than its CPUs can run at once,
 * since the others would sit preempted inside reclaim holding the pages
 * they isolated while the last ones find nothing left (the false OOM
 * kill the cap is for); the smallest node decides, the value being one
 * for every node.
 */
#define SYSCTL_RECLAIMERS "vm.max_reclaimers_per_node"

static int add_sysctl(struct mc_plan *plan, const struct mc_profile *p, const struct mc_snapshot *s)
{
	struct mc_step step = { .kind = MC_STEP_SYSCTL, .file = SYSCTL_RECLAIMERS,
				.knob = MC_KNOB__COUNT };
	long want = p->kernel_per_node_auto ? (s->cpus_per_node > 0 ? s->cpus_per_node : 1)
					    : (long)p->kernel_per_node;
	char what[64], *reason;

	if (!p->has_kernel_per_node || s->kernel_per_node == want)
		return 0;
	if (p->kernel_per_node_auto)
		snprintf(what, sizeof(what), "auto (%ld: the fewest CPUs of a NUMA node)", want);
	else
		snprintf(what, sizeof(what), "%ld", want);
	step.want = step.new_raw = (uint64_t)want;
	if (s->kernel_per_node < 0) {
		step.kind = MC_STEP_NOTE;
		reason = mc_asprintf("reclaim.kernel_per_node %s not applied: this kernel has no "
					  "%s (memctl kernel patch)", what, SYSCTL_RECLAIMERS);
	} else {
		step.old_raw = (uint64_t)s->kernel_per_node;
		step.old_valid = true;
		reason = mc_asprintf("profile: reclaim.kernel_per_node %s (host-wide: at most "
					  "that many tasks reclaim directly per NUMA node; 0 = no cap)",
					  what);
	}
	return plan_step_add(plan, &step, (struct plan_target){ "", NULL }, reason);
}

static bool has_spec_child(const struct pstate *st, size_t i)
{
	for (size_t c = 0; c < st->n[i].n_children; c++)
		if (st->n[st->n[i].children[c]].spec)
			return true;
	return false;
}

/*
 * v2: a group in the profile gets memory.* files only when its parent
 * enables the memory controller for its children. memctl enables it in
 * groups it creates, never in an existing group: that would change what
 * the group's other children are charged and limited by.
 */
static int check_delegation(struct build *b)
{
	for (size_t i = 0; i < b->st.len; i++) {
		const struct pnode *nd = &b->st.n[i], *pa;
		char *m;
		int r;

		if (!nd->spec || nd->parent == NO_NODE)
			continue;
		pa = &b->st.n[nd->parent];
		if (!pa->exists || !pa->no_mem_children)
			continue;
		m = mc_asprintf("%s '%s' does not enable the memory controller for its children "
				"(no 'memory' in its cgroup.subtree_control), so '%s' would have no "
				"memory.* files; enable it there first (echo +memory > "
				"cgroup.subtree_control) or choose another parent",
				pa->path[0] ? "group" : "parent", pa->path[0] ? pa->path : b->s->parent,
				nd->path);
		r = m ? add_diag(b, &nd->spec->pos, nd->keypath, m) : -ENOMEM;
		free(m);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Loads the snapshot into b->st, resolves every group of the profile into
 * wanted values and settles each node's final values. -EINVAL (with
 * diagnostics in b->diags) when the profile cannot be carried out here.
 */
static int plan_resolve(struct build *b, const struct mc_profile *p, const struct mc_snapshot *s)
{
	int r;

	if ((r = pstate_load(&b->st, s)) < 0)
		return r;
	if (node_find(&b->st, "") == NO_NODE) {
		size_t idx;

		/* A snapshot always starts with the parent; be safe with a hand-made one. */
		if ((r = node_add(&b->st, "", &idx)) < 0)
			return r;
		b->st.n[idx].exists = true;
		for (int k = 0; k < K; k++)
			b->st.n[idx].raw[k] = knob_default(k);
	}
	for (size_t g = 0; g < p->n_groups && r >= 0; g++)
		r = resolve_group(b, &p->groups[g], "", "groups", s->parent_limit);
	if (r < 0)
		return r;
	for (size_t i = 0; i < b->st.len; i++) {
		if (!b->st.n[i].spec) {
			memcpy(b->st.n[i].final, b->st.n[i].raw, sizeof(b->st.n[i].final));
			continue;
		}
		if ((r = finalize_node(b, i)) < 0)
			return r;
	}
	if (!b->errors && (r = check_final(b)) < 0)
		return r;
	if (b->errors)
		return -EINVAL;
	if (b->st.caps->ver == MC_CGV2 && (r = check_delegation(b)) < 0)
		return r;
	return b->errors ? -EINVAL : 0;
}

/* The steps of a resolved build, in the order the transaction runs them. */
static int plan_steps(struct build *b, const struct mc_profile *p, const struct mc_snapshot *s)
{
	struct mc_plan *plan = b->plan;
	int r;

	/*
	 * Groups are created parents first: nodes were added in preorder. On
	 * v2 a new group with children in the profile enables the memory
	 * controller for them right after it is created (it has no processes).
	 */
	for (size_t i = 0; i < b->st.len; i++) {
		if (!b->st.n[i].spec || b->st.n[i].exists)
			continue;
		if ((r = add_group_step(plan, MC_STEP_MKDIR, b->st.n[i].path,
					"in the profile, not on the host")) < 0)
			return r;
		if (b->st.caps->ver == MC_CGV2 && has_spec_child(&b->st, i) &&
		    (r = add_group_step(plan, MC_STEP_ENABLE, b->st.n[i].path,
					"its children in the profile need memory.* files")) < 0)
			return r;
	}
	for (size_t i = 0; i < b->st.len; i++)
		if (b->st.n[i].spec && (r = add_notes(b, i)) < 0)
			return r;
	if ((r = order_writes(b)) < 0)
		return r;
	if ((r = add_sysctl(plan, p, s)) < 0)
		return r;
	return add_reclaims(b);
}

int mc_plan_build(const struct mc_profile *p, const struct mc_snapshot *s,
		  const struct mc_caps *caps, const struct mc_plan_opts *o,
		  struct mc_plan *ret, struct mc_diags *diags)
{
	struct mc_plan plan = { 0 };
	struct build b = { .p = p, .s = s, .o = o, .diags = diags, .plan = &plan };
	int r;

	b.st.caps = caps;
	plan.parent = strdup(s->parent);
	if (!plan.parent)
		return -ENOMEM;
	r = plan_resolve(&b, p, s);
	if (r >= 0)
		r = plan_steps(&b, p, s);
	pstate_free(&b.st);
	if (r < 0) {
		mc_plan_free(&plan);
		return r;
	}
	*ret = plan;
	return 0;
}

size_t mc_plan_n_changes(const struct mc_plan *plan)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n; i++)
		if (mc_step_changes(&plan->steps[i]))
			n++;
	return n;
}

int mc_plan_replay_check(const struct mc_plan *plan, const struct mc_snapshot *s,
			 const struct mc_caps *caps, size_t *ret_first_bad)
{
	struct pstate st = { .caps = caps };
	const uint64_t **vals = NULL;
	int bad = 0, base = 0, r;

	if ((r = pstate_load(&st, s)) < 0)
		goto out;
	for (size_t i = 0; i < plan->n; i++) {
		size_t idx;

		if (plan->steps[i].kind != MC_STEP_MKDIR || node_find(&st, plan->steps[i].group) != NO_NODE)
			continue;
		if ((r = node_add(&st, plan->steps[i].group, &idx)) < 0)
			goto out;
		for (int k = 0; k < K; k++)
			st.n[idx].raw[k] = knob_default(k);
	}
	if (!(vals = vals_alloc(&st, false))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < st.len; i++)
		base += node_violations(&st, vals, i, CHECK_ALL, NULL, NULL);
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *step = &plan->steps[i];
		int now = 0;
		size_t idx;

		if (step->kind != MC_STEP_WRITE)
			continue;
		idx = node_find(&st, step->group);
		if (idx == NO_NODE) {
			r = -ENOENT;
			goto out;
		}
		st.n[idx].raw[step->knob] = step->new_raw;
		for (size_t j = 0; j < st.len; j++)
			now += node_violations(&st, vals, j, CHECK_ALL, NULL, NULL);
		if (now > base) {
			if (!bad && ret_first_bad)
				*ret_first_bad = i;
			bad++;
		}
	}
	r = bad;
out:
	free(vals);
	pstate_free(&st);
	return r;
}

void mc_plan_free(struct mc_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		free(plan->steps[i].group);
		free(plan->steps[i].reason);
		free(plan->steps[i].node_bytes);
		free(plan->steps[i].cgroup);
	}
	free(plan->steps);
	free(plan->parent);
	memset(plan, 0, sizeof(*plan));
}
