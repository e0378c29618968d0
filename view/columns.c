/*
 * The columns of the read model, described once as data: name, title, width,
 * kind, the host parts they need, help, and how to get, show and sort the
 * value. The screen, batch text and JSON all go through this table; the
 * help overlay and memctl(8) list the same names.
 *
 * memory.stat and numa_stat keys are v2's on every host: the host layer
 * renames v1's hierarchical total_* / hierarchical_* keys.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "format.h"
#include "systemd.h"

/* Sum of memory.stat keys. */
static void stat_sum(const struct top_row *r, struct top_val *ret, const char *k1, const char *k2)
{
	const char *keys[2] = { k1, k2 };
	uint64_t v;

	ret->valid = false;
	ret->u = 0;
	for (int i = 0; i < 2 && keys[i]; i++) {
		if (mc_kvs_get(&r->g.stat, keys[i], &v) == 0) {
			ret->u += v;
			ret->valid = true;
		}
	}
}

static void get_usage(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	ret->valid = r->g.usage_valid;
	ret->u = r->g.usage;
}

static void get_pct(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	ret->valid = r->g.usage_valid && r->eff_limit > 0 && r->eff_limit != MC_SIZE_MAX;
	ret->d = ret->valid ? 100.0 * (double)r->g.usage / (double)r->eff_limit : 0;
}

static void get_knob(const struct top_model *m, const struct top_row *r, enum mc_knob k,
		     struct top_val *ret)
{
	ret->valid = r->g.raw_valid[k] && (k != MC_KNOB_SWAP || r->g.raw_valid[MC_KNOB_MAX]);
	ret->u = ret->valid ? mc_abstract_value(m->caps, k, r->g.raw) : 0;
}

#define KNOB_GETTER(fn, k) \
	static void fn(const struct top_model *m, const struct top_row *r, struct top_val *ret) \
	{ \
		get_knob(m, r, k, ret); \
	}
KNOB_GETTER(get_min, MC_KNOB_MIN)
KNOB_GETTER(get_low, MC_KNOB_LOW)
KNOB_GETTER(get_high, MC_KNOB_HIGH)
KNOB_GETTER(get_max, MC_KNOB_MAX)
KNOB_GETTER(get_soft, MC_KNOB_SOFT)

static void get_anon(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	stat_sum(r, ret, "anon", NULL);
}

static void get_file(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	stat_sum(r, ret, "file", NULL);
}

static void get_active(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	stat_sum(r, ret, "active_anon", "active_file");
}

static void get_inactive(const struct top_model *m, const struct top_row *r,
			 struct top_val *ret)
{
	stat_sum(r, ret, "inactive_anon", "inactive_file");
}

static void get_thp(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	stat_sum(r, ret, "anon_thp", NULL);
}

/* Huge-page charges that fell back to small pages: memctl's kernel patch, v2. */
static void get_thp_fallback(const struct top_model *m, const struct top_row *r,
			     struct top_val *ret)
{
	stat_sum(r, ret, "thp_fault_fallback_charge", "thp_file_fallback_charge");
}

static void get_wset(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	const struct top_policy *p = &m->policy;
	const struct mc_runstate *d = top_row_daemon(m, r);
	size_t pl;

	ret->valid = false;
	if (d) {
		/* the running daemon's estimate, not top's own */
		const struct mc_run_group *g = mc_runstate_group(d, r->abs);

		ret->valid = g && g->ws_valid;
		ret->u = ret->valid ? g->ws : 0;
		return;
	}
	if (!p->pol)
		return;
	pl = strlen(p->parent);
	if (strcmp(p->parent, "/") == 0)
		pl = 0;
	if (strncmp(r->abs, p->parent, pl) != 0 || r->abs[pl] != '/')
		return;
	ret->valid = mc_policy_working_set(p->pol, r->abs + pl + 1, &ret->u) == 0;
}

static void rate(const struct top_rate *t, struct top_val *ret)
{
	ret->valid = t->valid;
	ret->d = t->rate;
}

static void get_refault(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	rate(&r->refault, ret);
}

static void get_max_rate(const struct top_model *m, const struct top_row *r,
			 struct top_val *ret)
{
	rate(&r->max_events, ret);
}

static void get_oomk_rate(const struct top_model *m, const struct top_row *r,
			  struct top_val *ret)
{
	rate(&r->oom_kill, ret);
}

static void get_psi(const struct top_row *r, bool full, struct top_val *ret)
{
	ret->valid = r->g.psi.valid;
	ret->d = full ? r->g.psi.full_avg10 : r->g.psi.some_avg10;
}

static void get_some(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	get_psi(r, false, ret);
}

static void get_full(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	get_psi(r, true, ret);
}

static void event(const struct top_row *r, const char *key, struct top_val *ret)
{
	ret->valid = mc_kvs_get(&r->g.events, key, &ret->u) == 0;
}

static void get_oom(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	event(r, "oom", ret);
}

static void get_oomk(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	event(r, "oom_kill", ret);
}

static void get_maxev(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	event(r, "max", ret);
}

