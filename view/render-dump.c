/*
 * memctl dump's formats (dump.h). Every name from the host goes through
 * util/escape.h: CSV fields are escaped for text and then quoted, JSON
 * strings through mc_esc_json, OpenMetrics label values through
 * mc_esc_prom_label (a name that is not UTF-8 is left out of OpenMetrics,
 * with a warning, as the exporter does).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "escape.h"
#include "knob.h"
#include "model.h"

/* OpenMetrics families, in the order they are written. */
enum fam {
	F_USAGE, F_LIMIT, F_STAT, F_NUMA, F_EVENTS, F_PSI_TOTAL, F_PSI_RATIO, F_TASKS,
	F_WS, F_H_MEMINFO, F_H_VMSTAT, F_H_PSI_TOTAL, F_H_PSI_RATIO, F_RUN_DURATION,
	F_RUN_RECLAIM, F_RUN_ERRORS, F__COUNT,
};

static const struct {
	const char *name, *type, *help;
} fams[F__COUNT] = {
	[F_USAGE] = { "memctl_usage_bytes", "gauge", "Memory charged to the group and its descendants." },
	[F_LIMIT] = { "memctl_limit_bytes", "gauge",
		      "Memory knob of the group by memctl's name (raw file value; +Inf: no limit)." },
	[F_STAT] = { "memctl_memory_stat", "gauge", "memory.stat by its v2 key, as the kernel gives it." },
	[F_NUMA] = { "memctl_numa_stat", "gauge", "memory.numa_stat by node and v2 key, in bytes." },
	[F_EVENTS] = { "memctl_memory_events", "counter", "memory.events by event." },
	[F_PSI_TOTAL] = { "memctl_pressure_stalled_seconds", "counter",
			  "Time tasks of the group stalled on memory (PSI total)." },
	[F_PSI_RATIO] = { "memctl_pressure_ratio", "gauge",
			  "PSI average share of time stalled on memory over the window (0 to 1)." },
	[F_TASKS] = { "memctl_tasks", "gauge", "Processes in the group itself." },
	[F_WS] = { "memctl_working_set_bytes", "gauge", "The engine's working-set estimate (memctl run)." },
	[F_H_MEMINFO] = { "memctl_host_meminfo", "gauge", "/proc/meminfo (kB lines in bytes)." },
	[F_H_VMSTAT] = { "memctl_host_vmstat", "counter", "Reclaim fields of /proc/vmstat." },
	[F_H_PSI_TOTAL] = { "memctl_host_pressure_stalled_seconds", "counter",
			    "Time tasks of the host stalled on memory (/proc/pressure/memory)." },
	[F_H_PSI_RATIO] = { "memctl_host_pressure_ratio", "gauge",
			    "Host PSI average share of time stalled on memory (0 to 1)." },
	[F_RUN_DURATION] = { "memctl_run_interval_duration_seconds", "gauge",
			     "How long the recorded interval of memctl run took." },
	[F_RUN_RECLAIM] = { "memctl_run_reclaim_bytes", "gauge",
			    "Bytes memctl run's reclaims asked for and obtained in the interval." },
	[F_RUN_ERRORS] = { "memctl_run_errors", "gauge", "Problems memctl run had in the interval." },
};

struct mc_dump {
	enum mc_dump_format f;
	char *glob;
	bool glob_abs;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	struct mc_buf part[F__COUNT];
	bool head[F__COUNT];      /* its TYPE line written */
	double last_t;            /* OpenMetrics: of the last sample dumped */
	size_t n_samples;
	char **warned;
	size_t n_warned, cap_warned;
	struct mc_buf abs, tmp, met;
};

int mc_dump_new(enum mc_dump_format f, const char *glob,
		void (*warn)(void *arg, const char *msg), void *warn_arg, struct mc_dump **ret)
{
	struct mc_dump *d = calloc(1, sizeof(*d));

	if (!d || (glob && !(d->glob = strdup(glob)))) {
		free(d);
		return -ENOMEM;
	}
	d->f = f;
	d->glob_abs = glob && glob[0] == '/';
	d->warn = warn;
	d->warn_arg = warn_arg;
	d->last_t = -1;
	if (f == MC_DUMP_CSV)
		mc_buf_adds(&d->part[0], "time,group,metric,value,text\n");
	else if (f == MC_DUMP_JSON)
		mc_buf_adds(&d->part[0], "[");
	*ret = d;
	return 0;
}

