/*
 * Metrics export: top's model (the groups of `memctl top -b`, read through
 * kept-open descriptors) rendered for monitoring systems.
 *
 * Prometheus text exposition (what node_exporter's textfile collector
 * reads): every family is one HELP line, one TYPE line and then all its
 * samples, one per group and label set, so the renderer walks family by
 * family and, inside a family, group by group. Names carry their unit
 * (_bytes, _seconds, _ratio) and counters end in _total. Label values
 * escape backslash, double quote and newline; they must be UTF-8, so a
 * group whose name is not is left out of both formats with a warning
 * rather than mangled. "No limit" is +Inf (JSON: "max", as elsewhere in
 * memctl). A value the host does not have is left out, not made up.
 *
 * The label `group` is the absolute cgroup path: unique on the host, and
 * the same whatever parent the exporter was pointed at.
 *
 * memctl run rewrites the file every interval and must not take new pages
 * after its first intervals: the model, the output buffer, the decision
 * table and the temporary file name are kept and reused, and the file is
 * written with write(2), not through stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "export.h"
#include "file.h"
#include "top.h"

/* What export reads of every group (per-node counts are not exported). */
#define EXPORT_PARTS (MC_READ_USAGE | MC_READ_KNOBS | MC_READ_STAT | \
		      MC_READ_EVENTS | MC_READ_PSI)

struct out_buf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

/* One group's decisions in the last interval, by absolute path. */
struct export_dec {
	char *abs;
	uint64_t set[MC_KNOB__COUNT];
	bool set_valid[MC_KNOB__COUNT];
	uint64_t reclaim;
};

struct mc_export {
	struct mc_host *h;
	struct top_model m;
	bool have_model;
	const struct mc_policy *pol;
	char *pparent;              /* the profile's parent, absolute; NULL: no engine */
	struct export_dec *dec;
	size_t n_dec;
	size_t cap_dec;
	unsigned long intervals;
	void (*warn)(const char *msg);  /* NULL: mc_err */
	bool *skip;                 /* per row: left out (gone, or a name that is not UTF-8) */
	size_t cap_skip;
	struct out_buf out;
};

/* --- the output buffer --- */

