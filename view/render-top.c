/*
 * Batch output of `memctl top -b`: the model as a text table (one per
 * refresh, like top -b and systemd-cgtop -b) or as one JSON document per
 * refresh, one per line. Keys of the JSON groups are the column names; a
 * value the host does not have is null.
 */
#include <inttypes.h>
#include <string.h>

#include "columns.h"
#include "escape.h"
#include "format.h"
#include "render.h"
#include "when.h"

static void json_row(struct mc_buf *b, const struct top_model *m, const struct top_row *r,
		     const int *cols, size_t n_cols)
{
	mc_buf_adds(b, "{\"group\":");
	mc_esc_json(b, r->path);
	mc_buf_adds(b, ",\"path\":");
	mc_esc_json(b, r->abs);
	mc_buf_printf(b, ",\"depth\":%u,\"present\":%s", r->depth, r->gone ? "false" : "true");
	for (size_t k = 0; k < n_cols; k++) {
		const struct top_col *c = &top_cols[cols[k]];
		struct top_val v = { 0 };
		char buf[256];

		if (cols[k] == TOP_COL_NAME)
			continue;
		mc_buf_printf(b, ",\"%s\":", c->name);
		if (c->kind == TOP_TEXT) {
			mc_esc_json(b, c->raw ? c->raw(m, r) : c->text(m, r, buf, sizeof(buf)));
			continue;
		}
		c->get(m, r, &v);
		if (!v.valid)
			mc_buf_adds(b, "null");
		else if (c->kind == TOP_SIZE)
			mc_fmt_json_size(b, v.u);
		else if (c->kind == TOP_COUNT)
			mc_buf_printf(b, "%" PRIu64, v.u);
		else
			mc_buf_printf(b, "%.2f", v.d);
	}
	if (top_row_daemon(m, r)) {
		/* what the memctl run managing the group decided, structured */
		mc_buf_printf(b, ",\"run_pid\":%ld,\"decisions\":", top_row_daemon(m, r)->pid);
		top_json_decisions(b, top_row_daemon(m, r), r->abs);
	}
	mc_buf_addc(b, '}');
}

/* The tree column's width: its deepest, longest name. */
static int name_width(const struct top_model *m, int min)
{
	int w = min;

	for (size_t o = 0; o < m->n_order; o++) {
		const struct top_row *r = &m->rows[m->order[o]];
		int need = (int)r->depth * 2 + (int)strlen(r->label) + (r->gone ? 7 : 0);

		if (need > w)
			w = need;
	}
	return w;
}

static void text_head(struct mc_buf *b, const struct top_model *m, const int *cols,
		      size_t n_cols, int nw)
{
	mc_buf_printf(b, "memctl top: ");
	if (m->src->replay) {
		char t[32];

		/* a recorded sample: say so, and when it was recorded */
		mc_buf_printf(b, "REPLAY %s of ", mc_when_format((int64_t)(m->wall * 1e9), t, sizeof(t)));
		mc_esc_text(b, m->src->dir);
		mc_buf_adds(b, ": ");
	}
	mc_esc_text(b, m->parent);
	mc_buf_printf(b, ", %zu group%s, sorted by %s%s\n", m->n, m->n == 1 ? "" : "s",
		      top_cols[m->sort_col].name, m->reverse ? " (reversed)" : "");
	for (size_t k = 0; k < n_cols; k++) {
		const struct top_col *c = &top_cols[cols[k]];

		if (cols[k] == TOP_COL_NAME)
			mc_buf_printf(b, "%s%-*s", k ? " " : "", k + 1 < n_cols ? nw : 0, c->title);
		else if (c->kind == TOP_TEXT)
			mc_buf_printf(b, " %-*s", k + 1 < n_cols ? c->width : 0, c->title);
		else
			mc_buf_printf(b, "%s%*s", k ? " " : "", c->width, c->title);
	}
	mc_buf_addc(b, '\n');
}

void top_render_text(struct mc_buf *b, const struct top_model *m, const int *cols,
		     size_t n_cols)
{
	int nw = name_width(m, top_cols[TOP_COL_NAME].width);

	text_head(b, m, cols, n_cols, nw);
	for (size_t o = 0; o < m->n_order; o++) {
		const struct top_row *r = &m->rows[m->order[o]];

		for (size_t k = 0; k < n_cols; k++) {
			const struct top_col *c = &top_cols[cols[k]];
			char buf[256];
			const char *t = top_cell(m, r, c, buf, sizeof(buf));
			int w = c->kind == TOP_TEXT && k + 1 == n_cols ? 0 : c->width;

			if (cols[k] == TOP_COL_NAME) {
				int ind = (int)r->depth * 2;
				int pad = k + 1 < n_cols ? nw - ind - (int)strlen(t) -
							   (r->gone ? 7 : 0) : 0;

				mc_buf_printf(b, "%s%*s%s%s%*s", k ? " " : "", ind, "", t,
					      r->gone ? " (gone)" : "", pad > 0 ? pad : 0, "");
			} else if (c->kind == TOP_TEXT) {
				mc_buf_printf(b, " %-*s", w, t);
			} else {
				mc_buf_printf(b, " %*s", w, t);
			}
		}
		mc_buf_addc(b, '\n');
	}
	if (m->policy.error) {
		mc_buf_adds(b, "note: ");
		mc_esc_text(b, m->policy.error);
		mc_buf_addc(b, '\n');
	}
	mc_buf_addc(b, '\n');
}

void top_render_json(struct mc_buf *b, const struct top_model *m, const int *cols,
		     size_t n_cols)
{
	mc_buf_adds(b, "{\"parent\":");
	mc_esc_json(b, m->parent);
	mc_buf_printf(b, ",\"refresh\":%lu,\"time\":%.3f,\"sort\":\"%s\",", m->refreshes,
		      m->wall, top_cols[m->sort_col].name);
	if (m->src->replay) {
		/* time is the sample's; replay names the store it came from */
		mc_buf_adds(b, "\"replay\":");
		mc_esc_json(b, m->src->dir);
		mc_buf_addc(b, ',');
	}
	if (m->daemons.n) {
		mc_buf_adds(b, "\"runs\":[");
		for (size_t i = 0; i < m->daemons.n; i++) {
			if (i)
				mc_buf_addc(b, ',');
			top_json_daemon(b, &m->daemons.v[i]);
		}
		mc_buf_adds(b, "],");
	}
	mc_buf_adds(b, "\"groups\":[");
	for (size_t o = 0; o < m->n_order; o++) {
		if (o)
			mc_buf_addc(b, ',');
		json_row(b, m, &m->rows[m->order[o]], cols, n_cols);
	}
	mc_buf_adds(b, "]");
	if (m->policy.error) {
		mc_buf_adds(b, ",\"note\":");
		mc_esc_json(b, m->policy.error);
	}
	mc_buf_adds(b, "}\n");
}