void mc_dump_free(struct mc_dump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < F__COUNT; i++)
		mc_buf_release(&d->part[i]);
	for (size_t i = 0; i < d->n_warned; i++)
		free(d->warned[i]);
	free(d->warned);
	mc_buf_release(&d->abs);
	mc_buf_release(&d->tmp);
	mc_buf_release(&d->met);
	free(d->glob);
	free(d);
}

size_t mc_dump_parts(const struct mc_dump *d)
{
	return d->f == MC_DUMP_OPENMETRICS ? F__COUNT : 1;
}

struct mc_buf *mc_dump_part(struct mc_dump *d, size_t i)
{
	return &d->part[i < mc_dump_parts(d) ? i : 0];
}

/* The absolute path of g below s's parent, in d->abs. */
static const char *abs_path(struct mc_dump *d, const struct mc_hist_sample *s, const char *path)
{
	mc_buf_reset(&d->abs);
	if (!*path)
		mc_buf_adds(&d->abs, s->parent);
	else
		mc_buf_printf(&d->abs, "%s/%s", strcmp(s->parent, "/") == 0 ? "" : s->parent, path);
	return mc_buf_error(&d->abs) < 0 ? "" : mc_buf_str(&d->abs);
}

static bool wanted(const struct mc_dump *d, const char *abs, const char *path)
{
	if (!d->glob)
		return true;
	return fnmatch(d->glob, d->glob_abs ? abs : *path ? path : ".", 0) == 0;
}

static void warn_once(struct mc_dump *d, const char *abs)
{
	char *msg, *name;

	for (size_t i = 0; i < d->n_warned; i++)
		if (strcmp(d->warned[i], abs) == 0)
			return;
	if (mc_array_reserve(&d->warned, &d->cap_warned, d->n_warned + 1, sizeof(*d->warned)) < 0 ||
	    !(d->warned[d->n_warned] = strdup(abs)))
		return;
	d->n_warned++;
	name = mc_esc_text_dup(abs);
	if (d->warn && name && asprintf(&msg, "group '%s' is left out of the OpenMetrics output: "
					"its name is not UTF-8", name) >= 0) {
		d->warn(d->warn_arg, msg);
		free(msg);
	}
	free(name);
}

static void psi_vals(const struct mc_psi *p, double v[8])
{
	v[0] = p->some_avg10;
	v[1] = p->some_avg60;
	v[2] = p->some_avg300;
	v[3] = (double)p->some_total;
	v[4] = p->full_avg10;
	v[5] = p->full_avg60;
	v[6] = p->full_avg300;
	v[7] = (double)p->full_total;
}

/* --- CSV --- */

/* Appends s escaped for text, as one CSV field (quoted when it must be). */
static void csv_field(struct mc_dump *d, struct mc_buf *b, const char *s)
{
	const char *t;

	mc_buf_reset(&d->tmp);
	mc_esc_text(&d->tmp, s);
	t = mc_buf_error(&d->tmp) < 0 || !d->tmp.p ? "" : mc_buf_str(&d->tmp);
	if (!strpbrk(t, ",\"\r\n")) {
		mc_buf_adds(b, t);
		return;
	}
	mc_buf_addc(b, '"');
	for (; *t; t++) {
		if (*t == '"')
			mc_buf_addc(b, '"');
		mc_buf_addc(b, *t);
	}
	mc_buf_addc(b, '"');
}

static void csv_row(struct mc_dump *d, double t, const char *group, const char *metric,
		    const char *key, const char *value, const char *text)
{
	struct mc_buf *b = &d->part[0];

	mc_buf_printf(b, "%.3f,", t);
	csv_field(d, b, group);
	mc_buf_addc(b, ',');
	mc_buf_reset(&d->met);
	mc_buf_adds(&d->met, metric);
	if (key)
		mc_buf_printf(&d->met, ".%s", key);
	csv_field(d, b, mc_buf_error(&d->met) < 0 ? "" : mc_buf_str(&d->met));
	mc_buf_printf(b, ",%s,", value);
	if (text)
		csv_field(d, b, text);
	mc_buf_addc(b, '\n');
}

