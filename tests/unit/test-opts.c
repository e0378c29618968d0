/*
 * The option tables and the parser (cli/opts.c): every long name means the
 * same kind of option in every command that takes it, a command takes only
 * its own options, and nothing one parse sets is seen by the next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "tap.h"

/* The first entry of each long name met so far, across all commands. */
static const struct mc_opt *seen[256];
static size_t n_seen;

struct per_cmd {
	const struct mc_cmd *cmd;
	const struct mc_opt *v[64];
	size_t n;
};

static void collect(const struct mc_opt *o, void *arg)
{
	struct per_cmd *p = arg;

	if (p->n < 64)
		p->v[p->n++] = o;
}

static void check_tables(void)
{
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		struct per_cmd p = { .cmd = *c };
		bool dup = false;

		mc_cmd_each_opt(*c, collect, &p);
		tap_check(p.n < 48, "%s: %zu options, fewer than completion's 48", (*c)->name, p.n);
		for (size_t i = 0; i < p.n; i++) {
			for (size_t j = 0; j < i; j++)
				if (strcmp(p.v[i]->name, p.v[j]->name) == 0 ||
				    (p.v[i]->short_name && p.v[i]->short_name == p.v[j]->short_name))
					dup = true;
			tap_check(p.v[i]->help && *p.v[i]->help, "%s --%s has a help line", (*c)->name,
				  p.v[i]->name);
			tap_check((p.v[i]->type == MC_OPT_FLAG) == (p.v[i]->metavar == NULL),
				  "%s --%s: a metavariable exactly when it takes a value", (*c)->name,
				  p.v[i]->name);
			tap_check((p.v[i]->type == MC_OPT_OUTPUT) <= (p.v[i]->words != NULL),
				  "%s --%s: a format option lists its formats", (*c)->name,
				  p.v[i]->name);
			for (size_t k = 0; k < n_seen; k++) {
				if (strcmp(seen[k]->name, p.v[i]->name) != 0)
					continue;
				tap_check(seen[k]->short_name == p.v[i]->short_name &&
						  (seen[k]->type == MC_OPT_FLAG) ==
							  (p.v[i]->type == MC_OPT_FLAG),
					  "%s --%s: same short name and arity as in other commands",
					  (*c)->name, p.v[i]->name);
				goto next;
			}
			if (n_seen < 256)
				seen[n_seen++] = p.v[i];
next:;
		}
		tap_check(!dup, "%s: no name twice", (*c)->name);
	}
}

