#include <stddef.h>

#include "cmd.h"

struct apply_opts {
	bool prune;
};

static const struct mc_opt opt_prune = {
	"prune", 0, MC_OPT_FLAG, NULL,
	"also remove the empty groups memctl created that the profile no longer names",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct apply_opts, prune),
};

static int cmd_apply_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct apply_opts *o = opts;
	struct mc_plan_req req = { .create = true, .prune = o->prune };
	struct mc_profile p;
	int rc;

	if ((rc = mc_load_profile(ctx, argv[0], &p)) != 0)
		return rc;
	if ((rc = mc_policy_for_host(ctx, &req.pol)) == 0) {
		rc = mc_run_plan(ctx, &p, &req);
		mc_policy_free(req.pol);
	}
	mc_profile_free(&p);
	return rc;
}

const struct mc_cmd cmd_apply_entry = {
	.name = "apply",
	.args = "PROFILE",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEED_HOST,
	.summary = "apply a profile to the live cgroup tree, all or nothing",
	.help = "The previous value of every file is journaled before the first write; on any\n"
		"failure everything done is undone and the exit status is 1. --prune removes,\n"
		"in the same transaction, the groups memctl created below the parent that the\n"
		"profile no longer names, when they are empty; it says why it keeps the others.\n",
	.arg_complete = { MC_COMPLETE_PROFILE },
	.opts = (const struct mc_opt *const[]){ &opt_prune, &mc_opt_state_dir, &mc_opt_no_wait,
						&mc_opt_quiet, &mc_opt_insecure_profile,
						&mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct apply_opts),
	.exec = cmd_apply_exec,
};
