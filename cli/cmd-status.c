#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "procev.h"
#include "systemd.h"

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

#define N_FEATURES 5

/*
 * Whether the kernel's fork and exit events reach memctl (cgroup v1
 * only: they spare the task counts' reads of groups that hold processes,
 * host/subtree.c); why not into why.
 */
static bool task_events(char *why, size_t len)
{
	struct mc_procev *p;
	int r = mc_procev_open(&p);

	mc_procev_close(p);
	snprintf(why, len, "no fork and exit events from the kernel's proc connector (%s): "
		 "memctl record reads every group's task count each sample", strerror(-r));
	return r == 0;
}

/* The host's features; returns how many (task_events on a real v1 host only). */
static int features(const struct mc_host_status *st, struct feature ret[N_FEATURES])
{
	static char why[192];

	ret[0] = (struct feature){ "pressure", st->psi,
				   st->memory_version == MC_CGV1
				   ? "cgroup v1 has no per-group memory.pressure: pressure-triggered reclaim is not possible"
				   : "no memory.pressure: pressure-triggered reclaim is not possible" };
	ret[1] = (struct feature){ "host_pressure", st->host_psi,
				   "no /proc/pressure/memory (kernel without PSI, or psi=0): top shows no host pressure" };
	ret[2] = (struct feature){ "numa_stat", st->numa_stat,
				   "no per-node statistics: NUMA weights cannot be computed" };
	ret[3] = (struct feature){ "reclaim", st->reclaim,
				   "no memory.reclaim: reclaim is done by lowering the limit and restoring it" };
	if (st->memory_version != MC_CGV1 || st->layout == MC_LAYOUT_FAKE)
		return 4;
	ret[4].name = "task_events";
	ret[4].present = task_events(why, sizeof(why));
	ret[4].absent_means = why;
	return 5;
}

/*
 * How each reclaim policy reaches the kernel on this host: native (the
 * kernel does it), emulated (memctl run does it from user space), computed
 * (decided and shown, not enforceable here). Derived from the discovered
 * facts, as docs/ARCHITECTURE.md's table "Mechanism by host" says.
 */
struct policy_mech {
	const char *name;
	enum mc_mech mech;
	const char *how;
};

/* What a row of mech_rows needs of the host. */
enum { ON_V1 = 1, ON_V2 = 2, PATCHED = 4, RECLAIM = 8 };

/* Per policy, in order, the first row whose needs the host meets applies. */
static const struct {
	struct policy_mech pm;
	unsigned needs;
} mech_rows[] = {
	{ { "soft-limit", MC_MECH_NATIVE,
	    "memory.soft_limit_in_bytes; memctl run also reclaims groups above it first" }, ON_V1 },
	{ { "soft-limit", MC_MECH_NATIVE, "memory.soft_limit (memctl kernel patch orders reclaim)" },
	  PATCHED },
	{ { "soft-limit", MC_MECH_EMULATED,
	    "memory.low up to the soft limit + ordered reclaim by memctl run" }, 0 },
	{ { "active-set", MC_MECH_EMULATED,
	    "caps unprotected siblings' limit_in_bytes to leave the working set room" }, ON_V1 },
	{ { "active-set", MC_MECH_EMULATED, "memory.low = measured working set" }, 0 },
	{ { "thp-high", MC_MECH_EMULATED,
	    "no memory.high: memctl run reclaims above high, in 2M units for THP groups" }, ON_V1 },
	{ { "thp-high", MC_MECH_NATIVE,
	    "memory.high on 2M boundaries, with room for huge-page charges below max" }, 0 },
	{ { "numa", MC_MECH_NATIVE, "reclaim split per node with memory.reclaim nodes=" },
	  ON_V2 | PATCHED | RECLAIM },
	{ { "numa", MC_MECH_MISSING,
	    "per-node split computed and shown, cannot be enforced (needs memory.reclaim nodes=)" }, 0 },
	{ { "concurrency", MC_MECH_EMULATED,
	    "memctl's reclaimers capped; kernel cap on direct reclaimers available" }, PATCHED },
	{ { "concurrency", MC_MECH_EMULATED,
	    "memctl's own reclaimers capped at reclaim.concurrency; no kernel cap" }, 0 },
};

