/*
 * The messages an operator sees: mc_err (stderr, or memctl run's logger),
 * the text of errors, diagnostics and snapshot notes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "file.h"

struct mc_err_sink mc_err_sink;

/*
 * Messages quote what others named (groups, files): whatever they hold,
 * no control character reaches the terminal or the log (escape.h's text
 * rules; a backslash stays one, parts may be escaped already).
 */
void mc_err(const char *fmt, ...)
{
	struct mc_buf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	mc_esc_controls_fmt(&b, fmt, ap);
	va_end(ap);
	if (mc_err_sink.fn)
		mc_err_sink.fn(mc_err_sink.arg, mc_buf_error(&b) < 0 ? "out of memory" : mc_buf_str(&b));
	else
		fprintf(stderr, "memctl: %s\n", mc_buf_error(&b) < 0 ? "out of memory" : mc_buf_str(&b));
	mc_buf_release(&b);
}

const char *mc_strerror(int err)
{
	switch (-err) {
	case EALREADY:
		return "an interrupted apply left a journal; run 'memctl rollback' first";
	case EBADMSG:
		return "the journal is damaged";
	case ETIMEDOUT:
		return "timed out (the kernel was still reclaiming)";
	case MC_ENOTREG:
		return "not a regular file";
	default:
		return strerror(-err);
	}
}

void mc_print_diags(const struct mc_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		char *s;

		if (mc_diag_format(&d->v[i], &s) < 0) {
			mc_err("out of memory");
			return;
		}
		fprintf(stderr, "%s\n", s);
		free(s);
	}
}

void mc_print_snapshot_notes(const struct mc_snapshot *s)
{
	for (size_t i = 0; i < s->n_notes; i++)
		mc_err("warning: %s", s->notes[i]);
}
