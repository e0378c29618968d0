/*
 * The option parser: command lines against the command's option table.
 *
 * An option may stand before or after the command name, as with GNU
 * getopt, so the command is found first: the first word that is neither an
 * option nor an option's value. Whether an option takes a value is known
 * from its long name alone, because a name means the same kind of option in
 * every command that takes it (tests/unit/test-opts.c checks the tables).
 * Then every option is parsed against the global options and the command's
 * own, into the context (shared options) or the command's option struct.
 * Nothing is kept between calls: the shell parses each line from scratch.
 * The parser (mc_call_parse) prints nothing, so that a fuzzer can drive it;
 * mc_opt_error_print says what went wrong.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

const struct mc_opt mc_opt_parent = {
	"parent", 'p', MC_OPT_STRING, "PATH", "parent for relative GROUP arguments (default: self)",
	MC_COMPLETE_PARENT, NULL, true, offsetof(struct mc_ctx, parent),
};
const struct mc_opt mc_opt_state_dir = {
	"state-dir", 's', MC_OPT_STRING, "DIR",
	"lock and journal directory (default: /run/memctl, or $MEMCTL_STATE_DIR)",
	MC_COMPLETE_DIR, NULL, true, offsetof(struct mc_ctx, state_dir),
};
const struct mc_opt mc_opt_no_wait = {
	"no-wait", 0, MC_OPT_FLAG, NULL, "fail instead of waiting when another apply holds the lock",
	MC_COMPLETE_NONE, NULL, true, offsetof(struct mc_ctx, no_wait),
};
const struct mc_opt mc_opt_quiet = {
	"quiet", 'q', MC_OPT_FLAG, NULL, "print only errors",
	MC_COMPLETE_NONE, NULL, true, offsetof(struct mc_ctx, quiet),
};
const struct mc_opt mc_opt_insecure_profile = {
	"insecure-profile", 0, MC_OPT_FLAG, NULL,
	"as root, accept a profile or script others could have changed",
	MC_COMPLETE_NONE, NULL, true, offsetof(struct mc_ctx, insecure_profile),
};
const struct mc_opt mc_opt_cgroup_root = {
	"cgroup-root", 0, MC_OPT_STRING, "DIR",
	"use DIR as the memory hierarchy (tests; $MEMCTL_CGROUP_ROOT)",
	MC_COMPLETE_DIR, NULL, true, offsetof(struct mc_ctx, cgroup_root),
};
const struct mc_opt mc_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "text (default) or json",
	MC_COMPLETE_WORDS, "text json", false, offsetof(struct mc_out_opts, out),
};
static const struct mc_opt opt_help = {
	"help", 'h', MC_OPT_FLAG, NULL, "show help (for a command: memctl COMMAND --help)",
	MC_COMPLETE_NONE, NULL, true, offsetof(struct mc_ctx, help),
};
static const struct mc_opt opt_version = {
	"version", 'V', MC_OPT_FLAG, NULL, "show the version",
	MC_COMPLETE_NONE, NULL, true, offsetof(struct mc_ctx, version),
};
const struct mc_opt *const mc_global_opts[] = { &opt_help, &opt_version, NULL };

void mc_cmd_each_opt(const struct mc_cmd *cmd, void (*fn)(const struct mc_opt *o, void *arg),
		     void *arg)
{
	if (cmd && cmd->opts)
		for (const struct mc_opt *const *o = cmd->opts; *o; o++)
			fn(*o, arg);
	for (const struct mc_opt *const *o = mc_global_opts; *o; o++)
		fn(*o, arg);
}

/* --- finding an option --- */

struct find {
	const char *name;         /* the long name as written, or NULL for a short one */
	size_t len;
	char short_name;
	const struct mc_opt *exact, *prefix, *prefix2;
};

static void find_one(const struct mc_opt *o, void *arg)
{
	struct find *f = arg;

	if (!f->name) {
		if (o->short_name && o->short_name == f->short_name && !f->exact)
			f->exact = o;
		return;
	}
	if (strncmp(o->name, f->name, f->len) != 0)
		return;
	if (o->name[f->len] == '\0') {
		if (!f->exact)
			f->exact = o;
	} else if (!f->prefix) {
		f->prefix = o;
	} else if (strcmp(f->prefix->name, o->name) != 0 && !f->prefix2) {
		f->prefix2 = o;   /* another name with this prefix */
	}
}