static void policy_mechs(const struct mc_host_status *st, struct policy_mech ret[5])
{
	unsigned has = (st->memory_version == MC_CGV1 ? ON_V1 : ON_V2) | (st->patched ? PATCHED : 0) |
		       (st->reclaim ? RECLAIM : 0);
	size_t n = 0;

	for (size_t i = 0; i < sizeof(mech_rows) / sizeof(mech_rows[0]) && n < 5; i++) {
		bool taken = n > 0 && strcmp(ret[n - 1].name, mech_rows[i].pm.name) == 0;

		if (!taken && (mech_rows[i].needs & has) == mech_rows[i].needs)
			ret[n++] = mech_rows[i].pm;
	}
}

/*
 * The parent status looks at: --profile FILE's parent, else -p (default
 * self), and who writes it by systemd's single-writer rule (host/systemd.c).
 * Warns on stderr when that is systemd without delegation.
 */
static int parent_check(struct mc_ctx *ctx, const char *profile, const char *group,
			char **ret_parent, struct mc_sd_check *ret)
{
	struct mc_profile p;
	const char *spec = ctx->parent;
	int r, rc;

	if (group) {
		if ((rc = mc_resolve_group(ctx, group, ret_parent)) != 0)
			return rc;
		if (!mc_host_group_exists(ctx->host, *ret_parent)) {
			mc_err("group '%s' does not exist", *ret_parent);
			free(*ret_parent);
			return MC_EXIT_INVALID;
		}
		r = 0;
	} else if (profile) {
		if ((rc = mc_load_profile(ctx, profile, &p)) != 0)
			return rc;
		spec = p.parent;
	}
	if (!group)
		r = mc_host_resolve_parent(ctx->host, spec, ret_parent);
	if (r < 0 && profile)
		mc_err("%s: parent: cannot resolve '%s': %s", profile, spec, mc_strerror(r));
	else if (r < 0)
		mc_err("invalid parent '%s' (-p, --parent): %s", spec, mc_resolve_why(r, false));
	else if ((r = mc_host_sd_check(ctx->host, *ret_parent, ret)) < 0) {
		mc_err("cannot check parent '%s' against systemd: %s", *ret_parent, mc_strerror(r));
		free(*ret_parent);
	}
	else if (ret->owner == MC_SD_UNDELEGATED || ret->owner == MC_SD_ROOT)
		mc_err("warning: systemd writes '%s' (%s): run memctl in a unit with Delegate=yes "
		       "and manage groups below its cgroup (see SYSTEMD in memctl(8))", *ret_parent,
		       ret->owner == MC_SD_ROOT ? "-.slice" : ret->unit);
	if (profile)
		mc_profile_free(&p);
	return r == -ENOMEM ? MC_EXIT_HOST : r < 0 ? MC_EXIT_INVALID : 0;
}

/* The unit that owns the cgroup, in one line. */
static void unit_text(FILE *f, const struct mc_sd_check *c)
{
	fputs("unit            ", f);
	if (c->owner == MC_SD_ROOT)
		fputs("-.slice (the root cgroup): systemd writes it\n", f);
	else if (!c->unit)
		fputs("none: no systemd unit's cgroup holds it\n", f);
	else
		fprintf(f, "%s (%s): %s\n", c->unit, c->unit_cgroup,
			c->owner == MC_SD_DELEGATED ? "delegated, its processes write the groups below it" :
			c->owner == MC_SD_UNDELEGATED ? "systemd writes it (no delegation)" :
			"its delegation could not be read");
}

/* Three lines: the parent (or GROUP), who writes it, and the unit that owns it. */
static void parent_text(FILE *f, const char *parent, bool group, const struct mc_sd_check *c)
{
	fputs(group ? "group           " : "parent          ", f);
	mc_text_str(f, parent);
	fputc('\n', f);
	fprintf(f, "systemd         %s; ", c->systemd_running ? "running" : "not running");
	switch (c->owner) {
	case MC_SD_FOREIGN:
		fprintf(f, "the %s is in no systemd unit's cgroup\n", group ? "group" : "parent");
		break;
	case MC_SD_DELEGATED:
		fprintf(f, "the %s is in %s, delegated (%s)\n", group ? "group" : "parent", c->unit,
			c->marker);
		break;
	case MC_SD_ROOT:
	case MC_SD_UNDELEGATED:
		if (c->owner == MC_SD_ROOT)
			fprintf(f, "warning: the %s is the root cgroup, systemd's -.slice\n",
				group ? "group" : "parent");
		else
			fprintf(f, "warning: the %s is in %s, which systemd manages without "
				   "delegation\n", group ? "group" : "parent", c->unit);
		break;
	case MC_SD_UNKNOWN:
		fprintf(f, "the %s is in %s; its delegation marker could not be read (%s)\n",
			group ? "group" : "parent", c->unit, c->probed ? c->probed : "nothing probed");
		break;
	}
	unit_text(f, c);
}

