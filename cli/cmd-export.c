/*
 * memctl export: metrics of every group below the parent, once, in the
 * Prometheus text format (node_exporter's textfile collector) or as JSON,
 * on stdout or atomically into --file. With --profile the engine runs one
 * interval on the profile's parent, as `memctl run --dry-run` would, and
 * its working-set estimates and decisions are exported too; nothing is
 * written to the cgroups. The formats are the read model's (view/export.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "file.h"
#include "pipeline.h"

static void export_warn(void *arg, const char *msg)
{
	mc_err("%s", msg);
}

struct export_opts {
	enum mc_output out;
	const char *file;         /* --file FILE, or NULL: stdout */
	const char *profile;
};

/* One policy interval on the profile's parent; its decisions go to e. Exit code or 0. */
static int export_engine(struct mc_ctx *ctx, struct mc_export *e, const struct mc_profile *p,
			 struct mc_policy *pol)
{
	struct mc_pipeline_opts o = { .pol = pol };
	struct mc_pipeline pl;
	int r, rc = 0;

	r = mc_pipeline_run(ctx->host, p, &o, &pl);
	if (r < 0 && pl.failed < MC_STAGE_DECIDE) {
		rc = mc_report_pipeline(p, &pl, r);
		/* a profile whose parent is not there is the profile's problem */
		if (pl.failed == MC_STAGE_SNAPSHOT && r == -ENOENT)
			rc = MC_EXIT_INVALID;
	} else {
		if (pl.have_snap)
			mc_print_snapshot_notes(&pl.snap);
		/* policy problems do not stop the export: they are warnings, as in run */
		mc_print_diags(&pl.decide_diags);
		if (r == 0)
			r = mc_export_set_engine(e, pol, pl.parent);
		if (r == 0)
			r = mc_export_take_decisions(e, &pl.dec);
		if (r < 0) {
			mc_err("policy engine: %s", mc_strerror(r));
			rc = MC_EXIT_HOST;
		}
	}
	mc_pipeline_release(&pl);
	return rc;
}

static int cmd_export_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct export_opts *o = opts;
	enum mc_export_format f = o->out == MC_OUT_JSON ? MC_EXPORT_JSON : MC_EXPORT_PROM;
	struct mc_export *e = NULL;
	struct mc_policy *pol = NULL;
	struct mc_profile prof;
	bool have_prof = false;
	char *parent = NULL;
	const char *buf;
	size_t len;
	int rc = MC_EXIT_OK, r;

	if ((rc = mc_resolve_parent_opt(ctx, &parent)) != 0)
		return rc;
	r = mc_export_new(ctx->host, parent, export_warn, NULL, &e);
	if (r < 0) {
		mc_err("out of memory");
		free(parent);
		return MC_EXIT_HOST;
	}
	if (mc_export_set_state_dir(e, ctx->state_dir) < 0) {
		mc_err("out of memory");
		rc = MC_EXIT_HOST;
		goto out;
	}
	if (o->profile) {
		if ((rc = mc_load_profile(ctx, o->profile, &prof)) != 0)
			goto out;
		have_prof = true;
		if ((rc = mc_policy_for_host(ctx, &pol)) != 0)
			goto out;
		if ((rc = export_engine(ctx, e, &prof, pol)) != 0)
			goto out;
	}
	r = mc_export_refresh(e);
	if (r < 0) {
		mc_err("cannot read '%s': %s", parent, mc_strerror(r));
		rc = r == -ENOENT ? MC_EXIT_INVALID : MC_EXIT_HOST;
		goto out;
	}
	r = mc_export_render(e, f, &buf, &len);
	if (r == 0 && o->file)
		r = mc_file_replace(o->file, buf, len, MC_EXPORT_FILE_MODE);
	else if (r == 0 && fwrite(buf, 1, len, ctx->out_f) != len)
		r = -EIO;
	if (r < 0) {
		mc_err("cannot write metrics to '%s': %s", o->file ? o->file : "stdout",
		       mc_strerror(r));
		rc = MC_EXIT_HOST;
	}
out:
	mc_export_free(e);
	mc_policy_free(pol);
	if (have_prof)
		mc_profile_free(&prof);
	free(parent);
	return rc;
}

static const struct mc_opt export_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "prom (default: Prometheus text format) or json",
	MC_COMPLETE_WORDS, "prom json", false, offsetof(struct export_opts, out),
};
static const struct mc_opt export_opt_file = {
	"file", 'f', MC_OPT_STRING, "FILE", "replace FILE atomically instead of printing",
	MC_COMPLETE_FILE, NULL, false, offsetof(struct export_opts, file),
};
static const struct mc_opt export_opt_profile = {
	"profile", 0, MC_OPT_STRING, "FILE",
	"add the engine's working sets and decisions for FILE (nothing is written)",
	MC_COMPLETE_PROFILE, NULL, false, offsetof(struct export_opts, profile),
};

const struct mc_cmd cmd_export_entry = {
	.name = "export",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "metrics of the groups below the parent, for Prometheus or as JSON",
	.help = "The Prometheus text format is for node_exporter's textfile collector.\n"
		"memctl run --export FILE rewrites FILE every interval.\n",
	.opts = (const struct mc_opt *const[]){ &export_opt_output, &export_opt_file,
						&export_opt_profile, &mc_opt_parent,
						&mc_opt_insecure_profile, &mc_opt_cgroup_root,
						NULL },
	.opts_size = sizeof(struct export_opts),
	.opts_default = &(const struct export_opts){ .out = MC_OUT_PROM },
	.exec = cmd_export_exec,
};
