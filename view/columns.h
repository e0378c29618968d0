#ifndef MEMCTL_COLUMNS_H
#define MEMCTL_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The columns of the read model, described once (htop style). */
enum top_kind {
	TOP_TEXT,             /* name, decision, per-node usage */
	TOP_SIZE,             /* bytes, MC_SIZE_MAX = max */
	TOP_PCT,
	TOP_RATE,             /* per second */
	TOP_COUNT,
};

struct top_val {
	bool valid;
	uint64_t u;           /* SIZE, COUNT */
	double d;             /* PCT, RATE */
};

struct top_col {
	const char *name;     /* for --sort and --columns, and the JSON key */
	const char *title;
	int width;
	enum top_kind kind;
	unsigned parts;       /* what must be read for it (MC_READ_*) */
	const char *help;
	/* Numeric value (not for TOP_TEXT). */
	void (*get)(const struct top_model *m, const struct top_row *r, struct top_val *ret);
	/*
	 * Text of a TOP_TEXT column, escaped for text output (into buf, or a
	 * string the row keeps); returns NULL when there is none.
	 */
	const char *(*text)(const struct top_model *m, const struct top_row *r, char *buf,
			    size_t len);
	/* The same text unescaped, for JSON; NULL: text has nothing to escape. */
	const char *(*raw)(const struct top_model *m, const struct top_row *r);
	/* Sibling order, ascending. */
	int (*cmp)(const struct top_model *m, const struct top_col *c, const struct top_row *a,
		   const struct top_row *b);
};

enum {
	TOP_COL_NAME = 0,
	TOP_COL_USAGE = 1,
};
extern const struct top_col top_cols[];
extern const size_t top_n_cols;

/*
 * The order of two values of a numeric column of kind (TOP_SIZE, TOP_COUNT:
 * u; TOP_PCT, TOP_RATE: d), unknown below known: < 0, 0, > 0. Every
 * numeric column sorts by it.
 */
int top_val_cmp(enum top_kind kind, const struct top_val *x, const struct top_val *y);
/* Column index by name, or -ENOENT. */
int top_col_lookup(const char *name);
/* Cell text of column c for row r ("-" when unknown), right-sized for c's width. */
const char *top_cell(const struct top_model *m, const struct top_row *r, const struct top_col *c,
		     char *buf, size_t len);
/* Parts needed by a set of columns. */
unsigned top_cols_parts(const int *cols, size_t n);
/* Parses "usage,max,pct" into column indexes; -EINVAL names the bad one in *ret_bad. */
int top_cols_parse(const char *list, int **ret, size_t *ret_n, const char **ret_bad);

#endif
