/*
 * memctl top: the live tree below a parent with what matters for reclaim,
 * on an ncurses screen or (-b) as text / JSON refreshes. The model, columns
 * and screen live in tui/; this file wires them to the command line, and
 * gives the screen its edit action: `set` from the command table, so an
 * edit gets set's validation, transaction and rollback.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "render.h"
#include "top.h"
#include "when.h"

struct top_opts {
	enum mc_output out;
	bool batch;
	long iterations;          /* 0: until stopped */
	double delay;             /* seconds between refreshes */
	const char *profile;
	const char *sort;
	const char *columns;
	const char *replay;       /* --replay DIR: a recorded history instead of the live tree */
	const char *time;         /* -t TIME: the sample the screen starts on */
	const char *from, *to;    /* -b: the samples printed */
};

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The last non-empty line of text (without "memctl: "), newly allocated. */
static char *last_line(const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	if (strncmp(start, "memctl: ", 8) == 0 && start + 8 <= end)
		start += 8;
	return strndup(start, (size_t)(end - start));
}

/* Reads a whole stream from its start, NUL-terminated; "" when it cannot. */
static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	if (!m)
		return strdup("");
	rewind(f);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	return buf;
}

/*
 * The screen's edit action: `set GROUP ASSIGNMENT` through the command
 * table. set reports on stderr and stdout; both are captured (the screen
 * owns the terminal) and the last line becomes the status message.
 */
static int top_edit(void *arg, const char *group_abs, const char *assignment, char **ret_msg)
{
	struct mc_ctx ctx = *(struct mc_ctx *)arg;
	const struct mc_cmd *set = &cmd_set_entry;
	char *argv[] = { (char *)group_abs, (char *)assignment, NULL };
	char *out = NULL, *err_text;
	size_t out_len = 0;
	FILE *errf = tmpfile();
	int saved = -1, rc;

	ctx.no_wait = true;   /* a held lock fails the edit instead of freezing the screen */
	ctx.quiet = false;
	ctx.out_f = open_memstream(&out, &out_len);
	if (!errf || !ctx.out_f) {
		if (errf)
			fclose(errf);
		if (ctx.out_f)
			fclose(ctx.out_f);
		free(out);
		*ret_msg = strdup("cannot capture the output of set");
		return MC_EXIT_HOST;
	}
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(errf), STDERR_FILENO);
	rc = set->exec(&ctx, NULL, 2, argv);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	fclose(ctx.out_f);
	err_text = slurp(errf);
	fclose(errf);
	if (rc != 0)
		*ret_msg = last_line(err_text && *err_text ? err_text : "set failed");
	else
		*ret_msg = last_line(out && *out ? out : "nothing to change");
	free(err_text);
	free(out);
	return rc;
}

/* One refresh of batch mode: read, render, write. 0 or the exit status after saying why. */
static int batch_one(struct mc_ctx *ctx, const struct top_opts *o, struct top_model *m,
		     const int *cols, size_t n_cols, struct mc_buf *out)
{
	int r = top_model_refresh(m, now_seconds());

	if (r == 0)
		r = top_model_fill(m, 0, m->n_order, (size_t)-1, top_cols_parts(cols, n_cols));
	if (r < 0) {
		mc_err("cannot read '%s': %s", m->parent, mc_strerror(r));
		return r == -ENOENT ? MC_EXIT_INVALID : MC_EXIT_HOST;
	}
	mc_buf_reset(out);
	if (o->out == MC_OUT_JSON)
		top_render_json(out, m, cols, n_cols);
	else
		top_render_text(out, m, cols, n_cols);
	if (mc_buf_error(out) < 0) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	if (fwrite(out->p, 1, out->len, ctx->out_f) != out->len || fflush(ctx->out_f) != 0) {
		mc_err("cannot write output: %s", mc_strerror(-errno));
		return MC_EXIT_HOST;
	}
	return 0;
}