static void json_str_or_null(FILE *f, const char *s)
{
	if (s)
		mc_json_str(f, s);
	else
		fputs("null", f);
}

static void parent_json(FILE *f, const char *parent, bool group, const struct mc_sd_check *c)
{
	fputs(group ? ",\"group\":" : ",\"parent\":", f);
	mc_json_str(f, parent);
	fprintf(f, ",\"systemd\":{\"running\":%s,\"owner\":\"%s\",\"warning\":%s,\"unit\":",
		c->systemd_running ? "true" : "false", mc_sd_owner_name(c->owner),
		c->owner == MC_SD_UNDELEGATED || c->owner == MC_SD_ROOT ? "true" : "false");
	json_str_or_null(f, c->unit);
	fputs(",\"unit_cgroup\":", f);
	json_str_or_null(f, c->unit_cgroup);
	fputs(",\"marker\":", f);
	json_str_or_null(f, c->marker);
	fputs(",\"probed\":", f);
	json_str_or_null(f, c->probed);
	fputc('}', f);
}

static void status_json(struct mc_ctx *ctx, const struct mc_host_status *st, bool journal,
			const char *parent, bool group, const struct mc_sd_check *sd)
{
	FILE *f = ctx->out_f;
	struct feature fe[N_FEATURES];
	int nf;

	fprintf(f, "{\"layout\":\"%s\",\"memory_version\":%d,\"memory_mount\":",
		layout_name(st->layout), st->memory_version);
	mc_json_str(f, st->memory_mount);
	fputs(",\"self\":", f);
	mc_json_str(f, st->self_path);
	parent_json(f, parent, group, sd);
	fprintf(f, ",\"kernel_patch\":%s,\"patch_knobs\":[", st->patched ? "true" : "false");
	for (size_t i = 0; i < st->n_patch_files; i++) {
		fputs(i ? "," : "", f);
		mc_json_str(f, st->patch_files_found[i]);
	}
	fprintf(f, "],\"knobs_deduced\":%s,\"mounts\":[", st->knobs_deduced ? "true" : "false");
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
	fputs("},\"policies\":{", f);
	{
		struct policy_mech pm[5];

		policy_mechs(st, pm);
		for (int i = 0; i < 5; i++) {
			fprintf(f, "%s\"%s\":{\"mechanism\":\"%s\",\"how\":", i ? "," : "",
				pm[i].name, mech_name(pm[i].mech));
			mc_json_str(f, pm[i].how);
			fputc('}', f);
		}
	}
	fputs("},\"features\":{", f);
	nf = features(st, fe);
	for (int i = 0; i < nf; i++)
		fprintf(f, "%s\"%s\":%s", i ? "," : "", fe[i].name, fe[i].present ? "true" : "false");
	fprintf(f, "},\"cpus_online\":%d,\"numa_nodes\":%d,\"journal_pending\":%s}\n",
		st->cpus_online, st->numa_nodes, journal ? "true" : "false");
}

struct status_opts {
	enum mc_output out;
	const char *profile;
};

/* The journal line: what a pending journal says happened, and what to do. */
static void journal_text(FILE *f, const struct mc_pending *p)
{
	const char *what = p->reclaim ? "a v1 reclaim" : "an apply";

	fputs("journal         ", f);
	switch (p->kind) {
	case MC_PENDING_NONE:
		fputs("none\n", f);
		break;
	case MC_PENDING_RUNNING:
		fprintf(f, "%s by pid %ld is in progress\n", what, p->pid);
		break;
	case MC_PENDING_INTERRUPTED:
		fprintf(f, "PENDING: %s (pid %ld) was interrupted before it finished; run "
			"'memctl rollback'\n", what, p->pid);
		break;
	case MC_PENDING_FAILED:
		fprintf(f, "PENDING: %s (pid %ld) failed and %s; fix the cause and run "
			"'memctl rollback'\n", what, p->pid, p->text);
		break;
	case MC_PENDING_UNREADABLE:
		fprintf(f, "PENDING, but unusable: %s; rollback refuses it\n", p->text);
		break;
	}
}

