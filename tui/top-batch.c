/*
 * Batch output of `memctl top -b`: the model as a text table (one per
 * refresh, like top -b and systemd-cgtop -b) or as one JSON document per
 * refresh, one per line. Keys of the JSON groups are the column names; a
 * value the host does not have is null.
 */
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "cmd.h"
#include "top.h"

static void print_json_row(FILE *f, const struct top_model *m, const struct top_row *r,
			   const int *cols, size_t n_cols)
{
	fputs("{\"group\":", f);
	mc_json_str(f, r->path);
	fputs(",\"path\":", f);
	mc_json_str(f, r->abs);
	fprintf(f, ",\"depth\":%u,\"present\":%s", r->depth, r->gone ? "false" : "true");
	for (size_t k = 0; k < n_cols; k++) {
		const struct top_col *c = &top_cols[cols[k]];
		struct top_val v = { 0 };
		char buf[256];

		if (cols[k] == TOP_COL_NAME)
			continue;
		fprintf(f, ",\"%s\":", c->name);
		if (c->kind == TOP_TEXT) {
			const char *t = c->text(m, r, buf, sizeof(buf));

			if (t)
				mc_json_str(f, t);
			else
				fputs("null", f);
			continue;
		}
		c->get(m, r, &v);
		if (!v.valid)
			fputs("null", f);
		else if (c->kind == TOP_SIZE)
			mc_json_size(f, v.u);
		else if (c->kind == TOP_COUNT)
			fprintf(f, "%" PRIu64, v.u);
		else
			fprintf(f, "%.2f", v.d);
	}
	fputc('}', f);
}

/* The tree column's width: its deepest, longest name. */
static int name_width(const struct top_model *m, int min)
{
	int w = min;

	for (size_t o = 0; o < m->n_order; o++) {
		const struct top_row *r = &m->rows[m->order[o]];
		int need = (int)r->depth * 2 + (int)strlen(r->name) + (r->gone ? 7 : 0);

		if (need > w)
			w = need;
	}
	return w;
}

static void print_text(FILE *f, const struct top_model *m, const int *cols, size_t n_cols)
{
	int nw = name_width(m, top_cols[TOP_COL_NAME].width);
	char head[64];

	snprintf(head, sizeof(head), "%zu group%s", m->n, m->n == 1 ? "" : "s");
	fprintf(f, "memctl top: %s, %s, sorted by %s%s\n", m->parent, head,
		top_cols[m->sort_col].name, m->reverse ? " (reversed)" : "");
	for (size_t k = 0; k < n_cols; k++) {
		const struct top_col *c = &top_cols[cols[k]];

		if (cols[k] == TOP_COL_NAME)
			fprintf(f, "%s%-*s", k ? " " : "", k + 1 < n_cols ? nw : 0, c->title);
		else if (c->kind == TOP_TEXT)
			fprintf(f, " %-*s", k + 1 < n_cols ? c->width : 0, c->title);
		else
			fprintf(f, "%s%*s", k ? " " : "", c->width, c->title);
	}
	fputc('\n', f);
	for (size_t o = 0; o < m->n_order; o++) {
		const struct top_row *r = &m->rows[m->order[o]];

		for (size_t k = 0; k < n_cols; k++) {
			const struct top_col *c = &top_cols[cols[k]];
			char buf[256];
			const char *t = top_cell(m, r, c, buf, sizeof(buf));
			int w = c->kind == TOP_TEXT && k + 1 == n_cols ? 0 : c->width;

			if (cols[k] == TOP_COL_NAME) {
				int ind = (int)r->depth * 2;
				char name[PATH_MAX + 16];

				snprintf(name, sizeof(name), "%s%s", t, r->gone ? " (gone)" : "");
				fprintf(f, "%s%*s%-*s", k ? " " : "", ind, "",
					k + 1 < n_cols ? nw - ind : 0, name);
			} else if (c->kind == TOP_TEXT) {
				fprintf(f, " %-*s", w, t);
			} else {
				fprintf(f, " %*s", w, t);
			}
		}
		fputc('\n', f);
	}
	if (m->policy.error)
		fprintf(f, "note: %s\n", m->policy.error);
}

void top_batch_print(FILE *f, const struct top_model *m, const int *cols, size_t n_cols,
		     bool json)
{
	if (!json) {
		print_text(f, m, cols, n_cols);
		fputc('\n', f);
		return;
	}
	fputs("{\"parent\":", f);
	mc_json_str(f, m->parent);
	fprintf(f, ",\"refresh\":%lu,\"sort\":\"%s\",\"groups\":[", m->refreshes,
		top_cols[m->sort_col].name);
	for (size_t o = 0; o < m->n_order; o++) {
		if (o)
			fputc(',', f);
		print_json_row(f, m, &m->rows[m->order[o]], cols, n_cols);
	}
	fputs("]", f);
	if (m->policy.error) {
		fputs(",\"note\":", f);
		mc_json_str(f, m->policy.error);
	}
	fputs("}\n", f);
}
