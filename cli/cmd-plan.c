#include "cmd.h"

static int cmd_plan_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct mc_out_opts *o = opts;
	struct mc_plan_req req = { .create = true };
	struct mc_profile p;
	struct mc_plan plan;
	int rc;

	if ((rc = mc_load_profile(ctx, argv[0], &p)) != 0)
		return rc;
	if ((rc = mc_policy_for_host(ctx, &req.pol)) != 0)
		goto out;
	rc = mc_make_plan(ctx, &p, &req, &plan);
	if (rc == 0) {
		mc_print_plan(ctx, o->out, &plan, "plan for");
		mc_plan_free(&plan);
	}
	mc_policy_free(req.pol);
out:
	mc_profile_free(&p);
	return rc;
}

const struct mc_cmd cmd_plan_entry = {
	.name = "plan",
	.args = "PROFILE",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEED_HOST,
	.summary = "show what apply would change, with the reason for each change",
	.help = "Each line: action, group, file, old -> new value, and the reason.\n"
		"'skip' lines are settings this host has no file for; apply reports them too.\n",
	.arg_complete = { MC_COMPLETE_PROFILE },
	.opts = (const struct mc_opt *const[]){ &mc_opt_output, &mc_opt_insecure_profile,
						&mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct mc_out_opts),
	.exec = cmd_plan_exec,
};
