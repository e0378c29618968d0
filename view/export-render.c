/*
 * The exporter's render step: which rows are left out (and the warning
 * that says why), then the format's renderer into the kept buffer.
 */
#include <errno.h>
#include <stdbool.h>

#include "escape.h"
#include "export-internal.h"

/* Marks the rows left out; warns once per render about names that cannot be labels. */
static int mark_skipped(struct mc_export *e)
{
	struct mc_buf msg = { 0 };
	int r = 0;

	if (mc_array_reserve(&e->skip, &e->cap_skip, e->m.n_order, sizeof(*e->skip)) < 0)
		return -ENOMEM;
	for (size_t o = 0; o < e->m.n_order; o++) {
		const struct top_row *row = &e->m.rows[e->m.order[o]];
		bool bad = !mc_utf8_valid(row->abs);

		e->skip[o] = row->gone || !row->g.present || bad;
		if (!bad || row->gone)
			continue;
		mc_buf_reset(&msg);
		mc_buf_adds(&msg, "export: leaving out group '");
		mc_esc_text(&msg, row->abs);
		mc_buf_adds(&msg, "': its name is not UTF-8, which metric labels must be");
		if ((r = mc_buf_error(&msg)) < 0)
			break;
		e->warn(e->warn_arg, msg.p);
	}
	mc_buf_release(&msg);
	return r;
}

int mc_export_render(struct mc_export *e, enum mc_export_format f, const char **ret,
		     size_t *ret_len)
{
	int r = mark_skipped(e);

	if (r < 0)
		return r;
	mc_buf_reset(&e->out);
	if (f == MC_EXPORT_JSON)
		export_render_json(e);
	else
		export_render_prom(e);
	if ((r = mc_buf_error(&e->out)) < 0)
		return r;
	*ret = mc_buf_str(&e->out);
	*ret_len = e->out.len;
	return 0;
}
