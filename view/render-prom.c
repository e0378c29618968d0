/*
 * The exporter in the Prometheus text exposition format (what
 * node_exporter's textfile collector reads): every family is one HELP
 * line, one TYPE line and then all its samples, one per group and label
 * set, so the renderer walks family by family, label set by label set,
 * group by group. A family no group has a value for is left out entirely.
 * Names carry their unit (_bytes, _seconds, _ratio) and counters end in
 * _total; "no limit" is +Inf.
 *
 * The families are data (struct prom_family): one generic loop renders
 * them all. Label values are escaped as the format defines
 * (mc_esc_prom_label): backslash, double quote and newline; everything
 * else in a UTF-8 name is a valid label character and stays as it is, so
 * a query can match the group's real name.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "escape.h"
#include "export-internal.h"
#include "size.h"

/* One sample's label set after group="..." (may be empty) and its value. */
struct prom_val {
	char labels[64];
	char num[32];
};

struct prom_family {
	const char *name;
	const char *type;
	const char *help;
	size_t n_sets;        /* label sets, each rendered for every group */
	bool engine;          /* only when the engine runs (--profile, memctl run) */
	const struct export_stat *stat;   /* for stat_sample */
	/* Fills ret for label set `set` of row r; false: no sample. */
	bool (*sample)(const struct prom_family *f, const struct mc_export *e,
		       const struct top_row *r, size_t set, struct prom_val *ret);
};

static void bytes(uint64_t v, struct prom_val *ret)
{
	if (v == MC_SIZE_MAX)
		snprintf(ret->num, sizeof(ret->num), "+Inf");
	else
		snprintf(ret->num, sizeof(ret->num), "%" PRIu64, v);
}

static bool knob_label(size_t k, struct prom_val *ret)
{
	snprintf(ret->labels, sizeof(ret->labels), "knob=\"%s\"",
		 mc_knob_info((enum mc_knob)k)->name);
	return true;
}

/* A per-group value from one of the exporter's getters. */
#define GETTER_SAMPLE(fn, getter) \
	static bool fn(const struct prom_family *f, const struct mc_export *e, \
		       const struct top_row *r, size_t set, struct prom_val *ret) \
	{ \
		uint64_t v; \
		if (!getter(e, r, &v)) \
			return false; \
		bytes(v, ret); \
		return true; \
	}
GETTER_SAMPLE(usage_sample, export_usage)
GETTER_SAMPLE(eff_limit_sample, export_eff_limit)
GETTER_SAMPLE(ws_sample, export_working_set)
GETTER_SAMPLE(reclaim_sample, export_reclaim)

static bool limit_sample(const struct prom_family *f, const struct mc_export *e,
			 const struct top_row *r, size_t k, struct prom_val *ret)
{
	uint64_t v;

	if (!export_knob_value(e, r, (enum mc_knob)k, &v))
		return false;
	bytes(v, ret);
	return knob_label(k, ret);
}

static bool stat_sample(const struct prom_family *f, const struct mc_export *e,
			const struct top_row *r, size_t set, struct prom_val *ret)
{
	uint64_t v;

	if (!export_stat_value(e, f->stat, r, &v))
		return false;
	bytes(v, ret);
	return true;
}

static bool event_sample(const struct prom_family *f, const struct mc_export *e,
			 const struct top_row *r, size_t k, struct prom_val *ret)
{
	uint64_t v;

	if (mc_kvs_get(&r->g.events, export_events[k], &v) < 0)
		return false;
	bytes(v, ret);
	snprintf(ret->labels, sizeof(ret->labels), "event=\"%s\"", export_events[k]);
	return true;
}

static bool psi_total_sample(const struct prom_family *f, const struct mc_export *e,
			     const struct top_row *r, size_t full, struct prom_val *ret)
{
	const struct mc_psi *p = &r->g.psi;

	if (!p->valid)
		return false;
	snprintf(ret->labels, sizeof(ret->labels), "kind=\"%s\"", full ? "full" : "some");
	snprintf(ret->num, sizeof(ret->num), "%.6f",
		 (double)(full ? p->full_total : p->some_total) / 1e6);
	return true;
}