static int run_batch(struct mc_ctx *ctx, const struct top_opts *o, struct top_model *m,
		     const int *cols, size_t n_cols)
{
	double next = now_seconds();
	struct mc_buf out = { 0 };
	int rc = MC_EXIT_OK;

	for (long i = 0; rc == 0 && (o->iterations == 0 || i < o->iterations); i++) {
		if (i > 0) {
			double left;

			next += o->delay;
			left = next - now_seconds();
			if (left > 0) {
				struct timespec ts = { (time_t)left,
						       (long)((left - (double)(time_t)left) * 1e9) };

				nanosleep(&ts, NULL);
			}
		}
		rc = batch_one(ctx, o, m, cols, n_cols, &out);
	}
	mc_buf_release(&out);
	return rc;
}

/* --- --replay: the same screen and batch output over a recorded history --- */

static int run_screen(struct mc_ctx *ctx, const struct top_opts *o, struct top_model *m,
		      const int *cols, size_t n_cols);
static int model_sort(const struct top_opts *o, struct top_model *m);

/* The times of -t, --from and --to (seconds; from/to: the ends when not given). */
struct replay_span {
	double start;             /* where the model opens */
	double from, to;
	bool one;                 /* -b -t: the sample opened, alone */
};

/*
 * Checks how the replay options go together and reads their times into
 * *ret. Says what is wrong; returns 0 or MC_EXIT_INVALID.
 */
static int replay_times(const struct top_opts *o, struct replay_span *ret)
{
	static const char *const names[] = { "-t", "--from", "--to" };
	const char *text[] = { o->time, o->from, o->to };
	int64_t now = mc_when_now(), t[3] = { 0, 0, INT64_MAX };

	for (int i = 0; i < 3; i++) {
		if (text[i] && !o->replay) {
			mc_err("%s is a time of a recorded history: it needs --replay DIR", names[i]);
			return MC_EXIT_INVALID;
		}
		if (text[i] && mc_time_opt(names[i], text[i], now, &t[i]) != 0)
			return MC_EXIT_INVALID;
	}
	if ((o->from || o->to) && !o->batch) {
		mc_err("--from and --to choose the samples -b prints; the screen starts at -t TIME");
		return MC_EXIT_INVALID;
	}
	if (o->time && (o->from || o->to)) {
		mc_err("-t shows one sample, --from and --to a span: give one or the other");
		return MC_EXIT_INVALID;
	}
	if (o->from && o->to && t[1] > t[2]) {
		mc_err("--from '%s' is after --to '%s'", o->from, o->to);
		return MC_EXIT_INVALID;
	}
	ret->one = o->time != NULL;
	if (o->time)
		t[1] = t[2] = t[0];
	/* a time as memctl prints it (to the millisecond) names its sample */
	ret->from = (double)t[1] / 1e9 - TOP_REPLAY_SLACK;
	ret->to = t[2] == INT64_MAX ? 1e300 : (double)t[2] / 1e9 + TOP_REPLAY_SLACK;
	/* the screen opens on -t or the newest sample; batch on the first of the span */
	ret->start = o->time ? ret->to : o->batch ? ret->from : (double)now / 1e9;
	return 0;
}

/*
 * Makes the model of the history in --replay DIR, opened at span->start.
 * Says what is wrong; returns 0 or an exit code (nothing to release).
 */
static int replay_open(struct mc_ctx *ctx, const struct top_opts *o,
		       const struct replay_span *span, struct top_model *ret)
{
	struct top_source *src;
	char *why = NULL;
	int r;

	if (o->profile) {
		mc_err("--profile simulates decisions on the live tree; a replay shows those "
		       "recorded (memctl run --record)");
		return MC_EXIT_INVALID;
	}
	r = top_source_replay(o->replay, span->start, &src, &why);
	if (r < 0) {
		if (r == -ENODATA)
			mc_err("the store in '%s' holds no sample yet", o->replay);
		else if (why)
			mc_err("cannot read the store in '%s': %s", o->replay, why);
		else
			mc_err("cannot read the store in '%s': %s", o->replay, mc_strerror(r));
		free(why);
		return r == -ENOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
	}
	/* the parent is the one recorded: a different -p is an error, not ignored */
	if (ctx->parent && strcmp(ctx->parent, "self") != 0 && strcmp(ctx->parent, src->parent) != 0) {
		mc_err("-p '%s': the store in '%s' recorded the groups below '%s'; leave -p out "
		       "or give that parent", ctx->parent, o->replay, src->parent);
		top_source_free(src);
		return MC_EXIT_INVALID;
	}
	if (top_model_init_source(ret, ctx->host, src->parent, src) < 0) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	return model_sort(o, ret);
}

