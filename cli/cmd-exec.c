/*
 * memctl exec GROUP [--] COMMAND [ARGS...]: runs COMMAND in GROUP, as
 * cgexec and systemd-run --scope do.
 *
 * memctl moves itself into the group (one write of its own PID to the
 * group's cgroup.procs) and only then execs COMMAND, so the command is in
 * the group from its first instruction and is the same process: its PID,
 * its signals and its exit status are the command's own, and no memctl
 * waits beside it. GROUP follows the rules of set: relative to -p PARENT
 * or absolute, walked one component at a time without following symbolic
 * links, no "." or "..", a last name without control characters, and it
 * must exist (exec creates nothing: a profile does that).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "cmd.h"

/* Why the write of our PID to cgroup.procs failed, for people. */
static const char *move_why(const struct mc_ctx *ctx, int r)
{
	const struct mc_host_status *st = mc_host_status(ctx->host);

	if (r == -EBUSY && st->memory_version == MC_CGV2)
		return "on cgroup v2 a group that enables controllers for its children holds no "
		       "processes; run the command in one of its leaf groups";
	if ((r == -EACCES || r == -EPERM) && geteuid() != 0)
		return "moving a process into a group needs root, or write access to its "
		       "cgroup.procs and to that of the common ancestor";
	return mc_strerror(r);
}

/*
 * Checks that GROUP (absolute: abs) names an existing group memctl may put
 * a process in. Says what is wrong; 0 or an exit code.
 */
static int check_group(struct mc_ctx *ctx, const char *arg, const char *abs)
{
	const char *slash = strrchr(abs, '/'), *why;
	uint64_t v;
	int r;

	if (!slash[1]) {
		mc_err("cannot exec in the root cgroup: name a group below it");
		return MC_EXIT_INVALID;
	}
	if (mc_group_name_check(slash + 1, &why) < 0) {
		mc_err("invalid group name '%s': %s", slash + 1, why);
		return MC_EXIT_INVALID;
	}
	if (!mc_host_group_exists(ctx->host, abs)) {
		mc_err("group '%s' does not exist (or a part of its path is not a group "
		       "directory); create it with a profile that names it ('memctl apply "
		       "PROFILE'), then run 'memctl exec %s -- COMMAND'", abs, arg);
		return MC_EXIT_INVALID;
	}
	r = mc_host_read_knob(ctx->host, abs, MC_KNOB_MAX, &v);
	if (r == -ENOENT) {
		mc_err("group '%s' has no memory controller: its parent does not enable memory "
		       "for its children (cgroup.subtree_control)", abs);
		return MC_EXIT_HOST;
	}
	return 0;
}

/* Signals as a fresh process has them: memctl blocks some while it waits. */
static void reset_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
}

static int cmd_exec_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	char *abs = NULL, pid[24];
	int rc, r, err;

	if (ctx->depth > 0) {
		mc_err("exec replaces the memctl process with the command, so the shell does not "
		       "run it; run 'memctl exec GROUP -- COMMAND' from your own shell");
		return MC_EXIT_INVALID;
	}
	if ((rc = mc_resolve_group(ctx, argv[0], &abs)) != 0)
		return rc;
	if ((rc = check_group(ctx, argv[0], abs)) != 0) {
		free(abs);
		return rc;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	r = mc_host_write_text(ctx->host, abs, "cgroup.procs", pid);
	if (r < 0) {
		mc_err("cannot move memctl into '%s' (cgroup.procs): %s; the command was not run",
		       abs, move_why(ctx, r));
		free(abs);
		return MC_EXIT_HOST;
	}
	free(abs);
	fflush(NULL);
	reset_signals();
	execvp(argv[1], argv + 1);
	err = errno;
	mc_err("cannot run '%s': %s", argv[1], strerror(err));
	return err == ENOENT ? MC_EXIT_NOT_FOUND : MC_EXIT_CANNOT_RUN;
}

const struct mc_cmd cmd_exec_entry = {
	.name = "exec",
	.args = "GROUP -- CMD [ARG...]",
	.min_args = 2,
	.max_args = -1,
	.opts_end_after = 2,
	.flags = CMD_NEED_HOST,
	.summary = "run a command in an existing group (as cgexec does)",
	.help = "memctl moves itself into GROUP, then becomes CMD: the exit status is the\n"
		"command's; 2 or 3 when memctl cannot put it in the group (nothing was run),\n"
		"127 when CMD is not found, 126 when it cannot be run. Every word after CMD\n"
		"is the command's, options included; '--' is needed only before a CMD that\n"
		"starts with '-'.\n",
	.arg_complete = { MC_COMPLETE_GROUP, MC_COMPLETE_COMMAND, MC_COMPLETE_FILE },
	.opts = (const struct mc_opt *const[]){ &mc_opt_parent, &mc_opt_cgroup_root, NULL },
	.exec = cmd_exec_exec,
};
