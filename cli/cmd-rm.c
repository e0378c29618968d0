/*
 * memctl rm GROUP: removes one empty group, as a journaled step of a
 * transaction, so that a removal interrupted or undone puts the group back
 * with its settings. A group that still holds tasks or child groups is
 * kept, and the message says how many.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "proc-read.h"

/*
 * Says why the group at s (a snapshot of it alone) cannot be removed, or
 * returns 0 when it is empty.
 */
static int check_empty(struct mc_ctx *ctx, const char *abs, const struct mc_snapshot *s)
{
	size_t tasks = 0;
	int r;

	if (s->n > 1) {
		mc_err("cannot remove '%s': it has %zu group%s below it (such as '%s'); remove %s "
		       "first", abs, s->n - 1, s->n == 2 ? "" : "s", s->groups[1].path,
		       s->n == 2 ? "it" : "them");
		return MC_EXIT_HOST;
	}
	if ((r = mc_host_group_nprocs(ctx->host, abs, &tasks)) < 0) {
		mc_err("cannot read the tasks of '%s' (cgroup.procs): %s", abs, mc_strerror(r));
		return MC_EXIT_HOST;
	}
	if (tasks) {
		mc_err("cannot remove '%s': it holds %zu task%s; move %s out (memctl exec, "
		       "cgroup.procs) or end %s first", abs, tasks, tasks == 1 ? "" : "s",
		       tasks == 1 ? "it" : "them", tasks == 1 ? "it" : "them");
		return MC_EXIT_HOST;
	}
	return 0;
}

/* Whether memctl created the group at abs (the record names it, same identity). */
static int was_created(struct mc_ctx *ctx, struct mc_lock *lock, const char *abs,
		       bool *ret)
{
	const struct mc_created_group *g;
	struct mc_created c;
	uint64_t id;
	int r;

	if ((r = mc_state_created_read(lock, &c)) < 0) {
		mc_state_refused(lock, r, ctx);
		return MC_EXIT_HOST;
	}
	g = mc_created_find(&c, abs);
	*ret = g && mc_host_group_id(ctx->host, abs, &id) == 0 && id == g->id;
	mc_created_free(&c);
	return 0;
}

/* Under the lock: checks the group and removes it. An exit code. */
static int remove_locked(struct mc_ctx *ctx, struct mc_lock *lock, const char *abs,
			 const char *parent)
{
	struct mc_plan plan = { 0 };
	struct mc_snapshot s = { 0 };
	bool created = false;
	int rc, r;

	r = mc_host_snapshot(ctx->host, abs, &s);
	if (r == -ENOENT) {
		mc_err("group '%s' does not exist", abs);
		return MC_EXIT_INVALID;
	}
	if (r < 0) {
		mc_err("cannot read group '%s': %s", abs, mc_strerror(r));
		return MC_EXIT_HOST;
	}
	if ((rc = check_empty(ctx, abs, &s)) != 0 || (rc = was_created(ctx, lock, abs, &created)))
		goto out;
	rc = MC_EXIT_HOST;
	if (!(plan.parent = strdup(parent)) ||
	    mc_plan_add_remove(&plan, strrchr(abs, '/') + 1, &s.groups[0], created,
			       "memctl rm") < 0) {
		mc_err("out of memory");
		goto out;
	}
	rc = mc_run_writes(ctx, lock, &plan);
	if (rc == MC_EXIT_OK && !ctx->quiet) {
		fputs("removed ", ctx->out_f);
		mc_text_str(ctx->out_f, abs);
		fputc('\n', ctx->out_f);
	}
out:
	mc_plan_free(&plan);
	mc_snapshot_free(&s);
	return rc;
}

static int cmd_rm_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	struct mc_lock *lock;
	char *abs = NULL, *parent = NULL, *slash;
	const char *why;
	int rc;

	if ((rc = mc_resolve_group(ctx, argv[0], &abs)) != 0)
		return rc;
	rc = MC_EXIT_INVALID;
	slash = strrchr(abs, '/');
	if (!slash[1]) {
		mc_err("cannot remove the root cgroup");
		goto out;
	}
	if (mc_group_name_check(slash + 1, &why) < 0) {
		mc_err("invalid group name '%s': %s", slash + 1, why);
		goto out;
	}
	parent = slash == abs ? strdup("/") : strndup(abs, (size_t)(slash - abs));
	if (!parent) {
		rc = MC_EXIT_HOST;
		goto out;
	}
	if ((rc = mc_lock_for_change(ctx, parent, &lock)) != 0)
		goto out;
	rc = remove_locked(ctx, lock, abs, parent);
	mc_lock_release(lock);
out:
	free(parent);
	free(abs);
	return rc;
}

const struct mc_cmd cmd_rm_entry = {
	.name = "rm",
	.args = "GROUP",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEED_HOST,
	.summary = "remove an empty group, journaled: rollback recreates it",
	.help = "A group that holds tasks or child groups is kept (exit status 3), and the\n"
		"message says how many.\n",
	.arg_complete = { MC_COMPLETE_GROUP },
	.opts = (const struct mc_opt *const[]){ &mc_opt_parent, &mc_opt_state_dir, &mc_opt_no_wait,
						&mc_opt_quiet, &mc_opt_cgroup_root, NULL },
	.exec = cmd_rm_exec,
};