/* Looks f up among cmd's options (cmd NULL: every command's). */
static void find_opt(const struct mc_cmd *cmd, struct find *f)
{
	if (cmd) {
		mc_cmd_each_opt(cmd, find_one, f);
		return;
	}
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		mc_cmd_each_opt(*c, find_one, f);
	mc_cmd_each_opt(NULL, find_one, f);
}

/* The option f names: exact, or the one option a prefix stands for. */
static const struct mc_opt *found(const struct find *f)
{
	if (f->exact)
		return f->exact;
	return f->prefix2 ? NULL : f->prefix;
}

/* A command other than cmd that takes the option f looks for, for the message. */
static const struct mc_cmd *taken_by(const struct find *want, const struct mc_opt **ret_opt)
{
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		struct find f = *want;

		find_opt(*c, &f);
		if (found(&f)) {
			*ret_opt = found(&f);
			return *c;
		}
	}
	return NULL;
}

/* --- values --- */

static int parse_count(const char *arg, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_seconds(const char *arg, double *ret)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end || !(d >= 0.01) || d > 86400)
		return -EINVAL;
	*ret = d;
	return 0;
}

static const char *const output_names[] = {
	[MC_OUT_TEXT] = "text",
	[MC_OUT_JSON] = "json",
	[MC_OUT_PROM] = "prom",
	[MC_OUT_CSV] = "csv",
	[MC_OUT_OPENMETRICS] = "openmetrics",
};

/* One of the option's words, as an enum mc_output. */
static int parse_output(const struct mc_opt *o, const char *arg, enum mc_output *ret)
{
	size_t len = strlen(arg);

	for (const char *w = o->words; *w; w += strcspn(w, " "), w += strspn(w, " ")) {
		if (strncmp(w, arg, len) != 0 || (w[len] != ' ' && w[len] != '\0'))
			continue;
		for (size_t i = 0; i < sizeof(output_names) / sizeof(output_names[0]); i++)
			if (strcmp(output_names[i], arg) == 0) {
				*ret = (enum mc_output)i;
				return 0;
			}
	}
	return -EINVAL;
}

static int opt_set(const struct mc_opt *o, const char *arg, struct mc_ctx *ctx, void *cmd_opts)
{
	char *p = (o->in_ctx ? (char *)ctx : (char *)cmd_opts) + o->offset;

	switch (o->type) {
	case MC_OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case MC_OPT_STRING:
		*(const char **)p = arg;
		return 0;
	case MC_OPT_COUNT:
		return parse_count(arg, (long *)p);
	case MC_OPT_SECONDS:
		return parse_seconds(arg, (double *)p);
	case MC_OPT_OUTPUT:
		return parse_output(o, arg, (enum mc_output *)p);
	}
	return -EINVAL;
}

/* --- the command line --- */

typedef int opt_setter(const struct mc_opt *o, const char *arg, void *data);

/* "--name", "--name=VALUE" or "--name VALUE" at argv[*i]; see one_word. */
static int long_option(const struct mc_cmd *cmd, int argc, char **argv, int *i, opt_setter *set,
		       void *data, struct mc_opt_error *err)
{
	const char *w = argv[*i], *eq = strchr(w + 2, '=');
	struct find f = { .name = w + 2, .len = eq ? (size_t)(eq - w - 2) : strlen(w + 2) };
	const char *arg = eq ? eq + 1 : NULL;
	const struct mc_opt *o;

	find_opt(cmd, &f);
	o = found(&f);
	(*i)++;
	if (!o) {
		if (!cmd)
			return 0;
		err->kind = f.prefix2 ? MC_OPT_ERR_AMBIGUOUS : MC_OPT_ERR_UNKNOWN;
		err->opt = f.prefix;
		err->other_opt = f.prefix2;
		if (!f.prefix2 && (err->other = taken_by(&f, &err->other_opt)))
			err->kind = MC_OPT_ERR_NOT_TAKEN;
		return -EINVAL;
	}
	err->opt = o;
	if (o->type == MC_OPT_FLAG && arg) {
		err->kind = MC_OPT_ERR_NO_VALUE;
		return -EINVAL;
	}
	if (o->type != MC_OPT_FLAG && !arg) {
		if (*i >= argc) {
			err->kind = MC_OPT_ERR_NEEDS_VALUE;
			return -EINVAL;
		}
		arg = argv[(*i)++];
	}
	return set ? set(o, arg, data) : 0;
}

