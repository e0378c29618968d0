#include <stddef.h>

#include "cmd.h"

struct plan_opts {
	struct mc_out_opts out;   /* first: -o's offset is that of struct mc_out_opts */
	bool prune;
};

static const struct mc_opt opt_prune = {
	"prune", 0, MC_OPT_FLAG, NULL,
	"also show what apply --prune would remove, and why it would keep groups",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct plan_opts, prune),
};

/* The removals of apply --prune: the record is read under the state lock. */
static int add_prune(struct mc_ctx *ctx, const struct mc_profile *p, struct mc_plan *plan)
{
	struct mc_lock *lock;
	int rc;

	if ((rc = mc_take_lock(ctx, &lock)) != 0)
		return rc;
	rc = mc_plan_add_prune(ctx, lock, p, plan);
	mc_lock_release(lock);
	return rc;
}

static int cmd_plan_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct plan_opts *o = opts;
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
		if (o->prune)
			rc = add_prune(ctx, &p, &plan);
		if (rc == 0)
			mc_print_plan(ctx, o->out.out, &plan, "plan for");
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
	.opts = (const struct mc_opt *const[]){ &mc_opt_output, &opt_prune, &mc_opt_state_dir,
						&mc_opt_insecure_profile, &mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct plan_opts),
	.exec = cmd_plan_exec,
};
