/* snapshot -> decide -> plan, once: see pipeline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "pipeline.h"

/* The note about groups whose files a snapshot reopens each time. 0 or -ENOMEM. */
static int note_uncached(struct mc_decisions *dec, const struct mc_snapshot *snap)
{
	char *note;

	if (!snap->uncached)
		return 0;
	note = mc_asprintf("%zu of %zu groups do not fit the %zu open files memctl keeps (the soft "
			   "RLIMIT_NOFILE but 1024): their files are opened and closed again every "
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

/*
 * The policies on units. A unit lives wherever systemd put it, so the
 * policies run once per parent cgroup of the profile's units (a slice), on
 * a snapshot of that parent, with a profile whose groups are the units
 * there under their cgroup names, and with state of their own per parent
 * (mc_policy_child), so that the profile's own groups keep theirs. The
 * decisions then reach the units through the unit planner, as settings
 * through systemd and reclaims in the unit's cgroup.
 */
struct unit_parent {
	char *path;                  /* the parent cgroup */
	struct mc_decisions dec;
	bool missing;                /* not in the memory hierarchy: no decisions */
};

/* The last component of an absolute cgroup path (not the root). */
static const char *cgroup_base(const char *cg)
{
	const char *s = strrchr(cg, '/');

	return s && s[1] ? s + 1 : NULL;
}

/* Runs the policies for the units of p below parent par (those whose cgroup lies there). */
static int decide_parent(struct mc_host *h, const struct mc_profile *p, struct mc_policy *pol,
			 struct mc_pipeline *pl, struct unit_parent *par)
{
	struct mc_profile sp = *p;
	struct mc_snapshot snap;
	struct mc_policy *kid;
	size_t plen = strlen(par->path);
	int r;

	sp.parent = par->path;
	sp.units = NULL;
	sp.n_units = 0;
	sp.n_groups = 0;
	if (!(sp.groups = calloc(p->n_units, sizeof(*sp.groups))))
		return -ENOMEM;
	for (size_t i = 0; i < pl->n_units; i++) {
		const char *cg = pl->units[i].cgroup, *base = cg && *cg ? cgroup_base(cg) : NULL;

		if (!base || (size_t)(base - cg) != (plen > 1 ? plen + 1 : 1) ||
		    strncmp(cg, par->path, plen) != 0)
			continue;
		sp.groups[sp.n_groups] = p->units[i];
		sp.groups[sp.n_groups].name = (char *)base;
		sp.n_groups++;
	}
	r = mc_policy_child(pol, par->path, &kid);
	if (r == 0 && (r = mc_host_snapshot(h, par->path, &snap)) == 0) {
		r = mc_policy_decide(kid, &sp, &snap, mc_host_caps(h), &par->dec, &pl->decide_diags);
		mc_snapshot_free(&snap);
	}
	free(sp.groups);
	for (size_t i = 0; r == 0 && i < par->dec.n_notes; i++) {
		char *n = strdup(par->dec.notes[i]);

		r = n ? mc_decisions_add_note(&pl->dec, n) : -ENOMEM;
	}
	return r;
}

/* The parent of unit i's cgroup, added to pl->unit_parents if new; its index. */
static int unit_parent_of(struct mc_pipeline *pl, size_t i, size_t *ret)
{
	const char *cg = pl->units[i].cgroup, *base = cgroup_base(cg);
	size_t len = base - cg > 1 ? (size_t)(base - cg) - 1 : 1;
	struct unit_parent *par;

	for (size_t k = 0; k < pl->n_unit_parents; k++)
		if (strlen(pl->unit_parents[k].path) == len &&
		    strncmp(pl->unit_parents[k].path, cg, len) == 0) {
			*ret = k;
			return 0;
		}
	par = &pl->unit_parents[pl->n_unit_parents];
	memset(par, 0, sizeof(*par));
	if (!(par->path = strndup(cg, len)))
		return -ENOMEM;
	*ret = pl->n_unit_parents++;
	return 0;
}

/*
 * The settled decisions of unit i (in its parent's decisions, under its
 * cgroup's name), added to pl->dec as the unit's, under the profile's name
 * for it, so that run reports a unit's convergence as a group's.
 */
static int add_unit_settled(struct mc_pipeline *pl, const struct mc_profile *p, size_t i,
			    const struct mc_decisions *dec)
{
	const char *base = cgroup_base(pl->units[i].cgroup);

	for (size_t k = 0; k < dec->n_settled; k++) {
		struct mc_settled *out;

		if (strcmp(dec->settled[k].group, base) != 0)
			continue;
		if (mc_array_reserve(&pl->dec.settled, &pl->dec.cap_settled, pl->dec.n_settled + 1,
				     sizeof(*pl->dec.settled)) < 0)
			return -ENOMEM;
		out = &pl->dec.settled[pl->dec.n_settled];
		*out = dec->settled[k];
		out->unit = true;
		if (!(out->group = strdup(p->units[i].name)))
			return -ENOMEM;
		pl->dec.n_settled++;
	}
	return 0;
}

/* Fills st[i].dec / .group / .no_policy for every unit, deciding per parent. */
static int decide_units(struct mc_host *h, const struct mc_profile *p, struct mc_policy *pol,
			struct mc_pipeline *pl, struct mc_unit_state *st)
{
	size_t *which = calloc(p->n_units ? p->n_units : 1, sizeof(*which));
	int r = 0;

	pl->unit_parents = calloc(p->n_units ? p->n_units : 1, sizeof(*pl->unit_parents));
	if (!which || !pl->unit_parents) {
		free(which);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pl->n_units && r == 0; i++) {
		which[i] = (size_t)-1;
		if (!pol)
			st[i].no_policy = "the policies run in plan, apply and memctl run only";
		else if (!pl->units[i].cgroup || !cgroup_base(pl->units[i].cgroup))
			st[i].no_policy = "the unit has no cgroup now (not running)";
		else
			r = unit_parent_of(pl, i, &which[i]);
	}
	for (size_t k = 0; k < pl->n_unit_parents && r == 0; k++) {
		r = decide_parent(h, p, pol, pl, &pl->unit_parents[k]);
		/* v1: systemd makes a unit's memory cgroup only with MemoryAccounting */
		if (r == -ENOENT) {
			pl->unit_parents[k].missing = true;
			r = 0;
		}
	}
	for (size_t i = 0; i < pl->n_units && r == 0; i++) {
		if (which[i] == (size_t)-1)
			continue;
		if (pl->unit_parents[which[i]].missing) {
			st[i].no_policy = "its cgroup is not in the memory hierarchy";
			continue;
		}
		st[i].dec = &pl->unit_parents[which[i]].dec;
		st[i].group = cgroup_base(pl->units[i].cgroup);
		r = add_unit_settled(pl, p, i, st[i].dec);
	}
	free(which);
	return r;
}

/* The unit's files of the knobs systemd has no property for (and does not write). */
static void read_unit_files(struct mc_host *h, struct mc_unit_state *st)
{
	for (int k = 0; k < MC_KNOB__COUNT && st->cgroup; k++)
		if (!mc_knob_unit_property(k) && mc_host_caps(h)->file[k])
			st->raw_valid[k] = mc_host_read_knob(h, st->cgroup, k, &st->raw[k]) == 0;
}

/* Reads the profile's units through systemd and appends their steps to the plan. */
static int plan_units(struct mc_host *h, const struct mc_profile *p, struct mc_policy *pol,
		      struct mc_pipeline *pl)
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
		st[i].cgroup = *pl->units[i].cgroup ? pl->units[i].cgroup : NULL;
		read_unit_files(h, &st[i]);
		memcpy(st[i].prop, pl->units[i].prop, sizeof(st[i].prop));
		memcpy(st[i].prop_known, pl->units[i].prop_known, sizeof(st[i].prop_known));
	}
	if (r == 0)
		r = check_properties(h, p, pl);
	if (r == 0) {
		pl->failed = MC_STAGE_DECIDE;
		r = decide_units(h, p, pol, pl, st);
	}
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
	struct timespec now;
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
	clock_gettime(CLOCK_REALTIME, &now);
	ret->snap_time = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
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
		if (r == 0 && (r = plan_units(h, p, o->pol, ret)) < 0) {
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
	for (size_t i = 0; i < pl->n_unit_parents; i++) {
		free(pl->unit_parents[i].path);
		mc_decisions_free(&pl->unit_parents[i].dec);
	}
	free(pl->unit_parents);
	memset(pl, 0, sizeof(*pl));
}
