/*
 * Which columns the screen shows: by default those this host can fill (a
 * column that is `-` on every row only pushes the useful ones off an 80
 * column terminal), the operator's saved choice from the column chooser
 * (top.conf), or a preset. Batch mode and --columns are not affected:
 * scripts get the columns they ask for.
 *
 * top.conf is the operator's own file but still input: it is read whole
 * with a size bound, every name is checked against the column table, and a
 * bad file is reported and ignored rather than half used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file.h"
#include "systemd.h"
#include "top.h"

#define TOP_CONF_MAX (64 << 10)

static int knob_of(const char *name)
{
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (strcmp(mc_knob_info((enum mc_knob)k)->name, name) == 0)
			return k;
	return -1;
}

/* Whether a row of m lies in a systemd unit's cgroup. */
static bool any_unit(const struct top_model *m)
{
	const char *u;
	size_t ul;

	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].abs && mc_sd_unit_of(m->rows[i].abs, &u, &ul))
			return true;
	return false;
}

const char *top_col_unavailable(const struct top_model *m, int c)
{
	const struct top_source *st = m->src;
	const char *n = top_cols[c].name;
	bool v1 = m->caps->ver == MC_CGV1;
	int k = knob_of(n);

	if (k >= 0 && !m->caps->file[k])
		return v1 ? "cgroup v1 has no such file" : "no such file on this host";
	if ((strcmp(n, "psi_some") == 0 || strcmp(n, "psi_full") == 0) && !st->psi)
		return v1 ? "cgroup v1 has no per-group memory.pressure (host pressure is in line 2)"
			  : "no memory.pressure (kernel without PSI)";
	if (strcmp(n, "thp_fallback") == 0 && !st->patched)
		return "counted by memctl's kernel patch only (thp_*_fallback_charge)";
	if ((strcmp(n, "oom") == 0 || strcmp(n, "high_events") == 0) && v1)
		return "cgroup v1 has no memory.events";
	if (strcmp(n, "numa") == 0 && !st->numa_stat)
		return "no memory.numa_stat";
	if (strcmp(n, "unit") == 0 && !any_unit(m))
		return "no group here lies in a systemd unit's cgroup";
	if ((strcmp(n, "wset") == 0 || strcmp(n, "decision") == 0) && !m->policy.pol &&
	    m->daemons.n == 0)
		return "no memctl run manages these groups and no --profile was given";
	return NULL;
}

static const struct {
	const char *name;
	const char *cols;
} presets[] = {
	{ "memory", "usage,pct,min,low,high,max,soft_limit,anon,file,thp,tasks" },
	{ "reclaim", "usage,pct,max,wset,active,inactive,refault_rate,max_rate,decision" },
	{ "pressure", "usage,pct,psi_some,psi_full,refault_rate,max_rate,oom_kill_rate,decision" },
	{ "NUMA", "usage,numa,anon,file,active,inactive" },
	{ "events", "usage,oom,oom_kill,oom_kill_rate,high_events,max_events,max_rate,tasks" },
};
#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

const char *top_preset_name(int preset)
{
	return preset >= 1 && (size_t)preset <= N_PRESETS ? presets[preset - 1].name : NULL;
}

int top_preset(const struct top_model *m, int preset, int **ret, size_t *ret_n)
{
	const char *bad = NULL;
	int *v = NULL;
	size_t n = 0, k = 1;

	if (!top_preset_name(preset))
		return -EINVAL;
	if (top_cols_parse(presets[preset - 1].cols, &v, &n, &bad) < 0)
		return -ENOMEM;   /* the table's names are known: only memory can fail */
	for (size_t i = 1; i < n; i++)
		if (!top_col_unavailable(m, v[i]))
			v[k++] = v[i];
	*ret = v;
	*ret_n = k;
	return 0;
}

char *top_conf_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	char *p = NULL;

	if (x && x[0] == '/') {
		if (asprintf(&p, "%s/memctl/top.conf", x) < 0)
			p = NULL;
	} else if (h && h[0] == '/') {
		if (asprintf(&p, "%s/.config/memctl/top.conf", h) < 0)
			p = NULL;
	}
	return p;
}

/* One "columns=" value into column indexes. */
static int parse_columns(const char *val, unsigned line, int **ret, size_t *ret_n, char **ret_msg)
{
	const char *bad = NULL;
	int r;

	if (!*val) {
		if (asprintf(ret_msg, "top.conf:%u: no column", line) < 0)
			*ret_msg = NULL;
		return -EINVAL;
	}
	r = top_cols_parse(val, ret, ret_n, &bad);
	if (r == -EINVAL && asprintf(ret_msg, "top.conf:%u: unknown column '%.*s'", line,
				     (int)strcspn(bad, ","), bad) < 0)
		*ret_msg = NULL;
	return r;
}

int top_conf_load(const char *path, int **ret, size_t *ret_n, char **ret_msg)
{
	struct mc_read_opts o = { .max = TOP_CONF_MAX };
	char *text = NULL, *line, *why = NULL;
	int *cols = NULL;
	size_t len = 0, n = 0;
	unsigned ln = 0;
	int r;

	*ret_msg = NULL;
	r = mc_file_read(path, &o, &text, &len, &why);
	free(why);
	if (r < 0)
		return r;
	if (strlen(text) != len) {
		free(text);
		return asprintf(ret_msg, "top.conf: a NUL byte") < 0 ? -ENOMEM : -EINVAL;
	}
	r = 0;
	for (char *p = text; r == 0 && p; p = line) {
		char *nl = strchr(p, '\n');

		line = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		ln++;
		p += strspn(p, " \t");
		if (!*p || *p == '#')
			continue;
		if (strncmp(p, "columns=", 8) != 0) {
			if (asprintf(ret_msg, "top.conf:%u: expected columns=NAME,NAME...", ln) < 0)
				*ret_msg = NULL;
			r = -EINVAL;
		} else if (cols) {
			if (asprintf(ret_msg, "top.conf:%u: columns given twice", ln) < 0)
				*ret_msg = NULL;
			r = -EINVAL;
		} else {
			p[strcspn(p, " \t\r")] = '\0';
			r = parse_columns(p + 8, ln, &cols, &n, ret_msg);
		}
	}
	free(text);
	if (r == 0 && !cols) {
		if (asprintf(ret_msg, "top.conf: no columns= line") < 0)
			*ret_msg = NULL;
		r = -EINVAL;
	}
	if (r < 0) {
		free(cols);
		return r;
	}
	*ret = cols;
	*ret_n = n;
	return 0;
}

/* Creates the folders of path's folder that are missing (0755). */
static int make_parents(const char *path)
{
	char *d = strdup(path);
	int r = 0;

	if (!d)
		return -ENOMEM;
	for (char *p = d + 1; r == 0 && (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(d, 0755) < 0 && errno != EEXIST)
			r = -errno;
		*p = '/';
	}
	free(d);
	return r;
}

int top_conf_save(const char *path, const int *cols, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f)
		return -ENOMEM;
	fputs("# memctl top: the columns the screen shows (written by its column chooser, c)\n"
	      "columns=", f);
	for (size_t i = 1, k = 0; i < n; i++)
		fprintf(f, "%s%s", k++ ? "," : "", top_cols[cols[i]].name);
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	r = make_parents(path);
	if (r == 0)
		r = mc_file_replace(path, text, len, 0644);
	free(text);
	return r;
}
