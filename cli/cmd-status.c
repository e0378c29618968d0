#include <string.h>

#include "cmd.h"

static const char *layout_name(enum mc_layout l)
{
	static const char *const names[] = {
		[MC_LAYOUT_V1] = "v1",
		[MC_LAYOUT_V2] = "v2",
		[MC_LAYOUT_HYBRID] = "hybrid",
		[MC_LAYOUT_FAKE] = "fake",
	};
	return l <= MC_LAYOUT_FAKE && names[l] ? names[l] : "unknown";
}

static const char *mech_name(enum mc_mech m)
{
	static const char *const names[] = {
		[MC_MECH_NATIVE] = "native",
		[MC_MECH_EMULATED] = "emulated",
		[MC_MECH_MISSING] = "missing",
	};
	return names[m];
}

/* Host features beyond the knobs, as (name, present, what it is for). */
struct feature {
	const char *name;
	bool present;
	const char *absent_means;
};

static void features(const struct mc_host_status *st, struct feature ret[3])
{
	ret[0] = (struct feature){ "pressure", st->psi,
				   "no PSI: pressure-triggered reclaim is not possible" };
	ret[1] = (struct feature){ "numa_stat", st->numa_stat,
				   "no per-node statistics: NUMA weights cannot be computed" };
	ret[2] = (struct feature){ "reclaim", st->reclaim,
				   "no memory.reclaim: reclaim is done by lowering the limit and restoring it" };
}

static void status_json(struct mc_ctx *ctx, const struct mc_host_status *st, bool journal)
{
	FILE *f = ctx->out_f;
	struct feature fe[3];

	fprintf(f, "{\"layout\":\"%s\",\"memory_version\":%d,\"memory_mount\":",
		layout_name(st->layout), st->memory_version);
	mc_json_str(f, st->memory_mount);
	fputs(",\"self\":", f);
	mc_json_str(f, st->self_path);
	fprintf(f, ",\"kernel_patch\":%s,\"patch_knobs\":[", st->patched ? "true" : "false");
	for (size_t i = 0; i < st->n_patch_files; i++) {
		fputs(i ? "," : "", f);
		mc_json_str(f, st->patch_files_found[i]);
	}
	fputs("],\"mounts\":[", f);
	for (size_t i = 0; i < st->n_mounts; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		mc_json_str(f, st->mounts[i].path);
		fputs(",\"type\":", f);
		mc_json_str(f, st->mounts[i].type);
		fputs(",\"options\":", f);
		mc_json_str(f, st->mounts[i].options);
		fputc('}', f);
	}
	fputs("],\"knobs\":{", f);
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		fprintf(f, "%s\"%s\":{\"mechanism\":\"%s\",\"how\":", k ? "," : "",
			mc_knob_info(k)->name, mech_name(st->knob[k].mech));
		mc_json_str(f, st->knob[k].how);
		fputc('}', f);
	}
	fputs("},\"features\":{", f);
	features(st, fe);
	for (int i = 0; i < 3; i++)
		fprintf(f, "%s\"%s\":%s", i ? "," : "", fe[i].name, fe[i].present ? "true" : "false");
	fprintf(f, "},\"cpus_online\":%d,\"numa_nodes\":%d,\"journal_pending\":%s}\n",
		st->cpus_online, st->numa_nodes, journal ? "true" : "false");
}

static int cmd_status_exec(struct mc_ctx *ctx, int argc, char **argv)
{
	const struct mc_host_status *st = mc_host_status(ctx->host);
	bool journal = mc_journal_exists(ctx->state_dir);
	FILE *f = ctx->out_f;
	struct feature fe[3];

	if (ctx->out == MC_OUT_JSON) {
		status_json(ctx, st, journal);
		return MC_EXIT_OK;
	}
	fprintf(f, "layout          %s\n", layout_name(st->layout));
	fprintf(f, "memory          cgroup v%d at %s\n", st->memory_version, st->memory_mount);
	fprintf(f, "self            %s\n", st->self_path);
	fprintf(f, "kernel patch    %s", st->patched ? "present:" : "not present");
	for (size_t i = 0; i < st->n_patch_files; i++)
		fprintf(f, " %s", st->patch_files_found[i]);
	fprintf(f, "\ncpus            %d online, %d NUMA node%s\n", st->cpus_online, st->numa_nodes,
		st->numa_nodes == 1 ? "" : "s");
	fprintf(f, "journal         %s\n",
		journal ? "PENDING: an apply was interrupted; run 'memctl rollback'" : "none");
	fputs("mounts\n", f);
	for (size_t i = 0; i < st->n_mounts; i++)
		fprintf(f, "  %-32s %-8s %s\n", st->mounts[i].path, st->mounts[i].type,
			st->mounts[i].options);
	fputs("knobs\n", f);
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		fprintf(f, "  %-11s %-9s %s\n", mc_knob_info(k)->name, mech_name(st->knob[k].mech),
			st->knob[k].how);
	fputs("features\n", f);
	features(st, fe);
	for (int i = 0; i < 3; i++) {
		if (fe[i].present)
			fprintf(f, "  %-11s yes\n", fe[i].name);
		else
			fprintf(f, "  %-11s no        %s\n", fe[i].name, fe[i].absent_means);
	}
	return MC_EXIT_OK;
}

const struct mc_cmd cmd_status_entry = {
	.name = "status",
	.args = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEED_HOST,
	.summary = "show the cgroup layout, mounts, and how each knob is carried out here",
	.help = "For every knob: native (the kernel has the file), emulated (memctl does it\n"
		"another way) or missing (reported, not applied).\n",
	.exec = cmd_status_exec,
};