static void csv_u64(struct mc_dump *d, double t, const char *group, const char *metric,
		    const char *key, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	csv_row(d, t, group, metric, key, num, NULL);
}

static void csv_kvs(struct mc_dump *d, double t, const char *group, const char *metric,
		    const struct mc_kvs *kv)
{
	for (size_t i = 0; i < kv->n; i++)
		csv_u64(d, t, group, metric, kv->v[i].key, kv->v[i].val);
}

static void csv_psi(struct mc_dump *d, double t, const char *group, const struct mc_psi *p)
{
	static const char *const keys[8] = {
		"some_avg10", "some_avg60", "some_avg300", "some_total_us",
		"full_avg10", "full_avg60", "full_avg300", "full_total_us",
	};
	double v[8];
	char num[32];

	if (!p->valid)
		return;
	psi_vals(p, v);
	for (int i = 0; i < 8; i++) {
		snprintf(num, sizeof(num), i % 4 == 3 ? "%.0f" : "%.2f", v[i]);
		csv_row(d, t, group, "pressure", keys[i], num, NULL);
	}
}

/*
 * The parent's effective limit (its ancestors' max files included, capped
 * at RAM) where s recorded it: a limit "effective" of its first group.
 */
static bool effective_limit(const struct mc_hist_sample *s, const struct mc_hist_group *hg,
			    uint64_t *ret)
{
	if (hg != &s->groups[0] || !s->parent_limit_valid)
		return false;
	*ret = s->parent_limit;
	return true;
}

static void csv_group(struct mc_dump *d, const struct mc_hist_sample *s, const struct mc_hist_group *hg,
		      const char *abs)
{
	const struct mc_group_snap *g = &hg->g;
	char num[24], node[32];
	uint64_t lim;

	if (g->usage_valid)
		csv_u64(d, s->time, abs, "usage", NULL, g->usage);
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		if (!g->raw_valid[k])
			continue;
		if (g->raw[k] == UINT64_MAX)
			snprintf(num, sizeof(num), "max");
		else
			snprintf(num, sizeof(num), "%llu", (unsigned long long)g->raw[k]);
		csv_row(d, s->time, abs, "limit", mc_knob_info(k)->name, num, NULL);
	}
	if (effective_limit(s, hg, &lim))
		csv_u64(d, s->time, abs, "limit", "effective", lim);
	csv_kvs(d, s->time, abs, "stat", &g->stat);
	csv_kvs(d, s->time, abs, "events", &g->events);
	for (size_t n = 0; n < g->n_numa; n++) {
		snprintf(node, sizeof(node), "numa.N%zu", n);
		csv_kvs(d, s->time, abs, node, &g->numa[n]);
	}
	csv_psi(d, s->time, abs, &g->psi);
	if (hg->tasks_valid)
		csv_u64(d, s->time, abs, "tasks", NULL, hg->tasks);
}

static void csv_run(struct mc_dump *d, const struct mc_hist_sample *s)
{
	const struct mc_runstate *r = &s->run;
	char num[32];

	csv_u64(d, s->time, "", "run", "interval", r->interval);
	snprintf(num, sizeof(num), "%.6f", r->duration);
	csv_row(d, s->time, "", "run", "duration_seconds", num, NULL);
	for (size_t i = 0; i < r->n_groups; i++)
		if (r->groups[i].ws_valid && wanted(d, r->groups[i].group, r->groups[i].group))
			csv_u64(d, s->time, r->groups[i].group, "run", "working_set", r->groups[i].ws);
	for (size_t i = 0; i < r->n_dec; i++) {
		const struct mc_run_decision *x = &r->dec[i];
		static const char *const kinds[] = { "set", "write", "reclaim" };
		char *text;

		if (!wanted(d, x->group, x->group))
			continue;
		text = top_decision_text(x);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x->value);
		csv_row(d, s->time, x->group, "decision", kinds[x->kind], num, text ? text : x->reason);
		free(text);
	}
	for (size_t i = 0; i < r->n_notes; i++)
		csv_row(d, s->time, "", "run", "note", "", r->notes[i]);
	for (size_t i = 0; i < r->n_errors; i++)
		csv_row(d, s->time, "", "run", "error", "", r->errors[i]);
}

