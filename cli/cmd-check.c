#include <unistd.h>

#include "cmd.h"

static size_t count_groups(const struct mc_group_spec *g, size_t n)
{
	size_t total = n;

	for (size_t i = 0; i < n; i++)
		total += count_groups(g[i].children, g[i].n_children);
	return total;
}

static int cmd_check_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	struct mc_profile p;
	int rc;

	struct mc_policy_config cfg = { .cpus = 1 };
	struct mc_diags d = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n;

	if ((rc = mc_load_profile(ctx, argv[0], &p)) != 0)
		return rc;
	/* THP gaps depend on the CPUs of the host the profile is checked on. */
	if (cpus > 0)
		cfg.cpus = (unsigned)cpus;
	n = mc_policy_check(&p, &cfg, &d);
	if (n != 0) {
		mc_print_diags(&d);
		mc_diags_free(&d);
		mc_profile_free(&p);
		return n < 0 ? MC_EXIT_HOST : MC_EXIT_INVALID;
	}
	mc_diags_free(&d);
	if (!ctx->quiet)
		fprintf(ctx->out_f, "%s: ok (%zu group%s, ", argv[0],
			count_groups(p.groups, p.n_groups),
			count_groups(p.groups, p.n_groups) == 1 ? "" : "s");
	if (!ctx->quiet && p.n_units)
		fprintf(ctx->out_f, "%zu unit%s, ", p.n_units, p.n_units == 1 ? "" : "s");
	if (!ctx->quiet)
		fprintf(ctx->out_f, "parent %s)\n", p.parent);
	mc_profile_free(&p);
	return MC_EXIT_OK;
}

const struct mc_cmd cmd_check_entry = {
	.name = "check",
	.args = "PROFILE",
	.min_args = 1,
	.max_args = 1,
	.summary = "validate a profile without touching the host",
	.help = "Every error is reported as FILE:LINE:COLUMN: KEY.PATH: problem.\n",
	.arg_complete = { MC_COMPLETE_PROFILE },
	.opts = (const struct mc_opt *const[]){ &mc_opt_quiet, &mc_opt_insecure_profile, NULL },
	.exec = cmd_check_exec,
};