/* Label sets: some 10s, 60s, 300s, then full. */
static bool psi_ratio_sample(const struct prom_family *f, const struct mc_export *e,
			     const struct top_row *r, size_t set, struct prom_val *ret)
{
	static const char *const wins[] = { "10s", "60s", "300s" };
	const struct mc_psi *p = &r->g.psi;
	double v[] = { p->some_avg10, p->some_avg60, p->some_avg300,
		       p->full_avg10, p->full_avg60, p->full_avg300 };

	if (!p->valid)
		return false;
	snprintf(ret->labels, sizeof(ret->labels), "kind=\"%s\",window=\"%s\"",
		 set >= 3 ? "full" : "some", wins[set % 3]);
	snprintf(ret->num, sizeof(ret->num), "%.4f", v[set] / 100.0);
	return true;
}

static bool setting_sample(const struct prom_family *f, const struct mc_export *e,
			   const struct top_row *r, size_t k, struct prom_val *ret)
{
	const struct export_dec *d = export_dec_find(e, r->abs);

	if (!d || !d->set_valid[k])
		return false;
	bytes(d->set[k], ret);
	return knob_label(k, ret);
}

/* The families before the memory.stat ones, in the order they are written. */
static const struct prom_family families_head[] = {
	{ "memctl_usage_bytes", "gauge", "Memory charged to the group and its descendants.", 1,
	  false, NULL, usage_sample },
	{ "memctl_limit_bytes", "gauge",
	  "Memory knob of the group by memctl's name (max, high, low, min, soft_limit, "
	  "swap_max); +Inf: no limit.", MC_KNOB__COUNT, false, NULL, limit_sample },
	{ "memctl_effective_limit_bytes", "gauge",
	  "Smallest max of the group and its ancestors, at most the RAM size.", 1, false, NULL,
	  eff_limit_sample },
};

/* The families after them. */
static const struct prom_family families_tail[] = {
	{ "memctl_memory_events_total", "counter",
	  "memory.events by event (v1: max counts failcnt, oom_kill from memory.oom_control).",
	  EXPORT_N_EVENTS, false, NULL, event_sample },
	{ "memctl_pressure_stalled_seconds_total", "counter",
	  "Time tasks of the group stalled on memory (PSI total; some: at least one task, "
	  "full: all).", 2, false, NULL, psi_total_sample },
	{ "memctl_pressure_ratio", "gauge",
	  "PSI average share of time stalled on memory over the window (0 to 1).", 6, false,
	  NULL, psi_ratio_sample },
	{ "memctl_working_set_bytes", "gauge",
	  "The engine's working-set estimate (groups with protect: active).", 1, true, NULL,
	  ws_sample },
	{ "memctl_policy_setting_bytes", "gauge",
	  "Knob value the policies decided in the last interval; +Inf: no limit.",
	  MC_KNOB__COUNT, true, NULL, setting_sample },
	{ "memctl_policy_reclaim_bytes", "gauge",
	  "Reclaim the policies decided for the group in the last interval.", 1, true, NULL,
	  reclaim_sample },
};

static void render_family(struct mc_export *e, const struct prom_family *f)
{
	struct mc_buf *b = &e->out;
	bool head = false;

	if (f->engine && !e->pparent)
		return;
	for (size_t set = 0; set < f->n_sets; set++)
		for (size_t o = 0; o < e->m.n_order; o++) {
			const struct top_row *r = export_row(e, o);
			struct prom_val v = { { 0 } };

			if (!r || !f->sample(f, e, r, set, &v))
				continue;
			if (!head)
				mc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help,
					      f->name, f->type);
			head = true;
			mc_buf_printf(b, "%s{group=\"", f->name);
			mc_esc_prom_label(b, r->abs);
			mc_buf_printf(b, "\"%s%s} %s\n", v.labels[0] ? "," : "", v.labels, v.num);
		}
}