/*
 * The next sample of a batch replay: a corrupt record (or one that is no
 * tree) is said, counted in *skipped and stepped over. 0, -ENODATA at the
 * end, -errno.
 */
static int replay_next(const struct top_opts *o, struct top_source *src, long *skipped)
{
	int r;

	while ((r = src->ops->step(src, 1)) == -EBADMSG) {
		mc_err("warning: skipping a record of '%s': %s", o->replay,
		       src->ops->problem(src) ? src->ops->problem(src) : mc_strerror(r));
		(*skipped)++;
	}
	return r;
}

/* -b over the samples from span->from to span->to (at most -n of them). */
static int replay_batch(struct mc_ctx *ctx, const struct top_opts *o, struct top_model *m,
			const struct replay_span *span, const int *cols, size_t n_cols)
{
	struct top_source *src = m->src;
	struct mc_buf out = { 0 };
	int rc = 0, r = 0;
	long n = 0, skipped = 0;

	/* the open found the sample at or before --from: the span starts after it */
	if (!span->one && src->ops->wall(src) < span->from)
		r = replay_next(o, src, &skipped);
	while (r == 0 && (span->one || (src->ops->wall(src) <= span->to &&
					src->ops->wall(src) >= span->from)) &&
	       (o->iterations == 0 || n < o->iterations) && !(span->one && n == 1)) {
		if ((rc = batch_one(ctx, o, m, cols, n_cols, &out)) != 0)
			break;
		n++;
		r = replay_next(o, src, &skipped);
	}
	mc_buf_release(&out);
	if (rc == 0 && r < 0 && r != -ENODATA) {
		mc_err("cannot read the store in '%s': %s", o->replay,
		       src->ops->problem(src) ? src->ops->problem(src) : mc_strerror(r));
		rc = MC_EXIT_HOST;
	}
	if (rc == 0 && n == 0)
		mc_err("warning: no sample was recorded between %s and %s", o->from ? o->from : "the start",
		       o->to ? o->to : "the end");
	if (rc == 0 && skipped) {
		/* a delta after a bad record cannot be decoded either: no count is given */
		mc_err("the store in '%s' has records that could not be read: the samples printed "
		       "leave out those and what depends on them", o->replay);
		rc = MC_EXIT_INVALID;
	}
	return rc;
}

/* top --replay: the screen or -b over a recorded history. Returns the exit status. */
static int run_replay(struct mc_ctx *ctx, const struct top_opts *o, const int *cols,
		      size_t n_cols)
{
	struct replay_span span;
	struct top_model m;
	int rc;

	if ((rc = replay_times(o, &span)) != 0 || (rc = replay_open(ctx, o, &span, &m)) != 0)
		return rc;
	if (o->batch)
		rc = replay_batch(ctx, o, &m, &span, cols, n_cols);
	else
		rc = run_screen(ctx, o, &m, cols, n_cols);
	top_model_release(&m);
	return rc;
}

/* Prints each column's name, title and help to f (for -o help). */
static void list_columns(FILE *f)
{
	for (size_t i = 0; i < top_n_cols; i++)
		fprintf(f, "%-14s %-8s %s\n", top_cols[i].name, top_cols[i].title, top_cols[i].help);
}

/*
 * The columns that list (-o) names, all of them when list is NULL, into a
 * new *ret_cols of *ret_n. Returns 0, or the exit status after saying why.
 */
