/*
 * The exporter as one JSON document: the parent, then every group with its
 * usage, limits ("max": no limit, as elsewhere in memctl), memory.stat
 * fields, events, pressure and, when the engine runs, its working-set
 * estimate and decisions. Keys are the Prometheus families' without the
 * prefix and unit; a value the host does not have is left out.
 */
#include <inttypes.h>

#include "escape.h"
#include "export-internal.h"
#include "format.h"

/* "stat":{...},"events":{...}: the memory.stat fields and events the host has. */
static void json_counters(struct mc_export *e, const struct top_row *r)
{
	struct mc_buf *b = &e->out;
	const char *sep = "";
	uint64_t v;

	mc_buf_printf(b, "\"stat\":{");
	for (size_t s = 0; s < export_n_stats; s++)
		if (export_stat_value(e, &export_stats[s], r, &v)) {
			mc_buf_printf(b, "%s\"%s\":%" PRIu64, sep, export_stats[s].key, v);
			sep = ",";
		}
	mc_buf_printf(b, "},\"events\":{");
	sep = "";
	for (size_t k = 0; k < export_n_events; k++)
		if (mc_kvs_get(&r->g.events, export_events[k], &v) == 0) {
			mc_buf_printf(b, "%s\"%s\":%" PRIu64, sep, export_events[k], v);
			sep = ",";
		}
	mc_buf_addc(b, '}');
}

/* ,"working_set":N,"policy":{...}: the engine's view of the group, when it runs. */
static void json_engine(struct mc_export *e, const struct top_row *r)
{
	struct mc_buf *b = &e->out;
	const struct export_dec *d = export_dec_find(e, r->abs);
	const char *sep = "";
	uint64_t v;

	if (export_working_set(e, r, &v))
		mc_buf_printf(b, ",\"working_set\":%" PRIu64, v);
	if (!export_reclaim(e, r, &v))
		return;
	mc_buf_printf(b, ",\"policy\":{\"reclaim\":%" PRIu64 ",\"settings\":{", v);
	for (int k = 0; d && k < MC_KNOB__COUNT; k++)
		if (d->set_valid[k]) {
			mc_buf_printf(b, "%s\"%s\":", sep, mc_knob_info((enum mc_knob)k)->name);
			mc_fmt_json_size(b, d->set[k]);
			sep = ",";
		}
	mc_buf_printf(b, "}}");
}

static void json_row(struct mc_export *e, const struct top_row *r)
{
	struct mc_buf *b = &e->out;
	const char *sep = "";
	uint64_t v;

	mc_buf_printf(b, "{\"group\":");
	mc_esc_json(b, r->path);
	mc_buf_printf(b, ",\"path\":");
	mc_esc_json(b, r->abs);
	if (export_usage(e, r, &v))
		mc_buf_printf(b, ",\"usage\":%" PRIu64, v);
	if (export_eff_limit(e, r, &v)) {
		mc_buf_printf(b, ",\"effective_limit\":");
		mc_fmt_json_size(b, v);
	}
	mc_buf_printf(b, ",\"limits\":{");
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (export_knob_value(e, r, (enum mc_knob)k, &v)) {
			mc_buf_printf(b, "%s\"%s\":", sep, mc_knob_info((enum mc_knob)k)->name);
			mc_fmt_json_size(b, v);
			sep = ",";
		}
	mc_buf_adds(b, "},");
	json_counters(e, r);
	if (r->g.psi.valid) {
		const struct mc_psi *p = &r->g.psi;

		mc_buf_printf(b, ",\"pressure\":{\"some\":{\"avg10\":%.2f,\"avg60\":%.2f,"
			      "\"avg300\":%.2f,\"total_us\":%" PRIu64 "},\"full\":{\"avg10\":%.2f,"
			      "\"avg60\":%.2f,\"avg300\":%.2f,\"total_us\":%" PRIu64 "}}",
			      p->some_avg10, p->some_avg60, p->some_avg300, p->some_total,
			      p->full_avg10, p->full_avg60, p->full_avg300, p->full_total);
	}
	json_engine(e, r);
	mc_buf_addc(b, '}');
}

void export_render_json(struct mc_export *e)
{
	struct mc_buf *b = &e->out;
	bool first = true;

	mc_buf_printf(b, "{\"parent\":");
	mc_esc_json(b, e->m.parent);
	if (e->pparent) {
		mc_buf_printf(b, ",\"profile_parent\":");
		mc_esc_json(b, e->pparent);
	}
	if (e->intervals)
		mc_buf_printf(b, ",\"run_intervals\":%lu", e->intervals);
	if (e->m.daemons.n) {
		/* the daemons' figures and structured decisions, from their published state */
		mc_buf_adds(b, ",\"runs\":[");
		for (size_t i = 0; i < e->m.daemons.n; i++) {
			if (i)
				mc_buf_addc(b, ',');
			top_json_daemon(b, &e->m.daemons.v[i]);
		}
		mc_buf_addc(b, ']');
	}
	mc_buf_printf(b, ",\"groups\":[");
	for (size_t o = 0; o < e->m.n_order; o++) {
		const struct top_row *r = export_row(e, o);

		if (!r)
			continue;
		if (!first)
			mc_buf_addc(b, ',');
		first = false;
		json_row(e, r);
	}
	mc_buf_printf(b, "]}\n");
}

