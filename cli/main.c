/*
 * memctl's main(): the context from the environment, then the dispatcher
 * (memctl.c). Everything else of cli/ is a library, so that the fuzz
 * target of the shell's line parser links the same code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cmd.h"

/*
 * Snapshots keep a descriptor per cgroup file open; allow as many as the
 * hard limit permits (systemd does the same).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct mc_ctx ctx = {
		.prog = "memctl",
		.parent = "self",
		.state_dir = getenv("MEMCTL_STATE_DIR"),
		.cgroup_root = getenv("MEMCTL_CGROUP_ROOT"),
		.out_f = stdout,
	};
	int rc;

	raise_nofile();
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
