#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* What `get` can show besides the knobs. */
#define GET_USAGE (-1)

static int parse_names(int argc, char **argv, int *ret, size_t *ret_n)
{
	size_t n = 0;

	for (int i = 0; i < argc; i++) {
		enum mc_knob k;

		if (strcmp(argv[i], "usage") == 0) {
			ret[n++] = GET_USAGE;
		} else if (mc_knob_lookup(argv[i], &k) == 0) {
			ret[n++] = (int)k;
		} else {
			const char *s = mc_knob_suggest(argv[i]);

			mc_err("unknown knob '%s'%s%s%s", argv[i], s ? ", did you mean '" : "",
			       s ? s : "", s ? "'?" : "");
			return -EINVAL;
		}
	}
	*ret_n = n;
	return 0;
}

static void print_value(struct mc_ctx *ctx, bool json, const struct mc_group_snap *g, int what,
			bool name, bool first)
{
	const struct mc_caps *caps = mc_host_caps(ctx->host);
	const char *label = what == GET_USAGE ? "usage" : mc_knob_info(what)->name;
	bool valid = what == GET_USAGE ? g->usage_valid : g->raw_valid[what];
	bool bad = g->bad & (what == GET_USAGE ? MC_BAD_USAGE : 1u << what);
	uint64_t v = 0;
	char buf[24];

	if (valid)
		v = what == GET_USAGE ? g->usage : mc_abstract_value(caps, what, g->raw);
	if (json) {
		fprintf(ctx->out_f, "%s\"%s\":", first ? "" : ",", label);
		if (valid)
			mc_json_size(ctx->out_f, v);
		else
			fputs("null", ctx->out_f);
		return;
	}
	if (name)
		fprintf(ctx->out_f, "%-*s ", mc_name_col(), label);
	if (valid)
		fprintf(ctx->out_f, "%s\n", mc_fmt_size(v, buf));
	else
		fprintf(ctx->out_f, "-%s\n", !name ? "" : bad ? "  (did not parse)"
							: "  (no such file on this host)");
}

static int cmd_get_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	bool json = ((const struct mc_out_opts *)opts)->out == MC_OUT_JSON;
	int names[64 + MC_KNOB__COUNT + 1];
	struct mc_snapshot snap = { 0 };
	size_t n = 0;
	char *abs;
	int r, rc = MC_EXIT_OK;

	if (argc - 1 > 64) {
		mc_err("too many knobs (at most 64)");
		return MC_EXIT_INVALID;
	}
	if (parse_names(argc - 1, argv + 1, names, &n) < 0)
		return MC_EXIT_INVALID;
	if (n == 0) {
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			names[n++] = k;
		names[n++] = GET_USAGE;
	}
	if ((rc = mc_resolve_group(ctx, argv[0], &abs)) != 0)
		return rc;
	r = mc_host_snapshot(ctx->host, abs, &snap);
	if (r < 0) {
		mc_err("cannot read group '%s': %s", abs, mc_strerror(r));
		free(abs);
		return r == -ENOENT ? MC_EXIT_INVALID : MC_EXIT_HOST;
	}
	mc_print_snapshot_notes(&snap);
	if (json) {
		fputs("{\"group\":", ctx->out_f);
		mc_json_str(ctx->out_f, abs);
		fputs(",\"knobs\":{", ctx->out_f);
	}
	for (size_t i = 0; i < n; i++)
		print_value(ctx, json, &snap.groups[0], names[i], n > 1, i == 0);
	if (json)
		fputs("}}\n", ctx->out_f);
	mc_snapshot_free(&snap);
	free(abs);
	return rc;
}

const struct mc_cmd cmd_get_entry = {
	.name = "get",
	.args = "GROUP [KNOB...]",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NEED_HOST,
	.summary = "show knobs of a group (all, or the ones named)",
	.help = "KNOB may also be usage. With one KNOB only its value is printed, for scripts.\n",
	.arg_complete = { MC_COMPLETE_GROUP, MC_COMPLETE_KNOB },
	.opts = (const struct mc_opt *const[]){ &mc_opt_parent, &mc_opt_output, &mc_opt_cgroup_root,
						NULL },
	.opts_size = sizeof(struct mc_out_opts),
	.exec = cmd_get_exec,
};