static void csv_sample(struct mc_dump *d, const struct mc_hist_sample *s)
{
	csv_kvs(d, s->time, "", "meminfo", &s->host.meminfo);
	csv_kvs(d, s->time, "", "vmstat", &s->host.vmstat);
	csv_psi(d, s->time, "", &s->host.psi);
	for (size_t i = 0; i < s->n_groups; i++) {
		const char *abs = abs_path(d, s, s->groups[i].g.path);
		char *a;

		if (!wanted(d, abs, s->groups[i].g.path) || !(a = strdup(abs)))
			continue;
		csv_group(d, s, &s->groups[i], a);
		free(a);
	}
	if (s->have_run)
		csv_run(d, s);
}

/* --- JSON --- */

/* kv as a JSON object; after a comma and its name unless name is NULL. */
static void json_kvs(struct mc_buf *b, const char *name, const struct mc_kvs *kv)
{
	if (name)
		mc_buf_printf(b, ",\"%s\"", name);
	mc_buf_adds(b, name ? ":{" : "{");
	for (size_t i = 0; i < kv->n; i++) {
		if (i)
			mc_buf_addc(b, ',');
		mc_esc_json(b, kv->v[i].key);
		mc_buf_printf(b, ":%llu", (unsigned long long)kv->v[i].val);
	}
	mc_buf_addc(b, '}');
}