/* The text tables of how this host does each thing: mounts, knobs, policies, features. */
static void tables_text(FILE *f, const struct mc_host_status *st)
{
	struct policy_mech pm[5];
	struct feature fe[N_FEATURES];
	int nf;

	fputs("mounts\n", f);
	for (size_t i = 0; i < st->n_mounts; i++)
		fprintf(f, "  %-32s %-8s %s\n", st->mounts[i].path, st->mounts[i].type,
			st->mounts[i].options);
	fputs("knobs\n", f);
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		fprintf(f, "  %-*s %-9s %s\n", mc_name_col(), mc_knob_info(k)->name, mech_name(st->knob[k].mech),
			st->knob[k].how);
	fputs("policies (memctl run)\n", f);
	policy_mechs(st, pm);
	for (int i = 0; i < 5; i++)
		fprintf(f, "  %-*s %-9s %s\n", mc_name_col(), pm[i].name, mech_name(pm[i].mech),
			pm[i].how);
	fputs("features\n", f);
	nf = features(st, fe);
	for (int i = 0; i < nf; i++) {
		if (fe[i].present)
			fprintf(f, "  %-*s yes\n", mc_name_col(), fe[i].name);
		else
			fprintf(f, "  %-*s no        %s\n", mc_name_col(), fe[i].name, fe[i].absent_means);
	}
}

static int cmd_status_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct status_opts *o = opts;
	const struct mc_host_status *st = mc_host_status(ctx->host);
	struct mc_pending pend;
	bool journal;
	FILE *f = ctx->out_f;
	struct mc_sd_check sd;
	char *parent;
	int rc;

	if (mc_journal_pending(ctx->state_dir, &pend) < 0) {
		mc_err("out of memory");
		return MC_EXIT_HOST;
	}
	journal = pend.kind != MC_PENDING_NONE;
	if (argc && o->profile) {
		mc_err("status: GROUP and --profile both name what to check; give one");
		mc_pending_free(&pend);
		return MC_EXIT_INVALID;
	}
	if ((rc = parent_check(ctx, o->profile, argc ? argv[0] : NULL, &parent, &sd)) != 0) {
		mc_pending_free(&pend);
		return rc;
	}
	if (o->out == MC_OUT_JSON) {
		status_json(ctx, st, journal, parent, argc > 0, &sd);
		mc_pending_free(&pend);
		free(parent);
		mc_sd_check_free(&sd);
		return MC_EXIT_OK;
	}
	fprintf(f, "layout          %s\n", layout_name(st->layout));
	fprintf(f, "memory          cgroup v%d at %s\n", st->memory_version, st->memory_mount);
	fputs("self            ", f);
	mc_text_str(f, st->self_path);
	fputc('\n', f);
	parent_text(f, parent, argc > 0, &sd);
	free(parent);
	mc_sd_check_free(&sd);
	fprintf(f, "kernel patch    %s", st->patched ? "present:" : "not present");
	for (size_t i = 0; i < st->n_patch_files; i++)
		fprintf(f, " %s", st->patch_files_found[i]);
	if (st->knobs_deduced)
		fputs("\nknob files      deduced from the kernel: no group has the memory "
		      "controller enabled yet", f);
	fprintf(f, "\ncpus            %d online, %d NUMA node%s\n", st->cpus_online, st->numa_nodes,
		st->numa_nodes == 1 ? "" : "s");
	journal_text(f, &pend);
	mc_pending_free(&pend);
	tables_text(f, st);
	return MC_EXIT_OK;
}

static const struct mc_opt status_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "text (default) or json",
	MC_COMPLETE_WORDS, "text json", false, offsetof(struct status_opts, out),
};
static const struct mc_opt status_opt_profile = {
	"profile", 0, MC_OPT_STRING, "FILE", "say who writes FILE's parent (systemd's single writer)",
	MC_COMPLETE_PROFILE, NULL, false, offsetof(struct status_opts, profile),
};

const struct mc_cmd cmd_status_entry = {
	.name = "status",
	.args = "[GROUP]",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NEED_HOST,
	.summary = "show the cgroup layout, mounts, and how each knob is carried out here",
	.help = "For every knob: native (the kernel has the file), emulated (memctl does it\n"
		"another way) or missing (reported, not applied).\n"
		"Also who writes the parent (-p, or --profile FILE's parent; or GROUP) by\n"
		"systemd's single-writer rule, and the systemd unit that owns it: a warning\n"
		"when systemd manages it without delegation.\n",
	.arg_complete = { MC_COMPLETE_GROUP },
	.opts = (const struct mc_opt *const[]){ &status_opt_output, &status_opt_profile,
						&mc_opt_parent, &mc_opt_state_dir,
						&mc_opt_insecure_profile, &mc_opt_cgroup_root, NULL },
	.opts_size = sizeof(struct status_opts),
	.exec = cmd_status_exec,
};
