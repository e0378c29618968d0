/*
 * memctl: entry point, option parsing and command dispatch.
 *
 * Options may stand before or after the command name (GNU getopt permutes
 * argv); the first operand is the command, the rest are its arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd.h"

const struct mc_cmd *const mc_cmd_table[] = {
	&cmd_check_entry,
	&cmd_plan_entry,
	&cmd_apply_entry,
	&cmd_get_entry,
	&cmd_set_entry,
	&cmd_status_entry,
	&cmd_rollback_entry,
	&cmd_run_entry,
	&cmd_top_entry,
	&cmd_shell_entry,
	&cmd_import_entry,
	&cmd_completion_entry,
	&cmd_export_entry,
	NULL,
};

const struct mc_cmd *mc_cmd_find(const char *prog, const char *name)
{
	const struct mc_cmd *found = NULL;
	size_t len = strlen(name);
	int matches = 0;

	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		if (strcmp((*c)->name, name) == 0 || ((*c)->alias && strcmp((*c)->alias, name) == 0))
			return *c;
		if (strncmp((*c)->name, name, len) == 0) {
			found = *c;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	if (matches == 0) {
		fprintf(stderr, "%s: unknown command '%s' (see '%s --help')\n", prog, name, prog);
		return NULL;
	}
	fprintf(stderr, "%s: ambiguous command: %s, could be:", prog, name);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		if (strncmp((*c)->name, name, len) == 0)
			fprintf(stderr, " %s", (*c)->name);
	fputc('\n', stderr);
	return NULL;
}

const char mc_options_help[] =
	"Options:\n"
	"  -p, --parent PATH       parent for relative GROUP arguments (default: self)\n"
	"  -o, --output FORMAT     text (default) or json, for plan, get and status;\n"
	"                          prom (default) or json for export\n"
	"  -s, --state-dir DIR     lock and journal directory (default: /run/memctl,\n"
	"                          or $MEMCTL_STATE_DIR)\n"
	"      --no-wait           fail instead of waiting when another apply holds the lock\n"
	"  -q, --quiet             print only errors\n"
	"      --insecure-profile  as root, accept a profile others could have changed\n"
	"      --once              run: one interval, then exit with its status\n"
	"      --dry-run           run: log the decisions, write nothing\n"
	"      --no-mlock          run: do not lock memctl's memory\n"
	"  -b, --batch             top: print refreshes as text (or -o json), no screen\n"
	"  -n, --iterations N      top: stop after N refreshes\n"
	"  -d, --delay SECONDS     top: time between refreshes (default 1)\n"
	"      --profile FILE      top, export: show the engine's decisions for FILE\n"
	"                          (nothing is written)\n"
	"                          status: say who writes FILE's parent (systemd's single writer)\n"
	"      --sort COLUMN       top: sort siblings by COLUMN (default group)\n"
	"      --columns LIST      top: columns to show, comma-separated (see memctl top --help)\n"
	"  -f, --file FILE         shell: run the commands in FILE;\n"
	"                          export: replace FILE atomically instead of printing\n"
	"      --export FILE       run: rewrite FILE with the metrics every interval\n"
	"      --keep-going        shell: go on after a failing line\n"
	"      --cgroup-root DIR   use DIR as the memory hierarchy (tests; $MEMCTL_CGROUP_ROOT)\n"
	"  -h, --help              show help (for a command: memctl COMMAND --help)\n"
	"  -V, --version           show the version\n";

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [OPTIONS] COMMAND [ARGS...]\n\nCommands:\n", prog);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", (*c)->name, (*c)->args);
		fprintf(f, "  %-26s %s\n", head, (*c)->summary);
	}
	fprintf(f, "\n%s\nExit status: 0 ok, 1 failed and rolled back, 2 invalid input,\n"
		   "3 host problem (nothing changed), 4 failed and not fully rolled back,\n"
		   "5 import left settings out.\n"
		   "See memctl(8) and memctl-profile(5).\n", mc_options_help);
}

static void cmd_usage(FILE *f, const char *prog, const struct mc_cmd *c)
{
	fprintf(f, "usage: %s %s [OPTIONS] %s\n\n%s\n", prog, c->name, c->args, c->summary);
	if (c->help)
		fprintf(f, "\n%s", c->help);
	fprintf(f, "\n%s", mc_options_help);
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

/* A positive number of seconds, at least 0.01. */
static int parse_delay(const char *arg, double *ret)
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