/* "-abc", "-nVALUE", "-n VALUE" at argv[*i]; see one_word. */
static int short_options(const struct mc_cmd *cmd, int argc, char **argv, int *i, opt_setter *set,
			 void *data, struct mc_opt_error *err)
{
	for (const char *c = argv[*i] + 1; *c; c++) {
		struct find f = { .short_name = *c };
		const char *arg = NULL;
		int r;

		find_opt(cmd, &f);
		if (!f.exact) {
			if (!cmd)
				continue;
			(*i)++;
			err->kind = (err->other = taken_by(&f, &err->other_opt)) ? MC_OPT_ERR_NOT_TAKEN
									      : MC_OPT_ERR_UNKNOWN;
			err->value = c;   /* the letter */
			return -EINVAL;
		}
		err->opt = f.exact;
		if (f.exact->type == MC_OPT_FLAG) {
			if (set && (r = set(f.exact, NULL, data)) < 0)
				return r;
			continue;
		}
		/* the rest of the word, or the next one, is the value */
		(*i)++;
		if (c[1]) {
			arg = c + 1;
		} else if (*i < argc) {
			arg = argv[(*i)++];
		} else {
			err->kind = MC_OPT_ERR_NEEDS_VALUE;
			return -EINVAL;
		}
		return set ? set(f.exact, arg, data) : 0;
	}
	(*i)++;
	return 0;
}

/*
 * The option argv[*i] starts (a long one, or a cluster of short ones),
 * with its value; advances *i past what it used. For each option found
 * calls set (when not NULL). cmd NULL: any command's options, and unknown
 * ones are skipped (the scan for the command word).
 */
static int one_word(const struct mc_cmd *cmd, int argc, char **argv, int *i, opt_setter *set,
		    void *data, struct mc_opt_error *err)
{
	err->word = argv[*i];
	err->value = NULL;
	if (argv[*i][1] == '-')
		return long_option(cmd, argc, argv, i, set, data, err);
	return short_options(cmd, argc, argv, i, set, data, err);
}

static bool is_option(const char *w)
{
	return w[0] == '-' && w[1] != '\0';
}

struct scan {
	bool file;                /* -f / --file was given */
};

static int scan_set(const struct mc_opt *o, const char *arg, void *data)
{
	struct scan *s = data;

	if (strcmp(o->name, "file") == 0)
		s->file = true;
	return 0;
}

/* The index of the command word in argv, or argc; *ret_file: -f was seen. */
static int command_word(int argc, char **argv, bool *ret_file)
{
	struct mc_opt_error err = { 0 };
	struct scan s = { 0 };
	int i = 1;

	while (i < argc) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (!is_option(argv[i]))
			break;
		one_word(NULL, argc, argv, &i, scan_set, &s, &err);
	}
	*ret_file = s.file;
	return i;
}

struct setter {
	struct mc_ctx *ctx;
	struct mc_call *call;
	void *opts;
	struct mc_opt_error *err;
};

static int setter_set(const struct mc_opt *o, const char *arg, void *data)
{
	struct setter *s = data;

	if (opt_set(o, arg, s->ctx, s->opts) < 0) {
		s->err->kind = MC_OPT_ERR_BAD_VALUE;
		s->err->opt = o;
		s->err->value = arg;
		return -EINVAL;
	}
	return 0;
}

/* Finds the command of argv: 0, or -EINVAL with err set. */
static int call_command(int argc, char **argv, int *ret_at, struct mc_call *ret,
			struct mc_opt_error *err)
{
	bool file;
	int at = command_word(argc, argv, &file);
	const struct mc_cmd *match = NULL;
	size_t len;
	int n = 0;

	*ret_at = at;
	if (at >= argc) {
		/* memctl -f FILE: the shell, reading FILE */
		ret->cmd = file ? &cmd_shell_entry : NULL;
		return 0;
	}
	len = strlen(argv[at]);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		if (strcmp((*c)->name, argv[at]) == 0 ||
		    ((*c)->alias && strcmp((*c)->alias, argv[at]) == 0)) {
			ret->cmd = *c;
			return 0;
		}
		if (len && strncmp((*c)->name, argv[at], len) == 0) {
			match = *c;
			n++;
		}
	}
	if (n == 1) {
		ret->cmd = match;
		return 0;
	}
	err->kind = MC_OPT_ERR_COMMAND;
	err->word = argv[at];
	return -EINVAL;
}

/*
 * Walks the words of argv after the program: skips the command word (at),
 * passes each operand to operand, and each option to one_word with set.
 * Stops at the first bad option when stop, else goes on (the error of the
 * last bad one stays in err). Returns 0 or that error.
 */