static void get_highev(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	event(r, "high", ret);
}

static void get_tasks(const struct top_model *m, const struct top_row *r, struct top_val *ret)
{
	ret->valid = r->tasks_valid;
	ret->u = r->tasks;
}

static const char *text_name(const struct top_model *m, const struct top_row *r, char *buf,
			     size_t len)
{
	return r->label;
}

static const char *raw_name(const struct top_model *m, const struct top_row *r)
{
	return r->name;
}

static const char *text_decision(const struct top_model *m, const struct top_row *r, char *buf,
				 size_t len)
{
	return r->decision_label;
}

static const char *raw_decision(const struct top_model *m, const struct top_row *r)
{
	return r->decision;
}

/*
 * The systemd unit whose cgroup holds the group (the deepest unit-named
 * component of its path): systemd writes it unless that unit delegates.
 * Unit names hold nothing that needs escaping.
 */
static const char *text_unit(const struct top_model *m, const struct top_row *r, char *buf,
			     size_t len)
{
	const char *u;
	size_t ul;

	if (!r->abs || !mc_sd_unit_of(r->abs, &u, &ul) || ul >= len)
		return NULL;
	memcpy(buf, u, ul);
	buf[ul] = '\0';
	return buf;
}

/* Per-node usage: "N0=12M N1=3M" (anon + file). */
static const char *text_numa(const struct top_model *m, const struct top_row *r, char *buf,
			     size_t len)
{
	size_t used = 0;

	if (!r->g.n_numa)
		return NULL;
	buf[0] = '\0';
	for (size_t n = 0; n < r->g.n_numa && used < len; n++) {
		uint64_t v, a = 0, f = 0;
		char s[24];

		mc_kvs_get(&r->g.numa[n], "anon", &a);
		mc_kvs_get(&r->g.numa[n], "file", &f);
		v = a + f;
		used += (size_t)snprintf(buf + used, len - used, "%sN%zu=%s", n ? " " : "", n,
					 mc_fmt_size_short(v, s, sizeof(s)));
	}
	return buf;
}

int top_val_cmp(enum top_kind kind, const struct top_val *x, const struct top_val *y)
{
	if (x->valid != y->valid)
		return x->valid ? 1 : -1;   /* unknown sorts as smallest */
	if (kind == TOP_SIZE || kind == TOP_COUNT)
		return (x->u > y->u) - (x->u < y->u);
	return (x->d > y->d) - (x->d < y->d);
}

static int cmp_num(const struct top_model *m, const struct top_col *c, const struct top_row *a,
		   const struct top_row *b)
{
	struct top_val x, y;

	c->get(m, a, &x);
	c->get(m, b, &y);
	return top_val_cmp(c->kind, &x, &y);
}

static int cmp_text(const struct top_model *m, const struct top_col *c, const struct top_row *a,
		    const struct top_row *b)
{
	char ba[128], bb[128];
	const char *x = c->raw ? c->raw(m, a) : c->text(m, a, ba, sizeof(ba));
	const char *y = c->raw ? c->raw(m, b) : c->text(m, b, bb, sizeof(bb));

	if (!x || !y)
		return (x != NULL) - (y != NULL);
	return strcmp(x, y);
}

#define SIZE_COL(n, t, p, h, g) \
	{ .name = n, .title = t, .width = 6, .kind = TOP_SIZE, .parts = p, .help = h, \
	  .get = g, .cmp = cmp_num }
#define NUM_COL(n, t, w, k, p, h, g) \
	{ .name = n, .title = t, .width = w, .kind = k, .parts = p, .help = h, .get = g, \
	  .cmp = cmp_num }

