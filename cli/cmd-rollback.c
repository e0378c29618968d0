#include "cmd.h"

static int cmd_rollback_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	struct mc_txn_result res;
	struct mc_lock *lock;
	size_t restored;
	bool found;
	int rc, r;

	if ((rc = mc_take_lock(ctx, &lock)) != 0)
		return rc;
	r = mc_txn_rollback(ctx->host, lock, ctx->state_dir, &found, &restored, &res);
	if (r < 0) {
		if (res.rollback_what)
			mc_err("cannot restore %s: %s", res.rollback_what, mc_strerror(r));
		else
			mc_err("cannot roll back from '%s/journal': %s", ctx->state_dir, mc_strerror(r));
		mc_err("the journal is kept; fix the cause and run 'memctl rollback' again");
		rc = MC_EXIT_PARTIAL;
	} else if (!ctx->quiet) {
		if (!found)
			fprintf(ctx->out_f, "nothing to roll back\n");
		else
			fprintf(ctx->out_f, "rolled back the interrupted apply: %zu change%s undone\n",
				restored, restored == 1 ? "" : "s");
	}
	mc_txn_result_release(&res);
	mc_lock_release(lock);
	return rc;
}

const struct mc_cmd cmd_rollback_entry = {
	.name = "rollback",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "undo an apply that was interrupted (killed, crashed, power lost)",
	.help = "Restores every file the interrupted apply journaled to its previous value\n"
		"and removes the groups it created.\n",
	.opts = (const struct mc_opt *const[]){ &mc_opt_state_dir, &mc_opt_no_wait, &mc_opt_quiet,
						&mc_opt_cgroup_root, NULL },
	.exec = cmd_rollback_exec,
};