static int parse_columns(const char *list, int **ret_cols, size_t *ret_n)
{
	const char *bad = NULL;
	int r = top_cols_parse(list ? list : "", ret_cols, ret_n, &bad);

	if (r == -EINVAL) {
		mc_err("unknown column '%.*s' (see 'memctl top --help')", (int)strcspn(bad, ","), bad);
		return MC_EXIT_INVALID;
	}
	if (r < 0) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	if (!list) {
		*ret_n = 0;
		for (size_t i = 0; i < top_n_cols; i++)
			(*ret_cols)[(*ret_n)++] = (int)i;
	}
	return 0;
}

/* The sort order o asks for; on an unknown column says so and releases m. 0 or an exit code. */
static int model_sort(const struct top_opts *o, struct top_model *m)
{
	/* the screen shows the biggest first, like top; batch keeps tree order */
	if (o->sort || !o->batch) {
		const char *sort = o->sort ? o->sort : "usage";

		m->sort_col = top_col_lookup(sort);
		if (m->sort_col < 0) {
			mc_err("unknown column '%s' for --sort", sort);
			top_model_release(m);
			return MC_EXIT_INVALID;
		}
	}
	return 0;
}

/*
 * Makes the model of parent's subtree in *ret, with the daemons' published
 * state and the sort order o asks for. Returns 0, or the exit status after
 * saying why, with nothing left to release.
 */
static int model_open(struct mc_ctx *ctx, const struct top_opts *o, const char *parent,
		      struct top_model *ret)
{
	if (top_model_init(ret, ctx->host, parent) < 0) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	if (top_daemons_init(&ret->daemons, ctx->state_dir) < 0) {
		mc_err("out of memory");
		top_model_release(ret);
		return MC_EXIT_HOST;
	}
	return model_sort(o, ret);
}

/* Runs the interactive screen on m with the n_cols columns cols; returns the exit status. */
static int run_screen(struct mc_ctx *ctx, const struct top_opts *o, struct top_model *m,
		      const int *cols, size_t n_cols)
{
	struct top_screen_opts so = { .delay = o->delay, .cols = cols, .n_cols = n_cols,
				      .cols_given = o->columns != NULL,
				      .edit = top_edit, .edit_arg = ctx,
				      .iterations = o->iterations };
	int r = top_screen_run(m, &so);

	if (r < 0) {
		mc_err("top: %s", mc_strerror(r));
		return r == -ENOENT ? MC_EXIT_INVALID : MC_EXIT_HOST;
	}
	return MC_EXIT_OK;
}

/* top on the live tree below -p: the screen or -b. Returns the exit status. */
static int run_live(struct mc_ctx *ctx, const struct top_opts *o, const int *cols, size_t n_cols)
{
	struct mc_profile prof;
	struct mc_policy *pol = NULL;
	struct top_model m;
	bool have_prof = false;
	char *parent = NULL;
	int rc, r;

	if ((rc = mc_resolve_parent_opt(ctx, &parent)) != 0)
		return rc;
	if ((rc = model_open(ctx, o, parent, &m)) != 0) {
		free(parent);
		return rc;
	}
	if (o->profile) {
		char *pparent = NULL;

		if ((rc = mc_load_profile(ctx, o->profile, &prof)) != 0)
			goto out;
		have_prof = true;
		if ((rc = mc_policy_for_host(ctx, &pol)) != 0)
			goto out;
		r = mc_host_resolve_parent(ctx->host, prof.parent, &pparent);
		if (r == 0)
			r = top_model_set_profile(&m, &prof, pol, pparent);
		free(pparent);
		if (r < 0) {
			mc_err("%s: parent: cannot resolve '%s': %s", prof.file, prof.parent,
			       mc_strerror(r));
			rc = MC_EXIT_INVALID;
			goto out;
		}
	}
	rc = o->batch ? run_batch(ctx, o, &m, cols, n_cols) : run_screen(ctx, o, &m, cols, n_cols);
out:
	top_model_release(&m);
	mc_policy_free(pol);
	if (have_prof)
		mc_profile_free(&prof);
	free(parent);
	return rc;
}

