/* snapshot -> decide -> plan, once: see pipeline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* The note about groups whose files a snapshot reopens each time. 0 or -ENOMEM. */
static int note_uncached(struct mc_decisions *dec, const struct mc_snapshot *snap)
{
	char *note;

	if (!snap->uncached)
		return 0;
	note = mc_asprintf("%zu of %zu groups do not fit the %zu open files memctl keeps (half "
			   "the soft RLIMIT_NOFILE): their files are opened and closed again every "
			   "snapshot, which is slower", snap->uncached, snap->n, snap->fd_budget);
	return mc_decisions_add_note(dec, note);
}

/*
 * A property the profile asks for that this systemd lacks is a host
 * problem, not the profile's: -EOPNOTSUPP at stage UNITS, recorded.
 */
static int check_properties(struct mc_host *h, const struct mc_profile *p, struct mc_pipeline *pl)
{
	for (size_t i = 0; i < p->n_units; i++)
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			if (p->units[i].knob[k].kind != MC_SIZE_UNSET && mc_knob_unit_property(k) &&
			    !pl->units[i].prop_known[k]) {
				pl->failed_unit = i;
				return mc_host_bus_refuse(h, -EOPNOTSUPP, MC_BUS_TOO_OLD,
							  p->units[i].name, mc_knob_unit_property(k),
							  "this systemd has no such unit property");
			}
	return 0;
}

/* Reads the profile's units through systemd and appends their steps to the plan. */
static int plan_units(struct mc_host *h, const struct mc_profile *p, struct mc_pipeline *pl)
{
	struct mc_unit_state *st;
	int r = 0;

	if (!p->n_units)
		return 0;
	pl->units = calloc(p->n_units, sizeof(*pl->units));
	st = calloc(p->n_units, sizeof(*st));
	if (!pl->units || !st) {
		free(st);
		return -ENOMEM;
	}
	pl->failed = MC_STAGE_UNITS;
	for (size_t i = 0; i < p->n_units && r == 0; i++) {
		pl->failed_unit = i;
		r = mc_host_unit_read(h, p->units[i].name, &pl->units[i]);
		if (r < 0)
			break;
		pl->n_units++;
		st[i].name = p->units[i].name;
		memcpy(st[i].prop, pl->units[i].prop, sizeof(st[i].prop));
		memcpy(st[i].prop_known, pl->units[i].prop_known, sizeof(st[i].prop_known));
	}
	if (r == 0)
		r = check_properties(h, p, pl);
	if (r == 0) {
		pl->failed = MC_STAGE_PLAN;
		r = mc_plan_units(p, st, mc_host_caps(h), &pl->plan, &pl->plan_diags);
	}
	free(st);
	if (r < 0 && pl->failed == MC_STAGE_UNITS)
		pl->bus_err = mc_host_bus_error(h);
	return r;
}

int mc_pipeline_run(struct mc_host *h, const struct mc_profile *p,
		    const struct mc_pipeline_opts *o, struct mc_pipeline *ret)
{
	const struct mc_caps *caps = mc_host_caps(h);
	struct mc_plan_opts po = { .create = o->create };
	struct mc_snapshot *snap = &ret->snap;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->failed = MC_STAGE_RESOLVE;
	if (o->parent)
		r = (ret->parent = strdup(o->parent)) ? 0 : -ENOMEM;
	else
		r = mc_host_resolve_parent(h, p->parent, &ret->parent);
	if (r < 0)
		return r;
	ret->failed = MC_STAGE_SNAPSHOT;
	if ((r = mc_host_snapshot(h, ret->parent, snap)) < 0)
		return r;
	ret->have_snap = true;
	if (o->pol) {
		ret->failed = MC_STAGE_DECIDE;
		r = mc_policy_decide(o->pol, p, snap, caps, &ret->dec, &ret->decide_diags);
		if (r == 0)
			r = note_uncached(&ret->dec, snap);
		po.decisions = &ret->dec;
	}
	if (r == 0 && o->plan) {
		ret->failed = MC_STAGE_PLAN;
		/* with self resolved, the whole path of every group must fit */
		r = mc_profile_check_paths(p, strcmp(ret->parent, "/") == 0 ? 0 :
					   strlen(ret->parent), &ret->plan_diags);
		if (r > 0)
			return -EINVAL;
		if (r < 0)
			return r;
		r = mc_plan_build(p, snap, caps, &po, &ret->plan, &ret->plan_diags);
		ret->have_plan = r == 0;
		if (r == 0 && (r = plan_units(h, p, ret)) < 0) {
			mc_plan_free(&ret->plan);
			ret->have_plan = false;
		}
	}
	return r;
}

void mc_pipeline_release(struct mc_pipeline *pl)
{
	free(pl->parent);
	if (pl->have_snap)
		mc_snapshot_free(&pl->snap);
	mc_decisions_free(&pl->dec);
	mc_diags_free(&pl->decide_diags);
	mc_diags_free(&pl->plan_diags);
	if (pl->have_plan)
		mc_plan_free(&pl->plan);
	for (size_t i = 0; i < pl->n_units; i++)
		mc_unit_info_free(&pl->units[i]);
	free(pl->units);
	memset(pl, 0, sizeof(*pl));
}