static void out_grow(struct out_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	while (cap < need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void out_printf(struct out_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!b->p || b->len + (size_t)n + 1 > b->cap) {
		out_grow(b, b->len + (size_t)n + 1);
		if (b->oom)
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

static void out_char(struct out_buf *b, char c)
{
	if (b->oom)
		return;
	if (b->len + 2 > b->cap)
		out_grow(b, b->len + 2);
	if (b->oom)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void out_label(struct out_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			out_char(b, '\\');
			out_char(b, *s);
		} else if (*s == '\n') {
			out_char(b, '\\');
			out_char(b, 'n');
		} else {
			out_char(b, *s);
		}
	}
}

/* A JSON string literal (s is valid UTF-8: checked before). */
static void out_json_str(struct out_buf *b, const char *s)
{
	out_char(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out_char(b, '\\');
			out_char(b, (char)c);
		} else if (c < 0x20) {
			out_printf(b, "\\u%04x", c);
		} else {
			out_char(b, (char)c);
		}
	}
	out_char(b, '"');
}

/* True when s is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned cp;
		int n;

		if (*p < 0x80) {
			p++;
			continue;
		} else if ((*p & 0xe0) == 0xc0) {
			cp = *p & 0x1f;
			n = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			cp = *p & 0x0f;
			n = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			cp = *p & 0x07;
			n = 3;
		} else {
			return false;
		}
		p++;
		for (int i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (*p & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
	}
	return true;
}

/* --- what is exported, described once --- */

/*
 * memory.stat fields, by their v2 names: the host layer gives v2 names on
 * every host (v1's hierarchical total_* fields renamed; they count the
 * whole subtree, as v2's do).
 */
struct export_stat {
	const char *name;     /* metric name */
	const char *key;      /* JSON key and memory.stat key */
	bool counter;
	const char *help;
};

static const struct export_stat export_stats[] = {
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

/* memory.events keys (v1: failcnt as "max", oom_control's oom_kill). */
static const char *const export_events[] = {
	"low", "high", "max", "oom", "oom_kill", "oom_group_kill",
};

/* Value of stat field s in g, or false. */
static bool stat_value(const struct mc_export *e, const struct export_stat *s,
		       const struct mc_group_snap *g, uint64_t *ret)
{
	return mc_kvs_get(&g->stat, s->key, ret) == 0;
}

/* Abstract value of knob k (v1 swap: memsw minus max), or false. */
static bool knob_value(const struct mc_export *e, const struct mc_group_snap *g, enum mc_knob k,
		       uint64_t *ret)
{
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

static int dec_cmp(const void *a, const void *b)
{
	return strcmp(((const struct export_dec *)a)->abs, ((const struct export_dec *)b)->abs);
}

static const struct export_dec *dec_find(const struct mc_export *e, const char *abs)
{
	struct export_dec key = { .abs = (char *)abs };

	return e->n_dec ? bsearch(&key, e->dec, e->n_dec, sizeof(*e->dec), dec_cmp) : NULL;
}

/* --- lifecycle --- */

int mc_export_new(struct mc_host *h, const char *parent, struct mc_export **ret)
{
	struct mc_export *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	e->h = h;
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
	free(e->skip);
	free(e->out.p);
	free(e);
}

int mc_export_set_parent(struct mc_export *e, const char *parent)
{
	struct top_model m;
	int r;

	if (e->have_model && strcmp(e->m.parent, parent) == 0)
		return 0;
	r = top_model_init(&m, e->h, parent);
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
	if (e->n_dec == e->cap_dec) {
		size_t cap = e->cap_dec ? e->cap_dec * 2 : 16;
		struct export_dec *v = realloc(e->dec, cap * sizeof(*v));

		if (!v) {
			free(abs);
			return NULL;
		}
		e->dec = v;
		e->cap_dec = cap;
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

void mc_export_set_warn(struct mc_export *e, void (*warn)(const char *msg))
{
	e->warn = warn;
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
		r = top_model_fill(&e->m, 0, e->m.n_order, (size_t)-1, EXPORT_PARTS);
	return r;
}

/* --- rendering --- */

/* Marks the rows left out; warns once per render about names that cannot be labels. */
static int mark_skipped(struct mc_export *e)
{
	if (e->m.n > e->cap_skip) {
		bool *s = realloc(e->skip, e->m.n * sizeof(*s));

		if (!s)
			return -ENOMEM;
		e->skip = s;
		e->cap_skip = e->m.n;
	}
	for (size_t o = 0; o < e->m.n_order; o++) {
		const struct top_row *r = &e->m.rows[e->m.order[o]];
		bool bad = !utf8_valid(r->abs);

		e->skip[o] = r->gone || !r->g.present || bad;
		if (bad && !r->gone) {
			char *msg;

			if (asprintf(&msg, "export: leaving out group '%s': its name is not UTF-8, "
				     "which metric labels must be", r->abs) < 0)
				return -ENOMEM;
			if (e->warn)
				e->warn(msg);
			else
				mc_err("%s", msg);
			free(msg);
		}
	}
	return 0;
}

/* The rows exported, in tree order. */
#define FOR_ROWS(e, o, r) \
	for (size_t o = 0; o < (e)->m.n_order; o++) \
		for (const struct top_row *r = &(e)->m.rows[(e)->m.order[o]]; r && !(e)->skip[o]; r = NULL)

static void prom_head(struct out_buf *b, const char *name, const char *type, const char *help)
{
	out_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{group="...",extra} value */
static void prom_sample(struct out_buf *b, const char *name, const char *abs, const char *extra,
			const char *value)
{
	out_printf(b, "%s{group=\"", name);
	out_label(b, abs);
	out_printf(b, "\"%s%s} %s\n", extra ? "," : "", extra ? extra : "", value);
}

static const char *prom_bytes(uint64_t v, char buf[static 24])
{
	if (v == MC_SIZE_MAX)
		return "+Inf";
	snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}

/* One family of a per-group value: head only when some group has one. */
static void prom_family(struct mc_export *e, const char *name, const char *type, const char *help,
			bool (*get)(const struct mc_export *e, const struct top_row *r, uint64_t *ret))
{
	bool head = false;
	uint64_t v;
	char buf[24];

	FOR_ROWS(e, o, r) {
		if (!get(e, r, &v))
			continue;
		if (!head)
			prom_head(&e->out, name, type, help);
		head = true;
		prom_sample(&e->out, name, r->abs, NULL, prom_bytes(v, buf));
	}
}

static bool get_usage(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	*ret = r->g.usage;
	return r->g.usage_valid;
}

static bool get_eff_limit(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	*ret = r->eff_limit;
	return r->g.raw_valid[MC_KNOB_MAX];
}

static bool get_ws(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	const char *rel = profile_rel(e, r->abs);

	return e->pol && rel && *rel && mc_policy_working_set(e->pol, rel, ret) == 0;
}

static bool get_reclaim(const struct mc_export *e, const struct top_row *r, uint64_t *ret)
{
	const struct export_dec *d;

	if (!e->pparent || !profile_rel(e, r->abs))
		return false;
	d = dec_find(e, r->abs);
	*ret = d ? d->reclaim : 0;
	return true;
}

static void prom_render(struct mc_export *e)
{
	struct out_buf *b = &e->out;
	size_t n_groups = 0;
	bool head;
	char buf[24], extra[64];

	FOR_ROWS(e, o, r)
		n_groups++;
	prom_head(b, "memctl_export_groups", "gauge", "Groups exported (the parent and below).");
	out_printf(b, "memctl_export_groups %zu\n", n_groups);
	if (e->intervals) {
		prom_head(b, "memctl_run_intervals_total", "counter",
			  "Intervals memctl run has completed or tried.");
		out_printf(b, "memctl_run_intervals_total %lu\n", e->intervals);
	}
	prom_family(e, "memctl_usage_bytes", "gauge",
		    "Memory charged to the group and its descendants.", get_usage);
	head = false;
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		FOR_ROWS(e, o, r) {
			uint64_t v;

			if (!knob_value(e, &r->g, (enum mc_knob)k, &v))
				continue;
			if (!head)
				prom_head(b, "memctl_limit_bytes", "gauge",
					  "Memory knob of the group by memctl's name (max, high, low, "
					  "min, soft_limit, swap_max); +Inf: no limit.");
			head = true;
			snprintf(extra, sizeof(extra), "knob=\"%s\"", mc_knob_info((enum mc_knob)k)->name);
			prom_sample(b, "memctl_limit_bytes", r->abs, extra, prom_bytes(v, buf));
		}
	prom_family(e, "memctl_effective_limit_bytes", "gauge",
		    "Smallest max of the group and its ancestors, at most the RAM size.",
		    get_eff_limit);
	for (size_t s = 0; s < sizeof(export_stats) / sizeof(export_stats[0]); s++) {
		const struct export_stat *st = &export_stats[s];

		head = false;
		FOR_ROWS(e, o, r) {
			uint64_t v;

			if (!stat_value(e, st, &r->g, &v))
				continue;
			if (!head)
				prom_head(b, st->name, st->counter ? "counter" : "gauge", st->help);
			head = true;
			prom_sample(b, st->name, r->abs, NULL, prom_bytes(v, buf));
		}
	}
	head = false;
	for (size_t k = 0; k < sizeof(export_events) / sizeof(export_events[0]); k++)
		FOR_ROWS(e, o, r) {
			uint64_t v;

			if (mc_kvs_get(&r->g.events, export_events[k], &v) < 0)
				continue;
			if (!head)
				prom_head(b, "memctl_memory_events_total", "counter",
					  "memory.events by event (v1: max counts failcnt, oom_kill "
					  "from memory.oom_control).");
			head = true;
			snprintf(extra, sizeof(extra), "event=\"%s\"", export_events[k]);
			prom_sample(b, "memctl_memory_events_total", r->abs, extra, prom_bytes(v, buf));
		}
	head = false;
	for (int kind = 0; kind < 2; kind++)
		FOR_ROWS(e, o, r) {
			const struct mc_psi *p = &r->g.psi;
			char val[32];

			if (!p->valid)
				continue;
			if (!head)
				prom_head(b, "memctl_pressure_stalled_seconds_total", "counter",
					  "Time tasks of the group stalled on memory (PSI total; "
					  "some: at least one task, full: all).");
			head = true;
			snprintf(val, sizeof(val), "%.6f",
				 (double)(kind ? p->full_total : p->some_total) / 1e6);
			prom_sample(b, "memctl_pressure_stalled_seconds_total", r->abs,
				    kind ? "kind=\"full\"" : "kind=\"some\"", val);
		}
	head = false;
	for (int kind = 0; kind < 2; kind++)
		for (int w = 0; w < 3; w++)
			FOR_ROWS(e, o, r) {
				static const char *const wins[] = { "10s", "60s", "300s" };
				const struct mc_psi *p = &r->g.psi;
				double some[] = { p->some_avg10, p->some_avg60, p->some_avg300 };
				double full[] = { p->full_avg10, p->full_avg60, p->full_avg300 };
				char val[32];

				if (!p->valid)
					continue;
				if (!head)
					prom_head(b, "memctl_pressure_ratio", "gauge",
						  "PSI average share of time stalled on memory over "
						  "the window (0 to 1).");
				head = true;
				snprintf(extra, sizeof(extra), "kind=\"%s\",window=\"%s\"",
					 kind ? "full" : "some", wins[w]);
				snprintf(val, sizeof(val), "%.4f", (kind ? full[w] : some[w]) / 100.0);
				prom_sample(b, "memctl_pressure_ratio", r->abs, extra, val);
			}
	if (!e->pparent)
		return;
	prom_family(e, "memctl_working_set_bytes", "gauge",
		    "The engine's working-set estimate (groups with protect: active).", get_ws);
	head = false;
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		FOR_ROWS(e, o, r) {
			const struct export_dec *d = dec_find(e, r->abs);

			if (!d || !d->set_valid[k])
				continue;
			if (!head)
				prom_head(b, "memctl_policy_setting_bytes", "gauge",
					  "Knob value the policies decided in the last interval; "
					  "+Inf: no limit.");
			head = true;
			snprintf(extra, sizeof(extra), "knob=\"%s\"", mc_knob_info((enum mc_knob)k)->name);
			prom_sample(b, "memctl_policy_setting_bytes", r->abs, extra,
				    prom_bytes(d->set[k], buf));
		}
	prom_family(e, "memctl_policy_reclaim_bytes", "gauge",
		    "Reclaim the policies decided for the group in the last interval.", get_reclaim);
}

static void json_size(struct out_buf *b, uint64_t v)
{
	if (v == MC_SIZE_MAX)
		out_printf(b, "\"max\"");
	else
		out_printf(b, "%" PRIu64, v);
}

static void json_row(struct mc_export *e, const struct top_row *r)
{
	struct out_buf *b = &e->out;
	const struct export_dec *d = dec_find(e, r->abs);
	const char *sep = "";
	uint64_t v;

	out_printf(b, "{\"group\":");
	out_json_str(b, r->path);
	out_printf(b, ",\"path\":");
	out_json_str(b, r->abs);
	if (get_usage(e, r, &v))
		out_printf(b, ",\"usage\":%" PRIu64, v);
	if (get_eff_limit(e, r, &v)) {
		out_printf(b, ",\"effective_limit\":");
		json_size(b, v);
	}
	out_printf(b, ",\"limits\":{");
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (knob_value(e, &r->g, (enum mc_knob)k, &v)) {
			out_printf(b, "%s\"%s\":", sep, mc_knob_info((enum mc_knob)k)->name);
			json_size(b, v);
			sep = ",";
		}
	out_printf(b, "},\"stat\":{");
	sep = "";
	for (size_t s = 0; s < sizeof(export_stats) / sizeof(export_stats[0]); s++)
		if (stat_value(e, &export_stats[s], &r->g, &v)) {
			out_printf(b, "%s\"%s\":%" PRIu64, sep, export_stats[s].key, v);
			sep = ",";
		}
	out_printf(b, "},\"events\":{");
	sep = "";
	for (size_t k = 0; k < sizeof(export_events) / sizeof(export_events[0]); k++)
		if (mc_kvs_get(&r->g.events, export_events[k], &v) == 0) {
			out_printf(b, "%s\"%s\":%" PRIu64, sep, export_events[k], v);
			sep = ",";
		}
	out_char(b, '}');
	if (r->g.psi.valid) {
		const struct mc_psi *p = &r->g.psi;

		out_printf(b, ",\"pressure\":{\"some\":{\"avg10\":%.2f,\"avg60\":%.2f,"
			      "\"avg300\":%.2f,\"total_us\":%" PRIu64 "},\"full\":{\"avg10\":%.2f,"
			      "\"avg60\":%.2f,\"avg300\":%.2f,\"total_us\":%" PRIu64 "}}",
			   p->some_avg10, p->some_avg60, p->some_avg300, p->some_total,
			   p->full_avg10, p->full_avg60, p->full_avg300, p->full_total);
	}
	if (get_ws(e, r, &v))
		out_printf(b, ",\"working_set\":%" PRIu64, v);
	if (get_reclaim(e, r, &v)) {
		out_printf(b, ",\"policy\":{\"reclaim\":%" PRIu64 ",\"settings\":{", v);
		sep = "";
		for (int k = 0; d && k < MC_KNOB__COUNT; k++)
			if (d->set_valid[k]) {
				out_printf(b, "%s\"%s\":", sep, mc_knob_info((enum mc_knob)k)->name);
				json_size(b, d->set[k]);
				sep = ",";
			}
		out_printf(b, "}}");
	}
	out_char(b, '}');
}

static void json_render(struct mc_export *e)
{
	struct out_buf *b = &e->out;
	bool first = true;

	out_printf(b, "{\"parent\":");
	out_json_str(b, e->m.parent);
	if (e->pparent) {
		out_printf(b, ",\"profile_parent\":");
		out_json_str(b, e->pparent);
	}
	if (e->intervals)
		out_printf(b, ",\"run_intervals\":%lu", e->intervals);
	out_printf(b, ",\"groups\":[");
	FOR_ROWS(e, o, r) {
		if (!first)
			out_char(b, ',');
		first = false;
		json_row(e, r);
	}
	out_printf(b, "]}\n");
}

int mc_export_render(struct mc_export *e, enum mc_export_format f, const char **ret,
		     size_t *ret_len)
{
	int r = mark_skipped(e);

	if (r < 0)
		return r;
	e->out.len = 0;
	e->out.oom = false;
	if (f == MC_EXPORT_JSON)
		json_render(e);
	else
		prom_render(e);
	if (e->out.oom)
		return -ENOMEM;
	*ret = e->out.p ? e->out.p : "";
	*ret_len = e->out.len;
	return 0;
}

/* --- the atomic file --- */

int mc_export_write_file(struct mc_export *e, const char *path, const char *buf, size_t len)
{
	(void)e;
	/*
	 * node_exporter runs as its own user: the file must be readable by
	 * others. The temporary name (".NAME.XXXXXX") does not end in .prom, so
	 * its textfile collector never reads a file being written.
	 */
	return mc_file_replace(path, buf, len, 0644);
}
