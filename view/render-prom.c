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
}