/* Parses a command line (words separated by blanks) on a fresh context. */
static int parse(const char *line, struct mc_ctx *ctx, struct mc_call *call, struct mc_opt_error *err)
{
	static char *argv[64];
	static char buf[512];
	int argc = 0;

	snprintf(buf, sizeof(buf), "memctl %s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	*ctx = (struct mc_ctx){ .prog = "memctl", .parent = "self", .state_dir = "/run/memctl" };
	return mc_call_parse(ctx, argc, argv, call, err);
}

/*
 * Command lines through the option parser, each with its verdict. It is
 * long because it is one list of cases, a few lines each, read top to
 * bottom.
 */
static void check_parse(void)
{
	struct mc_opt_error err;
	struct mc_call call;
	struct mc_ctx ctx;

	tap_eq_int(parse("check --once p.yaml", &ctx, &call, &err), -EINVAL, "check --once: refused");
	tap_eq_int(err.kind, MC_OPT_ERR_NOT_TAKEN, "... as an option of another command");
	tap_eq_str(err.other ? err.other->name : "", "run", "... which is run");
	tap_eq_str(err.cmd ? err.cmd->name : "", "check", "... for check");

	tap_eq_int(parse("-o json get web max", &ctx, &call, &err), 0, "-o before the command");
	tap_eq_str(call.cmd->name, "get", "... the command is get");
	tap_eq_int(((struct mc_out_opts *)call.opts)->out, MC_OUT_JSON, "... with json");
	tap_eq_int(call.argc, 2, "... and two arguments");
	tap_eq_str(call.argv[0], "web", "... the group");
	mc_call_release(&call);

	tap_eq_int(parse("get -o prom web", &ctx, &call, &err), -EINVAL, "get -o prom: refused");
	tap_eq_int(err.kind, MC_OPT_ERR_BAD_VALUE, "... a bad value");
	tap_eq_int(parse("export -o prom", &ctx, &call, &err), 0, "export -o prom");
	mc_call_release(&call);
	tap_eq_int(parse("status -o prom", &ctx, &call, &err), -EINVAL, "status -o prom: refused");

	tap_eq_int(parse("-p self/a set --no-w b max=1M", &ctx, &call, &err), 0,
		   "a unique prefix of a long option");
	tap_check(ctx.no_wait, "... sets --no-wait");
	tap_eq_str(ctx.parent, "self/a", "... and -p goes to the context");
	mc_call_release(&call);
	tap_eq_int(parse("top --c", &ctx, &call, &err), -EINVAL, "an ambiguous prefix (--columns, --cgroup-root)");
	tap_eq_int(err.kind, MC_OPT_ERR_AMBIGUOUS, "... said so");

	tap_eq_int(parse("top -bn5 -d0.5", &ctx, &call, &err), 0, "short options clustered, values attached");
	mc_call_release(&call);
	tap_eq_int(parse("top -n 0", &ctx, &call, &err), -EINVAL, "-n 0 refused");
	tap_eq_int(parse("top -d", &ctx, &call, &err), -EINVAL, "-d without a value");
	tap_eq_int(err.kind, MC_OPT_ERR_NEEDS_VALUE, "... needs a value");
	tap_eq_int(parse("run --once=1 p.yaml", &ctx, &call, &err), -EINVAL, "--once=1");
	tap_eq_int(err.kind, MC_OPT_ERR_NO_VALUE, "... takes no value");

	tap_eq_int(parse("-f script.mc", &ctx, &call, &err), 0, "-f FILE alone");
	tap_eq_str(call.cmd ? call.cmd->name : "", "shell", "... is the shell");
	tap_eq_str(*(const char **)call.opts, "script.mc", "... reading FILE");
	mc_call_release(&call);
	tap_eq_int(parse("export -f m.prom", &ctx, &call, &err), 0, "export -f FILE");
	tap_eq_str(call.cmd->name, "export", "... stays export");
	mc_call_release(&call);

	tap_eq_int(parse("-q", &ctx, &call, &err), -EINVAL, "options without a command");
	tap_eq_int(err.kind, MC_OPT_ERR_NO_COMMAND, "... no command");
	tap_eq_int(parse("--help", &ctx, &call, &err), 0, "--help without a command");
	tap_check(ctx.help && !call.cmd, "... asks for the program's help");
	mc_call_release(&call);
	tap_eq_int(parse("get --help", &ctx, &call, &err), 0, "get --help: no arguments needed");
	mc_call_release(&call);
	tap_eq_int(parse("get", &ctx, &call, &err), -EINVAL, "get without a group");
	tap_eq_int(err.kind, MC_OPT_ERR_ARGS, "... wrong number of arguments");
	tap_eq_int(parse("s x", &ctx, &call, &err), -EINVAL, "an ambiguous command");
	tap_eq_int(err.kind, MC_OPT_ERR_COMMAND, "... said so");
	tap_eq_int(parse("get -- -o", &ctx, &call, &err), 0, "-- ends the options");
	tap_eq_str(call.argv[0], "-o", "... '-o' is the group");
	mc_call_release(&call);

	/* exec: every word after CMD is the command's, options and "--" included */
	tap_eq_int(parse("--cgroup-root=/r exec -p self/a web sh -c x -q --help -- y", &ctx, &call,
			 &err), 0, "exec GROUP CMD with options of its own");
	tap_eq_int(call.argc, 8, "... every word after CMD is an argument");
	tap_check(!ctx.help && !ctx.quiet, "... --help and -q after CMD are the command's");
	tap_eq_str(ctx.cgroup_root, "/r", "... an option before exec is memctl's");
	tap_eq_str(ctx.parent, "self/a", "... and -p before CMD too");
	tap_eq_str(call.argv[6], "--", "... and so is '--'");
	mc_call_release(&call);
	tap_eq_int(parse("exec web -- -x", &ctx, &call, &err), 0, "exec GROUP -- -CMD");
	tap_eq_str(call.argv[1], "-x", "... the command");
	mc_call_release(&call);

	/* nothing a parse set is seen by the next one (the shell's lines) */
	tap_eq_int(parse("check --insecure-profile p.yaml", &ctx, &call, &err), 0, "--insecure-profile");
	tap_check(ctx.insecure_profile, "... set for this line");
	mc_call_release(&call);
	tap_eq_int(parse("check p.yaml", &ctx, &call, &err), 0, "the next line");
	tap_check(!ctx.insecure_profile, "... does not have it");
	mc_call_release(&call);
}

static void check_completion_position(void)
{
	char *w1[] = { "memctl", "-p", "self", "get", "web", NULL };
	char *w2[] = { "memctl", "top", "--sort", NULL };
	char *w3[] = { "memctl", "-q", NULL };
	const struct mc_opt *o;
	const struct mc_cmd *c;
	int i;

	c = mc_complete_position(5, w1, &o, &i);
	tap_check(c == &cmd_get_entry && !o && i == 2, "-p self get web <TAB>: get's argument 2");
	tap_eq_int(mc_cmd_arg_complete(c, 1), MC_COMPLETE_KNOB, "... a knob");
	tap_eq_int(mc_cmd_arg_complete(c, 7), MC_COMPLETE_KNOB, "... and so on");
	c = mc_complete_position(3, w2, &o, &i);
	tap_check(c == &cmd_top_entry && o && strcmp(o->name, "sort") == 0,
		  "top --sort <TAB>: the value of --sort");
	c = mc_complete_position(2, w3, &o, &i);
	tap_check(!c && !o && i == 0, "-q <TAB>: the command");
}

static void check_line(void)
{
	const char *words[] = { "plain", "a b", "it's", "q\"d", "back\\slash", "#hash", "", "tab\there",
				"mid#dle" };
	char *argv[8], *buf, *q;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		int n;

		tap_eq_int(mc_line_quote(words[i], &q), 0, "quote '%s'", words[i]);
		n = mc_line_split(q, &buf, argv, 4);
		tap_check(n == 1 && strcmp(argv[0], words[i]) == 0, "'%s' splits back to one word",
			  q);
		free(buf);
		free(q);
	}
	tap_eq_int(mc_line_split("a 'b", &buf, argv, 4), -EINVAL, "an unterminated quote");
	free(buf);
	tap_eq_int(mc_line_split("a b c d e", &buf, argv, 4), -E2BIG, "too many words");
	free(buf);
	tap_eq_int(mc_line_split("  # all comment", &buf, argv, 4), 0, "a comment line");
	free(buf);
}

int main(void)
{
	check_tables();
	check_parse();
	check_completion_position();
	check_line();
	return tap_done();
}