static int cmd_top_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct top_opts *o = opts;
	int *cols = NULL;
	size_t n_cols = 0;
	int rc;

	if (o->columns && strcmp(o->columns, "help") == 0) {
		list_columns(ctx->out_f);
		return MC_EXIT_OK;
	}
	if (!o->batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		mc_err("top needs a terminal; use 'memctl top -b' for text output");
		return MC_EXIT_INVALID;
	}
	if ((rc = parse_columns(o->columns, &cols, &n_cols)) != 0)
		return rc;
	if (o->replay || o->time || o->from || o->to)
		rc = run_replay(ctx, o, cols, n_cols);
	else
		rc = run_live(ctx, o, cols, n_cols);
	free(cols);
	return rc;
}

static const struct mc_opt top_opt_batch = {
	"batch", 'b', MC_OPT_FLAG, NULL, "print refreshes as text (or -o json), no screen",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, batch),
};
static const struct mc_opt top_opt_iterations = {
	"iterations", 'n', MC_OPT_COUNT, "N", "stop after N refreshes",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, iterations),
};
static const struct mc_opt top_opt_delay = {
	"delay", 'd', MC_OPT_SECONDS, "SECONDS", "time between refreshes (default 1)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, delay),
};
static const struct mc_opt top_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "with -b: text (default) or json (one line a refresh)",
	MC_COMPLETE_WORDS, "text json", false, offsetof(struct top_opts, out),
};
static const struct mc_opt top_opt_profile = {
	"profile", 0, MC_OPT_STRING, "FILE",
	"show the engine's decisions and working sets for FILE (nothing is written)",
	MC_COMPLETE_PROFILE, NULL, false, offsetof(struct top_opts, profile),
};
static const struct mc_opt top_opt_sort = {
	"sort", 0, MC_OPT_STRING, "COLUMN", "sort siblings by COLUMN (default usage; -b: tree order)",
	MC_COMPLETE_COLUMN, NULL, false, offsetof(struct top_opts, sort),
};
static const struct mc_opt top_opt_columns = {
	"columns", 0, MC_OPT_STRING, "LIST", "columns to show, comma-separated ('help' lists them)",
	MC_COMPLETE_COLUMN, NULL, false, offsetof(struct top_opts, columns),
};

static const struct mc_opt top_opt_replay = {
	"replay", 0, MC_OPT_STRING, "DIR",
	"show the history memctl record (or run) recorded in DIR instead of the live tree",
	MC_COMPLETE_DIR, NULL, false, offsetof(struct top_opts, replay),
};
static const struct mc_opt top_opt_time = {
	"time", 't', MC_OPT_STRING, "TIME",
	"with --replay: the sample at TIME (2026-12-01 03:00, 10m ago, @SECONDS); without it the screen opens on the newest, -b prints from the first",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, time),
};
static const struct mc_opt top_opt_from = {
	"from", 0, MC_OPT_STRING, "TIME", "with -b --replay: the samples from TIME on",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, from),
};
static const struct mc_opt top_opt_to = {
	"to", 0, MC_OPT_STRING, "TIME", "with -b --replay: the samples up to TIME",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct top_opts, to),
};

const struct mc_cmd cmd_top_entry = {
	.name = "top",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "watch the groups below the parent: usage, limits, reclaim, decisions",
	.help = "-p / for the whole hierarchy. '--columns help' lists the columns.\n"
		"--replay DIR shows a recorded history on the same screen: [ ] step a sample,\n"
		"t goes to a time (-10m, +1h, 2026-12-01 03:00), p plays; -b --replay DIR\n"
		"--from TIME --to TIME prints the samples between.\n"
		"Keys: ? shows them all; q quits.\n",
	.opts = (const struct mc_opt *const[]){ &top_opt_batch, &top_opt_iterations, &top_opt_delay,
						&top_opt_output, &top_opt_profile, &top_opt_sort,
						&top_opt_columns, &top_opt_replay, &top_opt_time,
						&top_opt_from, &top_opt_to, &mc_opt_parent, &mc_opt_state_dir,
						&mc_opt_insecure_profile, &mc_opt_cgroup_root,
						NULL },
	.opts_size = sizeof(struct top_opts),
	.opts_default = &(const struct top_opts){ .delay = 1.0 },
	.exec = cmd_top_exec,
};