const struct option mc_longopts[] = {
		{ "parent", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "cgroup-root", required_argument, NULL, 'R' },
		{ "once", no_argument, NULL, '1' },
		{ "insecure-profile", no_argument, NULL, 'I' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "no-mlock", no_argument, NULL, 'M' },
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "profile", required_argument, NULL, 'P' },
		{ "sort", required_argument, NULL, 'S' },
		{ "columns", required_argument, NULL, 'C' },
		{ "file", required_argument, NULL, 'f' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "export", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
const char mc_shortopts[] = "p:o:s:qhVbn:d:f:";

int mc_main(struct mc_ctx *base, int argc, char **argv)
{
	struct mc_ctx ctx = *base;
	const struct mc_cmd *cmd;
	bool help = false, own_host = false;
	int opt, rc;
	char *end;

	optind = 0;   /* the shell parses many command lines */
	while ((opt = getopt_long(argc, argv, mc_shortopts, mc_longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			ctx.parent = optarg;
			ctx.parent_set = true;
			break;
		case 'o':
			if (strcmp(optarg, "json") == 0) {
				ctx.out = MC_OUT_JSON;
			} else if (strcmp(optarg, "text") == 0) {
				ctx.out = MC_OUT_TEXT;
			} else if (strcmp(optarg, "prom") == 0) {
				ctx.out = MC_OUT_PROM;
			} else {
				mc_err("unknown output format '%s' (text, json, or prom for export)",
				       optarg);
				return MC_EXIT_INVALID;
			}
			break;
		case 's':
			ctx.state_dir = optarg;
			break;
		case 'W':
			ctx.no_wait = true;
			break;
		case 'q':
			ctx.quiet = true;
			break;
		case 'R':
			ctx.cgroup_root = optarg;
			break;
		case '1':
			ctx.once = true;
			break;
		case 'I':
			mc_insecure_profiles = true;
			break;
		case 'D':
			ctx.dry_run = true;
			break;
		case 'M':
			ctx.no_mlock = true;
			break;
		case 'b':
			ctx.batch = true;
			break;
		case 'n':
			errno = 0;
			ctx.iterations = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || ctx.iterations < 1) {
				mc_err("invalid iterations '%s' (a number >= 1)", optarg);
				return MC_EXIT_INVALID;
			}
			break;
		case 'd':
			if (parse_delay(optarg, &ctx.delay) < 0) {
				mc_err("invalid delay '%s' (seconds, 0.01 to 86400)", optarg);
				return MC_EXIT_INVALID;
			}
			break;
		case 'P':
			ctx.profile = optarg;
			break;
		case 'S':
			ctx.sort = optarg;
			break;
		case 'C':
			ctx.columns = optarg;
			break;
		case 'f':
			ctx.script = optarg;
			break;
		case 'K':
			ctx.keep_going = true;
			break;
		case 'E':
			ctx.export_file = optarg;
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			fprintf(ctx.out_f, "memctl %s%s\n", MEMCTL_VERSION, build_flavour);
			return MC_EXIT_OK;
		default:
			fprintf(stderr, "see '%s --help'\n", ctx.prog);
			return MC_EXIT_INVALID;
		}
	}
	if (optind >= argc && ctx.script && !help) {
		/* memctl -f FILE: the shell, reading FILE */
		cmd = &cmd_shell_entry;
	} else if (optind >= argc) {
		usage(help ? ctx.out_f : stderr, ctx.prog);
		return help ? MC_EXIT_OK : MC_EXIT_INVALID;
	} else {
		cmd = mc_cmd_find(ctx.prog, argv[optind++]);
		if (!cmd)
			return MC_EXIT_INVALID;
	}
	if (ctx.out == MC_OUT_PROM && cmd != &cmd_export_entry && cmd != &cmd_run_entry) {
		mc_err("%s: -o prom is for export and run --export only", cmd->name);
		return MC_EXIT_INVALID;
	}
	if (help) {
		cmd_usage(ctx.out_f, ctx.prog, cmd);
		return MC_EXIT_OK;
	}
	argc -= optind;
	argv += optind;
	if (argc < cmd->min_args || (cmd->max_args >= 0 && argc > cmd->max_args)) {
		mc_err("%s: expected %s", cmd->name, *cmd->args ? cmd->args : "no arguments");
		cmd_usage(stderr, ctx.prog, cmd);
		return MC_EXIT_INVALID;
	}
	if ((cmd->flags & CMD_NEED_HOST) && !ctx.host) {
		struct mc_host_opts ho = { .cgroup_root = ctx.cgroup_root,
					   .fake_version = ctx.fake_version };
		int r = mc_host_open(&ho, &ctx.host);

		if (r < 0) {
			mc_err("cannot find the memory cgroup controller%s%s: %s",
			       ctx.cgroup_root ? " in " : "", ctx.cgroup_root ? ctx.cgroup_root : "",
			       mc_strerror(r));
			return MC_EXIT_HOST;
		}
		own_host = true;
	}
	rc = cmd->exec(&ctx, argc, argv);
	if (own_host)
		mc_host_free(ctx.host);
	return rc;
}

int main(int argc, char **argv)
{
	struct mc_ctx ctx = {
		.prog = "memctl",
		.parent = "self",
		.state_dir = getenv("MEMCTL_STATE_DIR"),
		.cgroup_root = getenv("MEMCTL_CGROUP_ROOT"),
		.delay = 1.0,
		.out_f = stdout,
	};
	int rc;

	/*
	 * Snapshots keep a descriptor per cgroup file open; allow as many as
	 * the hard limit permits (systemd does the same).
	 */
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (!ctx.state_dir || !*ctx.state_dir)
		ctx.state_dir = "/run/memctl";
	if (getenv("MEMCTL_CGROUP_VERSION"))
		ctx.fake_version = atoi(getenv("MEMCTL_CGROUP_VERSION"));
	rc = mc_main(&ctx, argc, argv);
	if (fflush(stdout) != 0 && rc == 0) {
		mc_err("cannot write output: %s", mc_strerror(-errno));
		rc = MC_EXIT_HOST;
	}
	return rc;
}
