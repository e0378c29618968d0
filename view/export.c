/*
 * Metrics export: the read model (the groups of `memctl top -b`, read
 * through kept-open descriptors) with the engine's view, for monitoring
 * systems. This file keeps the state, the decisions of the last interval
 * and the values of each row; render-prom.c and render-json.c format them.
 *
 * A value the host does not have is left out, not made up. The label and
 * key `group` is the absolute cgroup path: unique on the host, and the
 * same whatever parent the exporter was pointed at. The formats need
 * UTF-8, so a group whose name is not is left out of both with a warning
 * rather than mangled.
 *
 * memctl run renders every interval and must not take new pages after its
 * first intervals: the model, the output buffer and the decision table are
 * kept and reused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export-internal.h"
#include "format.h"

/* What export reads of every group (per-node counts are not exported). */
static const unsigned export_parts = MC_READ_USAGE | MC_READ_KNOBS | MC_READ_STAT |
				     MC_READ_EVENTS | MC_READ_PSI;

/* --- what is exported, described once --- */

const struct export_stat export_stats[] = {
	{ "memctl_anon_bytes", "anon", false,
	  "Anonymous memory of the group and its descendants (v1: total_rss)." },
	{ "memctl_file_bytes", "file", false,
	  "Page cache of the group and its descendants (v1: total_cache)." },
	{ "memctl_active_anon_bytes", "active_anon", false,
	  "Anonymous memory on the active LRU list." },
	{ "memctl_inactive_anon_bytes", "inactive_anon", false,
	  "Anonymous memory on the inactive LRU list." },
	{ "memctl_active_file_bytes", "active_file", false,
	  "Page cache on the active LRU list." },
	{ "memctl_inactive_file_bytes", "inactive_file", false,
	  "Page cache on the inactive LRU list." },
	{ "memctl_unevictable_bytes", "unevictable", false,
	  "Memory that cannot be reclaimed (mlocked, ramfs)." },
	{ "memctl_shmem_bytes", "shmem", false,
	  "Shared memory and tmpfs pages." },
	{ "memctl_anon_thp_bytes", "anon_thp", false,
	  "Anonymous memory in transparent huge pages." },
	{ "memctl_workingset_refault_anon_total", "workingset_refault_anon", true,
	  "Anonymous pages reclaimed and then needed again." },
	{ "memctl_workingset_refault_file_total", "workingset_refault_file", true,
	  "Page cache pages reclaimed and then needed again." },
	{ "memctl_workingset_activate_anon_total", "workingset_activate_anon", true,
	  "Refaulted anonymous pages activated at once." },
	{ "memctl_workingset_activate_file_total", "workingset_activate_file", true,
	  "Refaulted page cache pages activated at once." },
	{ "memctl_pgfault_total", "pgfault", true,
	  "Page faults." },
	{ "memctl_pgmajfault_total", "pgmajfault", true,
	  "Major page faults (the page had to be read)." },
	{ "memctl_pgscan_total", "pgscan", true,
	  "Pages scanned by reclaim." },
	{ "memctl_pgsteal_total", "pgsteal", true,
	  "Pages reclaimed." },
	{ "memctl_thp_fault_alloc_total", "thp_fault_alloc", true,
	  "Transparent huge pages allocated at a page fault." },
	{ "memctl_thp_collapse_alloc_total", "thp_collapse_alloc", true,
	  "Transparent huge pages allocated by khugepaged." },
};

const char *const export_events[EXPORT_N_EVENTS] = {
	"low", "high", "max", "oom", "oom_kill", "oom_group_kill",
};
const size_t export_n_stats = sizeof(export_stats) / sizeof(export_stats[0]);
const size_t export_n_events = sizeof(export_events) / sizeof(export_events[0]);

/* --- the values of a row --- */

bool export_stat_value(const struct mc_export *e, const struct export_stat *s,
		       const struct top_row *r, uint64_t *ret)
{
	return mc_kvs_get(&r->g.stat, s->key, ret) == 0;
}

/* v1 swap is memsw minus max: without max there is none. */
bool export_knob_value(const struct mc_export *e, const struct top_row *r, enum mc_knob k,
		       uint64_t *ret)
{
	const struct mc_group_snap *g = &r->g;

	if (!g->raw_valid[k])
		return false;
	if (k == MC_KNOB_SWAP && e->m.caps->ver == MC_CGV1 && !g->raw_valid[MC_KNOB_MAX])
		return false;
	*ret = mc_abstract_value(e->m.caps, k, g->raw);
	return true;
}

/* The group's path relative to the profile's parent, or NULL outside it. */
static const char *profile_rel(const struct mc_export *e, const char *abs)
{
	size_t n;

	if (!e->pparent)
		return NULL;
	if (strcmp(e->pparent, "/") == 0)
		return abs + 1;
	n = strlen(e->pparent);
	if (strncmp(abs, e->pparent, n) != 0 || (abs[n] != '/' && abs[n] != '\0'))
		return NULL;
	return abs[n] ? abs + n + 1 : abs + n;
}

bool export_usage(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	*ret = r->g.usage;
	return r->g.usage_valid;
}

bool export_eff_limit(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	*ret = r->eff_limit;
	return r->g.raw_valid[MC_KNOB_MAX];
}