static int walk(const struct mc_cmd *cmd, int argc, char **argv, int at,
		void (*operand)(char *w, void *data), opt_setter *set, void *data,
		bool stop, struct mc_opt_error *err)
{
	bool dashdash = false;
	int i = 1, r, n = 0;

	while (i < argc) {
		if (cmd && cmd->opts_end_after > 0 && n >= cmd->opts_end_after)
			dashdash = true;
		if (i == at) {
			i++;
		} else if (!dashdash && strcmp(argv[i], "--") == 0) {
			dashdash = true;
			i++;
		} else if (dashdash || !is_option(argv[i])) {
			operand(argv[i++], data);
			n++;
		} else if ((r = one_word(cmd, argc, argv, &i, set, data, err)) < 0 && stop) {
			return r;
		}
	}
	return 0;
}

static void add_operand(char *w, void *data)
{
	struct setter *s = data;

	s->call->argv[s->call->argc++] = w;
}

int mc_call_parse(struct mc_ctx *ctx, int argc, char **argv, struct mc_call *ret,
		  struct mc_opt_error *ret_err)
{
	struct mc_opt_error err = { 0 };
	struct setter s = { .ctx = ctx, .err = &err };
	const struct mc_cmd none = { .name = "" };
	int at, r;

	*ret = (struct mc_call){ 0 };
	if ((r = call_command(argc, argv, &at, ret, &err)) < 0)
		goto fail;
	if (ret->cmd && ret->cmd->opts_size) {
		ret->opts = calloc(1, ret->cmd->opts_size);
		if (!ret->opts)
			goto nomem;
		if (ret->cmd->opts_default)
			memcpy(ret->opts, ret->cmd->opts_default, ret->cmd->opts_size);
	}
	ret->argv = calloc((size_t)argc + 1, sizeof(*ret->argv));
	if (!ret->argv)
		goto nomem;
	s.opts = ret->opts;
	s.call = ret;
	/* without a command only --help and --version count: the rest is "no command" */
	if ((r = walk(ret->cmd ? ret->cmd : &none, argc, argv, at, add_operand, setter_set, &s,
		      ret->cmd != NULL, &err)) < 0)
		goto fail;
	if (!ret->cmd && !ctx->help && !ctx->version) {
		err = (struct mc_opt_error){ .kind = MC_OPT_ERR_NO_COMMAND };
		r = -EINVAL;
		goto fail;
	}
	if (ret->cmd && !ctx->help && !ctx->version &&
	    (ret->argc < ret->cmd->min_args ||
	     (ret->cmd->max_args >= 0 && ret->argc > ret->cmd->max_args))) {
		err.kind = MC_OPT_ERR_ARGS;
		r = -EINVAL;
		goto fail;
	}
	*ret_err = err;
	return 0;
nomem:
	err.kind = MC_OPT_ERR_NOMEM;
	r = -ENOMEM;
fail:
	err.cmd = ret->cmd;
	*ret_err = err;
	mc_call_release(ret);
	ret->cmd = NULL;
	return r;
}

static void count_operand(char *w, void *data)
{
	(*(int *)data)++;
}

const struct mc_cmd *mc_complete_position(int argc, char **argv, const struct mc_opt **ret_opt,
					 int *ret_index)
{
	struct mc_opt_error err = { 0 };
	struct mc_call call = { 0 };
	int at, operands = 0;

	*ret_opt = NULL;
	*ret_index = 0;
	if (call_command(argc, argv, &at, &call, &err) < 0 || at >= argc)
		call.cmd = NULL;
	err = (struct mc_opt_error){ 0 };
	walk(call.cmd, argc, argv, at, count_operand, NULL, &operands, false, &err);
	/* only the last word can lack its value */
	if (err.kind == MC_OPT_ERR_NEEDS_VALUE)
		*ret_opt = err.opt;
	if (call.cmd)
		*ret_index = operands + 1;
	return call.cmd;
}

enum mc_complete mc_cmd_arg_complete(const struct mc_cmd *cmd, int i)
{
	const int n = (int)(sizeof(cmd->arg_complete) / sizeof(cmd->arg_complete[0]));
	int last = 0;

	if (!cmd || i < 0 || (cmd->max_args >= 0 && i >= cmd->max_args))
		return MC_COMPLETE_NONE;
	for (int k = 0; k < n; k++)
		if (cmd->arg_complete[k] != MC_COMPLETE_NONE)
			last = k;
	/* without max_args the last argument repeats (GROUP KNOB...) */
	return i <= last ? cmd->arg_complete[i] : cmd->max_args < 0 ? cmd->arg_complete[last]
								      : MC_COMPLETE_NONE;
}

