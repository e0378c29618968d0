/*
 * memctl set GROUP KNOB=VALUE...: a one-group profile built from the
 * arguments, run through the same validation, planner and transaction as
 * apply, except that the group must already exist.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static int parse_assignments(struct mc_group_spec *g, const char *abs, int argc, char **argv)
{
	int bad = 0;

	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *why;
		enum mc_knob k;
		char *name;

		if (!eq || eq == argv[i]) {
			mc_err("'%s': expected KNOB=VALUE", argv[i]);
			bad++;
			continue;
		}
		name = strndup(argv[i], (size_t)(eq - argv[i]));
		if (!name)
			return -ENOMEM;
		if (mc_knob_lookup(name, &k) < 0) {
			const char *s = mc_knob_suggest(name);

			mc_err("unknown knob '%s' for '%s'%s%s%s", name, abs, s ? ", did you mean '" : "",
			       s ? s : "", s ? "'?" : "");
			bad++;
		} else if (g->knob[k].kind != MC_SIZE_UNSET) {
			mc_err("knob '%s' given twice", mc_knob_info(k)->name);
			bad++;
		} else if (mc_size_parse(eq + 1, &g->knob[k], &why) < 0) {
			mc_err("cannot set %s on '%s': '%s' %s", mc_knob_info(k)->name, abs, eq + 1, why);
			bad++;
		} else if (mc_knob_info(k)->flag &&
			   (g->knob[k].kind != MC_SIZE_BYTES || g->knob[k].bytes > 1)) {
			mc_err("cannot set %s on '%s': it is a switch: 0 or 1, not '%s'",
			       mc_knob_info(k)->name, abs, eq + 1);
			bad++;
		}
		free(name);
	}
	return bad ? -EINVAL : 0;
}

static int cmd_set_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	struct mc_group_spec g = { .thp = -1 };
	struct mc_profile p = { .file = "(command line)", .version = 1 };
	struct mc_diags d = { 0 };
	char *abs = NULL, *slash;
	const char *why;
	int rc = MC_EXIT_INVALID, r;

	if ((rc = mc_resolve_group(ctx, argv[0], &abs)) != 0)
		return rc;
	rc = MC_EXIT_INVALID;
	slash = strrchr(abs, '/');
	if (!slash[1]) {
		mc_err("cannot set knobs of the root cgroup");
		goto out;
	}
	g.name = slash + 1;
	if (mc_group_name_check(g.name, &why) < 0) {
		mc_err("invalid group name '%s': %s", g.name, why);
		goto out;
	}
	r = parse_assignments(&g, abs, argc - 1, argv + 1);
	if (r == -ENOMEM) {
		mc_err("out of memory");
		rc = MC_EXIT_HOST;
	}
	if (r < 0)
		goto out;
	if (mc_group_check_order(p.file, abs, &g, NULL, &d) > 0) {
		mc_print_diags(&d);
		goto out;
	}
	p.parent = slash == abs ? strdup("/") : strndup(abs, (size_t)(slash - abs));
	if (!p.parent) {
		rc = MC_EXIT_HOST;
		goto out;
	}
	p.groups = &g;
	p.n_groups = 1;
	rc = mc_run_plan(ctx, &p, &(struct mc_plan_req){ .create = false });
	free(p.parent);
out:
	mc_diags_free(&d);
	free(abs);
	return rc;
}

const struct mc_cmd cmd_set_entry = {
	.name = "set",
	.args = "GROUP KNOB=VALUE...",
	.min_args = 2,
	.max_args = -1,
	.flags = CMD_NEED_HOST,
	.summary = "change knobs of one existing group, with apply's checks and rollback",
	.help = "VALUE: bytes, 512M, 2G, 25% of the parent's effective limit, or max.\n",
	.arg_complete = { MC_COMPLETE_GROUP, MC_COMPLETE_KNOB_SET },
	.opts = (const struct mc_opt *const[]){ &mc_opt_parent, &mc_opt_state_dir, &mc_opt_no_wait,
						&mc_opt_quiet, &mc_opt_cgroup_root, NULL },
	.exec = cmd_set_exec,
};