static void json_psi(struct mc_buf *b, const struct mc_psi *p)
{
	double v[8];

	mc_buf_adds(b, ",\"pressure\":");
	if (!p->valid) {
		mc_buf_adds(b, "null");
		return;
	}
	psi_vals(p, v);
	mc_buf_printf(b, "{\"some\":{\"avg10\":%.2f,\"avg60\":%.2f,\"avg300\":%.2f,\"total\":%.0f},"
		      "\"full\":{\"avg10\":%.2f,\"avg60\":%.2f,\"avg300\":%.2f,\"total\":%.0f}}",
		      v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

static void json_group(struct mc_buf *b, const struct mc_hist_sample *s, const struct mc_hist_group *hg,
		       const char *abs)
{
	const struct mc_group_snap *g = &hg->g;
	bool first = true;
	uint64_t lim;

	mc_buf_adds(b, "{\"group\":");
	mc_esc_json(b, abs);
	mc_buf_adds(b, ",\"path\":");
	mc_esc_json(b, g->path);
	if (g->usage_valid)
		mc_buf_printf(b, ",\"usage\":%llu", (unsigned long long)g->usage);
	else
		mc_buf_adds(b, ",\"usage\":null");
	mc_buf_adds(b, ",\"limits\":{");
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		if (!g->raw_valid[k])
			continue;
		mc_buf_printf(b, "%s\"%s\":", first ? "" : ",", mc_knob_info(k)->name);
		if (g->raw[k] == UINT64_MAX)
			mc_buf_adds(b, "\"max\"");
		else
			mc_buf_printf(b, "%llu", (unsigned long long)g->raw[k]);
		first = false;
	}
	if (effective_limit(s, hg, &lim))
		mc_buf_printf(b, "%s\"effective\":%llu", first ? "" : ",", (unsigned long long)lim);
	mc_buf_addc(b, '}');
	json_kvs(b, "stat", &g->stat);
	json_kvs(b, "events", &g->events);
	mc_buf_adds(b, ",\"numa\":[");
	for (size_t n = 0; n < g->n_numa; n++) {
		mc_buf_adds(b, n ? "," : "");
		json_kvs(b, NULL, &g->numa[n]);
	}
	mc_buf_addc(b, ']');
	json_psi(b, &g->psi);
	if (hg->tasks_valid)
		mc_buf_printf(b, ",\"tasks\":%llu}", (unsigned long long)hg->tasks);
	else
		mc_buf_adds(b, ",\"tasks\":null}");
}

static void json_sample(struct mc_dump *d, const struct mc_hist_sample *s)
{
	struct mc_buf *b = &d->part[0];
	bool first = true;

	mc_buf_printf(b, "%s\n{\"time\":%.3f,\"parent\":", d->n_samples ? "," : "", s->time);
	mc_esc_json(b, s->parent);
	mc_buf_printf(b, ",\"cgroup_version\":%d,\"host\":{\"meminfo\":", s->cgroup_version);
	json_kvs(b, NULL, &s->host.meminfo);
	json_kvs(b, "vmstat", &s->host.vmstat);
	json_psi(b, &s->host.psi);
	mc_buf_adds(b, "},\"groups\":[");
	for (size_t i = 0; i < s->n_groups; i++) {
		const char *abs = abs_path(d, s, s->groups[i].g.path);

		if (!wanted(d, abs, s->groups[i].g.path))
			continue;
		mc_buf_adds(b, first ? "" : ",");
		first = false;
		json_group(b, s, &s->groups[i], abs);
	}
	mc_buf_adds(b, "],\"run\":");
	if (s->have_run)
		top_json_daemon(b, &s->run);
	else
		mc_buf_adds(b, "null");
	mc_buf_addc(b, '}');
}

/* --- OpenMetrics --- */

static struct mc_buf *om_family(struct mc_dump *d, enum fam f)
{
	struct mc_buf *b = &d->part[f];

	if (!d->head[f])
		mc_buf_printf(b, "# TYPE %s %s\n# HELP %s %s\n", fams[f].name, fams[f].type,
			      fams[f].name, fams[f].help);
	d->head[f] = true;
	return b;
}

/*
 * One sample line: family f, the group label (NULL: none), labels "k=\"v\""
 * already escaped (or ""), the value text, the time.
 */
static void om_line(struct mc_dump *d, enum fam f, const char *group, const char *labels,
		    const char *value, double t)
{
	struct mc_buf *b = om_family(d, f);
	bool counter = fams[f].type[0] == 'c';

	mc_buf_printf(b, "%s%s{", fams[f].name, counter ? "_total" : "");
	if (group) {
		mc_buf_adds(b, "group=\"");
		mc_esc_prom_label(b, group);
		mc_buf_printf(b, "\"%s", *labels ? "," : "");
	}
	mc_buf_printf(b, "%s} %s %.3f\n", labels, value, t);
}

static void om_u64(struct mc_dump *d, enum fam f, const char *group, const char *labels,
		   uint64_t v, double t)
{
	char num[32];

	if (v == UINT64_MAX)
		snprintf(num, sizeof(num), "+Inf");
	else
		snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	om_line(d, f, group, labels, num, t);
}

/* labels for one key: name="KEY" (the key escaped), in d->tmp. */
static const char *om_key(struct mc_dump *d, const char *prefix, const char *name, const char *key)
{
	mc_buf_reset(&d->tmp);
	mc_buf_printf(&d->tmp, "%s%s=\"", prefix, name);
	mc_esc_prom_label(&d->tmp, key);
	mc_buf_addc(&d->tmp, '"');
	return mc_buf_error(&d->tmp) < 0 ? "" : mc_buf_str(&d->tmp);
}

static void om_kvs(struct mc_dump *d, enum fam f, const char *group, const char *prefix,
		   const char *name, const struct mc_kvs *kv, double t)
{
	for (size_t i = 0; i < kv->n; i++) {
		char *l;

		if (!mc_utf8_valid(kv->v[i].key) || !(l = strdup(om_key(d, prefix, name, kv->v[i].key))))
			continue;
		om_u64(d, f, group, l, kv->v[i].val, t);
		free(l);
	}
}

static void om_psi(struct mc_dump *d, enum fam total, enum fam ratio, const char *group,
		   const struct mc_psi *p, double t)
{
	static const char *const win[3] = { "10s", "60s", "300s" };
	char num[32], labels[48];
	double v[8];

	if (!p->valid)
		return;
	psi_vals(p, v);
	for (int i = 0; i < 8; i++) {
		const char *kind = i < 4 ? "some" : "full";

		if (i % 4 == 3) {
			snprintf(num, sizeof(num), "%.6f", v[i] / 1e6);
			snprintf(labels, sizeof(labels), "kind=\"%s\"", kind);
			om_line(d, total, group, labels, num, t);
		} else {
			snprintf(num, sizeof(num), "%.4f", v[i] / 100);
			snprintf(labels, sizeof(labels), "kind=\"%s\",window=\"%s\"", kind, win[i % 4]);
			om_line(d, ratio, group, labels, num, t);
		}
	}
}

static void om_group(struct mc_dump *d, const struct mc_hist_sample *s, const struct mc_hist_group *hg,
		     const char *abs, double t)
{
	const struct mc_group_snap *g = &hg->g;
	char labels[48];
	uint64_t lim;

	if (g->usage_valid)
		om_u64(d, F_USAGE, abs, "", g->usage, t);
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		if (!g->raw_valid[k])
			continue;
		snprintf(labels, sizeof(labels), "knob=\"%s\"", mc_knob_info(k)->name);
		om_u64(d, F_LIMIT, abs, labels, g->raw[k], t);
	}
	if (effective_limit(s, hg, &lim))
		om_u64(d, F_LIMIT, abs, "knob=\"effective\"", lim, t);
	om_kvs(d, F_STAT, abs, "", "key", &g->stat, t);
	for (size_t n = 0; n < g->n_numa; n++) {
		snprintf(labels, sizeof(labels), "node=\"%zu\",", n);
		om_kvs(d, F_NUMA, abs, labels, "key", &g->numa[n], t);
	}
	om_kvs(d, F_EVENTS, abs, "", "event", &g->events, t);
	om_psi(d, F_PSI_TOTAL, F_PSI_RATIO, abs, &g->psi, t);
	if (hg->tasks_valid)
		om_u64(d, F_TASKS, abs, "", hg->tasks, t);
}

