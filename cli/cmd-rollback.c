#include <errno.h>
#include <stdlib.h>

#include "cmd.h"

/* Says why rollback stopped, and what to do about it. */
static void rollback_error(struct mc_ctx *ctx, struct mc_lock *lock, int r,
			   const struct mc_txn_result *res)
{
	const char *j = res->bad_journal ? res->bad_journal : "journal";

	if (r == -EPERM && mc_lock_why(lock))
		mc_err("refusing '%s/%s': %s; nothing was restored", ctx->state_dir, j,
		       mc_lock_why(lock));
	else if (r == -EBADMSG)
		mc_err("'%s/%s' line %u: not a journal memctl wrote, or a record outside its "
		       "parent; nothing was restored", ctx->state_dir, j, res->bad_line);
	else if (r == -EWOULDBLOCK)
		mc_err("another memctl (pid %ld) is changing the groups or units the journal '%s/%s' names; "
		       "nothing was restored", res->lock_holder, ctx->state_dir, j);
	else if (res->rollback_what && res->rollback_bus.fail != MC_BUS_OK) {
		char *why = mc_bus_error_text(&res->rollback_bus);

		mc_err("cannot restore %s: %s", res->rollback_what, why ? why : mc_strerror(r));
		free(why);
	} else if (res->rollback_what)
		mc_err("cannot restore %s: %s", res->rollback_what, mc_strerror(r));
	else
		mc_err("cannot roll back from '%s/%s': %s", ctx->state_dir, j, mc_strerror(r));
	mc_err("the journal is kept; fix the cause and run 'memctl rollback' again");
}

static int cmd_rollback_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	struct mc_txn_result res;
	struct mc_lock *lock;
	size_t restored;
	bool found;
	int rc, r;

	if ((rc = mc_take_lock(ctx, &lock)) != 0)
		return rc;
	r = mc_txn_rollback(ctx->host, lock, &found, &restored, &res);
	if (r < 0) {
		rollback_error(ctx, lock, r, &res);
		/* A journal refused or unreadable before any write changed nothing. */
		rc = res.undone == 0 && res.rollback_err == 0 ? MC_EXIT_HOST : MC_EXIT_PARTIAL;
	}
	if (res.left_alone)
		mc_err("kept %zu value%s changed since the interrupted apply by someone else "
		       "(%s): rollback undoes only what that apply wrote", res.left_alone,
		       res.left_alone == 1 ? "" : "s", res.left_what ? res.left_what : "?");
	if (r == 0 && !ctx->quiet) {
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
		"and removes the groups it created. Journals are checked first: a journal\n"
		"that is not memctl's, or names a group outside the parent it records, is\n"
		"refused and nothing is written.\n",
	.opts = (const struct mc_opt *const[]){ &mc_opt_state_dir, &mc_opt_no_wait, &mc_opt_quiet,
						&mc_opt_cgroup_root, NULL },
	.exec = cmd_rollback_exec,
};
