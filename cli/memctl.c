/*
 * memctl: help and the dispatcher the program and the shell's lines go
 * through (the command table is in cmd-table.c, options are parsed in
 * opts.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [OPTIONS] COMMAND [ARGS...]\n\nCommands:\n", prog);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", (*c)->name, (*c)->args);
		fprintf(f, "  %-26s %s\n", head, (*c)->summary);
	}
	fputc('\n', f);
	mc_opts_help(f, NULL);
	fprintf(f, "Each command's own options: %s COMMAND --help. Options may stand before or\n"
		   "after the command; '%s -f FILE' runs FILE as a shell script.\n\n"
		   "Exit status: 0 ok, 1 failed and rolled back, 2 invalid input,\n"
		   "3 host problem (nothing changed), 4 failed and not fully rolled back,\n"
		   "5 import left settings out; exec: the command's status, 126/127 when it\n"
		   "cannot be run or found.\n"
		   "See memctl(8) and memctl-profile(5).\n", prog, prog);
}

/* The knob names, for the help of commands that take KNOB arguments. */
static void knob_list(FILE *f)
{
	int col = fprintf(f, "KNOB:");

	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const char *name = mc_knob_info((enum mc_knob)k)->name;

		if (col + 1 + (int)strlen(name) > 78)
			col = fprintf(f, "\n     ");
		col += fprintf(f, " %s", name);
	}
	fputs(",\nor a file name such as memory.max.\n", f);
}

static void cmd_usage(FILE *f, const char *prog, const struct mc_cmd *c)
{
	fprintf(f, "usage: %s %s [OPTIONS]%s%s\n\n%s\n", prog, c->name, *c->args ? " " : "",
		c->args, c->summary);
	if (c->help || strstr(c->args, "KNOB"))
		fputc('\n', f);
	if (strstr(c->args, "KNOB"))
		knob_list(f);
	if (c->help)
		fputs(c->help, f);
	fputc('\n', f);
	mc_opts_help(f, c);
}

/* Test builds say what they carry: tests skip what a flavour cannot show. */
static const char build_flavour[] =
#if defined(__SANITIZE_ADDRESS__) && defined(MEMCTL_FAULT_INJECTION)
	" (test build: sanitizers, fault injection)";
#elif defined(__SANITIZE_ADDRESS__)
	" (test build: sanitizers)";
#elif defined(MEMCTL_FAULT_INJECTION)
	" (test build: fault injection)";
#else
	"";
#endif

/*
 * The host the command runs on: the caller's (the shell's), unless this
 * line names another hierarchy with --cgroup-root, which then holds for
 * this line only. *ret_own: the host was opened here and is the caller's
 * to free. 0 or an exit code.
 */
static int open_host(struct mc_ctx *ctx, const struct mc_ctx *base, bool *ret_own)
{
	struct mc_host_opts ho = { .cgroup_root = ctx->cgroup_root,
				   .fake_version = ctx->fake_version };
	bool same_root = ctx->cgroup_root == base->cgroup_root ||
			 (ctx->cgroup_root && base->cgroup_root &&
			  strcmp(ctx->cgroup_root, base->cgroup_root) == 0);
	int r;

	*ret_own = false;
	if (base->host && same_root)
		return 0;
	r = mc_host_open(&ho, &ctx->host);
	if (r < 0) {
		mc_err("cannot find the memory cgroup controller%s%s: %s",
		       ctx->cgroup_root ? " in " : "", ctx->cgroup_root ? ctx->cgroup_root : "",
		       mc_strerror(r));
		return MC_EXIT_HOST;
	}
	*ret_own = true;
	return 0;
}

/* Says why a command line did not parse; its exit status. */
static int parse_failed(const struct mc_ctx *ctx, const struct mc_opt_error *err)
{
	if (err->kind == MC_OPT_ERR_NO_COMMAND) {
		usage(stderr, ctx->prog);
		return MC_EXIT_INVALID;
	}
	mc_opt_error_print(ctx, err);
	if (err->kind == MC_OPT_ERR_ARGS)
		cmd_usage(stderr, ctx->prog, err->cmd);
	return err->kind == MC_OPT_ERR_NOMEM ? MC_EXIT_HOST : MC_EXIT_INVALID;
}

int mc_main(struct mc_ctx *base, int argc, char **argv)
{
	struct mc_ctx ctx = *base;
	struct mc_opt_error err;
	struct mc_call call;
	bool own_host = false;
	int rc = MC_EXIT_OK;

	ctx.help = ctx.version = false;
	if (mc_call_parse(&ctx, argc, argv, &call, &err) < 0)
		return parse_failed(&ctx, &err);
	if (ctx.version) {
		fprintf(ctx.out_f, "memctl %s%s\n", MEMCTL_VERSION, build_flavour);
	} else if (ctx.help && call.cmd) {
		cmd_usage(ctx.out_f, ctx.prog, call.cmd);
	} else if (ctx.help) {
		usage(ctx.out_f, ctx.prog);
	} else {
		if (call.cmd->flags & CMD_NEED_HOST)
			rc = open_host(&ctx, base, &own_host);
		if (rc == MC_EXIT_OK)
			rc = call.cmd->exec(&ctx, call.opts, call.argc, call.argv);
		if (own_host)
			mc_host_free(ctx.host);
	}
	mc_call_release(&call);
	return rc;
}