static void om_run(struct mc_dump *d, const struct mc_hist_sample *s)
{
	const struct mc_runstate *r = &s->run;
	uint64_t asked = 0, got = 0;
	char num[32];

	for (size_t i = 0; i < r->n_groups; i++)
		if (r->groups[i].ws_valid && mc_utf8_valid(r->groups[i].group) &&
		    wanted(d, r->groups[i].group, r->groups[i].group))
			om_u64(d, F_WS, r->groups[i].group, "", r->groups[i].ws, s->time);
	for (size_t i = 0; i < r->n_dec; i++)
		if (r->dec[i].kind == MC_RUN_RECLAIM) {
			asked += r->dec[i].value;
			got += r->dec[i].got;
		}
	snprintf(num, sizeof(num), "%.6f", r->duration);
	om_line(d, F_RUN_DURATION, NULL, "", num, s->time);
	om_u64(d, F_RUN_RECLAIM, NULL, "what=\"asked\"", asked, s->time);
	om_u64(d, F_RUN_RECLAIM, NULL, "what=\"got\"", got, s->time);
	om_u64(d, F_RUN_ERRORS, NULL, "", r->n_errors, s->time);
}

static void om_sample(struct mc_dump *d, const struct mc_hist_sample *s)
{
	om_kvs(d, F_H_MEMINFO, NULL, "", "key", &s->host.meminfo, s->time);
	om_kvs(d, F_H_VMSTAT, NULL, "", "field", &s->host.vmstat, s->time);
	om_psi(d, F_H_PSI_TOTAL, F_H_PSI_RATIO, NULL, &s->host.psi, s->time);
	for (size_t i = 0; i < s->n_groups; i++) {
		const char *abs = abs_path(d, s, s->groups[i].g.path);
		char *a;

		if (!wanted(d, abs, s->groups[i].g.path))
			continue;
		if (!mc_utf8_valid(abs)) {
			warn_once(d, abs);
			continue;
		}
		if (!(a = strdup(abs)))
			continue;
		om_group(d, s, &s->groups[i], a, s->time);
		free(a);
	}
	if (s->have_run)
		om_run(d, s);
}

void mc_dump_sample(struct mc_dump *d, const struct mc_hist_sample *s)
{
	switch (d->f) {
	case MC_DUMP_CSV:
		csv_sample(d, s);
		break;
	case MC_DUMP_JSON:
		json_sample(d, s);
		break;
	case MC_DUMP_OPENMETRICS:
		if (s->time <= d->last_t)
			return;
		d->last_t = s->time;
		om_sample(d, s);
		break;
	}
	d->n_samples++;
}

void mc_dump_end(struct mc_dump *d)
{
	if (d->f == MC_DUMP_JSON)
		mc_buf_adds(&d->part[0], d->n_samples ? "\n]\n" : "]\n");
	else if (d->f == MC_DUMP_OPENMETRICS)
		mc_buf_adds(&d->part[F__COUNT - 1], "# EOF\n");
}
