/*
 * memctl dump: the samples of a history store (memctl record, memctl run
 * --record) between two times, as CSV, JSON or OpenMetrics text with
 * timestamps (view/dump.h). OpenMetrics wants each family's lines
 * together, so its families go to temporary files while the store is read
 * once, and are copied out one after the other at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dump.h"
#include "escape.h"
#include "store.h"
#include "when.h"

struct dump_opts {
	const char *dir;
	const char *from, *to;
	enum mc_output out;
	const char *groups;
};

/* Flush a part when it holds this much. */
#define PART_FLUSH (256u << 10)

static void dump_warn(void *arg, const char *msg)
{
	mc_err("%s", msg);
}

static int parse_time(const char *opt, const char *text, int64_t now, double *ret)
{
	struct mc_when_error e = { 0 };
	int64_t t;
	char *esc;

	if (mc_when_parse(text, now, now, &t, &e) == 0) {
		*ret = (double)t / 1e9;
		return 0;
	}
	esc = mc_esc_text_dup(text);
	mc_err("invalid %s '%s': %s (at '%s')", opt, esc ? esc : "?", e.why ? e.why : "not a time",
	       esc && e.at <= strlen(esc) ? esc + e.at : "");
	free(esc);
	return MC_EXIT_INVALID;
}

struct dump_out {
	FILE *out;
	FILE **tmp;           /* per part but the first (OpenMetrics), or NULL */
	size_t n;
};

/* Writes what part i holds to its place. 0 or -errno. */
static int flush_part(struct dump_out *o, struct mc_dump *d, size_t i, bool force)
{
	struct mc_buf *b = mc_dump_part(d, i);
	FILE *f = i == 0 ? o->out : o->tmp[i - 1];

	if (mc_buf_error(b) < 0)
		return -ENOMEM;
	if (!b->len || (!force && b->len < PART_FLUSH))
		return 0;
	if (fwrite(b->p, 1, b->len, f) != b->len)
		return -EIO;
	mc_buf_reset(b);
	return 0;
}

/* Copies the temporary parts after the first to the output. */
static int join_parts(struct dump_out *o)
{
	char buf[65536];
	size_t n;

	for (size_t i = 0; i + 1 < o->n; i++) {
		rewind(o->tmp[i]);
		while ((n = fread(buf, 1, sizeof(buf), o->tmp[i])) > 0)
			if (fwrite(buf, 1, n, o->out) != n)
				return -EIO;
		if (ferror(o->tmp[i]))
			return -EIO;
	}
	return fflush(o->out) == 0 ? 0 : -EIO;
}

/* Reads the samples of [from, to] into d. 0, or the exit status after saying why. */
static int dump_range(struct mc_store_reader *r, const struct dump_opts *o, double from, double to,
		      struct mc_dump *d, struct dump_out *out)
{
	struct mc_hist_sample s = { 0 };
	size_t bad = 0;
	int e, rc = MC_EXIT_OK;

	e = mc_store_seek(r, from, &s);
	while (e == 0 || e == -EBADMSG) {
		if (e == -EBADMSG) {
			mc_err("%s", mc_store_problem(r) ? mc_store_problem(r) : "a corrupt record");
			bad++;
		} else if (s.time > to) {
			break;
		} else if (s.time >= from) {
			mc_dump_sample(d, &s);
			for (size_t i = 0; i < out->n && e == 0; i++)
				e = flush_part(out, d, i, false);
			if (e < 0)
				break;
		}
		e = mc_store_next(r, &s);
	}
	mc_hist_sample_release(&s);
	if (e < 0 && e != -ENODATA && e != -EBADMSG) {
		mc_err("cannot read the store '%s': %s", o->dir,
		       mc_store_problem(r) ? mc_store_problem(r) : mc_strerror(e));
		rc = MC_EXIT_HOST;
	}
	if (mc_store_torn(r))
		mc_err("note: '%s': %zu torn record%s at the end of a shard left out (a recorder was "
		       "killed while writing)", o->dir, mc_store_torn(r), mc_store_torn(r) == 1 ? "" : "s");
	if (bad && rc == MC_EXIT_OK)
		rc = MC_EXIT_HOST;
	return rc;
}

static enum mc_dump_format dump_format(enum mc_output out)
{
	return out == MC_OUT_JSON ? MC_DUMP_JSON : out == MC_OUT_OPENMETRICS ? MC_DUMP_OPENMETRICS
									    : MC_DUMP_CSV;
}