bool export_working_set(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	const char *rel = profile_rel(e, r->abs);

	return e->pol && rel && *rel && mc_policy_working_set(e->pol, rel, ret) == 0;
}

bool export_reclaim(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	const struct export_dec *d;

	if (!e->pparent || !profile_rel(e, r->abs))
		return false;
	d = export_dec_find(e, r->abs);
	*ret = d ? d->reclaim : 0;
	return true;
}

static int dec_cmp(const void *a, const void *b)
{
	return strcmp(((const struct export_dec *)a)->abs, ((const struct export_dec *)b)->abs);
}

const struct export_dec *export_dec_find(const struct mc_export *e, const char *abs)
{
	struct export_dec key = { .abs = (char *)abs };

	return e->n_dec ? bsearch(&key, e->dec, e->n_dec, sizeof(*e->dec), dec_cmp) : NULL;
}

/* --- lifecycle --- */

int mc_export_new(struct mc_host *h, const char *parent,
		  void (*warn)(void *warn_arg, const char *msg), void *warn_arg,
		  struct mc_export **ret)
{
	struct mc_export *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	e->h = h;
	e->warn = warn;
	e->warn_arg = warn_arg;
	r = mc_export_set_parent(e, parent);
	if (r < 0) {
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

void mc_export_free(struct mc_export *e)
{
	if (!e)
		return;
	if (e->have_model)
		top_model_release(&e->m);
	mc_export_clear_decisions(e);
	free(e->dec);
	free(e->pparent);
	free(e->state_dir);
	free(e->skip);
	mc_buf_release(&e->out);
	free(e);
}

int mc_export_set_parent(struct mc_export *e, const char *parent)
{
	struct top_model m;
	int r;

	if (e->have_model && strcmp(e->m.parent, parent) == 0)
		return 0;
	r = top_model_init(&m, e->h, parent);
	if (r == 0 && e->state_dir && (r = top_daemons_init(&m.daemons, e->state_dir)) < 0)
		top_model_release(&m);
	if (r < 0)
		return r;
	if (e->have_model)
		top_model_release(&e->m);
	e->m = m;
	e->have_model = true;
	return 0;
}

int mc_export_set_engine(struct mc_export *e, const struct mc_policy *pol,
			 const char *profile_parent)
{
	e->pol = pol;
	if (e->pparent && strcmp(e->pparent, profile_parent) == 0)
		return 0;
	free(e->pparent);
	e->pparent = strdup(profile_parent);
	return e->pparent ? 0 : -ENOMEM;
}

void mc_export_clear_decisions(struct mc_export *e)
{
	for (size_t i = 0; i < e->n_dec; i++)
		free(e->dec[i].abs);
	e->n_dec = 0;
}

/* The entry for group abs (taken), found or appended. NULL: out of memory. */
static struct export_dec *dec_entry(struct mc_export *e, char *abs)
{
	for (size_t i = 0; i < e->n_dec; i++)
		if (strcmp(e->dec[i].abs, abs) == 0) {
			free(abs);
			return &e->dec[i];
		}
	if (mc_array_reserve(&e->dec, &e->cap_dec, e->n_dec + 1, sizeof(*e->dec)) < 0) {
		free(abs);
		return NULL;
	}
	memset(&e->dec[e->n_dec], 0, sizeof(e->dec[0]));
	e->dec[e->n_dec].abs = abs;
	return &e->dec[e->n_dec++];
}

int mc_export_take_decisions(struct mc_export *e, const struct mc_decisions *dec)
{
	mc_export_clear_decisions(e);
	if (!e->pparent)
		return 0;
	for (size_t i = 0; i < dec->n_set + dec->n_reclaim; i++) {
		bool is_set = i < dec->n_set;
		const char *group = is_set ? dec->set[i].group : dec->reclaim[i - dec->n_set].group;
		struct export_dec *d;
		char *abs;

		if (mc_path_join(e->pparent, group, &abs) < 0 || !(d = dec_entry(e, abs)))
			return -ENOMEM;
		if (is_set) {
			/* a later setting of the same knob wins, as in the planner */
			d->set[dec->set[i].knob] = dec->set[i].value;
			d->set_valid[dec->set[i].knob] = true;
		} else {
			d->reclaim += dec->reclaim[i - dec->n_set].bytes;
		}
	}
	if (e->n_dec > 1)
		qsort(e->dec, e->n_dec, sizeof(*e->dec), dec_cmp);
	return 0;
}

int mc_export_set_state_dir(struct mc_export *e, const char *state_dir)
{
	free(e->state_dir);
	e->state_dir = strdup(state_dir);
	if (!e->state_dir)
		return -ENOMEM;
	if (e->have_model && !e->m.daemons.state_dir)
		return top_daemons_init(&e->m.daemons, state_dir);
	return 0;
}

void mc_export_set_intervals(struct mc_export *e, unsigned long n)
{
	e->intervals = n;
}

int mc_export_refresh(struct mc_export *e)
{
	struct timespec t;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t);
	r = top_model_refresh(&e->m, (double)t.tv_sec + (double)t.tv_nsec / 1e9);
	if (r == 0)
		r = top_model_fill(&e->m, 0, e->m.n_order, (size_t)-1, export_parts);
	return r;
}

const struct top_row *export_row(const struct mc_export *e, size_t o)
{
	return e->skip[o] ? NULL : &e->m.rows[e->m.order[o]];
}