/* Whether daemon d's profile parent is the exporter's parent, above or below it. */
static bool run_related(const struct mc_export *e, const struct mc_runstate *d)
{
	return mc_runstate_owner(d, 1, e->m.parent) == 0 ||
	       mc_runstate_owner(&(struct mc_runstate){ .parent = e->m.parent }, 1, d->parent) == 0;
}

static void run_sample(struct mc_buf *b, const char *name, const struct mc_runstate *d,
		       const char *extra, const char *value)
{
	mc_buf_printf(b, "%s{parent=\"", name);
	mc_esc_prom_label(b, d->parent);
	mc_buf_printf(b, "\"%s} %s\n", extra, value);
}

/* Counters since each daemon started. */
static void run_counters(struct mc_export *e)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} counters[] = {
		{ "memctl_run_reclaimed_bytes_total", "counter",
		  "Bytes memctl run obtained by its reclaims since it started.",
		  offsetof(struct mc_runstate, reclaimed_bytes) },
		{ "memctl_run_reclaim_requests_total", "counter",
		  "Reclaims memctl run asked the kernel for since it started.",
		  offsetof(struct mc_runstate, reclaim_requests) },
		{ "memctl_run_reclaim_failures_total", "counter",
		  "Reclaims that obtained less than asked (or failed) since memctl run started.",
		  offsetof(struct mc_runstate, reclaim_failures) },
		{ "memctl_run_intervals_failed_total", "counter",
		  "Intervals of memctl run that did not complete.",
		  offsetof(struct mc_runstate, intervals_failed) },
	};
	const struct top_daemons *dm = &e->m.daemons;
	struct mc_buf *b = &e->out;
	char v[64];

	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		bool head = false;

		for (size_t i = 0; i < dm->n; i++) {
			if (!run_related(e, &dm->v[i]))
				continue;
			if (!head)
				mc_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", counters[c].name,
					      counters[c].help, counters[c].name, counters[c].type);
			head = true;
			snprintf(v, sizeof(v), "%" PRIu64,
				 *(const uint64_t *)((const char *)&dm->v[i] + counters[c].off));
			run_sample(b, counters[c].name, &dm->v[i], "", v);
		}
	}
}

/* The interval duration histogram. */
static void run_histogram(struct mc_export *e)
{
	const struct top_daemons *dm = &e->m.daemons;
	struct mc_buf *b = &e->out;
	char v[64];

	for (size_t i = 0, head = 0; i < dm->n; i++) {
		const struct mc_runstate *d = &dm->v[i];
		uint64_t cum = 0;

		if (!run_related(e, d))
			continue;
		if (!head++)
			mc_buf_adds(b, "# HELP memctl_run_interval_duration_seconds How long memctl "
				       "run's intervals took.\n# TYPE memctl_run_interval_duration_seconds "
				       "histogram\n");
		for (size_t k = 0; k < MC_RUN_HIST_N; k++) {
			char le[48];

			cum += d->hist[k];
			if (k + 1 < MC_RUN_HIST_N)
				snprintf(le, sizeof(le), ",le=\"%g\"", mc_run_hist_le[k]);
			else
				snprintf(le, sizeof(le), ",le=\"+Inf\"");
			snprintf(v, sizeof(v), "%" PRIu64, cum);
			run_sample(b, "memctl_run_interval_duration_seconds_bucket", d, le, v);
		}
		snprintf(v, sizeof(v), "%.6f", d->hist_sum);
		run_sample(b, "memctl_run_interval_duration_seconds_sum", d, "", v);
		snprintf(v, sizeof(v), "%" PRIu64, d->hist_count);
		run_sample(b, "memctl_run_interval_duration_seconds_count", d, "", v);
	}
}

