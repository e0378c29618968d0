/* CMake defines it for the whole project; a direct compile may not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"

static char *strdup_or_null(const char *s, bool *failed)
{
	char *r;

	if (!s)
		return NULL;
	r = strdup(s);
	if (!r)
		*failed = true;
	return r;
}

int mc_diags_add(struct mc_diags *d, const char *file, int line, int col,
		 const char *path, const char *fmt, ...)
{
	struct mc_diag e = { .line = line, .col = col };
	bool failed = false;
	va_list ap;
	int r;

	if (mc_array_reserve(&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0)
		return -ENOMEM;

	va_start(ap, fmt);
	r = vasprintf(&e.msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	e.file = strdup_or_null(file, &failed);
	e.path = strdup_or_null(path, &failed);
	if (failed) {
		free(e.file);
		free(e.path);
		free(e.msg);
		return -ENOMEM;
	}
	d->v[d->n++] = e;
	return 0;
}

int mc_diag_format(const struct mc_diag *d, char **ret)
{
	char where[64] = "";
	char *s;
	int r;

	/*
	 * "file:line:col: " as compilers print it, so editors can jump there;
	 * a column is only meaningful with a line, a line only with a file.
	 */
	if (d->file && d->line > 0 && d->col > 0)
		snprintf(where, sizeof(where), ":%d:%d", d->line, d->col);
	else if (d->file && d->line > 0)
		snprintf(where, sizeof(where), ":%d", d->line);

	r = asprintf(&s, "%s%s%s%s%s%s",
		     d->file ? d->file : "", where, d->file ? ": " : "",
		     d->path ? d->path : "", d->path ? ": " : "",
		     d->msg ? d->msg : "");
	if (r < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

void mc_diags_free(struct mc_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].path);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
	d->cap = 0;
}

char *mc_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

struct mc_quoted mc_quote_n(const char *s, size_t len)
{
	struct mc_quoted q;
	size_t cut = len, o = 0;

	if (cut > MC_QUOTE_MAX) {
		cut = MC_QUOTE_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	for (size_t i = 0; i < cut; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(q.s + o, sizeof(q.s) - o, "\\x%02x", ch);
		else
			q.s[o++] = (char)ch;
	}
	if (cut < len) {
		memcpy(q.s + o, "...", 3);
		o += 3;
	}
	q.s[o] = '\0';
	return q;
}
