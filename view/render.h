#ifndef MEMCTL_RENDER_H
#define MEMCTL_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "model.h"

/*
 * Renderers of the read model into a buffer, which the front end writes
 * once. They only format: every value comes from the model, every string
 * from the host is escaped for the format (escape.h).
 */

/*
 * The model's display order as `memctl top -b` prints it: a text table
 * followed by an empty line, or one JSON document on one line. The columns
 * are indexes in top_cols, the name column first.
 */
void top_render_text(struct mc_buf *b, const struct top_model *m, const int *cols,
		     size_t n_cols);
void top_render_json(struct mc_buf *b, const struct top_model *m, const int *cols,
		     size_t n_cols);

#endif