void mc_call_release(struct mc_call *c)
{
	free(c->opts);
	free(c->argv);
	c->opts = NULL;
	c->argv = NULL;
	c->argc = 0;
}

/* "--name" of the word an error is about ("--once=3" -> "--once"). */
static int word_len(const char *w)
{
	return (int)strcspn(w, "=");
}

/* What is wrong with the value of e->opt. */
static void bad_value(const char *cmd, const struct mc_opt_error *e)
{
	if (e->opt->type == MC_OPT_OUTPUT)
		mc_err("%s: unknown output format '%s' (%s takes: %s)", cmd, e->value, cmd,
		       e->opt->words);
	else if (e->opt->type == MC_OPT_COUNT)
		mc_err("%s: invalid %s '%s' (a number >= 1)", cmd, e->opt->name, e->value);
	else
		mc_err("%s: invalid %s '%s' (seconds, 0.01 to 86400)", cmd, e->opt->name, e->value);
}

void mc_opt_error_print(const struct mc_ctx *ctx, const struct mc_opt_error *e)
{
	const char *cmd = e->cmd ? e->cmd->name : NULL;
	const char *w = e->word ? e->word : "";
	char letter[3] = { '-', e->value ? e->value[0] : 0, 0 };
	bool is_short = w[0] == '-' && w[1] != '-';

	switch (e->kind) {
	case MC_OPT_ERR_NONE:
		return;
	case MC_OPT_ERR_UNKNOWN:
		if (is_short)
			mc_err("%s%sunknown option '%s'", cmd ? cmd : "", cmd ? ": " : "", letter);
		else
			mc_err("%s%sunknown option '%.*s'", cmd ? cmd : "", cmd ? ": " : "",
			       word_len(w), w);
		break;
	case MC_OPT_ERR_NOT_TAKEN:
		if (is_short)
			mc_err("%s does not take option '%s' (an option of '%s %s')", cmd, letter,
			       ctx->prog, e->other->name);
		else
			mc_err("%s does not take option '%.*s' (an option of '%s %s')", cmd,
			       word_len(w), w, ctx->prog, e->other->name);
		break;
	case MC_OPT_ERR_AMBIGUOUS:
		mc_err("%s: option '%.*s' is ambiguous: --%s, --%s, ...", cmd, word_len(w), w,
		       e->opt->name, e->other_opt->name);
		break;
	case MC_OPT_ERR_NEEDS_VALUE:
		mc_err("%s: option '--%s' needs a value (%s)", cmd, e->opt->name, e->opt->metavar);
		break;
	case MC_OPT_ERR_NO_VALUE:
		mc_err("%s: option '--%s' takes no value", cmd, e->opt->name);
		break;
	case MC_OPT_ERR_BAD_VALUE:
		bad_value(cmd, e);
		break;
	case MC_OPT_ERR_COMMAND:
		/* mc_cmd_find says whether it is unknown or ambiguous */
		mc_cmd_find(ctx->prog, w);
		return;
	case MC_OPT_ERR_NO_COMMAND:
		mc_err("no command given");
		break;
	case MC_OPT_ERR_ARGS:
		mc_err("%s: expected %s", cmd, *e->cmd->args ? e->cmd->args : "no arguments");
		return;   /* the caller prints the command's usage */
	case MC_OPT_ERR_NOMEM:
		mc_err("out of memory");
		return;
	}
	if (cmd)
		fprintf(stderr, "see '%s %s --help'\n", ctx->prog, cmd);
	else
		fprintf(stderr, "see '%s --help'\n", ctx->prog);
}

/* --- help --- */

struct help {
	FILE *f;
	int width;
};

/* "  -p, --parent PATH" */
static int opt_head(const struct mc_opt *o, char *buf, size_t len)
{
	return snprintf(buf, len, "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
			o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

static void help_width(const struct mc_opt *o, void *arg)
{
	struct help *h = arg;
	char buf[96];
	int n = opt_head(o, buf, sizeof(buf));

	if (n > h->width)
		h->width = n;
}

static void help_line(const struct mc_opt *o, void *arg)
{
	struct help *h = arg;
	char buf[96];

	opt_head(o, buf, sizeof(buf));
	fprintf(h->f, "%-*s  %s\n", h->width, buf, o->help);
}

void mc_opts_help(FILE *f, const struct mc_cmd *cmd)
{
	struct help h = { .f = f };

	mc_cmd_each_opt(cmd, help_width, &h);
	fputs("Options:\n", f);
	mc_cmd_each_opt(cmd, help_line, &h);
}