/* When each daemon's last interval ended. */
static void run_last_interval(struct mc_export *e)
{
	const struct top_daemons *dm = &e->m.daemons;
	struct mc_buf *b = &e->out;
	char v[64];

	for (size_t i = 0, head = 0; i < dm->n; i++) {
		if (!run_related(e, &dm->v[i]))
			continue;
		if (!head++)
			mc_buf_adds(b, "# HELP memctl_run_last_interval_timestamp_seconds When memctl "
				       "run's last interval ended (unix time).\n# TYPE "
				       "memctl_run_last_interval_timestamp_seconds gauge\n");
		snprintf(v, sizeof(v), "%.3f", dm->v[i].time);
		run_sample(b, "memctl_run_last_interval_timestamp_seconds", &dm->v[i], "", v);
	}
}

/* Each decision of the last interval, with its policy, group and knob. */
static void run_decisions(struct mc_export *e)
{
	const struct top_daemons *dm = &e->m.daemons;
	struct mc_buf *b = &e->out;

	for (size_t i = 0, head = 0; i < dm->n; i++) {
		const struct mc_runstate *d = &dm->v[i];

		if (!run_related(e, d))
			continue;
		for (size_t k = 0; k < d->n_dec; k++) {
			const struct mc_run_decision *dc = &d->dec[k];
			static const char *const kind[] = { "set", "write", "reclaim" };

			if (!mc_utf8_valid(dc->group))
				continue;   /* a label must be UTF-8; the JSON has it */
			if (!head++)
				mc_buf_adds(b, "# HELP memctl_run_decision_bytes The value each decision of "
					       "memctl run's last interval set (reclaim: asked); +Inf: no "
					       "limit.\n# TYPE memctl_run_decision_bytes gauge\n");
			mc_buf_adds(b, "memctl_run_decision_bytes{group=\"");
			mc_esc_prom_label(b, dc->group);
			mc_buf_adds(b, "\",policy=\"");
			mc_esc_prom_label(b, dc->policy);
			mc_buf_adds(b, "\",knob=\"");
			mc_esc_prom_label(b, dc->kind == MC_RUN_RECLAIM ? "reclaim" : dc->knob);
			mc_buf_printf(b, "\",kind=\"%s\"} ", kind[dc->kind]);
			if (dc->value == MC_SIZE_MAX)
				mc_buf_adds(b, "+Inf\n");
			else
				mc_buf_printf(b, "%" PRIu64 "\n", dc->value);
		}
	}
}

/*
 * The daemons' own figures, from their published state: counters since
 * each started, the interval duration histogram, the time of the last
 * interval, and each decision of the last interval as a sample with its
 * policy, group and knob (the reason is in the JSON, not in a label).
 */
static void render_runs(struct mc_export *e)
{
	run_counters(e);
	run_histogram(e);
	run_last_interval(e);
	run_decisions(e);
}

void export_render_prom(struct mc_export *e)
{
	struct mc_buf *b = &e->out;
	size_t n_groups = 0;

	for (size_t o = 0; o < e->m.n_order; o++)
		n_groups += export_row(e, o) != NULL;
	mc_buf_printf(b, "# HELP memctl_export_groups Groups exported (the parent and below).\n"
		      "# TYPE memctl_export_groups gauge\nmemctl_export_groups %zu\n", n_groups);
	if (e->intervals)
		mc_buf_printf(b, "# HELP memctl_run_intervals_total Intervals memctl run has "
			      "completed or tried.\n# TYPE memctl_run_intervals_total counter\n"
			      "memctl_run_intervals_total %lu\n", e->intervals);
	for (size_t i = 0; i < sizeof(families_head) / sizeof(families_head[0]); i++)
		render_family(e, &families_head[i]);
	for (size_t s = 0; s < export_n_stats; s++) {
		const struct export_stat *st = &export_stats[s];
		struct prom_family f = { st->name, st->counter ? "counter" : "gauge", st->help, 1,
					 false, st, stat_sample };

		render_family(e, &f);
	}
	for (size_t i = 0; i < sizeof(families_tail) / sizeof(families_tail[0]); i++)
		render_family(e, &families_tail[i]);
	render_runs(e);
}