const struct top_col top_cols[] = {
	{ .name = "group", .title = "GROUP", .width = 24, .kind = TOP_TEXT, .parts = 0,
	  .help = "the group, indented below its parent", .text = text_name, .raw = raw_name,
	  .cmp = cmp_text },
	SIZE_COL("usage", "USAGE", MC_READ_USAGE, "memory charged to the group", get_usage),
	NUM_COL("pct", "%LIM", 5, TOP_PCT, MC_READ_USAGE | MC_READ_KNOB_MAX,
		"usage in % of the effective limit (smallest max of it and its ancestors)",
		get_pct),
	SIZE_COL("min", "MIN", MC_READ_KNOB_MIN, "memory.min", get_min),
	SIZE_COL("low", "LOW", MC_READ_KNOB_LOW, "memory.low", get_low),
	SIZE_COL("high", "HIGH", MC_READ_KNOB_HIGH, "memory.high", get_high),
	SIZE_COL("max", "MAX", MC_READ_KNOB_MAX, "memory.max (v1: limit_in_bytes)", get_max),
	SIZE_COL("soft_limit", "SOFT", MC_READ_KNOB_SOFT, "soft limit", get_soft),
	SIZE_COL("anon", "ANON", MC_READ_STAT, "anonymous memory (v1: rss)", get_anon),
	SIZE_COL("file", "FILE", MC_READ_STAT, "page cache (v1: cache)", get_file),
	SIZE_COL("active", "ACTIV", MC_READ_STAT, "active anon + file", get_active),
	SIZE_COL("inactive", "INACT", MC_READ_STAT, "inactive anon + file", get_inactive),
	SIZE_COL("wset", "WSET", 0, "the working-set estimate of the memctl run managing the group (else with --profile: top's own)",
		 get_wset),
	NUM_COL("refault_rate", "RFLT/s", 7, TOP_RATE, MC_READ_STAT,
		"workingset refaults per second (pages)", get_refault),
	NUM_COL("psi_some", "SOME", 5, TOP_PCT, MC_READ_PSI, "PSI memory some avg10",
		get_some),
	NUM_COL("psi_full", "FULL", 5, TOP_PCT, MC_READ_PSI, "PSI memory full avg10",
		get_full),
	SIZE_COL("thp", "THP", MC_READ_STAT, "transparent huge pages (anon_thp, v1 rss_huge)",
		 get_thp),
	NUM_COL("thp_fallback", "THPFB", 6, TOP_COUNT, MC_READ_STAT,
		"huge-page charges that fell back to small pages (memctl kernel patch)",
		get_thp_fallback),
	{ .name = "numa", .title = "NUMA", .width = 16, .kind = TOP_TEXT,
	  .parts = MC_READ_NUMA, .help = "usage per NUMA node", .text = text_numa,
	  .cmp = cmp_text },
	NUM_COL("oom", "OOM", 5, TOP_COUNT, MC_READ_EVENTS, "OOM events (v2)", get_oom),
	NUM_COL("oom_kill", "OOMK", 5, TOP_COUNT, MC_READ_EVENTS, "OOM kills", get_oomk),
	NUM_COL("oom_kill_rate", "OOMK/s", 6, TOP_RATE, MC_READ_EVENTS,
		"OOM kills per second", get_oomk_rate),
	NUM_COL("high_events", "HIGHEV", 6, TOP_COUNT, MC_READ_EVENTS,
		"times usage went over high (v2)", get_highev),
	NUM_COL("max_events", "MAXEV", 6, TOP_COUNT, MC_READ_EVENTS,
		"times usage hit max (v1: failcnt)", get_maxev),
	NUM_COL("max_rate", "MAX/s", 6, TOP_RATE, MC_READ_EVENTS,
		"limit hits per second", get_max_rate),
	NUM_COL("tasks", "TASKS", 5, TOP_COUNT, TOP_READ_TASKS,
		"processes in the group itself (cgroup.procs; not its children's)", get_tasks),
	{ .name = "unit", .title = "UNIT", .width = 20, .kind = TOP_TEXT, .parts = 0,
	  .help = "the systemd unit whose cgroup holds the group (systemd writes it unless the unit has Delegate=yes)",
	  .text = text_unit, .cmp = cmp_text },
	{ .name = "decision", .title = "DECISION", .width = 40, .kind = TOP_TEXT, .parts = 0,
	  .help = "the last decision of the memctl run managing the group, with its reason (else with --profile: top's own, marked simulated)",
	  .text = text_decision, .raw = raw_decision, .cmp = cmp_text },
};
const size_t top_n_cols = sizeof(top_cols) / sizeof(top_cols[0]);

int top_col_lookup(const char *name)
{
	for (size_t i = 0; i < top_n_cols; i++)
		if (strcmp(top_cols[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

const char *top_cell(const struct top_model *m, const struct top_row *r, const struct top_col *c,
		     char *buf, size_t len)
{
	struct top_val v = { 0 };
	const char *t;

	if (c->kind == TOP_TEXT) {
		t = c->text(m, r, buf, len);
		return t ? t : "-";
	}
	c->get(m, r, &v);
	if (!v.valid)
		return "-";
	if (c->kind == TOP_SIZE)
		return mc_fmt_size_short(v.u, buf, len);
	if (c->kind == TOP_COUNT)
		return mc_fmt_u64(v.u, buf, len);
	return mc_fmt_fixed(v.d, c->kind == TOP_RATE && v.d >= 100 ? 0 : 1, buf, len);
}

unsigned top_cols_parts(const int *cols, size_t n)
{
	unsigned parts = 0;

	for (size_t i = 0; i < n; i++)
		parts |= top_cols[cols[i]].parts;
	return parts;
}

int top_cols_parse(const char *list, int **ret, size_t *ret_n, const char **ret_bad)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int *v = calloc(top_n_cols + 1, sizeof(*v));
	size_t n = 0;

	if (!copy || !v) {
		free(copy);
		free(v);
		return -ENOMEM;
	}
	v[n++] = TOP_COL_NAME;   /* the tree is always the first column */
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = top_col_lookup(tok);
		bool dup = false;

		if (c < 0) {
			/* the name outlives the copy: point into list */
			*ret_bad = list + (tok - copy);
			free(copy);
			free(v);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++)
			dup |= v[i] == c;
		if (!dup)
			v[n++] = c;
	}
	free(copy);
	*ret = v;
	*ret_n = n;
	return 0;
}