static int open_parts(struct dump_out *o, size_t n)
{
	o->n = n;
	if (n > 1 && !(o->tmp = calloc(n - 1, sizeof(*o->tmp))))
		return -ENOMEM;
	for (size_t i = 0; i + 1 < n; i++)
		if (!(o->tmp[i] = tmpfile()))
			return -errno;
	return 0;
}

static void close_parts(struct dump_out *o)
{
	for (size_t i = 0; o->tmp && i + 1 < o->n; i++)
		if (o->tmp[i])
			fclose(o->tmp[i]);
	free(o->tmp);
}

static int cmd_dump_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct dump_opts *o = opts;
	struct dump_out out = { .out = ctx->out_f };
	struct mc_store_reader *r = NULL;
	struct mc_dump *d = NULL;
	int64_t now = mc_when_now();
	double from = 0, to = 1e300;
	char *why = NULL;
	int rc, e;

	if (!o->dir) {
		mc_err("dump needs --dir DIR, the store to read");
		return MC_EXIT_INVALID;
	}
	if ((o->from && (rc = parse_time("--from", o->from, now, &from)) != 0) ||
	    (o->to && (rc = parse_time("--to", o->to, now, &to)) != 0))
		return rc;
	if (from > to) {
		mc_err("--from is after --to: nothing to dump");
		return MC_EXIT_INVALID;
	}
	if ((e = mc_store_open(o->dir, &r, &why)) < 0) {
		mc_err("cannot open the store '%s': %s", o->dir, why ? why : mc_strerror(e));
		free(why);
		return e == -ENOENT || e == -ENOTDIR ? MC_EXIT_INVALID : MC_EXIT_HOST;
	}
	if (mc_dump_new(dump_format(o->out), o->groups, dump_warn, NULL, &d) < 0 ||
	    open_parts(&out, mc_dump_parts(d)) < 0) {
		mc_err("cannot dump: %s", mc_strerror(-ENOMEM));
		rc = MC_EXIT_HOST;
		goto out;
	}
	rc = dump_range(r, o, from, to, d, &out);
	mc_dump_end(d);
	e = 0;
	for (size_t i = 0; i < out.n && e == 0; i++)
		e = flush_part(&out, d, i, true);
	if (e == 0)
		e = join_parts(&out);
	if (e < 0) {
		mc_err("cannot write the dump: %s", mc_strerror(e));
		rc = MC_EXIT_HOST;
	}
out:
	close_parts(&out);
	mc_dump_free(d);
	mc_store_close(r);
	return rc;
}

static const struct mc_opt dump_opt_dir = {
	"dir", 0, MC_OPT_STRING, "DIR", "the store to read",
	MC_COMPLETE_DIR, NULL, false, offsetof(struct dump_opts, dir),
};
static const struct mc_opt dump_opt_from = {
	"from", 0, MC_OPT_STRING, "TIME", "the first time to dump (default: the first sample)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct dump_opts, from),
};
static const struct mc_opt dump_opt_to = {
	"to", 0, MC_OPT_STRING, "TIME", "the last time to dump (default: the last sample)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct dump_opts, to),
};
static const struct mc_opt dump_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "csv (default), json or openmetrics",
	MC_COMPLETE_WORDS, "csv json openmetrics", false, offsetof(struct dump_opts, out),
};
static const struct mc_opt dump_opt_groups = {
	"groups", 0, MC_OPT_STRING, "GLOB",
	"only groups whose path below the parent matches GLOB ('.' the parent; /...: absolute)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct dump_opts, groups),
};

const struct mc_cmd cmd_dump_entry = {
	.name = "dump",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.summary = "print the samples of a history store as CSV, JSON or OpenMetrics",
	.help = "TIME: 2026-12-01 03:00, 2026-12-01T03:00:00Z, 03:00, @EPOCH, now, 10m ago.\n"
		"OpenMetrics carries a timestamp per sample: promtool tsdb create-blocks-from\n"
		"openmetrics loads it into a Prometheus database.\n",
	.opts = (const struct mc_opt *const[]){ &dump_opt_dir, &dump_opt_from, &dump_opt_to,
						&dump_opt_output, &dump_opt_groups, NULL },
	.opts_size = sizeof(struct dump_opts),
	.opts_default = &(const struct dump_opts){ .out = MC_OUT_CSV },
	.exec = cmd_dump_exec,
};
